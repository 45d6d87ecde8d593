package experiment

import (
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/httpslab/httpslab/internal/tlsscan"
	"github.com/httpslab/httpslab/internal/transport"
	"golang.org/x/net/http2"
)

// Target is where the measurement goes and how to trust it: the observer
// checks each variant there with the measurement's own TLS settings.
type Target struct {
	URL string
	TLS *tls.Config // nil: the system's roots
	// Routes are the measurement's --resolve, --connect-to, -4 and -6:
	// the observer's connections go where the measurement's go.
	Routes transport.Routes
}

// dialer returns the dialer of the target's routes.
func (t Target) dialer() *transport.Dialer { return &transport.Dialer{Routes: t.Routes} }

// dial opens a TCP connection to the URL's host:port, routed.
func (t Target) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	c, err := t.dialer().DialContext(ctx, network, addr)
	if err != nil {
		return nil, err // not a nil *transport.Conn in a non-nil net.Conn
	}
	return c, nil
}

// Observation is what a client sees of a live variant: facts by name,
// such as "resumed" or "header X-Frame-Options".
type Observation map[string]string

// observeBodyLimit bounds the body the observer reads.
const observeBodyLimit = 4 << 20

// observe sends two requests on two fresh connections, the second
// resuming the first's TLS session, makes one TLS 1.2 handshake and one
// resumed by session ID, reads the HTTP/2 settings where the server
// speaks HTTP/2, and records what each showed.
func observe(ctx context.Context, t Target) (Observation, error) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	u, err := url.Parse(t.URL)
	if err != nil {
		return nil, fmt.Errorf("observing %s: %w", t.URL, err)
	}
	cfg := &tls.Config{}
	if t.TLS != nil {
		cfg = t.TLS.Clone()
	}
	cfg.ClientSessionCache = tls.NewLRUClientSessionCache(4)
	obs := Observation{}
	var watch *recordWatch
	first, err := get(ctx, t, u, cfg, obs, &watch)
	if err != nil {
		return nil, err
	}
	if n, _ := strconv.Atoi(obs["body bytes"]); n > recordShowsAt && watch != nil {
		obs["tls record size"] = fmt.Sprintf("%d B", watch.commonSize())
	}
	if u.Scheme != "https" {
		return obs, nil
	}
	second, err := get(ctx, t, u, cfg, Observation{}, nil)
	if err != nil {
		return nil, err
	}
	obs["resumed"] = yesNo(second.DidResume)
	obs["version"] = tls.VersionName(first.Version)
	obs["group"] = transport.GroupName(first.CurveID)
	obs["alpn"] = cmpOr(first.NegotiatedProtocol, "none")
	if len(first.PeerCertificates) > 0 {
		obs["certificate"] = transport.KeyType(first.PeerCertificates[0].PublicKey)
	}
	obs["ocsp staple"] = "none"
	if n := len(first.OCSPResponse); n > 0 {
		obs["ocsp staple"] = fmt.Sprintf("%d B", n)
	}
	obs["tls1.2 cipher"] = tls12Cipher(ctx, t, u)
	obs["resumed by session ID"] = sessionIDResumed(ctx, t, u, cfg.ServerName)
	if first.NegotiatedProtocol == "h2" {
		if err := h2Settings(ctx, t, u, obs); err != nil {
			return nil, err
		}
	}
	return obs, nil
}

// sessionIDResumed says whether the server resumes a TLS 1.2 session by
// session ID ("yes", "no"), as a client without tickets does: tickets
// (on by default in nginx) hide a session cache from every other fact.
func sessionIDResumed(ctx context.Context, t Target, u *url.URL, serverName string) string {
	ok, err := tlsscan.ResumesBySessionID(ctx, transport.HostPort(u), cmpOr(serverName, u.Hostname()), 5*time.Second, t.dial)
	if err != nil {
		return "refused" // no TLS 1.2, as the "tls1.2 cipher" fact says
	}
	return yesNo(ok)
}

