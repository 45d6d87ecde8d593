package probe

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/httpslab/httpslab/internal/labtest"
	"github.com/httpslab/httpslab/internal/transport"
	"github.com/quic-go/quic-go/http3"
)

// hostileConfig is the probe of a misbehaving server, trusting its CA.
func hostileConfig(t *testing.T, mode labtest.Mode, proto transport.Protocol) Config {
	t.Helper()
	s := labtest.NewMisbehaving(t, mode)
	cfg := Config{URL: s.URL(), Protocol: proto}
	if s.CA != nil {
		cfg.TLS.RootCAs = s.CA.Pool()
	}
	return cfg
}

// TestHeaderLimit: a server that sends header fields without end, or one
// header line without end, is refused at the header limit (it used to
// fill gigabytes of memory), quickly and with an error that says so, over
// HTTP/1.1 and HTTP/2. HTTP/2's client ends a connection whose header
// block passes the limit with a PROTOCOL_ERROR (its own error for this is
// not exported), after reading not much more than the limit.
func TestHeaderLimit(t *testing.T) {
	limited := hostileConfig(t, labtest.HeadersForever, transport.ProtoAuto)
	limited.MaxHeaderBytes = 64 << 10
	tests := []struct {
		name  string
		cfg   Config
		limit int64
	}{
		{"headers forever", hostileConfig(t, labtest.HeadersForever, transport.ProtoAuto), transport.MaxHeaderBytes},
		{"endless line", hostileConfig(t, labtest.EndlessHeaderLine, transport.ProtoAuto), transport.MaxHeaderBytes},
		{"headers forever over TLS", hostileConfig(t, labtest.TLS(labtest.HeadersForever), transport.ProtoAuto), transport.MaxHeaderBytes},
		{"headers forever, 64 KiB", limited, 64 << 10},
		{"HTTP/2 CONTINUATION forever", hostileConfig(t, labtest.H2HeadersForever, transport.HTTP2), transport.MaxHeaderBytes},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newClient(t, tt.cfg)
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			start := time.Now()
			res, err := c.Do(ctx, transport.Fresh)
			took := time.Since(start)
			var hl *transport.HeaderLimitError
			switch {
			case tt.cfg.Protocol == transport.HTTP2:
				if err == nil || !strings.Contains(err.Error(), "PROTOCOL_ERROR") {
					t.Fatalf("Do = %v; want the connection ended with a PROTOCOL_ERROR", err)
				}
			case !errors.As(err, &hl) || hl.Limit != tt.limit:
				t.Fatalf("Do = %v; want a HeaderLimitError of %d bytes", err, tt.limit)
			}
			if took > 10*time.Second {
				t.Errorf("refused after %v; want it at the limit, well before the 20s timeout", took)
			}
			// What was read is the limit and a few buffers or frames more.
			if fin := res.Final(); fin == nil || fin.Status != 0 || fin.Bytes.ResponseRead > tt.limit+64<<10 {
				t.Errorf("final hop %+v; want no status and at most the limit read", fin)
			}
		})
	}
}

// TestInformationalBound: a server that loops 1xx responses fails the
// request at transport.MaxInformational of them, at once (probe used to
// keep every one, hundreds of megabytes, and run past its timeout); the
// first few are kept and all are counted. Seven and a 200 are a success.
func TestInformationalBound(t *testing.T) {
	seven := labtest.Reply(strings.Repeat("HTTP/1.1 102 Processing\r\n\r\n", 7) + "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
	tests := []struct {
		name      string
		cfg       Config
		wantCount int
		wantErr   bool
	}{
		{"1xx forever", hostileConfig(t, labtest.InformationalForever, transport.ProtoAuto), transport.MaxInformational + 1, true},
		{"HTTP/2 1xx forever", hostileConfig(t, labtest.H2InformationalForever, transport.HTTP2), transport.MaxInformational + 1, true},
		{"seven, then 200", hostileConfig(t, seven, transport.ProtoAuto), 7, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newClient(t, tt.cfg)
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			start := time.Now()
			res, err := c.Do(ctx, transport.Fresh)
			if errors.Is(err, transport.ErrInformational) != tt.wantErr {
				t.Fatalf("Do = %v; want ErrInformational %v", err, tt.wantErr)
			}
			if took := time.Since(start); took > 10*time.Second {
				t.Errorf("took %v; want the loop cut at its bound, at once", took)
			}
			fin := res.Final()
			if fin.InformationalCount != tt.wantCount || len(fin.Informational) != KeptInformational {
				t.Errorf("%d 1xx counted, %d kept; want %d and %d", fin.InformationalCount, len(fin.Informational), tt.wantCount, KeptInformational)
			}
			if wantStatus := map[bool]int{true: 0, false: 200}[tt.wantErr]; fin.Status != wantStatus {
				t.Errorf("status %d; want %d", fin.Status, wantStatus)
			}
		})
	}
}

