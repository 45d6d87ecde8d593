package load

import (
	"bytes"
	"crypto/tls"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// sampleResult builds a deterministic open-model result by feeding
// events through the aggregator.
func sampleResult() *Result {
	cfg := Config{Targets: []Target{{URL: "https://127.0.0.1:8443/"}, {URL: "https://127.0.0.1:8443/a"}},
		Conns: 4, Streams: 1, Pipeline: 1, Rate: 100, Mode: Resume, RequestsPerConn: 1}
	a := newAggregator(cfg, time.Unix(0, 0))
	for i := int64(0); i < 100; i++ {
		a.add(&event{kind: handshakeEvent, connect: 50e3, tls: 400e3 + i*1e3, end: i * 10e6, version: tls.VersionTLS13,
			cipher: tls.TLS_AES_128_GCM_SHA256, curve: tls.X25519, resumed: i > 0})
		a.add(&event{intended: i * 10e6, start: i*10e6 + i*20e3, end: i*10e6 + 1e6 + i*50e3, wait: 500e3, status: 200, bytes: 1100})
	}
	a.add(&event{intended: 1000e6, start: 1000e6, end: 1001e6, err: errMalformed})
	r := a.r
	r.Elapsed = time.Duration(a.last)
	r.CPU = CPU{ClientUser: 30 * time.Millisecond, ClientSystem: 20 * time.Millisecond, ClientCores: 1,
		Wall: time.Second, ServerMeasured: true, ServerUser: 40 * time.Millisecond, ServerSystem: 10 * time.Millisecond,
		ServerBusiest: ProcBusy{PID: 4321, CPU: 50 * time.Millisecond, Cores: 1}}
	return r
}

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("reading golden file (run with -update to create it): %v", err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("%s differs (-want +got):\n%s", name, diff)
	}
}

func TestWriteTextGolden(t *testing.T) {
	var b bytes.Buffer
	if err := sampleResult().WriteText(&b); err != nil {
		t.Fatal(err)
	}
	golden(t, "report.golden", b.Bytes())
}

func TestJSONGolden(t *testing.T) {
	b, err := json.MarshalIndent(sampleResult().JSON(), "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	golden(t, "result.json.golden", append(b, '\n'))
}

// TestLoadLineInFlight: the Load line says how many requests a connection
// had in flight, which --requests-per-conn can hold below -m or
// --pipeline.
func TestLoadLineInFlight(t *testing.T) {
	for _, tt := range []struct {
		streams, pipeline, perConn int
		want                       string
	}{
		{4, 1, 0, "4 connections x 4 streams, --conn resume, "},
		{4, 1, 1, "4 connections (-m 4 asked: a connection of 1 request has at most 1 in flight), --conn resume (1 request per connection)"},
		{8, 1, 3, "4 connections x 3 streams (-m 8 asked: a connection of 3 requests has at most 3 in flight), --conn resume (3 requests"},
		{1, 8, 3, "4 connections, pipeline 3 (--pipeline 8 asked: a connection of 3 requests has at most 3 in flight), --conn resume"},
		{1, 8, 30, "4 connections, pipeline 8, --conn resume (30 requests per connection)"},
	} {
		r := sampleResult()
		r.Config.Streams, r.Config.Pipeline, r.Config.RequestsPerConn = tt.streams, tt.pipeline, tt.perConn
		if out := reportText(t, r); !strings.Contains(out, tt.want) {
			t.Errorf("-m %d --pipeline %d --requests-per-conn %d: report lacks %q:\n%s", tt.streams, tt.pipeline, tt.perConn, tt.want, out)
		}
	}
}
