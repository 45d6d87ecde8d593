package tlsscan

// Client simulation: which well-known clients would connect, and with
// what, worked out from the enumeration (versions, suites and their order,
// groups, the DH prime) rather than one handshake per client. Each
// client's ClientHello is data (clients.json), taken from its published
// documentation, whose source each entry names.

import (
	"crypto/tls"
	_ "embed"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/httpslab/httpslab/internal/transport"
)

//go:embed clients.json
var clientsJSON []byte

// SimClient is what a client offers, as its documentation gives it.
type SimClient struct {
	Name string `json:"name"`
	// Current is true for versions in use today, whose failure is an
	// outage for ordinary users.
	Current bool `json:"current"`
	// Source names the documents the parameters come from.
	Source string `json:"source"`
	// Versions offered, newest first ("TLS 1.3").
	Versions []string `json:"versions"`
	// Suites offered, in the client's order (IANA names).
	Suites []string `json:"suites"`
	// Groups offered in supported_groups, in the client's order, and
	// those it sends a TLS 1.3 key share for.
	Groups    []string `json:"groups"`
	KeyShares []string `json:"key_shares"`
	// MinDHBits is the smallest DHE prime the client accepts (0: it
	// offers no DHE suite); MinRSABits the smallest RSA certificate key.
	MinDHBits  int `json:"min_dh_bits"`
	MinRSABits int `json:"min_rsa_bits"`

	versions  []uint16
	suites    []uint16
	groups    []tls.CurveID
	keyShares []tls.CurveID
}

// ClientResult is the simulated outcome for one client.
type ClientResult struct {
	Client  string `json:"client"`
	Current bool   `json:"current"`
	// OK is false when the client cannot connect; Failure says why.
	OK      bool   `json:"ok"`
	Failure string `json:"failure,omitempty"`
	Version string `json:"version,omitempty"`
	Suite   string `json:"suite,omitempty"`
	// Group is the key-exchange group: a named group, or "DH 2048" for
	// a DHE suite on the server's own prime.
	Group string `json:"group,omitempty"`
	// HelloRetry is true when the client's first key share was not one
	// the server takes: one more round trip.
	HelloRetry bool `json:"hello_retry,omitempty"`
	// Key is the certificate key the client checks ("RSA 2048").
	Key string `json:"key,omitempty"`
}

var (
	simClientsOnce sync.Once
	simClients     []SimClient
	simClientsErr  error
)

// SimClients returns the simulated clients, parsed from clients.json.
func SimClients() ([]SimClient, error) {
	simClientsOnce.Do(func() { simClients, simClientsErr = parseSimClients(clientsJSON) })
	return simClients, simClientsErr
}

func parseSimClients(data []byte) ([]SimClient, error) {
	var cs []SimClient
	if err := json.Unmarshal(data, &cs); err != nil {
		return nil, fmt.Errorf("clients.json: %w", err)
	}
	// Suites a client offers that audit does not ask servers about: no
	// server that audit enumerates can have chosen them.
	suiteIDs := map[string]uint16{"TLS_ECDHE_ECDSA_WITH_3DES_EDE_CBC_SHA": 0xC008}
	for _, tls13 := range []bool{false, true} {
		for _, id := range candidateSuites(tls13) {
			suiteIDs[SuiteName(id)] = id
		}
	}
	groupIDs := map[string]tls.CurveID{}
	for _, g := range allGroups {
		groupIDs[transport.GroupName(g)] = g
	}
	versionIDs := map[string]uint16{}
	for _, v := range scanVersions {
		versionIDs[tls.VersionName(v)] = v
	}
	for i := range cs {
		c := &cs[i]
		if c.Name == "" || c.Source == "" || len(c.Versions) == 0 || len(c.Suites) == 0 {
			return nil, fmt.Errorf("clients.json: entry %d needs a name, a source, versions and suites", i)
		}
		for _, n := range c.Versions {
			v, ok := versionIDs[n]
			if !ok {
				return nil, fmt.Errorf("clients.json: %s: unknown version %q", c.Name, n)
			}
			c.versions = append(c.versions, v)
		}
		for _, n := range c.Suites {
			id, ok := suiteIDs[n]
			if !ok {
				return nil, fmt.Errorf("clients.json: %s: unknown cipher suite %q", c.Name, n)
			}
			c.suites = append(c.suites, id)
		}
		for _, list := range []struct {
			names []string
			ids   *[]tls.CurveID
		}{{c.Groups, &c.groups}, {c.KeyShares, &c.keyShares}} {
			for _, n := range list.names {
				g, ok := groupIDs[n]
				if !ok {
					return nil, fmt.Errorf("clients.json: %s: unknown group %q", c.Name, n)
				}
				*list.ids = append(*list.ids, g)
			}
		}
	}
	return cs, nil
}

// simulateClients works out each client's outcome from the report's
// enumeration and certificate.
func simulateClients(r *Report) []ClientResult {
	cs, err := SimClients()
	if err != nil || r.Enumeration == nil {
		return nil
	}
	out := make([]ClientResult, 0, len(cs))
	for i := range cs {
		out = append(out, simulate(&cs[i], r.Enumeration, r.Chain))
	}
	return out
}