// TestLongLocationClipped: a redirect to a Location of 512 KiB (under the
// header limit) that probe cannot follow is named in the error by its
// first bytes and its length (the error echoed all of it).
func TestLongLocationClipped(t *testing.T) {
	loc := "ftp://127.0.0.1/" + strings.Repeat("a", 512<<10)
	cfg := hostileConfig(t, labtest.Reply("HTTP/1.1 302 Found\r\nLocation: "+loc+"\r\nContent-Length: 0\r\n\r\n"), transport.ProtoAuto)
	cfg.FollowRedirects = true
	c := newClient(t, cfg)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	_, err := c.Do(ctx, transport.Fresh)
	if err == nil || len(err.Error()) > 1024 || !strings.Contains(err.Error(), fmt.Sprintf("… (%d bytes)", len(loc))) {
		t.Fatalf("Do = an error of %d bytes; want the Location cut to its first bytes and its length", len(fmt.Sprint(err)))
	}
}

// TestStalledWriteFailsInSend: a request body the server never lets
// through (HTTP/2 flow control) fails the request in the send phase: it
// was marked as failed while waiting for the answer, as if it had been
// written.
func TestStalledWriteFailsInSend(t *testing.T) {
	cfg := hostileConfig(t, labtest.H2StalledBody, transport.HTTP2)
	cfg.Body, cfg.Timeout = make([]byte, 1<<20), time.Second
	c := newClient(t, cfg)
	res, err := c.Do(context.Background(), transport.Fresh)
	if err == nil {
		t.Fatal("Do = nil error; want the stalled body to time out")
	}
	fin := res.Final()
	if name, _, ok := fin.Events.Unfinished(); !ok || name != PhaseSend {
		t.Errorf("unfinished phase %q (%v); want %q: the request was never written (%v)", name, ok, PhaseSend, err)
	}
}

// TestHeaderLimitHTTP3: over HTTP/3 the same limit holds (quic-go's
// default was 10 MB): a response whose header block passes it fails the
// request with a HeaderLimitError.
func TestHeaderLimitHTTP3(t *testing.T) {
	ca, leaf := labtest.LoopbackLeaf(t)
	udp, err := net.ListenPacket("udp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	pad := strings.Repeat("a", 1000)
	srv := &http3.Server{
		TLSConfig: http3.ConfigureTLSConfig(&tls.Config{Certificates: []tls.Certificate{leaf.TLS}}),
		Handler: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
			for range 1100 { // 1.1 MB of header fields
				w.Header().Add("X-Pad", pad)
			}
		}),
	}
	go srv.Serve(udp)
	t.Cleanup(func() { srv.Close(); udp.Close() })
	cfg := Config{URL: "https://" + udp.LocalAddr().String() + "/", Protocol: transport.HTTP3}
	cfg.TLS.RootCAs = ca.Pool()
	c := newClient(t, cfg)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if _, err := c.Do(ctx, transport.Fresh); !transport.IsHeaderLimit(err) {
		t.Fatalf("Do = %v; want a HeaderLimitError", err)
	}
	cfg.MaxHeaderBytes = 2 << 20
	if tl := do(t, newClient(t, cfg), transport.Fresh); tl.Status != http.StatusOK {
		t.Errorf("with a 2 MiB limit: status %d; want 200", tl.Status)
	}
}
