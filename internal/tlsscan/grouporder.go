package tlsscan

import (
	"context"
	"crypto/tls"
	"slices"
	"strings"
	"sync"

	"github.com/httpslab/httpslab/internal/transport"
)

// Group orders of a TLS 1.2 server, as Enumeration.TLS12GroupOrder says.
const (
	GroupOrderServer = "server"
	GroupOrderClient = "client"
)

// groupOrder is what the two offers of probeGroupOrder got.
type groupOrder struct {
	picked [2]tls.CurveID
	err    error
}

// probeGroupOrder asks whether a server picks the ECDHE group of version
// v by its own preference or by the client's: OpenSSL imposes its ssl_ecdh_curve order
// where it imposes its suite order (nginx's ssl_prefer_server_ciphers
// on). It offers every elliptic-curve group in one order and in the
// reverse, at once: the same group from both is the server's first,
// different ones the client's order (see result, which needs the groups
// the scan found).
func probeGroupOrder(ctx context.Context, p *prober, v uint16) groupOrder {
	var ec []tls.CurveID
	for _, g := range allGroups {
		if ffdheBits[g] == 0 && g != tls.X25519MLKEM768 {
			ec = append(ec, g)
		}
	}
	var suites []uint16
	for _, s := range candidateSuites(false) {
		if strings.Contains(SuiteName(s), "_ECDHE_") {
			suites = append(suites, s)
		}
	}
	rev := slices.Clone(ec)
	slices.Reverse(rev)
	var out groupOrder
	errs := make([]error, 2)
	var wg sync.WaitGroup
	for i, offer := range [][]tls.CurveID{ec, rev} {
		wg.Go(func() {
			r, err := p.send(ctx, clientHello{version: v, suites: suites, groups: offer}, true)
			if err == nil && r.kex != nil {
				out.picked[i] = r.kex.group
			}
			errs[i] = err
		})
	}
	wg.Wait()
	out.err = firstErr(errs)
	return out
}

// result reads the offers' answers against the groups the scan found:
// with fewer than two elliptic-curve groups before TLS 1.3 there is no
// order to find, and "" is returned.
func (o groupOrder) result(groups []GroupResult) (order, first string, err error) {
	ec := 0
	for _, g := range groups {
		if g.Version != VersionTLS13 && ffdheBits[tls.CurveID(g.ID)] == 0 {
			ec++
		}
	}
	switch {
	case o.err != nil:
		return "", "", o.err
	case ec < 2 || o.picked[0] == 0 || o.picked[1] == 0:
		return "", "", nil
	case o.picked[0] == o.picked[1]:
		return GroupOrderServer, transport.GroupName(o.picked[0]), nil
	}
	return GroupOrderClient, "", nil
}
