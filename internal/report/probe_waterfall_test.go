package report

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/httpslab/httpslab/internal/labtest"
	"github.com/httpslab/httpslab/internal/probe"
)

func TestWaterfallGolden(t *testing.T) {
	tests := []struct {
		name  string
		hops  []probe.Timeline
		color bool
	}{
		{"h2", []probe.Timeline{h2Fresh()}, false},
		{"h2-color", []probe.Timeline{h2Fresh()}, true},
		{"redirect", redirectHops(), false},
		{"h3", []probe.Timeline{h3()}, false},
		{"reused", []probe.Timeline{reused()}, false},
		{"refused", []probe.Timeline{refused()}, false},
	}
	for _, tt := range tests {
		var buf bytes.Buffer
		if err := Waterfall(&buf, tt.hops, WaterfallOptions{Color: tt.color}); err != nil {
			t.Fatalf("Waterfall(%s) error: %v", tt.name, err)
		}
		labtest.Golden(t, "waterfall-"+tt.name+".golden", buf.Bytes())
		if got := strings.Contains(buf.String(), "\x1b["); got != tt.color {
			t.Errorf("Waterfall(%s) has colour codes = %v; want %v", tt.name, got, tt.color)
		}
	}
}

// TestWaterfallRows checks that each phase that happened has a row,
// that absent phases have none, and the round trips.
func TestWaterfallRows(t *testing.T) {
	tests := []struct {
		name    string
		tl      probe.Timeline
		now     time.Time
		want    []string
		notWant []string
	}{
		{"hrr, 0-RTT, 103, expired", hrrEarly(), t0.Add(41 * 24 * time.Hour), []string{
			"HelloRetry    yes (the server asked for another key share: one more round trip)",
			"0-RTT         accepted", "informational 103 at 2.300 ms", "OCSP staple   yes",
			"EXPIRED 2027-01-01 (1 days ago)", "verified      no (-k; without it the check fails: x509: certificate has expired or is not yet valid)",
		}, nil},
		{"h2", h2Fresh(), time.Time{}, []string{
			"  DNS          0.010 ms    0.100 ms",
			"  connect      0.120 ms    1.000 ms", "1.0 RTT",
			"  TLS          1.130 ms    1.010 ms",
			"  wait         2.200 ms    1.300 ms", "1.3 RTT",
			"X25519MLKEM768 (post-quantum hybrid)", "ALPN          h2",
			"2 certificates, 932 B", "expires 2027-01-01 (in 40 days)",
			"handshake     written 1,400 B, read 2,300 B, 3,700 B in all",
			"60 B of 1,150 B read (5.2%): TLS records and protocol framing",
			"smoothed      1.000 ms ± 0.250 ms (TCP_INFO)",
		}, []string{"dial attempts", "reused", "failed"}},
		{"reused", reused(), time.Time{}, []string{"connection reused", "  send"}, []string{"  DNS ", "  connect ", "  TLS  "}},
		{"h3", h3(), time.Time{}, []string{"  QUIC+TLS     0.020 ms    1.000 ms", "1.0 RTT", "QUIC estimate", "not measurable: 120 B on the wire for 250 B decoded"}, []string{"  DNS ", "  connect "}},
		// The phase a request failed in shows, up to the failure.
		{"refused", refused(), time.Time{}, []string{"  DNS ", "  connect      0.050 ms    0.350 ms", "█  failed here\n", "dial attempts:", "tcp6  [::1]:1", "failed: dial tcp"},
			[]string{"TLS\n", "bytes on the wire", "round-trip time"}},
		{"QUIC handshake failed", quicFailed(), time.Time{}, []string{"  QUIC+TLS     0.010 ms    1.190 ms", "█  failed here\n"}, nil},
		{"1xx loop", informationalLoop(), time.Time{}, []string{"informational 102 at 1.000 ms", "informational 102 at 5.000 ms",
			"and 96 more informational responses (101 in all)"}, []string{"informational 102 at 6.000 ms"}},
		{"handshake failed", tlsFailed(), time.Time{}, []string{"  connect      0.010 ms    0.100 ms", "  TLS          0.120 ms   15.000 ms", "█  failed here\n", "failed: tls:"},
			[]string{"  send ", "TLS\n"}},
	}
	for _, tt := range tests {
		var buf bytes.Buffer
		if err := Waterfall(&buf, []probe.Timeline{tt.tl}, WaterfallOptions{Now: tt.now}); err != nil {
			t.Fatal(err)
		}
		got := buf.String()
		for _, w := range tt.want {
			if !strings.Contains(got, w) {
				t.Errorf("%s: waterfall lacks %q:\n%s", tt.name, w, got)
			}
		}
		for _, w := range tt.notWant {
			if strings.Contains(got, w) {
				t.Errorf("%s: waterfall has %q:\n%s", tt.name, w, got)
			}
		}
	}
}

