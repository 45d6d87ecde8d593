package compare

import (
	"context"
	"errors"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/httpslab/httpslab/internal/transport"
)

func TestWithoutTLS13(t *testing.T) {
	names := func(keys []Key) []string {
		var out []string
		for _, k := range keys {
			out = append(out, k.Name())
		}
		return out
	}
	proto, err := Matrix([]string{DimScheme, DimProto})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		keys []Key
		want []string
	}{
		{"default", DefaultMatrix(), []string{"http h1", "https h1 TLS1.2", "https h1 TLS1.2 resumed", "https h2 TLS1.2",
			"http h1 keep-alive", "https h1 TLS1.2 keep-alive"}},
		{"scheme,proto", proto, []string{"http h1", "https h1 TLS1.2", "https h2 TLS1.2"}},
	}
	for _, tt := range tests {
		if got := names(WithoutTLS13(tt.keys)); !slices.Equal(got, tt.want) {
			t.Errorf("WithoutTLS13(%s) = %q; want %q", tt.name, got, tt.want)
		}
	}
}

// TestFindingsWithoutTLS13: the summary of the matrix for a server
// without TLS 1.3 speaks of HTTP/2 and of the kept-alive connection too,
// with TLS 1.2 (it left them out, as it looked for TLS 1.3 only).
func TestFindingsWithoutTLS13(t *testing.T) {
	const rtt = 40 * time.Millisecond
	rtts := map[string]float64{"http h1": 2, "https h1 TLS1.2": 4, "https h1 TLS1.2 resumed": 3, "https h2 TLS1.2": 4,
		"http h1 keep-alive": 1, "https h1 TLS1.2 keep-alive": 1}
	var vs []Variant
	for i, k := range WithoutTLS13(DefaultMatrix()) {
		n, ok := rtts[k.Name()]
		if !ok {
			t.Fatalf("no round trips for %s", k.Name())
		}
		r := rand.New(rand.NewPCG(uint64(i), 1))
		vs = append(vs, Variant{Key: k, Sampler: func(context.Context) (Sample, error) {
			return Sample{Total: time.Duration(n*float64(rtt)) + time.Duration(r.Float64()*float64(time.Millisecond)), RTT: rtt}, nil
		}})
	}
	res, err := Run(context.Background(), Config{Variants: vs, Runs: 10, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	got := strings.Join(res.Findings(), ".\n")
	for _, want := range []string{
		"HTTPS costs +2.0 RTT (+",
		"resumption saves 1.0 RTT (",
		"HTTP/2 makes no significant difference (~ ",
		") over HTTP/1.1 on a fresh connection with TLS 1.2",
		"a kept-alive connection saves 3.0 RTT (",
		") over a fresh HTTPS connection with TLS 1.2",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("findings lack %q:\n%s", want, got)
		}
	}
}

// TestPlan: the default matrix without --vary, a matrix of the named
// dimensions with it, TLS 1.2 forms for a server without TLS 1.3, and
// the refusals: the TLS version varied on such a server, an unknown
// dimension, a single variant.
func TestPlan(t *testing.T) {
	if keys, err := Plan("", false); err != nil || len(keys) != len(DefaultMatrix()) {
		t.Errorf("Plan(\"\", false) = %d keys, %v; want the default matrix", len(keys), err)
	}
	keys, err := Plan("scheme,proto", true)
	if err != nil || len(keys) < 2 || keys[0].Scheme != "http" {
		t.Fatalf("Plan(scheme,proto, no TLS 1.3) = %v, %v; want plain HTTP first", keys, err)
	}
	for _, k := range keys {
		if k.TLS == "1.3" || k.Proto == transport.HTTP3 {
			t.Errorf("Plan(scheme,proto, no TLS 1.3) has %s", k.Name())
		}
	}
	if _, err := Plan("tls", true); !errors.Is(err, ErrOneTLSVersion) {
		t.Errorf("Plan(tls, no TLS 1.3) = %v; want ErrOneTLSVersion", err)
	}
	if _, err := Plan("speed", false); err == nil {
		t.Error("Plan(speed) = nil error; want an unknown dimension")
	}
	if _, err := Plan("conn", true); err != nil {
		t.Errorf("Plan(conn, no TLS 1.3) = %v; want fresh and kept-alive TLS 1.2", err)
	}
}

// TestKeyMode: the conn and handshake dimensions of a key map to the one
// connection mode probe runs it with.
func TestKeyMode(t *testing.T) {
	http := Key{Scheme: "http", Proto: transport.HTTP1, Conn: "fresh"}
	tests := []struct {
		k    Key
		want transport.ConnMode
	}{
		{http, transport.Fresh},
		{http.with(DimConn, "reuse"), transport.KeepAlive},
		{base, transport.Fresh},
		{base.with(DimHandshake, "resumed"), transport.Resumed},
		{base.with(DimProto, "http3").with(DimHandshake, "0rtt"), transport.ZeroRTT},
		{base.with(DimConn, "reuse"), transport.KeepAlive},
		{base.with(DimHandshake, "resumed").with(DimConn, "reuse"), transport.KeepAlive},
	}
	for _, tt := range tests {
		if got := tt.k.Mode(); got != tt.want {
			t.Errorf("%s: Mode() = %v; want %v", tt.k.Name(), got, tt.want)
		}
	}
}
