//go:build !race

package tlsscan

import (
	"context"
	"net/url"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/httpslab/httpslab/internal/lab"
	"github.com/httpslab/httpslab/internal/labtest"
)

// TestServerOrderAsClassic: on nginx servers that impose their own suite
// order, the enumeration gives every version the list and the order checks
// the classic way gives (every candidate not yet picked offered one
// ClientHello after the other), in fewer connections one after the other:
// OpenSSL's order of ALL (without and with DHE suites, which it mixes
// with the ECDHE ones) and a list of nginx's own; and on the embedded
// server, on Go's rule (see aesGCMIfClientFirst).
func TestServerOrderAsClassic(t *testing.T) {
	dh1024, _ := dhParams(t)
	tests := []struct {
		name       string
		cert       lab.KeyKind
		directives string // empty: the embedded server
	}{
		{"the embedded server", lab.ECDSAP256, ""},
		{"ALL, TLS 1.0 to 1.3", lab.RSA2048, "ssl_protocols TLSv1 TLSv1.1 TLSv1.2 TLSv1.3;\nssl_ciphers ALL:@SECLEVEL=0;\nssl_prefer_server_ciphers on;"},
		{"ALL with DHE, TLS 1.0 to 1.2", lab.RSA2048, "ssl_protocols TLSv1 TLSv1.1 TLSv1.2;\nssl_ciphers ALL:@SECLEVEL=0;\nssl_prefer_server_ciphers on;\nssl_dhparam " + dh1024 + ";"},
		{"own list", lab.ECDSAP256, "ssl_protocols TLSv1.2 TLSv1.3;\nssl_prefer_server_ciphers on;\n" +
			"ssl_ciphers AES256-SHA:ECDHE-ECDSA-AES128-SHA:ECDHE-ECDSA-CHACHA20-POLY1305:AES128-GCM-SHA256:ECDHE-ECDSA-AES256-GCM-SHA384:ECDHE-ECDSA-AES128-GCM-SHA256;"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			var httpsURL string
			if tt.directives == "" {
				httpsURL = labtest.StartServer(t, lab.Config{Cert: tt.cert}).HTTPSURL
			} else {
				httpsURL = labtest.StartNginx(t, lab.NginxConfig{Cert: tt.cert, NoDefaults: true, TLSDirectives: tt.directives}).HTTPSURL
			}
			u, _ := url.Parse(httpsURL)
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			p := newProber(u.Host, u.Hostname(), 16, 5*time.Second, nil)
			e, err := enumerate(ctx, p, nil)
			if err != nil {
				t.Fatalf("enumerate: %v", err)
			}
			for _, vr := range e.Versions {
				if !vr.Supported {
					continue
				}
				if !vr.ServerOrder {
					t.Errorf("%s: not in the server's order", vr.Name)
				}
				var got []uint16
				for _, s := range vr.Suites {
					got = append(got, s.ID)
				}
				cands := candidateSuites(vr.Version == VersionTLS13)
				first, err := p.send(ctx, offerFor(vr.Version, cands), false)
				if err != nil || first.hello == nil {
					t.Fatalf("%s: first offer: %v", vr.Name, err)
				}
				want, server, gcm, err := classicOrder(ctx, p, vr.Version, cands, first.hello.suite)
				if err != nil {
					t.Fatalf("%s: classicOrder: %v", vr.Name, err)
				}
				if diff := cmp.Diff(idNames(want), idNames(got)); diff != "" {
					t.Errorf("%s: suites (-classic +enumeration):\n%s", vr.Name, diff)
				}
				if server != vr.ServerOrder || gcm != vr.AESGCMIfClientFirst {
					t.Errorf("%s: server order %v, AES-GCM if first %v; classic %v, %v", vr.Name, vr.ServerOrder, vr.AESGCMIfClientFirst, server, gcm)
				}
			}
		})
	}
}

func idNames(ids []uint16) []string {
	var out []string
	for _, id := range ids {
		out = append(out, SuiteName(id))
	}
	return out
}
