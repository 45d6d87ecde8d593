package tlsscan

import (
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
