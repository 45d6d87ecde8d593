//go:build !race

package tlsscan

import (
	"context"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/httpslab/httpslab/internal/lab"
	"github.com/httpslab/httpslab/internal/labtest"
)

// TestClientRenegotiationDHENginx: nginx that speaks TLS 1.2 only with
// DHE suites (an RSA certificate, a 2048-bit ssl_dhparam) gets from both
// renegotiation checks the verdicts nginx with ECDHE suites gets, after
// a complete handshake with its DHE suite: secure renegotiation
// (renegotiation_info in the ServerHello), and a client's request for a
// new handshake refused with no_renegotiation, as openssl s_client's R
// sees it. A check that offered no DHE suite would get handshake_failure
// and say there is no TLS 1.2 handshake to renegotiate.
func TestClientRenegotiationDHENginx(t *testing.T) {
	t.Parallel()
	_, dh2048 := dhParams(t)
	type verdict struct {
		secure, client VulnStatus
		seen           string // what the client-renegotiation check saw after its handshake
	}
	var got []verdict
	for _, tt := range []struct {
		ciphers, want string
	}{
		{"ECDHE-RSA-AES128-GCM-SHA256:ECDHE-RSA-AES256-GCM-SHA384", "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256"},
		{"DHE-RSA-AES128-GCM-SHA256:DHE-RSA-AES256-GCM-SHA384", "TLS_DHE_RSA_WITH_AES_128_GCM_SHA256"},
	} {
		n := labtest.StartNginx(t, lab.NginxConfig{Cert: lab.RSA2048, NoDefaults: true,
			TLSDirectives: "ssl_protocols TLSv1.2;\nssl_ciphers " + tt.ciphers + ";\nssl_dhparam " + dh2048 + ";"})
		u, _ := url.Parse(n.HTTPSURL)
		checkRenegotiationVerdict(t, u.Host, tt.ciphers, tt.want, false)
		p := newProber(u.Host, "127.0.0.1", 2, 5*time.Second, nil)
		secure, secureSeen, err := checkRenegotiationInfo(context.Background(), p)
		if err != nil || secure != NotVulnerable {
			t.Errorf("%s: checkRenegotiationInfo = %s (%s), %v; want ok, renegotiation_info in the ServerHello", tt.ciphers, secure, secureSeen, err)
		}
		client, seen, err := checkClientRenegotiation(context.Background(), p)
		if err != nil {
			t.Fatalf("%s: checkClientRenegotiation: %v", tt.ciphers, err)
		}
		got = append(got, verdict{secure, client, strings.TrimPrefix(seen, tt.want+": ")})
	}
	if got[0] != got[1] {
		t.Errorf("verdicts on nginx with DHE suites %+v; want those on nginx with ECDHE suites %+v", got[1], got[0])
	}
}

// TestClientRenegotiationDHEOpenSSL: openssl s_server held to one DHE
// AEAD suite (its own DH group: s_server picks one to match the
// certificate's key) renegotiates when the client asks with
// -client_renegotiation, and refuses without it; the check says so after
// a handshake with that suite, as openssl s_client's R does.
func TestClientRenegotiationDHEOpenSSL(t *testing.T) {
	renegotiationOpenSSL(t, []renegTarget{
		{lab.RSA2048, "DHE-RSA-AES256-GCM-SHA384", "TLS_DHE_RSA_WITH_AES_256_GCM_SHA384"},
		{lab.RSA2048, "DHE-RSA-CHACHA20-POLY1305", "TLS_DHE_RSA_WITH_CHACHA20_POLY1305_SHA256"},
	})
}

// TestClientRenegotiationGroupsNginx: nginx held to one ECDHE group,
// secp384r1 or secp521r1, gets the check's handshake on that group and
// refuses its request for a new one, as it refuses openssl s_client's R,
// instead of being taken for a server without TLS 1.2.
func TestClientRenegotiationGroupsNginx(t *testing.T) {
	for _, curve := range []string{"secp384r1", "secp521r1"} {
		t.Run(curve, func(t *testing.T) {
			t.Parallel()
			const ciphers = "ECDHE-RSA-AES128-GCM-SHA256"
			n := labtest.StartNginx(t, lab.NginxConfig{Cert: lab.RSA2048, NoDefaults: true,
				TLSDirectives: "ssl_protocols TLSv1.2;\nssl_ciphers " + ciphers + ";\nssl_ecdh_curve " + curve + ";"})
			u, _ := url.Parse(n.HTTPSURL)
			checkRenegotiationVerdict(t, u.Host, ciphers, "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256", false)
		})
	}
}

// TestClientRenegotiationUnspokenSuites: nginx that speaks TLS 1.2 only
// with a Camellia suite, which the renegotiation check does not speak,
// refuses the check's ClientHello; the audit, whose enumeration found
// TLS 1.2 with that suite, says the check was not measured, naming it,
// instead of taking the server for one without TLS 1.2.
func TestClientRenegotiationUnspokenSuites(t *testing.T) {
	t.Parallel()
	n := labtest.StartNginx(t, lab.NginxConfig{Cert: lab.RSA2048, NoDefaults: true,
		TLSDirectives: "ssl_protocols TLSv1.2 TLSv1.3;\nssl_ciphers ECDHE-RSA-CAMELLIA128-SHA256;"})
	u, _ := url.Parse(n.HTTPSURL)
	rep := auditAddr(t, u.Host)
	c := checkByID(rep, idClientRenegotiation)
	const suite = "TLS_ECDHE_RSA_WITH_CAMELLIA_128_CBC_SHA256"
	if c == nil || c.Status != NotMeasured || !strings.Contains(c.Seen, "suites the check does not speak ("+suite+")") {
		t.Fatalf("client-renegotiation %+v; want not measured, naming %s", c, suite)
	}
	if !slices.ContainsFunc(rep.NotChecked, func(s string) bool { return strings.HasPrefix(s, "vulnerability "+idClientRenegotiation+": ") }) {
		t.Errorf("not checked %q; want the client-renegotiation check listed", rep.NotChecked)
	}
}
