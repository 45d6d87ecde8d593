package probe

import (
	"time"

	"github.com/httpslab/httpslab/internal/transport"
)

// Phase names, in the order they happen on one request.
const (
	PhaseDNS      = "dns"      // name resolution
	PhaseConnect  = "connect"  // TCP connect (or the QUIC handshake's transport part, folded into tls for QUIC)
	PhaseTLS      = "tls"      // TLS handshake (for QUIC: the whole QUIC handshake)
	PhaseSend     = "send"     // writing the request, from connection ready to last byte written
	PhaseWait     = "wait"     // last request byte written to first byte of the final response
	PhaseDownload = "download" // first byte to last byte of the final response
)

// Events are the monotonic timestamps of one request. A zero time means
// the event did not happen (a reused connection has no DNS, connect or
// TLS events). Phases are differences of adjacent events, never of
// cumulative totals.
type Events struct {
	Start        time.Time // the request began
	DNSStart     time.Time
	DNSDone      time.Time
	ConnectStart time.Time // first dial attempt began
	ConnectDone  time.Time // the winning dial attempt completed
	TLSStart     time.Time
	TLSDone      time.Time
	GotConn      time.Time // a connection (new or reused) was ready for the request
	WroteRequest time.Time // last byte of the request written
	FirstByte    time.Time // first byte of the final (non-1xx) response
	BodyDone     time.Time // last byte of the response body read
}

// Phase is one timed phase of a request.
type Phase struct {
	Name     string        `json:"name"`
	Start    time.Duration `json:"start_ns"`    // offset from the request start
	Duration time.Duration `json:"duration_ns"` // never negative
}

// phaseBound is a phase with the events that begin and end it.
type phaseBound struct {
	name     string
	from, to time.Time
}

// bounds lists the phases with their events, in order.
func (e Events) bounds() []phaseBound {
	return []phaseBound{
		{PhaseDNS, e.DNSStart, e.DNSDone},
		{PhaseConnect, e.ConnectStart, e.ConnectDone},
		{PhaseTLS, e.TLSStart, e.TLSDone},
		{PhaseSend, e.GotConn, e.WroteRequest},
		{PhaseWait, e.WroteRequest, e.FirstByte},
		{PhaseDownload, e.FirstByte, e.BodyDone},
	}
}

// Phases derives the phases that happened from the events, in order.
// A phase is present only if both of its bounding events happened.
func (e Events) Phases() []Phase {
	if e.Start.IsZero() {
		return nil
	}
	var out []Phase
	for _, b := range e.bounds() {
		if !b.from.IsZero() && !b.to.IsZero() {
			out = append(out, Phase{Name: b.name, Start: b.from.Sub(e.Start), Duration: max(b.to.Sub(b.from), 0)})
		}
	}
	return out
}

// Unfinished returns the last phase that began and did not end (where a failed
// request stopped), by name and start offset; false when there is none.
func (e Events) Unfinished() (name string, start time.Duration, ok bool) {
	if e.Start.IsZero() {
		return "", 0, false
	}
	b := e.bounds()
	for i := len(b) - 1; i >= 0; i-- {
		if !b[i].from.IsZero() && b[i].to.IsZero() {
			return b[i].name, b[i].from.Sub(e.Start), true
		}
	}
	return "", 0, false
}

// Dial is one connection attempt (Happy Eyeballs may make several).
type Dial struct {
	Network  string        `json:"network"`
	Addr     string        `json:"addr"`
	Start    time.Duration `json:"start_ns"` // offset from the request start
	Duration time.Duration `json:"duration_ns"`
	Err      string        `json:"error,omitempty"`
}

// KeptInformational is how many 1xx responses a Timeline keeps; the
// others are counted only (up to transport.MaxInformational).
const KeptInformational = 5

// Informational is a 1xx response received before the final one.
type Informational struct {
	Status int           `json:"status"`
	At     time.Duration `json:"at_ns"` // offset from the request start
}

