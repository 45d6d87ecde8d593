package lab_test

import (
	"crypto/tls"
	"crypto/x509"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/quic-go/quic-go/http3"

	"github.com/httpslab/httpslab/internal/lab"
	"github.com/httpslab/httpslab/internal/labtest"
)

func get(t *testing.T, c *http.Client, url string) (*http.Response, string) {
	t.Helper()
	resp, err := c.Get(url)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("reading %s: %v", url, err)
	}
	return resp, string(body)
}

func TestServerEndpoints(t *testing.T) {
	s := labtest.StartServer(t, lab.Config{})
	c := &http.Client{
		Transport:     &http.Transport{TLSClientConfig: &tls.Config{RootCAs: s.CA.Pool()}, ForceAttemptHTTP2: true},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		Timeout:       10 * time.Second,
	}
	tests := []struct {
		path       string
		wantStatus int
		wantLen    int // -1: do not check
		wantIn     string
	}{
		{"/", 200, -1, "httpslab embedded server"},
		{"/bytes/0", 200, 0, ""},
		{"/bytes/100000", 200, 100000, ""},
		{"/bytes/-1", 400, -1, "bytes: want"},
		{"/bytes/99999999999", 400, -1, "bytes: want"},
		{"/delay/10ms", 200, -1, "delayed 10ms"},
		{"/delay/0.01", 200, -1, "delayed 10ms"},
		{"/delay/61s", 400, -1, "delay"},
		{"/delay/x", 400, -1, "delay"},
		{"/redirect/3", 302, -1, ""},
		{"/redirect/x", 400, -1, "redirect"},
		{"/status/503", 503, -1, "Service Unavailable"},
		{"/status/99", 400, -1, "status"},
		{"/headers", 200, -1, `"Accept-Encoding"`},
	}
	for _, base := range []string{s.HTTPURL, s.HTTPSURL} {
		for _, tt := range tests {
			resp, body := get(t, c, base+tt.path)
			if resp.StatusCode != tt.wantStatus {
				t.Errorf("GET %s%s status = %d; want %d", base, tt.path, resp.StatusCode, tt.wantStatus)
			}
			if tt.wantLen >= 0 && len(body) != tt.wantLen {
				t.Errorf("GET %s%s body length = %d; want %d", base, tt.path, len(body), tt.wantLen)
			}
			if !strings.Contains(body, tt.wantIn) {
				t.Errorf("GET %s%s body = %q; want it to contain %q", base, tt.path, body, tt.wantIn)
			}
		}
	}
	resp, _ := get(t, c, s.HTTPSURL+"/redirect/3")
	if got := resp.Header.Get("Location"); got != "/redirect/2" {
		t.Errorf("/redirect/3 Location = %q; want /redirect/2", got)
	}
	if resp.ProtoMajor != 2 {
		t.Errorf("HTTPS proto = %s; want HTTP/2 by ALPN", resp.Proto)
	}
	if got := resp.Header.Get("Alt-Svc"); !strings.HasPrefix(got, `h3=":`) {
		t.Errorf("Alt-Svc = %q; want an h3 advertisement", got)
	}
	if resp.Header.Get("Strict-Transport-Security") == "" {
		t.Error("HTTPS response has no HSTS header")
	}
	resp, _ = get(t, c, s.HTTPURL+"/")
	if resp.Header.Get("Strict-Transport-Security") != "" {
		t.Error("plain HTTP response carries HSTS")
	}
}

func TestServerHTTP3AndResumption(t *testing.T) {
	for _, noTickets := range []bool{false, true} {
		s := labtest.StartServer(t, lab.Config{NoTickets: noTickets})
		tlsConf := &tls.Config{RootCAs: s.CA.Pool(), ClientSessionCache: tls.NewLRUClientSessionCache(4)}
		for i := 0; i < 3; i++ {
			tr := &http3.Transport{TLSClientConfig: tlsConf}
			resp, body := get(t, &http.Client{Transport: tr, Timeout: 10 * time.Second}, s.HTTPSURL+"/bytes/10")
			tr.Close()
			if resp.ProtoMajor != 3 || len(body) != 10 {
				t.Fatalf("HTTP/3 GET: proto %s, %d bytes; want HTTP/3.0 and 10", resp.Proto, len(body))
			}
		}
		st := s.Stats()
		wantResumed := int64(2)
		if noTickets {
			wantResumed = 0
		}
		if st.Handshakes != 3 || st.Resumed != wantResumed || st.Requests != 3 {
			t.Errorf("NoTickets=%v: Stats = %+v; want 3 handshakes, %d resumed, 3 requests", noTickets, st, wantResumed)
		}
	}
}

func TestCertificateKinds(t *testing.T) {
	for _, kind := range []lab.KeyKind{lab.ECDSAP256, lab.ECDSAP384, lab.RSA2048} {
		ca, err := lab.NewCA(kind)
		if err != nil {
			t.Fatalf("NewCA(%s): %v", kind, err)
		}
		leaf, err := ca.Issue(kind, lab.DefaultHosts...)
		if err != nil {
			t.Fatalf("Issue(%s): %v", kind, err)
		}
		_, err = leaf.TLS.Leaf.Verify(x509.VerifyOptions{Roots: ca.Pool(), DNSName: "127.0.0.1"})
		if err != nil {
			t.Errorf("%s leaf does not verify for 127.0.0.1: %v", kind, err)
		}
	}
	if _, err := lab.ParseKeyKind("dsa-1024"); err == nil {
		t.Error(`ParseKeyKind("dsa-1024") = nil error; want an error`)
	}
}

func TestServerKnobsAndRedirectEnd(t *testing.T) {
	s := labtest.StartServer(t, lab.Config{NoHSTS: true, NoHTTP3: true})
	if s.HTTP3 {
		t.Error("NoHTTP3: server says it serves HTTP/3")
	}
	c := &http.Client{
		Transport:     &http.Transport{TLSClientConfig: &tls.Config{RootCAs: s.CA.Pool()}},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		Timeout:       10 * time.Second,
	}
	resp, _ := get(t, c, s.HTTPSURL+"/redirect/1")
	if got := resp.Header.Get("Location"); resp.StatusCode != 302 || got != "/" {
		t.Errorf("/redirect/1 = %d to %q; want 302 to /", resp.StatusCode, got)
	}
	if resp.Header.Get("Strict-Transport-Security") != "" || resp.Header.Get("Alt-Svc") != "" {
		t.Errorf("NoHSTS, NoHTTP3: headers %v; want neither HSTS nor Alt-Svc", resp.Header)
	}
	resp, body := get(t, c, s.HTTPSURL+"/status/204")
	if resp.StatusCode != 204 || body != "" {
		t.Errorf("/status/204 = %d with %q; want 204 and no body", resp.StatusCode, body)
	}
}
