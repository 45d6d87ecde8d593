package transport

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httptrace"
	"net/netip"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestParseResolve(t *testing.T) {
	tests := []struct {
		in      string
		want    Resolve
		wantErr bool
	}{
		{"example.com:443:127.0.0.1", Resolve{"example.com", 443, []netip.Addr{netip.MustParseAddr("127.0.0.1")}}, false},
		{"Example.COM:80:[::1],127.0.0.2", Resolve{"example.com", 80, []netip.Addr{netip.MustParseAddr("::1"), netip.MustParseAddr("127.0.0.2")}}, false},
		{"+*:443:::1", Resolve{}, true}, // an unbracketed IPv6 address is ambiguous
		{"*:443:[::1]", Resolve{"*", 443, []netip.Addr{netip.MustParseAddr("::1")}}, false},
		{"example.com:443", Resolve{}, true},
		{"example.com:http:127.0.0.1", Resolve{}, true},
		{"example.com:443:localhost", Resolve{}, true},
		{"example.com:443:[::1", Resolve{}, true},
	}
	for _, tt := range tests {
		got, err := ParseResolve(tt.in)
		if (err != nil) != tt.wantErr || !cmp.Equal(got, tt.want, cmp.Comparer(func(a, b netip.Addr) bool { return a == b })) {
			t.Errorf("ParseResolve(%q) = %+v, %v; want %+v, error %v", tt.in, got, err, tt.want, tt.wantErr)
		}
	}
}

func TestParseConnectTo(t *testing.T) {
	tests := []struct {
		in      string
		want    ConnectTo
		wantErr bool
	}{
		{"example.com:443:127.0.0.1:8443", ConnectTo{"example.com", 443, "127.0.0.1", 8443}, false},
		{"::[::1]:", ConnectTo{"", 0, "::1", 0}, false},
		{"[::1]:443:backend:", ConnectTo{"::1", 443, "backend", 0}, false},
		{"a:b:c:d", ConnectTo{}, true},
		{"a:1:b", ConnectTo{}, true},
	}
	for _, tt := range tests {
		got, err := ParseConnectTo(tt.in)
		if (err != nil) != tt.wantErr || got != tt.want {
			t.Errorf("ParseConnectTo(%q) = %+v, %v; want %+v, error %v", tt.in, got, err, tt.want, tt.wantErr)
		}
	}
}

func TestParseRoutes(t *testing.T) {
	got, err := ParseRoutes([]string{"a.test:443:127.0.0.1", "*:80:[::1]"}, []string{"b.test::c.test:8443"}, 6)
	want := Routes{
		Resolve: []Resolve{{Host: "a.test", Port: 443, Addrs: []netip.Addr{netip.MustParseAddr("127.0.0.1")}},
			{Host: "*", Port: 80, Addrs: []netip.Addr{netip.MustParseAddr("::1")}}},
		ConnectTo: []ConnectTo{{FromHost: "b.test", ToHost: "c.test", ToPort: 8443}},
		IPVersion: 6,
	}
	if err != nil || !cmp.Equal(got, want, cmp.Comparer(func(a, b netip.Addr) bool { return a == b })) {
		t.Errorf("ParseRoutes = %+v, %v; want %+v", got, err, want)
	}
	bad := []struct {
		resolve, connectTo []string
		ipVersion          int
		wantErr            string
	}{
		{[]string{"x:443"}, nil, 0, "parsing --resolve"},
		{nil, []string{"a:b:c:d"}, 0, "parsing --connect-to"},
		{nil, nil, 5, "IP version 5"},
	}
	for _, tt := range bad {
		if _, err := ParseRoutes(tt.resolve, tt.connectTo, tt.ipVersion); err == nil || !strings.Contains(err.Error(), tt.wantErr) {
			t.Errorf("ParseRoutes(%q, %q, %d) = %v; want an error with %q", tt.resolve, tt.connectTo, tt.ipVersion, err, tt.wantErr)
		}
	}
}

func TestRoute(t *testing.T) {
	lo := netip.MustParseAddr("127.0.0.1")
	v6 := netip.MustParseAddr("::1")
	d := &Dialer{Routes: Routes{
		ConnectTo: []ConnectTo{{FromHost: "a.test", FromPort: 443, ToHost: "b.test", ToPort: 8443}},
		Resolve:   []Resolve{{Host: "b.test", Port: 8443, Addrs: []netip.Addr{v6, lo}}},
	}}
	tests := []struct {
		addr string
		ipv  int
		want route
	}{
		{"a.test:443", 0, route{"b.test", "8443", []netip.Addr{v6, lo}}},
		{"a.test:443", 4, route{"b.test", "8443", []netip.Addr{lo}}},
		{"a.test:80", 0, route{"a.test", "80", nil}},
		{"B.TEST:8443", 6, route{"b.test", "8443", []netip.Addr{v6}}},
	}
	for _, tt := range tests {
		d.IPVersion = tt.ipv
		got, err := d.route(tt.addr)
		if err != nil || !cmp.Equal(got, tt.want, cmp.AllowUnexported(route{}), cmp.Comparer(func(a, b netip.Addr) bool { return a == b })) {
			t.Errorf("route(%q) -%d = %+v, %v; want %+v", tt.addr, tt.ipv, got, err, tt.want)
		}
	}
}

