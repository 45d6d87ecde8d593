package report

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/httpslab/httpslab/internal/labtest"
	"github.com/httpslab/httpslab/internal/probe"
)

// resumeRuns is one full handshake followed by resumed ones, as probe
// --resume -n 4 makes them: TLS 1.0 ms full, 0.4 to 0.6 ms resumed.
func resumeRuns() []probe.Timeline {
	runs := []probe.Timeline{h2Fresh()}
	for i, tlsUs := range []int{400, 600, 500} {
		tl := h2Fresh()
		tl.Events.TLSDone = tl.Events.TLSStart.Add(time.Duration(tlsUs) * time.Microsecond)
		tl.Events.GotConn = tl.Events.TLSDone.Add(10 * time.Microsecond)
		tl.Events.WroteRequest = tl.Events.GotConn.Add(50 * time.Microsecond)
		tl.Events.FirstByte = tl.Events.WroteRequest.Add(time.Duration(1000+100*i) * time.Microsecond)
		tl.Events.BodyDone = tl.Events.FirstByte.Add(200 * time.Microsecond)
		tls := *tl.TLS
		tls.Resumed, tls.Chain, tls.ChainBytes = true, nil, 0
		tl.TLS = &tls
		tl.Bytes.HandshakeRead = 400
		runs = append(runs, timeline(tl))
	}
	return runs
}

func TestSummaryGolden(t *testing.T) {
	tests := []struct {
		name string
		runs []probe.Timeline
		opt  SummaryOptions
	}{
		{"resume", resumeRuns(), SummaryOptions{Resume: true}},
		{"mixed", []probe.Timeline{h2Fresh(), refused(), h2Fresh(), refused(), h3()}, SummaryOptions{}},
	}
	for _, tt := range tests {
		var buf bytes.Buffer
		if err := Summary(&buf, tt.runs, tt.opt); err != nil {
			t.Fatal(err)
		}
		labtest.Golden(t, "summary-"+tt.name+".golden", buf.Bytes())
	}
}

func TestSummaryLines(t *testing.T) {
	tests := []struct {
		name string
		runs []probe.Timeline
		opt  SummaryOptions
		want []string
	}{
		{"resume", resumeRuns(), SummaryOptions{Resume: true}, []string{
			// TLS: 1010, 400, 600, 500 µs: median 550, p90 887 (interpolated).
			"  TLS           4    0.400 ms    0.550 ms    0.887 ms    1.010 ms",
			"TLS resumed 3 of 4 handshakes",
			"resumption saved 0.510 ms per handshake (50%): TLS median 1.010 ms full (1) vs 0.500 ms resumed (3)",
			"handshake bytes median 3,700 B full vs 1,800 B resumed (1,900 B fewer)",
		}},
		{"mixed", []probe.Timeline{h2Fresh(), refused(), h2Fresh(), refused(), h3()}, SummaryOptions{}, []string{
			"5 requests to https://localhost:8443/bytes/1000?x=1",
			"  DNS           4 ",
			"  connect       2 ",
			"  TLS           3 ",
			"  total         3    2.100 ms    3.700 ms    3.700 ms    3.700 ms",
			"failed 2 of 5 requests:",
			"     2 × dial tcp 127.0.0.1:1: connect: connection refused",
		}},
		// Errors that differ only in the local port are one error.
		{"timeouts", []probe.Timeline{h2Fresh(), timedOut(40001), timedOut(40002), timedOut(40003)}, SummaryOptions{}, []string{
			"failed 3 of 4 requests:",
			"     3 × read tcp 127.0.0.1->127.0.0.1:8443: i/o timeout",
		}},
	}
	for _, tt := range tests {
		var buf bytes.Buffer
		if err := Summary(&buf, tt.runs, tt.opt); err != nil {
			t.Fatal(err)
		}
		for _, w := range tt.want {
			if !strings.Contains(buf.String(), w) {
				t.Errorf("%s: summary lacks %q:\n%s", tt.name, w, buf.String())
			}
		}
	}
}

