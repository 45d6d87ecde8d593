package load

import (
	"crypto/tls"
	"sync"
	"sync/atomic"

	"github.com/httpslab/httpslab/internal/transport"
)

// KeyShareUse says which key-exchange groups a run's TLS handshakes
// offered; the groups the server chose are in Result.TLS.
//
// A client that offers Go's default groups computes, on every handshake,
// an ML-KEM-768 key pair and an X25519 one, for a server that may use
// only X25519. A browser learns the server's group and offers it first
// on its next visit; so does a run, unless FirstVisit: once a handshake
// shows the server's group, later handshakes offer that group first and
// compute its key share alone (transport.LearnedGroups says which groups
// stay). A full handshake then costs what a returning browser pays; with
// FirstVisit, what a first visit pays.
type KeyShareUse struct {
	// FirstVisit is set when every handshake offered the configured
	// groups (Config.FirstVisit).
	FirstVisit bool
	// Offered are the groups the run's first handshakes offered, in the
	// order crypto/tls offers them; Shares are those that carried a key
	// share.
	Offered, Shares []tls.CurveID
	// Learned is the group learned from the server, 0 if none was (with
	// FirstVisit, or without a handshake); LearnedOffered the groups
	// offered once it was, and LearnedShares their key shares.
	Learned                       tls.CurveID
	LearnedOffered, LearnedShares []tls.CurveID
	// HelloRetries counts the handshakes the server answered with a
	// HelloRetryRequest, asking for a group that had no key share: each
	// costs a round trip and a second key share.
	HelloRetries int64
}

// shareLearner hands out the tls.Config each handshake uses: the run's
// own until a handshake shows the server's group, then one that offers
// that group first. It is shared by all workers.
type shareLearner struct {
	base       *tls.Config
	offered    []tls.CurveID // what base offers, in crypto/tls's order
	explicit   bool          // the groups were listed (--curves)
	firstVisit bool          // learn nothing: every handshake offers base's groups

	mu  sync.Mutex // serialises learning
	cur atomic.Pointer[learned]
}

type learned struct {
	group  tls.CurveID
	config *tls.Config
	groups []tls.CurveID
}

func newShareLearner(base *tls.Config, firstVisit bool) *shareLearner {
	return &shareLearner{base: base, offered: transport.OfferedGroups(base.CurvePreferences),
		explicit: len(base.CurvePreferences) > 0, firstVisit: firstVisit}
}

// config returns the tls.Config for the next handshake.
func (l *shareLearner) config() *tls.Config {
	if c := l.cur.Load(); c != nil {
		return c.config
	}
	return l.base
}

// learn notes the group a handshake used. A group other than the one
// learned (a server that moved on, through a HelloRetryRequest) is learned
// in its place.
func (l *shareLearner) learn(g tls.CurveID) {
	if g == 0 || l.firstVisit {
		return
	}
	if c := l.cur.Load(); c != nil && c.group == g {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if c := l.cur.Load(); c != nil && c.group == g {
		return
	}
	groups := transport.LearnedGroups(g, l.offered, l.explicit)
	tc := l.base.Clone()
	tc.CurvePreferences = groups
	l.cur.Store(&learned{group: g, config: tc, groups: groups})
}

// use describes what the run offered.
func (l *shareLearner) use() KeyShareUse {
	u := KeyShareUse{FirstVisit: l.firstVisit, Offered: l.offered, Shares: transport.KeyShares(l.offered)}
	if c := l.cur.Load(); c != nil {
		u.Learned, u.LearnedOffered, u.LearnedShares = c.group, c.groups, transport.KeyShares(c.groups)
	}
	return u
}
