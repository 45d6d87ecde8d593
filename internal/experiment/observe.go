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

	"github.com/httpslab/httpslab/internal/transport"
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
// resuming the first's TLS session, and one TLS 1.2 handshake, and
// records what each showed.
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
	return obs, nil
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
