package tlsscan

import (
	"crypto/tls"
	"strings"
	"testing"
)

// TestSimClientsData: the embedded client data parses, names every
// suite, group and version in terms audit knows, and gives each client
// its source.
func TestSimClientsData(t *testing.T) {
	cs, err := SimClients()
	if err != nil {
		t.Fatal(err)
	}
	if len(cs) < 10 {
		t.Fatalf("%d clients; want at least 10", len(cs))
	}
	seen := map[string]bool{}
	for _, c := range cs {
		if seen[c.Name] {
			t.Errorf("client %q twice", c.Name)
		}
		seen[c.Name] = true
		if !strings.Contains(c.Source, "http") && !strings.Contains(c.Source, "documentation") {
			t.Errorf("%s: source %q names no document", c.Name, c.Source)
		}
		if len(c.suites) != len(c.Suites) || len(c.groups) != len(c.Groups) {
			t.Errorf("%s: not every suite or group was resolved", c.Name)
		}
	}
	if _, err := parseSimClients([]byte(`[{"name":"x","source":"y","versions":["TLS 1.2"],"suites":["TLS_NO_SUCH_SUITE"]}]`)); err == nil ||
		!strings.Contains(err.Error(), "TLS_NO_SUCH_SUITE") {
		t.Errorf("an unknown suite gave %v; want an error naming it", err)
	}
}

// TestSimulateGoServerOrder: against Go's server order (ChaCha20 first
// unless the client lists AES-GCM first), a client that leads with
// AES-GCM gets AES-GCM and one that leads with ChaCha20 gets ChaCha20;
// a client whose key share the server lacks pays a HelloRetryRequest.
func TestSimulateGoServerOrder(t *testing.T) {
	suites := func(ids ...uint16) []Suite {
		var out []Suite
		for _, id := range ids {
			out = append(out, Suite{ID: id, Name: SuiteName(id)})
		}
		return out
	}
	e := &Enumeration{Versions: []VersionResult{
		{Version: VersionTLS12, Name: "TLS 1.2", Supported: true, ServerOrder: true, AESGCMIfClientFirst: true,
			Suites: suites(tls.TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256, tls.TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256,
				tls.TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384)},
		{Version: VersionTLS13, Name: "TLS 1.3", Supported: true, Suites: suites(tls.TLS_AES_128_GCM_SHA256)},
	}, Groups: []GroupResult{{Version: VersionTLS12, ID: uint16(tls.CurveP256)}, {Version: VersionTLS13, ID: uint16(tls.CurveP256)}},
		HelloRetry: true, HelloRetryGroup: "secp256r1"}
	byName := simClientsByName(t)
	for name, want := range map[string]ClientResult{
		"Android 7.0":        {OK: true, Version: "TLS 1.2", Suite: "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256", Group: "secp256r1"},
		"Java 8 (8u291+)":    {OK: true, Version: "TLS 1.2", Suite: "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256", Group: "secp256r1"},
		"Chrome 131+":        {OK: true, Version: "TLS 1.3", Suite: "TLS_AES_128_GCM_SHA256", Group: "secp256r1", HelloRetry: true},
		"IE 11 on Windows 7": {OK: true, Version: "TLS 1.2", Suite: "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256", Group: "secp256r1"},
	} {
		c := byName[name]
		if c == nil {
			t.Fatalf("no client %q", name)
		}
		got := simulate(c, e, Chain{})
		got.Client, got.Current = "", false
		if got != want {
			t.Errorf("%s: %+v; want %+v", name, got, want)
		}
	}
	// A client that leads with ChaCha20 gets it.
	chacha := *byName["Android 7.0"]
	chacha.suites = []uint16{tls.TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256, tls.TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256}
	if got := simulate(&chacha, e, Chain{}); got.Suite != "TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256" {
		t.Errorf("a client leading with ChaCha20 got %s", got.Suite)
	}
}