// TestSummaryZeroRTT: requests sent as early data are compared with the
// full handshake by their total time, which the overlapping phase rows
// cannot show.
func TestSummaryZeroRTT(t *testing.T) {
	runs := resumeRuns()
	for i := 1; i < len(runs); i++ {
		tls := *runs[i].TLS
		tls.EarlyData = true
		runs[i].TLS = &tls
		runs[i].Total = time.Duration(1000+100*i) * time.Microsecond
	}
	runs[0].Total = 3 * time.Millisecond
	var buf bytes.Buffer
	if err := Summary(&buf, runs, SummaryOptions{ZeroRTT: true}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"TLS resumed 3 of 4 handshakes, 0-RTT accepted in 3\n",
		"resumption saved 0.510 ms per handshake",
		"0-RTT requests leave with the first flight: their send and wait overlap the TLS phase\n",
		// totals 1.1, 1.2, 1.3 ms: median 1.2 against 3.0 full.
		"0-RTT saved 1.800 ms per request (60%): total median 3.000 ms full (1) vs 1.200 ms with 0-RTT (3)\n",
	} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("summary lacks %q:\n%s", want, buf.String())
		}
	}
	runs = resumeRuns()
	buf.Reset()
	if err := Summary(&buf, runs, SummaryOptions{ZeroRTT: true}); err != nil {
		t.Fatal(err)
	}
	if want := "0-RTT: the server accepted no early data, nothing to compare\n"; !strings.Contains(buf.String(), want) {
		t.Errorf("summary lacks %q:\n%s", want, buf.String())
	}
}

func TestSummaryResumeNothingToCompare(t *testing.T) {
	var buf bytes.Buffer
	if err := Summary(&buf, []probe.Timeline{h2Fresh(), h2Fresh()}, SummaryOptions{Resume: true}); err != nil {
		t.Fatal(err)
	}
	want := "resumption: 2 full and 0 resumed handshakes, nothing to compare"
	if !strings.Contains(buf.String(), want) {
		t.Errorf("summary lacks %q:\n%s", want, buf.String())
	}
}

func TestSummaryResumeSlower(t *testing.T) {
	runs := resumeRuns()
	full := runs[0]
	full.Phases = nil
	full.Events.TLSDone = full.Events.TLSStart.Add(100 * time.Microsecond)
	runs[0] = timeline(full)
	var buf bytes.Buffer
	if err := Summary(&buf, runs, SummaryOptions{Resume: true}); err != nil {
		t.Fatal(err)
	}
	want := "resumption saved no time: TLS median 0.100 ms full (1) vs 0.500 ms resumed (3)"
	if !strings.Contains(buf.String(), want) {
		t.Errorf("summary lacks %q:\n%s", want, buf.String())
	}
}

func TestSummarize(t *testing.T) {
	tests := []struct {
		values []time.Duration
		want   dist[time.Duration]
	}{
		{nil, dist[time.Duration]{}},
		{[]time.Duration{7}, dist[time.Duration]{1, 7, 7, 7, 7}},
		{[]time.Duration{4, 3, 2, 1}, dist[time.Duration]{4, 1, 3, 4, 4}}, // median 2.5 rounds away from zero
		{[]time.Duration{0, 100}, dist[time.Duration]{2, 0, 50, 90, 100}},
	}
	for _, tt := range tests {
		if got := summarize(tt.values); got != tt.want {
			t.Errorf("summarize(%v) = %+v; want %+v", tt.values, got, tt.want)
		}
	}
}

// timedOut is a request whose read timed out on local port port.
func timedOut(port int) probe.Timeline {
	tl := refused()
	tl.Err = fmt.Sprintf("read tcp 127.0.0.1:%d->127.0.0.1:8443: i/o timeout", port)
	return tl
}
