package page

import (
	"context"
	"slices"
	"testing"

	"github.com/httpslab/httpslab/internal/lab"
	"github.com/httpslab/httpslab/internal/labtest"
	"github.com/httpslab/httpslab/internal/transport"
)

// TestCompareProtocols loads a page over every protocol, interleaved,
// and checks the summaries, the median loads and the named differences.
func TestCompareProtocols(t *testing.T) {
	srv := labtest.StartServer(t, lab.Config{})
	c := Compare{
		Load:      Config{URL: srv.HTTPSURL + "/page/images?n=20&size=1000", TLS: transport.TLS{Trust: transport.Trust{RootCAs: srv.CA.Pool()}}},
		HTTPURL:   srv.HTTPURL + "/page/images?n=20&size=1000",
		Protocols: []Protocol{HTTP, HTTP1, HTTP2, HTTP3},
		Rounds:    3,
		Seed:      7,
	}
	res, err := c.Run(context.Background())
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	wantConns := map[Protocol]float64{HTTP: 6, HTTP1: 6, HTTP2: 1, HTTP3: 1}
	for _, p := range res.Protocols {
		if p.LoadTime.N != 3 || len(p.Loads) != 3 || p.Median == nil || p.Median.Protocol != p.Protocol {
			t.Fatalf("%s: %d loads summarised, %d kept, median %v; want 3, 3 and a load over %s", p.Protocol, p.LoadTime.N, len(p.Loads), p.Median, p.Protocol)
		}
		if p.Requests != 21 || p.Failed != 0 || p.Conns != wantConns[p.Protocol] || p.TTFB.N != 3 || p.CPU <= 0 {
			t.Errorf("%s: %v requests, %v failed, %v connections, %d TTFBs, CPU %v; want 21, 0, %v, 3, > 0",
				p.Protocol, p.Requests, p.Failed, p.Conns, p.TTFB.N, p.CPU, wantConns[p.Protocol])
		}
		if got := float64(p.Median.Duration.Microseconds()) / 1000; got < p.LoadTime.Min || got > p.LoadTime.Max {
			t.Errorf("%s: median load of %v ms outside the loads' range %v to %v", p.Protocol, got, p.LoadTime.Min, p.LoadTime.Max)
		}
	}
	var names []string
	for _, d := range res.Differences {
		names = append(names, d.Name)
	}
	if len(names) != 3 || names[0] != "TLS alone" || names[1] != "multiplexing" || names[2] != "QUIC" {
		t.Errorf("differences %v; want TLS alone, multiplexing, QUIC", names)
	}
}

// TestWarmLoads checks that --warm loads resume the TLS sessions of the
// loads before them and cold loads never do.
func TestWarmLoads(t *testing.T) {
	srv := labtest.StartServer(t, lab.Config{})
	for _, warm := range []bool{false, true} {
		c := Compare{
			Load:      Config{URL: srv.HTTPSURL + "/page/images?n=10&size=100", TLS: transport.TLS{Trust: transport.Trust{RootCAs: srv.CA.Pool()}}},
			Protocols: []Protocol{HTTP2, HTTP3},
			Rounds:    2,
			Warm:      warm,
		}
		res, err := c.Run(context.Background())
		if err != nil {
			t.Fatalf("Run (warm %v): %v", warm, err)
		}
		for _, p := range res.Protocols {
			if (p.Resumed > 0) != warm || p.Handshakes != 1 {
				t.Errorf("warm %v, %s: %v of %v handshakes resumed; want all when warm, none when cold", warm, p.Protocol, p.Resumed, p.Handshakes)
			}
		}
	}
}

// TestWarmup checks that the warm-up round runs by default and not with a
// negative Warmup: a warm load resumes the session of the load before
// it, which for the one measured load is the warm-up's.
func TestWarmup(t *testing.T) {
	srv := labtest.StartServer(t, lab.Config{})
	for _, warmup := range []int{0, -1} {
		c := Compare{
			Load:      Config{URL: srv.HTTPSURL + "/page/images?n=4&size=100", TLS: transport.TLS{Trust: transport.Trust{RootCAs: srv.CA.Pool()}}},
			Protocols: []Protocol{HTTP2},
			Rounds:    1,
			Warmup:    warmup,
			Warm:      true,
		}
		res, err := c.Run(context.Background())
		if err != nil {
			t.Fatalf("Run (Warmup %d): %v", warmup, err)
		}
		p := res.Protocols[0]
		if want := warmup == 0; p.LoadTime.N != 1 || (p.Resumed > 0) != want {
			t.Errorf("Warmup %d: %d loads, %v of %v handshakes resumed; want 1 load, resumed %v", warmup, p.LoadTime.N, p.Resumed, p.Handshakes, want)
		}
	}
}

// TestChoose checks the protocols of a run: a list, deduplicated in its
// order, or the one forced, by the page's scheme.
func TestChoose(t *testing.T) {
	tests := []struct {
		list   string
		forced transport.Protocol
		plain  bool
		want   []Protocol
		err    bool
	}{
		{"", transport.ProtoAuto, false, []Protocol{HTTP2}, false},
		{"", transport.ProtoAuto, true, []Protocol{HTTP}, false},
		{"", transport.HTTP1, false, []Protocol{HTTP1}, false},
		{"", transport.HTTP2, true, []Protocol{HTTP2C}, false},
		{"", transport.HTTP3, false, []Protocol{HTTP3}, false},
		{"h2, HTTP, h1,h2", transport.ProtoAuto, false, []Protocol{HTTP2, HTTP, HTTP1}, false},
		{"http", transport.ProtoAuto, true, []Protocol{HTTP}, false},
		{"http,h1", transport.ProtoAuto, true, nil, true},
		{"h4", transport.ProtoAuto, false, nil, true},
	}
	for _, tt := range tests {
		got, err := Choose(tt.list, tt.forced, tt.plain)
		if (err != nil) != tt.err || !slices.Equal(got, tt.want) {
			t.Errorf("Choose(%q, %v, %v) = %v, %v; want %v (error %v)", tt.list, tt.forced, tt.plain, got, err, tt.want, tt.err)
		}
	}
}
