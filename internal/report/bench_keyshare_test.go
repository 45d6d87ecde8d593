package report

import (
	"crypto/tls"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/httpslab/httpslab/internal/load"
	"github.com/httpslab/httpslab/internal/transport"
)

// The Key shares line labels what a full handshake stood for.
func TestBenchKeyShares(t *testing.T) {
	def := transport.OfferedGroups(nil)
	learned := transport.LearnedGroups(tls.X25519, def, false)
	for _, tt := range []struct {
		k    load.KeyShareUse
		want string
	}{
		{load.KeyShareUse{}, ""},
		{load.KeyShareUse{Offered: def, Shares: transport.KeyShares(def), Learned: tls.X25519, LearnedOffered: learned,
			LearnedShares: transport.KeyShares(learned), HelloRetries: 1},
			"Key shares:      returning visit: x25519 (learned; first handshake X25519MLKEM768+x25519), offered x25519, secp256r1, secp384r1, secp521r1; 1 HelloRetryRequests\n"},
		{load.KeyShareUse{FirstVisit: true, Offered: def, Shares: transport.KeyShares(def)},
			"Key shares:      first visit: X25519MLKEM768+x25519 on every handshake, offered X25519MLKEM768, SecP256r1MLKEM768, SecP384r1MLKEM1024, x25519, secp256r1, secp384r1, secp521r1; 0 HelloRetryRequests\n"},
	} {
		var b strings.Builder
		benchKeyShares(&b, tt.k)
		if b.String() != tt.want {
			t.Errorf("got  %q\nwant %q", b.String(), tt.want)
		}
	}
}

// bench's JSON says which groups were offered and used, and what a full
// handshake stood for.
func TestBenchKeySharesJSON(t *testing.T) {
	def := transport.OfferedGroups(nil)
	learned := transport.LearnedGroups(tls.X25519, def, false)
	used := []load.TLSCount{{Version: tls.VersionTLS13, Curve: tls.X25519MLKEM768, Full: 1},
		{Version: tls.VersionTLS13, Curve: tls.X25519, Full: 99}, {Version: tls.VersionTLS13, Curve: tls.X25519, Resumed: 5}}
	for _, tt := range []struct {
		name string
		r    load.Result
		want *BenchKeyShares
	}{
		{"plain HTTP", load.Result{}, nil},
		{"returning", load.Result{TLS: used, KeyShares: load.KeyShareUse{Offered: def, Shares: transport.KeyShares(def),
			Learned: tls.X25519, LearnedOffered: learned, LearnedShares: transport.KeyShares(learned), HelloRetries: 2}},
			&BenchKeyShares{Visit: "returning", Offered: groupNames(def), Shares: []string{"X25519MLKEM768", "x25519"},
				Learned: "x25519", LearnedOffered: groupNames(learned), LearnedShares: []string{"x25519"},
				Used: []string{"X25519MLKEM768", "x25519"}, HelloRetries: 2}},
		{"first visit", load.Result{TLS: used[1:2], KeyShares: load.KeyShareUse{FirstVisit: true, Offered: def, Shares: transport.KeyShares(def)}},
			&BenchKeyShares{Visit: "first", Offered: groupNames(def), Shares: []string{"X25519MLKEM768", "x25519"}, Used: []string{"x25519"}}},
		{"no handshake", load.Result{KeyShares: load.KeyShareUse{Offered: def[:1], Shares: def[:1]}},
			&BenchKeyShares{Visit: "unlearned", Offered: []string{"X25519MLKEM768"}, Shares: []string{"X25519MLKEM768"}, Used: []string{}}},
	} {
		if diff := cmp.Diff(tt.want, benchKeySharesJSON(&tt.r)); diff != "" {
			t.Errorf("%s: benchKeySharesJSON mismatch (-want +got):\n%s", tt.name, diff)
		}
	}
}