func TestBar(t *testing.T) {
	ms1 := int64(1e6)
	tests := []struct {
		start, dur, total int64
		want              string
	}{
		{0, 10 * ms1, 10 * ms1, "##########"},
		{0, 5 * ms1, 10 * ms1, "#####     "},
		{5 * ms1, 5 * ms1, 10 * ms1, "     #####"},
		{0, 1, 10 * ms1, "#         "},        // too short still shows
		{10 * ms1, 0, 10 * ms1, "         #"}, // at the very end
		{2 * ms1, 3 * ms1, 0, "          "},   // unknown total
		{0, 20 * ms1, 10 * ms1, "##########"}, // longer than total
	}
	for _, tt := range tests {
		got := strings.ReplaceAll(bar(probe.Phase{Start: durationOf(tt.start), Duration: durationOf(tt.dur)}, durationOf(tt.total), 10), "█", "#")
		if got != tt.want {
			t.Errorf("bar(%d, %d of %d) = %q; want %q", tt.start, tt.dur, tt.total, got, tt.want)
		}
	}
}

func TestWaterfallNoHops(t *testing.T) {
	if err := Waterfall(&bytes.Buffer{}, nil, WaterfallOptions{}); err == nil {
		t.Error("Waterfall(no hops) = nil error; want an error")
	}
}

// hrrEarly is h2Fresh after a HelloRetryRequest, with 0-RTT accepted, an
// OCSP staple, a 103 Early Hints response, unverified (-k).
func hrrEarly() probe.Timeline {
	tl := h2Fresh()
	s := *tl.TLS
	s.HelloRetry, s.EarlyData, s.OCSPStapled, s.Verified = true, true, true, false
	s.VerifyResult, s.VerifyError = probe.VerifyExpired, "x509: certificate has expired or is not yet valid"
	tl.TLS = &s
	tl.Informational = []probe.Informational{{Status: 103, At: 2300 * time.Microsecond}}
	return tl
}

// informationalLoop got 101 102 Processing responses, of which the first
// five were kept, and failed.
func informationalLoop() probe.Timeline {
	tl := refused()
	for i := range probe.KeptInformational {
		tl.Informational = append(tl.Informational, probe.Informational{Status: 102, At: time.Duration(i+1) * time.Millisecond})
	}
	tl.InformationalCount = 101
	return tl
}

// tlsFailed connected in 0.1 ms, then spent 15 ms in a handshake that
// failed on the certificate.
func tlsFailed() probe.Timeline {
	tl := timeline(probe.Timeline{
		URL: "https://localhost:8443/", Method: "GET",
		Events: probe.Events{Start: at(0), ConnectStart: at(10), ConnectDone: at(110), TLSStart: at(120)},
		Dials:  []probe.Dial{{Network: "tcp4", Addr: "127.0.0.1:8443", Start: 10 * time.Microsecond, Duration: 100 * time.Microsecond}},
		Err:    "tls: failed to verify certificate: x509: certificate signed by unknown authority",
	})
	tl.Total = 15120 * time.Microsecond
	return tl
}

// quicFailed is an HTTP/3 request whose QUIC handshake failed after
// 1.19 ms: no response, so no protocol but its UDP dial.
func quicFailed() probe.Timeline {
	tl := timeline(probe.Timeline{
		URL: "https://localhost:8443/", Method: "GET",
		Events: probe.Events{Start: at(0), TLSStart: at(10)},
		Dials:  []probe.Dial{{Network: "udp", Addr: "127.0.0.1:8443", Start: 10 * time.Microsecond, Duration: 1190 * time.Microsecond, Err: "connection refused"}},
		Err:    "quic: transport closed: connection refused",
	})
	tl.Total = 1200 * time.Microsecond
	return tl
}

// TestExpiryFarFuture: a certificate valid until 9999-12-31 shows its
// real distance (time.Time.Sub saturates at 292 years: it showed 106751
// days).
func TestExpiryFarFuture(t *testing.T) {
	now := time.Date(2026, 11, 24, 0, 0, 0, 0, time.UTC)
	notAfter := time.Date(9999, 12, 31, 0, 0, 0, 0, time.UTC)
	if got, want := expiry(notAfter, now), "expires 9999-12-31 (in 2912115 days)"; got != want {
		t.Errorf("expiry(%v) = %q; want %q", notAfter, got, want)
	}
	if got, want := expiry(now, notAfter), "EXPIRED 2026-11-24 (2912115 days ago)"; got != want {
		t.Errorf("expiry(%v, now %v) = %q; want %q", now, notAfter, got, want)
	}
}