// TestClientOrder: a server that takes the client's TLS 1.2 order is
// information while it accepts AEAD suites only, and low once a client
// that lists CBC first (IE 11 on Windows 7) gets CBC although it offers
// AES-GCM too; with the server's order there is no finding.
func TestClientOrder(t *testing.T) {
	// DHE-RSA AES-128-GCM, which IE 11 on Windows 7 offers after
	// ECDHE-RSA AES-256-CBC-SHA384.
	gcm, cbc := uint16(0x009E), uint16(0xC028)
	tests := []struct {
		name        string
		suites      []uint16
		serverOrder bool
		want        Severity // -1: no finding
		weaker      string
	}{
		{"AEAD only, client's order", []uint16{gcm, 0xC02F}, false, Info, ""},
		{"CBC too, client's order", []uint16{gcm, cbc}, false, Low, "IE 11 on Windows 7"},
		{"CBC too, server's order", []uint16{gcm, cbc}, true, -1, ""},
		{"one suite", []uint16{cbc}, false, -1, ""},
	}
	for _, tt := range tests {
		r := baseReport()
		r.Chain.Certs[0].KeyType, r.Chain.Certs[0].KeyBits = "RSA 2048", 2048
		var suites []Suite
		for _, id := range tt.suites {
			suites = append(suites, Suite{ID: id, Name: SuiteName(id)})
		}
		r.Enumeration.Versions[0].Suites, r.Enumeration.Versions[0].ServerOrder = suites, tt.serverOrder
		r.Enumeration.Groups = []GroupResult{{Version: VersionTLS12, ID: 23, Name: "secp256r1"}, {Version: VersionTLS13, ID: 23, Name: "secp256r1"}}
		r.Clients = simulateClients(r)
		f := findingByID(findings(r), "cipher-order-client")
		switch {
		case tt.want < 0 && f != nil:
			t.Errorf("%s: cipher-order-client %q; want none", tt.name, f.Evidence)
		case tt.want >= 0 && f == nil:
			t.Errorf("%s: no cipher-order-client; want one of severity %v", tt.name, tt.want)
		case f != nil && (f.Severity != tt.want || !strings.Contains(f.Cost.Note, tt.weaker)):
			t.Errorf("%s: cipher-order-client %v, cost %q; want %v naming %q", tt.name, f.Severity, f.Cost.Note, tt.want, tt.weaker)
		}
	}
}

// TestSimulateAndroidDHEAndRC4: Android 6.0 and 7.0 offer the DHE-RSA AES
// suites, after the ECDHE ones of each kind (a server in the client's
// order that has DHE-RSA AES-GCM and ECDHE-RSA AES-CBC gets DHE), on a
// prime of 1024 bits or more; 6.0 still offers RC4, 7.0 no more.
func TestSimulateAndroidDHEAndRC4(t *testing.T) {
	tls12 := func(dhBits int, serverOrder bool, ids ...uint16) *Enumeration {
		var suites []Suite
		for _, id := range ids {
			suites = append(suites, Suite{ID: id, Name: SuiteName(id)})
		}
		return &Enumeration{Versions: []VersionResult{{Version: VersionTLS12, Name: "TLS 1.2", Supported: true,
			ServerOrder: serverOrder, Suites: suites}},
			Groups: []GroupResult{{Version: VersionTLS12, ID: uint16(tls.CurveP256)}}, DHBits: dhBits}
	}
	const (
		dheGCM   = 0x009E // TLS_DHE_RSA_WITH_AES_128_GCM_SHA256
		dheCBC   = 0x0039 // TLS_DHE_RSA_WITH_AES_256_CBC_SHA
		ecdheCBC = tls.TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA
		rc4      = tls.TLS_RSA_WITH_RC4_128_SHA
	)
	byName := simClientsByName(t)
	for _, tt := range []struct {
		name         string
		e            *Enumeration
		want6, want7 string // the suite; "" for a failure
	}{
		{"DHE only", tls12(2048, true, dheGCM, dheCBC), "TLS_DHE_RSA_WITH_AES_128_GCM_SHA256", "TLS_DHE_RSA_WITH_AES_128_GCM_SHA256"},
		{"client's order", tls12(2048, false, ecdheCBC, dheGCM), "TLS_DHE_RSA_WITH_AES_128_GCM_SHA256", "TLS_DHE_RSA_WITH_AES_128_GCM_SHA256"},
		{"DHE on a 768-bit prime", tls12(768, true, dheGCM), "", ""},
		{"RC4 only", tls12(0, true, rc4), "TLS_RSA_WITH_RC4_128_SHA", ""},
	} {
		for client, want := range map[string]string{"Android 6.0": tt.want6, "Android 7.0": tt.want7} {
			got := simulate(byName[client], tt.e, Chain{})
			if got.OK != (want != "") || got.Suite != want {
				t.Errorf("%s, %s: %+v; want suite %q", tt.name, client, got, want)
			}
			if want != "" && strings.Contains(want, "_DHE_") && got.Group != "DH 2048" {
				t.Errorf("%s, %s: group %q; want DH 2048", tt.name, client, got.Group)
			}
		}
	}
}

// simClientsByName returns the simulated clients by name.
func simClientsByName(t *testing.T) map[string]*SimClient {
	t.Helper()
	cs, err := SimClients()
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]*SimClient{}
	for i := range cs {
		byName[cs[i].Name] = &cs[i]
	}
	return byName
}
