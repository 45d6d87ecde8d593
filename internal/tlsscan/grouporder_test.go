//go:build !race

package tlsscan

import (
	"net/url"
	"testing"

	"github.com/httpslab/httpslab/internal/lab"
	"github.com/httpslab/httpslab/internal/labtest"
)

// TestGroupOrder: nginx with ssl_ecdh_curve secp384r1:X25519 picks the
// TLS 1.2 group by its own order where it imposes its suite order, and
// by the client's otherwise; audit measures which, the OpenSSL 3 client's
// simulated group follows it, and openssl s_client -tls1_2 gets the same.
func TestGroupOrder(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		prefer, order, first, openssl string
	}{
		{"on", GroupOrderServer, "secp384r1", "secp384r1"},
		{"off", GroupOrderClient, "", "x25519"},
	} {
		t.Run("ssl_prefer_server_ciphers "+tt.prefer, func(t *testing.T) {
			t.Parallel()
			n := labtest.StartNginx(t, lab.NginxConfig{NoDefaults: true, TLSDirectives: "ssl_protocols TLSv1.2;\n" +
				"ssl_ecdh_curve secp384r1:X25519:prime256v1;\nssl_prefer_server_ciphers " + tt.prefer + ";"})
			rep, _, err := auditLab(t, n, false)
			if err != nil {
				t.Fatal(err)
			}
			if e := rep.Enumeration; e.TLS12GroupOrder != tt.order || e.TLS12Group != tt.first {
				t.Errorf("group order %q, first %q; want %q, %q", e.TLS12GroupOrder, e.TLS12Group, tt.order, tt.first)
			}
			u, _ := url.Parse(n.HTTPSURL)
			out, _ := runCmd(t, "openssl", "s_client", "-tls1_2", "-connect", u.Host)
			real := groupFromTempKey(out)
			for _, c := range rep.Clients {
				if c.Client == "OpenSSL 3.0, curl (Debian 12)" && (c.Group != tt.openssl || real != tt.openssl) {
					t.Errorf("OpenSSL 3 simulated %s, openssl s_client got %q; want %s for both", c.Group, real, tt.openssl)
				}
			}
		})
	}
}
