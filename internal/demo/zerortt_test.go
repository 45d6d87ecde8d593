//go:build !race

// These tests make 0-RTT requests over HTTP/3. quic-go races with itself
// when a 0-RTT connection opens streams while the handshake applies the
// server's transport parameters (quic-go issue #4303, open), so a binary
// built with -race leaves them out; the test command runs the suite a
// second time without -race, where they run.

package demo

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/httpslab/httpslab/internal/embedded"
	"github.com/httpslab/httpslab/internal/lab"
)

// TestRun: every variant on loopback is measured and is what it claims
// (compare refuses a resumed request that did not resume), the load runs
// did their handshakes, and the audit found something.
func TestRun(t *testing.T) {
	srv := startServer(t, embedded.Config{})
	res, err := Run(context.Background(), srv, Config{Runs: 3, LoadTime: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if err := res.Failure(); err != nil {
		t.Fatalf("Failure() = %v; want none", err)
	}
	if res.BehindLink || res.Comparison.Rounds != 3 || len(res.Comparison.Variants) != len(Variants) {
		t.Fatalf("behind link %t, %d rounds, %d variants; want loopback, 3 rounds, %d variants",
			res.BehindLink, res.Comparison.Rounds, len(res.Comparison.Variants), len(Variants))
	}
	for i, v := range res.Comparison.Variants {
		if v.Name != Variants[i].Name || len(v.Samples) != 3 || len(v.Errors) != 0 {
			t.Errorf("variant %d: %s, %d samples, errors %v; want %s, 3 samples, none", i, v.Name, len(v.Samples), v.Errors, Variants[i].Name)
		}
		for _, s := range v.Samples {
			if want := v.Key.Scheme == "https" && v.Key.Conn == "fresh"; want != (s.HandshakeBytes > 0) {
				t.Errorf("%s: %d handshake bytes; want some only on a fresh HTTPS connection", v.Name, s.HandshakeBytes)
			}
		}
	}
	if len(res.Load) != len(LoadModes) || res.Load[1].Handshakes != res.Load[1].Requests || res.Load[2].Resumed == 0 {
		t.Errorf("load %+v; want %d runs, a full handshake per request in the second, resumptions in the third", res.Load, len(LoadModes))
	}
	if res.Audit == nil || len(res.Audit.Findings) == 0 {
		t.Errorf("audit %v (%s); want findings", res.Audit, res.AuditErr)
	}
}

// TestRunServerWithoutTickets: a server that never resumes fails the
// resumed and 0-RTT variants in the warm-up, and the demo says which.
func TestRunServerWithoutTickets(t *testing.T) {
	srv := startServer(t, embedded.Config{Server: lab.Config{NoTickets: true}})
	res, err := Run(context.Background(), srv, Config{Runs: 1, NoAudit: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range res.Comparison.Variants {
		if dropped := v.Dropped != ""; dropped != (v.Key.Handshake == "resumed" || v.Key.Handshake == "0rtt") {
			t.Errorf("%s: dropped %q; want only the resumed and 0-RTT variants dropped", v.Name, v.Dropped)
		}
	}
	err = res.Failure()
	if err == nil || !strings.Contains(err.Error(), "demo: HTTPS HTTP/1.1 resumed failed: ") || !strings.Contains(err.Error(), "did not resume") {
		t.Errorf("Failure() = %v; want the first resumed variant named with its reason", err)
	}
}

// TestRunInterrupted: a cancelled demo returns what it measured and the
// context's error, without load or audit.
func TestRunInterrupted(t *testing.T) {
	srv := startServer(t, embedded.Config{})
	ctx, cancel := context.WithCancel(context.Background())
	rounds := 0
	res, err := Run(ctx, srv, Config{Runs: 100, LoadTime: time.Second, Progress: func(int) {
		if rounds++; rounds == 2 {
			cancel()
		}
	}})
	if err != context.Canceled || res == nil || res.Comparison.Rounds != 2 || res.Load != nil || res.Audit != nil {
		t.Fatalf("Run cancelled after 2 rounds = %v, %+v; want context.Canceled with 2 rounds, no load or audit", err, res)
	}
}