// Bytes counts bytes on the wire: TCP payload (TLS records included) or,
// for QUIC, UDP payload. Over TCP, handshake bytes are those exchanged up
// to the end of the TLS handshake and request and response bytes those
// after it. Over QUIC, where 0-RTT data and the first response can travel
// before the client's handshake ends, the split is by packet type:
// Initial and Handshake packets are handshake bytes, 0-RTT and 1-RTT
// packets request and response bytes. Handshake bytes are counted on the
// request that opened the connection; a reused connection has none.
type Bytes struct {
	HandshakeWritten int64 `json:"handshake_written"`
	HandshakeRead    int64 `json:"handshake_read"`
	RequestWritten   int64 `json:"request_written"`
	ResponseRead     int64 `json:"response_read"`
	// HeaderSize and BodySize are the application-level sizes of the
	// final response (decoded from the protocol's framing), for the TLS
	// and framing overhead to be shown against them.
	HeaderSize int64 `json:"header_size"`
	BodySize   int64 `json:"body_size"`
	// RequestBodySize is the size of the request body sent (curl's
	// size_upload); net/http keeps it out of the request header.
	RequestBodySize int64 `json:"request_body_size"`
}

// RTT is the measured round-trip time of the connection.
type RTT struct {
	// Kernel is the smoothed RTT from TCP_INFO (or QUIC's own estimate),
	// read after the response; zero when unknown.
	Kernel time.Duration `json:"kernel_ns"`
	// KernelVar is the RTT variance from TCP_INFO.
	KernelVar time.Duration `json:"kernel_var_ns"`
	// Connect is the TCP connect time, one round trip by construction.
	Connect time.Duration `json:"connect_ns"`
}

// Best returns the RTT to express phases in: the kernel's estimate when
// known, else the connect time.
func (r RTT) Best() time.Duration {
	if r.Kernel > 0 {
		return r.Kernel
	}
	return r.Connect
}

// TLS holds what the handshake negotiated.
type TLS struct {
	Version     string           `json:"version"` // tls.VersionName, e.g. "TLS 1.3"
	VersionID   uint16           `json:"version_id"`
	CipherSuite string           `json:"cipher_suite"` // tls.CipherSuiteName
	Group       string           `json:"group"`        // key exchange group, transport.GroupName
	PostQuantum bool             `json:"post_quantum"` // the group is a post-quantum hybrid
	ALPN        string           `json:"alpn"`
	Resumed     bool             `json:"resumed"`
	HelloRetry  bool             `json:"hello_retry_request"`
	EarlyData   bool             `json:"early_data"` // 0-RTT data was accepted
	ServerName  string           `json:"server_name"`
	Chain       []transport.Cert `json:"chain"`
	ChainBytes  int              `json:"chain_bytes"` // sum of the DER sizes
	OCSPStapled bool             `json:"ocsp_stapled"`
	Verified    bool             `json:"verified"` // false only with -k
	// VerifyResult is OpenSSL's code for the chain check (VerifyOK and
	// the others), curl's ssl_verify_result: with -k the check is run
	// all the same (without the host name, as curl does) and only its
	// outcome ignored. VerifyError says why the chain does not verify.
	VerifyResult int    `json:"verify_result"`
	VerifyError  string `json:"verify_error,omitempty"`
}

// Timeline is one request and everything measured about it. With -L a
// probe has one Timeline per redirect hop.
type Timeline struct {
	URL           string          `json:"url"`
	Method        string          `json:"method"`
	Proto         string          `json:"proto,omitempty"` // "HTTP/1.1", "HTTP/2.0", "HTTP/3.0"
	Status        int             `json:"status,omitempty"`
	Started       time.Time       `json:"started"` // wall clock, for HAR
	Events        Events          `json:"-"`
	Phases        []Phase         `json:"phases"`
	Total         time.Duration   `json:"total_ns"`
	Dials         []Dial          `json:"dials,omitempty"`
	Informational []Informational `json:"informational,omitempty"` // the first KeptInformational
	// InformationalCount is how many 1xx responses arrived, those kept
	// in Informational and the others.
	InformationalCount int                 `json:"informational_count,omitempty"`
	Reused             bool                `json:"reused"` // the connection was reused
	RemoteAddr         string              `json:"remote_addr,omitempty"`
	LocalAddr          string              `json:"local_addr,omitempty"`
	TLS                *TLS                `json:"tls,omitempty"` // nil for plain HTTP
	Bytes              Bytes               `json:"bytes"`
	RTT                RTT                 `json:"rtt"`
	RequestHeader      map[string][]string `json:"request_headers,omitempty"`
	Header             map[string][]string `json:"response_headers,omitempty"`
	Err                string              `json:"error,omitempty"` // why the request failed, if it did
}

// Phase returns the named phase and whether it happened.
func (t *Timeline) Phase(name string) (Phase, bool) {
	for _, p := range t.Phases {
		if p.Name == name {
			return p, true
		}
	}
	return Phase{}, false
}
