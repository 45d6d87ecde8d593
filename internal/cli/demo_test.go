//go:build !race

// These tests make 0-RTT requests over HTTP/3. quic-go races with itself
// when a 0-RTT connection opens streams while the handshake applies the
// server's transport parameters (quic-go issue #4303, open), so a binary
// built with -race leaves them out; the test command runs the suite a
// second time without -race, where they run.

package cli

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/httpslab/httpslab/internal/demo"
)

func TestDemo(t *testing.T) {
	code, stdout, stderr := run(t, context.Background(), "demo", "--runs", "3", "--bench-time", "300ms")
	if code != ExitOK {
		t.Fatalf("demo = %d; stderr %s", code, stderr)
	}
	for _, v := range demo.Variants {
		if !strings.Contains(stdout, v.Name) {
			t.Errorf("demo output lacks the %q row:\n%s", v.Name, stdout)
		}
	}
	for _, want := range []string{"resumed 3/3", "0-RTT accepted 3/3", "its wait overlaps TLS", "no handshake", "X25519MLKEM768",
		"95% CI", "round trip on loopback", "keep-alive", "new connection, full handshake", "audit of the embedded server",
		"page " + demo.PagePath, "median load over h1", "median load over h2"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("demo output lacks %q:\n%s", want, stdout)
		}
	}
	// The page's table has a "failed" column: a failure is told by
	// "failed:", a failed load or a failed request of a median load.
	for _, failed := range []string{"failed:", "failed load", "load failed;"} {
		if strings.Contains(stdout, failed) {
			t.Errorf("a part of the demo failed:\n%s", stdout)
		}
	}
}

func TestDemoJSON(t *testing.T) {
	code, stdout, stderr := run(t, context.Background(), "demo", "--runs", "2", "--json", "--bench-time", "200ms")
	if code != ExitOK {
		t.Fatalf("demo --json = %d; stderr %s", code, stderr)
	}
	var doc struct {
		Schema string `json:"schema"`
		Result struct {
			demo.Result
			Audit struct {
				Findings []struct {
					ID string `json:"id"`
				} `json:"findings"`
			} `json:"audit"`
		} `json:"result"`
	}
	if err := json.Unmarshal([]byte(stdout), &doc); err != nil {
		t.Fatalf("demo --json is not JSON: %v", err)
	}
	res := doc.Result
	if doc.Schema != "httpslab/demo/v4" || res.Comparison == nil || len(res.Comparison.Variants) != len(demo.Variants) {
		t.Fatalf("schema %q, comparison present %t; want httpslab/demo/v4 with %d variants", doc.Schema, res.Comparison != nil, len(demo.Variants))
	}
	if len(res.Load) != len(demo.LoadModes) || len(res.Audit.Findings) == 0 {
		t.Errorf("demo --json: %d load rows, %d findings; want %d rows and the audit's findings", len(res.Load), len(res.Audit.Findings), len(demo.LoadModes))
	}
	for _, l := range res.Load {
		if l.Requests == 0 || l.Errors != 0 {
			t.Errorf("load %s: %d requests, %d errors; want some and none", l.Name, l.Requests, l.Errors)
		}
		full := l.Name == demo.LoadModes[1].Name
		if full && (l.Handshakes != l.Requests || l.Resumed != 0) {
			t.Errorf("load %s: %d handshakes (%d resumed) for %d requests; want one full handshake per request", l.Name, l.Handshakes, l.Resumed, l.Requests)
		}
	}
	for i, v := range res.Comparison.Variants {
		if v.Name != demo.Variants[i].Name || len(v.Samples) != 2 {
			t.Errorf("variant %d: %s with %d samples; want %s with 2", i, v.Name, len(v.Samples), demo.Variants[i].Name)
		}
		for _, s := range v.Samples {
			if h := v.Key.Handshake; (h == "resumed" || h == "0rtt") && !s.Resumed {
				t.Errorf("%s: a sample did not resume", v.Name)
			}
		}
	}
}

func TestDemoWithoutLoadOrAudit(t *testing.T) {
	code, stdout, stderr := run(t, context.Background(), "demo", "--runs", "1", "--bench-time", "0", "--no-audit")
	if code != ExitOK {
		t.Fatalf("demo = %d; stderr %s", code, stderr)
	}
	if strings.Contains(stdout, "load:") || strings.Contains(stdout, "audit of") {
		t.Errorf("demo --bench-time 0 --no-audit still loads or audits:\n%s", stdout)
	}
}

// TestDemoBenchTimeBehindLink: a load time given with a link flag is a
// usage error (it was ignored in silence: demo behind a link does not load
// the server); checked before any link is built, so it needs no root.
func TestDemoBenchTimeBehindLink(t *testing.T) {
	code, _, stderr := run(t, context.Background(), "demo", "--rtt", "50ms", "--bench-time", "2s")
	if code != ExitUsage || !strings.Contains(stderr, "--bench-time and the link flags exclude each other") {
		t.Errorf("demo --rtt 50ms --bench-time 2s = %d, %q; want %d and the flags named", code, stderr, ExitUsage)
	}
}