// simulate works out what one client gets. The server answers with the
// newest version both speak; then the suite: the server's first that the
// client offers when it imposes its order (Go's servers: ChaCha20 first
// for a client that does not list AES-GCM first), else the client's first
// that the server accepts; then the group: in TLS 1.3 the client's first
// key share the server takes, else (one HelloRetryRequest more) the
// server's or the client's first common group; before TLS 1.3 the
// client's first common group for ECDHE (the server's first where it
// imposes its group order), the server's prime for DHE.
func simulate(c *SimClient, e *Enumeration, chain Chain) ClientResult {
	res := ClientResult{Client: c.Name, Current: c.Current}
	if len(chain.Certs) > 0 {
		res.Key = chain.Certs[0].KeyType
	}
	fail := func(why string) ClientResult {
		res.OK, res.Failure = false, why
		res.Version, res.Suite, res.Group, res.HelloRetry = "", "", "", false
		return res
	}
	var vr *VersionResult
	for _, v := range c.versions {
		if r := e.Version(v); r != nil && r.Supported {
			vr = r
			break
		}
	}
	if vr == nil {
		return fail("no common protocol version (the client offers " + strings.Join(c.Versions, ", ") + ")")
	}
	res.Version = vr.Name
	tls13 := vr.Version == VersionTLS13
	groups := serverGroups(e, vr.Version)
	var common []tls.CurveID
	for _, g := range c.groups {
		if slices.Contains(groups, g) {
			common = append(common, g)
		}
	}
	hasEC := slices.ContainsFunc(common, func(g tls.CurveID) bool { return ffdheBits[g] == 0 })
	usable := func(id uint16) bool {
		if !slices.Contains(c.suites, id) {
			return false
		}
		// A server skips ECDHE suites when it shares no curve with the client.
		return tls13 || !strings.Contains(SuiteName(id), "_ECDHE_") || hasEC
	}
	suite, ok := pickSuite(c, vr, usable)
	if !ok {
		return fail(fmt.Sprintf("no common cipher suite in %s", vr.Name))
	}
	res.Suite = SuiteName(suite)
	switch {
	case tls13:
		if len(common) == 0 {
			return fail("no common key-exchange group in TLS 1.3")
		}
		res.Group = transport.GroupName(common[0])
		if i := slices.IndexFunc(c.keyShares, func(g tls.CurveID) bool { return slices.Contains(groups, g) }); i >= 0 {
			res.Group = transport.GroupName(c.keyShares[i])
		} else {
			res.HelloRetry = true
			if e.HelloRetryGroup != "" && slices.ContainsFunc(common, func(g tls.CurveID) bool { return transport.GroupName(g) == e.HelloRetryGroup }) {
				res.Group = e.HelloRetryGroup
			}
		}
	case strings.Contains(res.Suite, "_DHE_"):
		bits := e.DHBits
		res.Group = fmt.Sprintf("DH %d", bits)
		if bits > 0 && bits < c.MinDHBits {
			return fail(fmt.Sprintf("DH prime of %d bits, under the client's minimum of %d (\"dh key too small\"), on %s",
				bits, c.MinDHBits, res.Suite))
		}
	case strings.Contains(res.Suite, "_ECDHE_"):
		for _, g := range common {
			if ffdheBits[g] == 0 {
				res.Group = transport.GroupName(g)
				break
			}
		}
		// A server with its own group order gives its first to a client
		// that offers it; which of the rest it prefers is not measured,
		// so a client without it keeps its own first.
		if e.TLS12GroupOrder == GroupOrderServer && slices.ContainsFunc(common, func(g tls.CurveID) bool { return transport.GroupName(g) == e.TLS12Group }) {
			res.Group = e.TLS12Group
		}
	}
	if len(chain.Certs) > 0 {
		leaf := chain.Certs[0]
		if strings.HasPrefix(leaf.KeyType, "RSA") && leaf.KeyBits > 0 && leaf.KeyBits < c.MinRSABits {
			return fail(fmt.Sprintf("RSA key of %d bits, under the client's minimum of %d", leaf.KeyBits, c.MinRSABits))
		}
	}
	res.OK = true
	return res
}

// pickSuite chooses the suite the server would choose for the client.
func pickSuite(c *SimClient, vr *VersionResult, usable func(uint16) bool) (uint16, bool) {
	tls13 := vr.Version == VersionTLS13
	var clientOrder []uint16
	for _, s := range c.suites {
		if isTLS13Suite(s) == tls13 && usable(s) && slices.ContainsFunc(vr.Suites, func(x Suite) bool { return x.ID == s }) {
			clientOrder = append(clientOrder, s)
		}
	}
	if len(clientOrder) == 0 {
		return 0, false
	}
	if !vr.ServerOrder {
		return clientOrder[0], true
	}
	server := make([]uint16, 0, len(vr.Suites))
	for _, s := range vr.Suites {
		if slices.Contains(clientOrder, s.ID) {
			server = append(server, s.ID)
		}
	}
	if vr.AESGCMIfClientFirst {
		// Go's server: AES-GCM first for a client whose first suite is
		// AES-GCM (it takes it to have AES hardware), ChaCha20 first for
		// the others, its own order otherwise.
		first := c.suites[slices.IndexFunc(c.suites, func(s uint16) bool { return isTLS13Suite(s) == tls13 })]
		lead := isChaCha
		if isAESGCM(first) {
			lead = isAESGCM
		}
		slices.SortStableFunc(server, func(a, b uint16) int { return boolRank(lead(b)) - boolRank(lead(a)) })
	}
	return server[0], true
}

// serverGroups returns the groups found for version v: TLS 1.3's, or
// those of the newest older version scanned, which the others share.
func serverGroups(e *Enumeration, v uint16) []tls.CurveID {
	var out []tls.CurveID
	for _, g := range e.Groups {
		if (g.Version == VersionTLS13) == (v == VersionTLS13) {
			out = append(out, tls.CurveID(g.ID))
		}
	}
	return out
}
