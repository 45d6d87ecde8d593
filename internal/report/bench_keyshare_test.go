package report

import (
	"crypto/tls"
	"strings"
	"testing"

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
