package tlsscan

import (
	"slices"
	"testing"

	"github.com/httpslab/httpslab/internal/lab"
)

// TestFirstFlightMeasured checks the computed Certificate message size
// against the one measured in the server's records, and the first-flight
// rule against the measured flight, on real nginx with TLS 1.3 and 1.2.
func TestFirstFlightMeasured(t *testing.T) {
	tests := []struct {
		name    string
		cfg     lab.NginxConfig
		version string
	}{
		{"TLS 1.3 ECDSA", lab.NginxConfig{}, "TLS 1.3"},
		{"TLS 1.2 ECDSA", lab.NginxConfig{NoDefaults: true, TLSDirectives: "ssl_protocols TLSv1.2;"}, "TLS 1.2"},
		{"TLS 1.3 RSA 4096 and root", lab.NginxConfig{Cert: lab.RSA4096, SendRoot: true}, "TLS 1.3"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			rep := auditNginx(t, tt.cfg)
			rec := rep.Records
			if rep.Negotiated.Version != tt.version {
				t.Fatalf("negotiated %s; want %s", rep.Negotiated.Version, tt.version)
			}
			if rec.Certificate != rep.Chain.Bytes {
				t.Errorf("Certificate message measured %d bytes, computed %d; want equal", rec.Certificate, rep.Chain.Bytes)
			}
			// The rest of the flight: ServerHello, key exchange, signature,
			// Finished and record headers, a few hundred bytes to about 2 KB.
			if rest := rec.FirstFlight - rec.Certificate; rest < 100 || rest > 2048 {
				t.Errorf("first flight %d bytes, certificate %d; want 100 to 2048 bytes besides the certificate", rec.FirstFlight, rec.Certificate)
			}
			large := slices.Contains(ids(rep), "chain-large")
			if large != (rec.FirstFlight > initialWindow) {
				t.Errorf("chain-large %v with a first flight of %d bytes; want it exactly above %d", large, rec.FirstFlight, initialWindow)
			}
			t.Logf("%s: first flight %d bytes, certificate %d", tt.name, rec.FirstFlight, rec.Certificate)
		})
	}
}
