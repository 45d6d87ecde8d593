package cli

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"os"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/httpslab/httpslab/internal/probe"
	"github.com/httpslab/httpslab/internal/transport"
	"github.com/quic-go/quic-go"
	"github.com/spf13/pflag"
)

// requestFlags are the request, connection and TLS flags that probe,
// bench and compare share, spelled as curl spells them.
type requestFlags struct {
	tls12, tls13         bool
	tlsMax               string
	ciphers, curves      string
	cacert               string
	insecure             bool
	resolve, connectTo   []string
	ipv4, ipv6           bool
	headers              []string
	method               string
	data, dataBinary     []string
	http11, http2, http3 bool
	maxTime              string
	maxHeader            headerSize
}

// add registers the flags on fs.
func (f *requestFlags) add(fs *pflag.FlagSet) {
	f.addTLS(fs)
	f.addRequest(fs)
}

// addTLS registers curl's TLS and trust flags only (bench uses these and
// spells the rest as wrk and h2load do).
func (f *requestFlags) addTLS(fs *pflag.FlagSet) {
	fs.BoolVar(&f.tls12, "tlsv1.2", false, "use TLS 1.2 or later")
	fs.BoolVar(&f.tls13, "tlsv1.3", false, "use TLS 1.3")
	fs.StringVar(&f.tlsMax, "tls-max", "", "highest TLS `version` to offer: 1.0, 1.1, 1.2 or 1.3")
	fs.StringVar(&f.ciphers, "ciphers", "", "TLS 1.2 cipher suite `list`, OpenSSL or IANA names, ':' separated")
	fs.StringVar(&f.curves, "curves", "", "key exchange group `list` in order, as the TLS registry names them (x25519:secp256r1, X25519MLKEM768) or OpenSSL does (prime256v1, P-256)")
	fs.StringVar(&f.cacert, "cacert", "", "verify the server against the CA certificates in this PEM `file`")
	fs.BoolVarP(&f.insecure, "insecure", "k", false, "do not verify the server's certificate")
}

// addRequest registers the connection, request and protocol flags.
func (f *requestFlags) addRequest(fs *pflag.FlagSet) {
	fs.StringArrayVar(&f.resolve, "resolve", nil, "connect to ADDR without DNS, given as `HOST:PORT:ADDR[,ADDR]` (repeatable)")
	fs.StringArrayVar(&f.connectTo, "connect-to", nil, "connect to HOST2:PORT2 instead, given as `HOST1:PORT1:HOST2:PORT2` (repeatable)")
	fs.BoolVarP(&f.ipv4, "ipv4", "4", false, "use IPv4 addresses only")
	fs.BoolVarP(&f.ipv6, "ipv6", "6", false, "use IPv6 addresses only")
	fs.StringArrayVarP(&f.headers, "header", "H", nil, "extra request `header` 'Name: value' (repeatable; 'Name:' removes a default)")
	fs.StringVarP(&f.method, "request", "X", "", "request `method`")
	fs.StringArrayVarP(&f.data, "data", "d", nil, "request body `data`, sent as a form; @file reads a file, @- standard input, without newlines (repeatable, joined with &)")
	fs.StringArrayVar(&f.dataBinary, "data-binary", nil, "request body `data` as is; @file reads a file, @- standard input, unchanged")
	fs.BoolVar(&f.http11, "http1.1", false, "use HTTP/1.1")
	fs.BoolVar(&f.http2, "http2", false, "use HTTP/2 (over http://: with prior knowledge)")
	fs.BoolVar(&f.http3, "http3", false, "use HTTP/3 over QUIC")
	fs.StringVarP(&f.maxTime, "max-time", "m", "", "give up after this long, in `seconds` (2.5) or with a unit (1500ms)")
	addHeaderSize(fs, &f.maxHeader)
}

// tls returns the TLS setup of the flags.
func (f *requestFlags) tls() (transport.TLS, error) {
	t, err := transport.CurlTLS{TLSv12: f.tls12, TLSv13: f.tls13, Max: f.tlsMax, Ciphers: f.ciphers, Curves: f.curves,
		CAFile: f.cacert, Insecure: f.insecure}.TLS()
	if err != nil {
		return t, usageError{err}
	}
	if f.cacert != "" {
		if _, err := os.Stat(f.cacert); err != nil {
			return t, usagef("--cacert: %v", err)
		}
	}
	return t, nil
}

