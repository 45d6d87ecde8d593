//go:build !race

// The experiment tests start and restart real servers (nginx, or httpslab
// serve as a command template) in several processes for every variant:
// heavy integration tests that scripts/test.sh runs once, in its pass
// without the race detector, where their statistics are not slowed by it.

package cli

import (
	"context"
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"
)

// linkRTT is the emulated RTT of the tests behind the link.
const linkRTT = 30 * time.Millisecond

// experimentBehindLink runs an experiment of two blocks behind a link of
// linkRTT, measured with probe -n 3, and checks the physics: the variant
// verified through the link, every connect at least one RTT and every
// TLS handshake at least one more.
func experimentBehindLink(t *testing.T, args ...string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	code, stdout, stderr := run(t, ctx, append([]string{"experiment", "--json", "--rtt", linkRTT.String(), "-n", "2"}, args...)...)
	if code != ExitOK {
		t.Fatalf("exit %d; stderr:\n%s", code, stderr)
	}
	var doc struct {
		Result struct {
			Variants []struct {
				Name, Status, Evidence string
				Samples                []struct{ Values map[string]float64 }
			}
			Environment struct{ Link string }
		}
	}
	err := json.Unmarshal([]byte(stdout), &doc)
	res := doc.Result
	if err != nil {
		t.Fatalf("decoding the result: %v\n%s", err, stdout)
	}
	if !strings.Contains(res.Environment.Link, "30ms") {
		t.Errorf("environment's link = %q; want the 30ms link", res.Environment.Link)
	}
	if len(res.Variants) != 2 || res.Variants[1].Status != "verified" || res.Variants[1].Evidence != "resumed: no → yes" {
		t.Fatalf("variants %+v; want the second verified by resumption through the link", res.Variants)
	}
	rtt := float64(linkRTT) / float64(time.Millisecond)
	for _, v := range res.Variants {
		if len(v.Samples) != 2 {
			t.Fatalf("%s: %d samples; want 2", v.Name, len(v.Samples))
		}
		for b, s := range v.Samples {
			if c, tls := s.Values["connect p50"], s.Values["tls p50"]; c < 0.95*rtt || tls < 0.95*rtt {
				t.Errorf("%s, block %d: connect %.1f ms, TLS %.1f ms; want each at least the link's RTT %.0f ms", v.Name, b+1, c, tls, rtt)
			}
		}
	}
}

// TestExperimentServerBehindLink puts the embedded server, as a command
// template listening on the link's address, behind the link.
func TestExperimentServerBehindLink(t *testing.T) {
	line, url, ca := serverTemplate(t)
	line = strings.Replace(line, " serve ", " serve --host $HTTPSLAB_SERVER_IP ", 1)
	experimentBehindLink(t, "--server", line, "--vary", "tickets=--no-tickets|--no-tickets=false",
		"--", "probe", "-n", "3", url, "--cacert", ca)
}

// TestExperimentNginxBehindLink puts nginx behind the link: it listens on
// the port alone, in the link's namespace.
func TestExperimentNginxBehindLink(t *testing.T) {
	conf, url, ca := experimentTemplate(t)
	data, err := os.ReadFile(conf)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(conf, []byte(strings.Replace(string(data), "listen 127.0.0.1:", "listen ", 1)), 0o600); err != nil {
		t.Fatal(err)
	}
	experimentBehindLink(t, "--nginx", conf, "--vary", "ssl_session_tickets=off|on",
		"--", "probe", "-n", "3", url, "--cacert", ca)
}

// TestExperimentLinkLoopbackTemplate checks the hint for a template that
// listens on 127.0.0.1, which the link cannot reach.
func TestExperimentLinkLoopbackTemplate(t *testing.T) {
	conf, url, ca := experimentTemplate(t)
	code, _, stderr := run(t, context.Background(), "experiment", "--rtt", "5ms", "--nginx", conf,
		"--vary", "ssl_session_tickets=off|on", "--", "probe", "-n", "1", url, "--cacert", ca)
	if code != ExitFailure || !strings.Contains(stderr, "hint: behind the link the server runs in its own namespace") {
		t.Errorf("exit %d, stderr:\n%s\nwant %d and the hint about listening", code, stderr, ExitFailure)
	}
}
