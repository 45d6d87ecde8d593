package tlsscan

import (
	"testing"

	"github.com/httpslab/httpslab/internal/lab"
)

// TestHandshakeRoundsCounted: the round trips behind the prices are
// counted on the wire, and are what the protocols say: TLS 1.3 1, TLS 1.2
// 2 (1 resumed), a HelloRetryRequest 1 more.
func TestHandshakeRoundsCounted(t *testing.T) {
	tests := []struct {
		name       string
		directives string
		rounds     int    // of the default client's full handshake
		finding    string // whose cost in round trips is measured
		cost       float64
	}{
		{"TLS 1.2 and 1.3", "ssl_protocols TLSv1.2 TLSv1.3;\nssl_session_cache shared:r:1m;", 1, "", 0},
		{"TLS 1.2 only", "ssl_protocols TLSv1.2;\nssl_session_cache shared:r:1m;", 2, "tls13-missing", 1},
		{"P-384 only", "ssl_protocols TLSv1.2 TLSv1.3;\nssl_ecdh_curve secp384r1;\nssl_session_cache shared:r:1m;", 2, "hello-retry", 1},
		{"TLS 1.2 without resumption", "ssl_protocols TLSv1.2;\nssl_session_cache off;\nssl_session_tickets off;", 2, "tls12-resumption-off", 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			rep := auditNginx(t, lab.NginxConfig{NoDefaults: true, TLSDirectives: tt.directives})
			res := rep.Resumption
			if rep.Negotiated.HandshakeRounds != tt.rounds || res.TLS12Rounds != 2 {
				t.Errorf("full handshake %d round trips, TLS 1.2 %d; want %d and 2", rep.Negotiated.HandshakeRounds, res.TLS12Rounds, tt.rounds)
			}
			if *res.TLS12Ticket && res.TLS12ResumedRounds != 1 {
				t.Errorf("resumed TLS 1.2 handshake %d round trips; want 1", res.TLS12ResumedRounds)
			}
			f := findingByID(rep.Findings, "http2-missing")
			if f == nil || f.Cost.RoundTrips != float64(1+tt.rounds) {
				t.Errorf("http2-missing %+v; want a cost of %d round trips (TCP and the counted handshake)", f, 1+tt.rounds)
			}
			if tt.finding == "" {
				return
			}
			if f := findingByID(rep.Findings, tt.finding); f == nil || f.Cost.RoundTrips != tt.cost {
				t.Errorf("%s %+v; want a cost of %g round trips", tt.finding, f, tt.cost)
			}
		})
	}
}