// h2Settings reads the server's HTTP/2 SETTINGS frame on a connection of
// its own and records each setting as "h2 SETTINGS_NAME"
// (http2_max_concurrent_streams, http2_body_preread_size show there).
func h2Settings(ctx context.Context, t Target, u *url.URL, obs Observation) error {
	cfg := &tls.Config{}
	if t.TLS != nil {
		cfg = t.TLS.Clone()
	}
	cfg.NextProtos = []string{"h2"}
	if cfg.ServerName == "" {
		cfg.ServerName = u.Hostname()
	}
	c, err := t.dialer().DialTLS(ctx, "tcp", transport.HostPort(u), cfg)
	if err != nil {
		return fmt.Errorf("observing %s: HTTP/2 settings: %w", u, err)
	}
	defer c.Close()
	if d, ok := ctx.Deadline(); ok {
		_ = c.SetDeadline(d)
	}
	if _, err := io.WriteString(c, http2.ClientPreface); err != nil {
		return fmt.Errorf("observing %s: HTTP/2 settings: %w", u, err)
	}
	fr := http2.NewFramer(c, c)
	if err := fr.WriteSettings(); err != nil {
		return fmt.Errorf("observing %s: HTTP/2 settings: %w", u, err)
	}
	// The server's SETTINGS is its first frame (RFC 9113, 3.4); a few
	// others are allowed before a server that breaks the rule fails.
	for range 8 {
		f, err := fr.ReadFrame()
		if err != nil {
			return fmt.Errorf("observing %s: HTTP/2 settings: %w", u, err)
		}
		sf, ok := f.(*http2.SettingsFrame)
		if !ok || sf.IsAck() {
			continue
		}
		return sf.ForeachSetting(func(s http2.Setting) error {
			obs["h2 "+s.ID.String()] = strconv.FormatUint(uint64(s.Val), 10)
			return nil
		})
	}
	return fmt.Errorf("observing %s: no HTTP/2 SETTINGS frame from the server", u)
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

func cmpOr(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// recordShowsAt is the body size above which the most frequent length of
// the TLS records of a response shows ssl_buffer_size: a record holds at
// most 16 KiB, so a response of 64 KiB or less may come in a few records
// of other lengths whatever the setting, as few as the records of TLS
// 1.3's handshake and session tickets, which are counted with them.
const recordShowsAt = 64 << 10

// get makes one GET on a new connection (HTTP/2 where offered), asking for
// gzip, and records the status, headers and body size. With watch set, the
// connection's records are counted there.
func get(ctx context.Context, t Target, u *url.URL, cfg *tls.Config, obs Observation, watch **recordWatch) (tls.ConnectionState, error) {
	dial := t.dial
	if watch != nil {
		dial = func(ctx context.Context, network, addr string) (net.Conn, error) {
			c, err := t.dial(ctx, network, addr)
			if err != nil {
				return nil, err
			}
			// One request on a transport without keep-alive: one
			// connection, dialled before the response is read.
			*watch = newRecordWatch(c)
			return *watch, nil
		}
	}
	tr := &http.Transport{TLSClientConfig: cfg, ForceAttemptHTTP2: true, DisableKeepAlives: true, DialContext: dial}
	defer tr.CloseIdleConnections()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return tls.ConnectionState{}, err
	}
	// Asked for explicitly, the transport leaves the body compressed and
	// the Content-Encoding header in place.
	req.Header.Set("Accept-Encoding", "gzip")
	resp, err := tr.RoundTrip(req)
	if err != nil {
		return tls.ConnectionState{}, fmt.Errorf("observing %s: %w", u, err)
	}
	defer resp.Body.Close()
	n, err := io.Copy(io.Discard, io.LimitReader(resp.Body, observeBodyLimit))
	if err != nil {
		return tls.ConnectionState{}, fmt.Errorf("observing %s: reading the body: %w", u, err)
	}
	obs["status"] = strconv.Itoa(resp.StatusCode)
	obs["body bytes"] = strconv.FormatInt(n, 10)
	obs["content-encoding"] = cmpOr(resp.Header.Get("Content-Encoding"), "none")
	for name, vs := range resp.Header {
		if name != "Date" {
			obs["header "+name] = strings.Join(vs, ", ")
		}
	}
	if resp.TLS == nil {
		return tls.ConnectionState{}, nil
	}
	return *resp.TLS, nil
}

// tls12Cipher is the suite the server picks in a TLS 1.2 handshake
// (ssl_ciphers and ssl_prefer_server_ciphers decide it; TLS 1.3's suites
// are not nginx's to order), or "refused".
func tls12Cipher(ctx context.Context, t Target, u *url.URL) string {
	cfg := &tls.Config{}
	if t.TLS != nil {
		cfg = t.TLS.Clone()
	}
	cfg.MinVersion, cfg.MaxVersion = tls.VersionTLS10, tls.VersionTLS12
	if cfg.ServerName == "" {
		cfg.ServerName = u.Hostname()
	}
	c, err := t.dialer().DialTLS(ctx, "tcp", transport.HostPort(u), cfg)
	if err != nil {
		return "refused"
	}
	defer c.Close()
	return tls.CipherSuiteName(c.ConnectionState().CipherSuite)
}
