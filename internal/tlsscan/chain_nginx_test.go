//go:build !race

package tlsscan

import (
	"context"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/httpslab/httpslab/internal/lab"
	"github.com/httpslab/httpslab/internal/labtest"
	"github.com/httpslab/httpslab/internal/transport"
)

// auditLab audits a lab nginx trusting its CA as --cacert would, with -k
// when insecure; it returns the report, the error and the config used.
func auditLab(t *testing.T, n *lab.Nginx, insecure bool) (*Report, Config, error) {
	t.Helper()
	u, _ := url.Parse(n.HTTPSURL)
	port, _ := strconv.Atoi(u.Port())
	cfg := Config{Host: u.Hostname(), Port: port, Trust: transport.Trust{RootCAs: n.CA.Pool(), Insecure: insecure},
		LargePath: "/100k.bin", Attempts: 4, Concurrency: 4}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	rep, err := Run(ctx, cfg)
	return rep, cfg, err
}

// TestChainIncomplete: a leaf served without its intermediate is named
// (how many certificates, which issuer is missing), priced (the clients
// that fail, the bytes the fix adds), hinted without asking for the
// --cacert already given, and its fix (ssl_certificate with the full
// chain) applied to nginx makes the chain verify.
func TestChainIncomplete(t *testing.T) {
	t.Parallel()
	cfg := lab.NginxConfig{Intermediate: true, OmitIntermediate: true}
	n := labtest.StartNginx(t, cfg)
	_, acfg, err := auditLab(t, n, false)
	hint := Hint(err, acfg)
	if err == nil || !strings.Contains(hint, "the server sends 1 certificate; its issuer, CN=httpslab test intermediate CA") ||
		strings.Contains(hint, "pass --cacert") || !strings.Contains(hint, "chain-incomplete") {
		t.Errorf("audit without -k = %v, hint %q; want the missing intermediate named, no --cacert asked for", err, hint)
	}
	rep, _, err := auditLab(t, n, true)
	if err != nil {
		t.Fatal(err)
	}
	f := findingByID(rep.Findings, "chain-incomplete")
	if f == nil || findingByID(rep.Findings, "cert-untrusted") != nil {
		t.Fatalf("findings %v; want chain-incomplete and no cert-untrusted", ids(rep))
	}
	if !strings.Contains(f.Evidence, "sends 1 certificate") || !strings.Contains(f.Cost.Fails, "curl") || f.Cost.Bytes <= 0 {
		t.Errorf("chain-incomplete %+v; want the count, the clients that fail and the bytes", f)
	}
	line, _, _ := strings.Cut(strings.SplitAfter(f.Fix, "\n")[1], ";")
	if line != "ssl_certificate /etc/nginx/fullchain.pem" {
		t.Fatalf("fix %q; want an ssl_certificate line naming the full chain", f.Fix)
	}
	cfg.CertFile = "fullchain.pem" // the lab's file with leaf and intermediate
	fixed, _, err := auditLab(t, labtest.StartNginx(t, cfg), false)
	if err != nil {
		t.Fatalf("after the fix: %v", err)
	}
	if g := findingByID(fixed.Findings, "chain-incomplete"); g != nil || !fixed.Chain.Trusted {
		t.Errorf("after the fix: trusted %v, findings %v", fixed.Chain.Trusted, ids(fixed))
	}
	// The estimate (an intermediate about the size of the leaf) against
	// what the fix added, as measured.
	if added := int64(fixed.Chain.Bytes - rep.Chain.Bytes); f.Cost.Bytes < added/2 || f.Cost.Bytes > 2*added {
		t.Errorf("chain-incomplete estimates %d bytes; the fix added %d", f.Cost.Bytes, added)
	}
}

// TestChainVerifiesLeafDoesNot: an expired or wrongly named leaf whose
// chain verifies has its own finding, and no cert-untrusted beside it;
// resumption on the expired certificate is measured with the client's
// clock before its expiry, as a client that accepted it would resume.
func TestChainVerifiesLeafDoesNot(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		leaf func(ca *lab.CA, kind lab.KeyKind) (*lab.Leaf, error)
		want string
	}{
		{"expired", func(ca *lab.CA, kind lab.KeyKind) (*lab.Leaf, error) {
			return ca.IssueValid(kind, time.Now().Add(-48*time.Hour), time.Now().Add(-24*time.Hour), lab.DefaultHosts...)
		}, "cert-expired"},
		{"wrong name", func(ca *lab.CA, kind lab.KeyKind) (*lab.Leaf, error) {
			return ca.Issue(kind, "other.test")
		}, "cert-name-mismatch"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			n := labtest.StartNginx(t, lab.NginxConfig{Leaf: tt.leaf})
			rep, _, err := auditLab(t, n, true)
			if err != nil {
				t.Fatal(err)
			}
			got := ids(rep)
			if !slices.Contains(got, tt.want) || slices.Contains(got, "cert-untrusted") || slices.Contains(got, "chain-incomplete") {
				t.Errorf("findings %v; want %s and no cert-untrusted", got, tt.want)
			}
			for _, id := range []string{"tls12-resumption-off", "tls13-resumption-off", "resumption-unreliable"} {
				if slices.Contains(got, id) {
					t.Errorf("%s on a server that resumes (resumption %+v)", id, rep.Resumption)
				}
			}
			if res := rep.Resumption; res.Resumed != res.Attempts || res.TLS12Ticket == nil || !*res.TLS12Ticket {
				t.Errorf("resumption %+v; want every reconnection resumed", res)
			}
		})
	}
}