// protocol returns the probe protocol chosen by --http1.1, --http2 or --http3.
func (f *requestFlags) protocol() (transport.Protocol, error) {
	var chosen []transport.Protocol
	for _, p := range []struct {
		on   bool
		name transport.Protocol
	}{{f.http11, transport.HTTP1}, {f.http2, transport.HTTP2}, {f.http3, transport.HTTP3}} {
		if p.on {
			chosen = append(chosen, p.name)
		}
	}
	switch len(chosen) {
	case 0:
		return transport.ProtoAuto, nil
	case 1:
		return chosen[0], nil
	}
	return transport.ProtoAuto, usagef("choose one of --http1.1, --http2 and --http3")
}

// timeout reads --max-time: seconds as curl takes them, or a Go duration.
// Not given, it is def, the command's own bound; 0 is curl's "no limit".
func (f *requestFlags) timeout(def time.Duration) (time.Duration, error) {
	if f.maxTime == "" {
		return def, nil
	}
	d, err := parseSeconds(f.maxTime)
	if err != nil || d < 0 {
		return 0, usagef("--max-time %q: want seconds (2.5) or a duration (1500ms)", f.maxTime)
	}
	return d, nil
}

// parseSeconds reads a time as curl (--max-time 2.5) and wrk (-d 5) take
// it, a bare number of seconds, or as a Go duration (1500ms, 1m30s).
func parseSeconds(s string) (time.Duration, error) {
	if secs, err := strconv.ParseFloat(s, 64); err == nil {
		if math.IsNaN(secs) || math.IsInf(secs, 0) || math.Abs(secs) > maxBareSeconds {
			return 0, fmt.Errorf("%q seconds is out of range", s)
		}
		return time.Duration(secs * float64(time.Second)), nil
	}
	return time.ParseDuration(s)
}

// maxBareSeconds bounds a bare number of seconds, so that its conversion
// to a Duration cannot overflow (about 292 years fit).
const maxBareSeconds = 1e9

// header reads the -H flags.
func (f *requestFlags) header() (http.Header, error) { return parseHeaders(f.headers) }

// parseHeaders reads -H lines; a malformed one is a usage error.
func parseHeaders(lines []string) (http.Header, error) {
	h, err := transport.ParseHeaderLines(lines)
	if err != nil {
		return nil, usageError{err}
	}
	return h, nil
}

// body reads -d and --data-binary, with curl's @file forms.
func (f *requestFlags) body() ([]byte, error) {
	if len(f.data) == 0 && len(f.dataBinary) == 0 {
		return nil, nil
	}
	var parts [][]byte
	for _, d := range f.data {
		b, err := readData(d)
		if err != nil {
			return nil, err
		}
		if strings.HasPrefix(d, "@") {
			b = bytes.ReplaceAll(bytes.ReplaceAll(b, []byte("\r"), nil), []byte("\n"), nil)
		}
		parts = append(parts, b)
	}
	for _, d := range f.dataBinary {
		b, err := readData(d)
		if err != nil {
			return nil, err
		}
		parts = append(parts, b)
	}
	return bytes.Join(parts, []byte("&")), nil
}

// maxBody bounds a request body read from a file or standard input.
const maxBody = 64 << 20

// readData reads a -d or --data-binary argument: the text itself, or
// with @ the contents of a file, @- standard input, as curl does, up to
// maxBody bytes.
func readData(arg string) ([]byte, error) {
	name, ok := strings.CutPrefix(arg, "@")
	if !ok {
		return []byte(arg), nil
	}
	b, err := readInput(name, stdin, maxBody)
	if err != nil {
		return nil, usagef("-d %s: %v", arg, err)
	}
	return b, nil
}

// probeConfig turns the flags into a probe.Config for url; without
// --max-time, a request gives up after defaultTimeout.
func (f *requestFlags) probeConfig(url string, defaultTimeout time.Duration) (probe.Config, error) {
	cfg := probe.Config{URL: url, Method: f.method}
	var err error
	if cfg.TLS, err = f.tls(); err != nil {
		return cfg, err
	}
	if cfg.Protocol, err = f.protocol(); err != nil {
		return cfg, err
	}
	if cfg.Timeout, err = f.timeout(defaultTimeout); err != nil {
		return cfg, err
	}
	cfg.MaxHeaderBytes = int64(f.maxHeader)
	if cfg.Header, err = f.header(); err != nil {
		return cfg, err
	}
	if cfg.Body, err = f.body(); err != nil {
		return cfg, err
	}
	if cfg.Routes, err = f.routes(); err != nil {
		return cfg, err
	}
	return cfg, nil
}

// routes reads -4/-6 (0 when neither is given), --resolve and
// --connect-to, parsed once for every runner; bad entries are usage
// errors.
func (f *requestFlags) routes() (transport.Routes, error) {
	ipVersion := 0
	switch {
	case f.ipv4 && f.ipv6:
		return transport.Routes{}, usagef("choose one of -4 and -6")
	case f.ipv4:
		ipVersion = 4
	case f.ipv6:
		ipVersion = 6
	}
	r, err := transport.ParseRoutes(f.resolve, f.connectTo, ipVersion)
	if err != nil {
		return transport.Routes{}, usageError{err}
	}
	return r, nil
}