// attempts records the connect attempts a dial reports to its trace.
type attempts struct {
	mu   sync.Mutex
	done []string
}

func (a *attempts) trace(ctx context.Context) context.Context {
	return httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{
		ConnectDone: func(network, addr string, err error) {
			a.mu.Lock()
			defer a.mu.Unlock()
			res := "ok"
			if err != nil {
				res = "error"
			}
			a.done = append(a.done, addr+" "+res)
		},
	})
}

func TestDialResolveTriesEachAddress(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	port := ln.Addr().(*net.TCPAddr).Port
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Write([]byte("hello"))
			c.Close()
		}
	}()
	// 127.0.0.2 refuses on this port (the listener is on 127.0.0.1 only).
	d := &Dialer{Routes: Routes{Resolve: []Resolve{{Host: "x.test", Port: port, Addrs: []netip.Addr{netip.MustParseAddr("127.0.0.2"), netip.MustParseAddr("127.0.0.1")}}}}}
	var a attempts
	c, err := d.DialContext(a.trace(context.Background()), "tcp", "x.test:"+strconv.Itoa(port))
	if err != nil {
		t.Fatalf("DialContext: %v", err)
	}
	defer c.Close()
	b, _ := io.ReadAll(c)
	want := []string{"127.0.0.2:" + strconv.Itoa(port) + " error", "127.0.0.1:" + strconv.Itoa(port) + " ok"}
	if diff := cmp.Diff(want, a.done); diff != "" {
		t.Errorf("attempts (-want +got):\n%s", diff)
	}
	if got := c.Counts(); got.Read != int64(len(b)) || got.Read != 5 {
		t.Errorf("Counts() = %+v; want 5 bytes read", got)
	}
	if _, err := c.RTT(); err != nil {
		t.Errorf("RTT: %v", err)
	}
}

func TestDialTLSCountsHandshake(t *testing.T) {
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, "ok")
	}))
	defer srv.Close()
	pool := x509.NewCertPool()
	pool.AddCert(srv.Certificate())
	var mu sync.Mutex
	var events []string
	ctx := httptrace.WithClientTrace(context.Background(), &httptrace.ClientTrace{
		TLSHandshakeStart: func() { mu.Lock(); events = append(events, "start"); mu.Unlock() },
		TLSHandshakeDone: func(cs tls.ConnectionState, err error) {
			mu.Lock()
			defer mu.Unlock()
			events = append(events, "done "+tls.VersionName(cs.Version))
		},
	})
	var d Dialer
	tc, err := d.DialTLS(ctx, "tcp", srv.Listener.Addr().String(), &tls.Config{RootCAs: pool, ServerName: "example.com"})
	if err != nil {
		t.Fatalf("DialTLS: %v", err)
	}
	defer tc.Close()
	if diff := cmp.Diff([]string{"start", "done TLS 1.3"}, events); diff != "" {
		t.Errorf("trace events (-want +got):\n%s", diff)
	}
	raw := tc.NetConn().(*Conn)
	hs, ok := raw.Handshake()
	if !ok || hs.Written == 0 || hs.Read <= hs.Written {
		t.Errorf("Handshake() = %+v, %v; want both directions, the server's larger (its certificate)", hs, ok)
	}
	tc.Write([]byte("GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"))
	io.ReadAll(tc)
	after := raw.Counts()
	if d := after.Sub(hs); d.Written <= 0 || d.Read <= 0 {
		t.Errorf("bytes after the handshake %+v; want some each way", d)
	}
	if lw := raw.LastWrite(); lw.IsZero() || time.Since(lw) > time.Minute {
		t.Errorf("LastWrite() = %v; want a recent time", lw)
	}
}

func FuzzParseResolve(f *testing.F) {
	for _, s := range []string{"example.com:443:127.0.0.1", "*:443:[::1],127.0.0.1", "a:b:c", "[:]:1:2"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		r, err := ParseResolve(s)
		if err == nil && (len(r.Addrs) == 0 || r.Port == 0) {
			t.Errorf("ParseResolve(%q) = %+v without error; want addresses and a port", s, r)
		}
	})
}

func FuzzParseConnectTo(f *testing.F) {
	for _, s := range []string{"a:443:b:8443", "::[::1]:", "[::1]:1:x:", "a:b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		c, err := ParseConnectTo(s)
		if err == nil && (c.FromPort < 0 || c.FromPort > 65535 || c.ToPort < 0 || c.ToPort > 65535) {
			t.Errorf("ParseConnectTo(%q) = %+v without error; want valid ports", s, c)
		}
	})
}
