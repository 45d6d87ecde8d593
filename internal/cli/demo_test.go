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

	"github.com/httpslab/httpslab/internal/probe"
)

func TestDemo(t *testing.T) {
	code, stdout, stderr := run(t, context.Background(), "demo", "--runs", "3")
	if code != ExitOK {
		t.Fatalf("demo = %d; stderr %s", code, stderr)
	}
	for _, v := range demoVariants {
		if !strings.Contains(stdout, v.Name) {
			t.Errorf("demo output lacks the %q row:\n%s", v.Name, stdout)
		}
	}
	for _, want := range []string{"resumed 3/3", "0-RTT accepted 3/3", "no handshake", "X25519MLKEM768"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("demo output lacks %q:\n%s", want, stdout)
		}
	}
	if strings.Contains(stdout, "failed") {
		t.Errorf("a demo variant failed:\n%s", stdout)
	}
}

func TestDemoJSON(t *testing.T) {
	code, stdout, stderr := run(t, context.Background(), "demo", "--runs", "2", "--json")
	if code != ExitOK {
		t.Fatalf("demo --json = %d; stderr %s", code, stderr)
	}
	var doc struct {
		Schema string `json:"schema"`
		Result []struct {
			Variant string            `json:"variant"`
			Runs    []json.RawMessage `json:"runs"`
			Resumed int               `json:"resumed"`
		} `json:"result"`
	}
	if err := json.Unmarshal([]byte(stdout), &doc); err != nil {
		t.Fatalf("demo --json is not JSON: %v", err)
	}
	if doc.Schema != "httpslab/demo/v1" || len(doc.Result) != len(demoVariants) {
		t.Fatalf("schema %q with %d rows; want httpslab/demo/v1 with %d", doc.Schema, len(doc.Result), len(demoVariants))
	}
	for i, r := range doc.Result {
		if len(r.Runs) != 2 {
			t.Errorf("%s: %d runs; want 2", r.Variant, len(r.Runs))
		}
		if (demoVariants[i].Mode == probe.Resume || demoVariants[i].Mode == probe.ZeroRTT) && r.Resumed != 2 {
			t.Errorf("%s: resumed %d of 2", r.Variant, r.Resumed)
		}
	}
}