// hintFor suggests what to do about a failed request; "" when nothing
// useful can be said. probe and compare use it for their connection errors.
func hintFor(err error) string {
	var (
		unknownCA x509.UnknownAuthorityError
		hostname  x509.HostnameError
		invalid   x509.CertificateInvalidError
		dnsErr    *net.DNSError
		idle      *quic.IdleTimeoutError
		hsTimeout *quic.HandshakeTimeoutError
		netErr    net.Error
		record    tls.RecordHeaderError
		addrErr   *net.AddrError
	)
	switch {
	case errors.As(err, &unknownCA):
		return "the certificate is not signed by a CA you trust (self-signed?); pass --cacert FILE or -k"
	case errors.As(err, &hostname):
		return "the certificate does not name this host; use --resolve or --connect-to to keep the right name, or -k"
	case errors.As(err, &invalid):
		if invalid.Reason == x509.Expired {
			return "the certificate has expired or is not yet valid (check the clocks); -k skips the check"
		}
		return "the certificate is not valid for a server; -k skips the check"
	case errors.Is(err, syscall.ECONNREFUSED):
		return "nothing listens on that address and port; is the server running? ('httpslab serve' starts one)"
	case errors.As(err, &dnsErr):
		return "the name does not resolve; --resolve HOST:PORT:ADDR connects without DNS"
	case serverAlert(err, alertProtocolVersion, alertHandshakeFailure):
		return "the server and the client share no TLS version or cipher suite; check --tlsv1.2/--tlsv1.3, --tls-max, --ciphers and --curves"
	case errors.As(err, &idle), errors.As(err, &hsTimeout):
		return "no QUIC answer; is HTTP/3 served over UDP on this port? Try without --http3"
	case serverAlert(err, alertNoApplicationProtocol):
		return "the server offers none of the protocols asked for in ALPN (HTTP/2 with --http2?); leave out --http2 to let it choose"
	case errors.As(err, &addrErr) && addrErr.Err == "no suitable address found":
		return "-4 or -6 leaves no address of this host (an IP literal of the other family, or a name with addresses of one family only)"
	case transport.IsHeaderLimit(err):
		return "the server sent a larger response header than --max-header-size allows (1MiB unless set); raise it if the header is real"
	case errors.Is(err, transport.ErrInformational):
		return "the server keeps sending 1xx (informational) responses instead of its answer; the first few and the count are shown above"
	case strings.Contains(err.Error(), "connection error: PROTOCOL_ERROR"):
		return "the server broke the HTTP/2 protocol; a header block larger than --max-header-size ends the connection so, as does an invalid header field"
	case errors.As(err, &record):
		return "the server did not answer with TLS; is this a plain-HTTP port? Try http:// (or the server's HTTPS port)"
	case errors.Is(err, io.ErrUnexpectedEOF):
		return "the server closed the connection before the end of the response"
	case errors.Is(err, io.EOF):
		return "the server closed the connection without an answer; a TLS server does so when it accepts none of the offered versions, suites or names (try --tls-max, --ciphers), or when it does not speak TLS"
	case strings.Contains(err.Error(), "looked like an HTTP/1.1 header"):
		return "the server answered HTTP/1.1 to HTTP/2 without TLS (prior knowledge); use https:// or leave out --http2"
	case errors.Is(err, context.DeadlineExceeded), errors.As(err, &netErr) && netErr.Timeout():
		return "the server did not answer in time; raise --max-time"
	}
	return ""
}

// TLS alerts the hints tell apart (RFC 8446, section 6).
const (
	alertHandshakeFailure      tls.AlertError = 40
	alertProtocolVersion       tls.AlertError = 70
	alertNoApplicationProtocol tls.AlertError = 120
)

// serverAlert reports whether the server refused the handshake with one
// of the alerts given. Over QUIC the alert comes as a tls.AlertError;
// over TCP crypto/tls keeps its alert type private, and it comes as a
// "remote error" whose text is the alert's description.
func serverAlert(err error, alerts ...tls.AlertError) bool {
	var alert tls.AlertError
	if errors.As(err, &alert) && slices.Contains(alerts, alert) {
		return true
	}
	var op *net.OpError
	if !errors.As(err, &op) || op.Op != "remote error" || op.Err == nil {
		return false
	}
	for _, a := range alerts {
		if strings.HasSuffix(op.Err.Error(), a.Error()) {
			return true
		}
	}
	return false
}
