package report_test

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/httpslab/httpslab/internal/report"
	"github.com/httpslab/httpslab/internal/tlsscan"
)

// TestReadRealOutputs reads back what probe, bench and audit wrote
// against the embedded server, each into its own type.
func TestReadRealOutputs(t *testing.T) {
	srv, ca := labTarget(t)
	for _, tc := range []struct {
		args  []string
		check func(t *testing.T, res any)
	}{
		{[]string{"probe", "--json", "--cacert", ca, "-n", "2", srv.HTTPSURL + "/"}, func(t *testing.T, res any) {
			if p := res.(*report.ProbeJSON); len(p.Runs) != 2 || p.Runs[0].Hops[0].Status != 200 {
				t.Errorf("probe read back as %+v; want 2 runs of status 200", p)
			}
		}},
		{[]string{"bench", "--json", "--cacert", ca, "-n", "30", "-c", "2", srv.HTTPSURL + "/"}, func(t *testing.T, res any) {
			if b := res.(*report.BenchJSON); b.Requests != 30 || b.Latency["total"].Count != 30 || b.Latency["total"].HDR == "" {
				t.Errorf("bench read back with %d requests, %d in the histogram; want 30", b.Requests, b.Latency["total"].Count)
			}
		}},
		{[]string{"audit", "--json", "--cacert", ca, "--attempts", "2", srv.HTTPSURL + "/"}, func(t *testing.T, res any) {
			if a := res.(*tlsscan.Report); len(a.Findings) == 0 {
				t.Errorf("audit read back with no findings")
			}
		}},
	} {
		doc, err := report.Read(bytes.NewReader(runJSON(t, tc.args...)))
		if err != nil {
			t.Errorf("Read(%s --json) = %v", tc.args[0], err)
			continue
		}
		if doc.Kind != tc.args[0] || doc.Schema != report.SchemaName(tc.args[0]) {
			t.Errorf("Read(%s --json): kind %q, schema %q", tc.args[0], doc.Kind, doc.Schema)
		}
		tc.check(t, doc.Result)
	}
}

// TestReadRefuses checks the errors for documents Read cannot use: not
// a result at all, a version this binary no longer writes, a document
// that breaks its schema.
func TestReadRefuses(t *testing.T) {
	for _, tc := range []struct {
		name, doc string
		notResult bool
		want      []string
	}{
		{"text", "hello", true, []string{"not a JSON object"}},
		{"array", "[1,2]", true, []string{"not a JSON object"}},
		{"no schema", `{"a":1}`, true, []string{`no "schema" field`}},
		{"other schema", `{"schema":"https://example.com/x"}`, true, []string{"not httpslab/KIND/vN"}},
		{"unknown kind", `{"schema":"httpslab/nope/v1"}`, true, []string{`unknown result kind "nope"`}},
		{"old probe", `{"schema":"httpslab/probe/v1","result":{}}`, false, []string{"httpslab/probe/v1", report.SchemaName("probe")}},
		{"future bench", `{"schema":"httpslab/bench/v99","result":{}}`, false, []string{"httpslab/bench/v99", report.SchemaName("bench")}},
		{"broken bench", `{"schema":"` + report.SchemaName("bench") + `","httpslab_version":"x","created":"2026-01-01T00:00:00Z","result":{"requests":1}}`,
			false, []string{"does not match schema"}},
	} {
		_, err := report.Read(strings.NewReader(tc.doc))
		if err == nil {
			t.Errorf("%s: Read(%q) = nil error", tc.name, tc.doc)
			continue
		}
		if got := errors.Is(err, report.ErrNotResult); got != tc.notResult {
			t.Errorf("%s: Read(%q) = %v; ErrNotResult %v, want %v", tc.name, tc.doc, err, got, tc.notResult)
		}
		for _, w := range tc.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: Read(%q) = %v; want it to say %q", tc.name, tc.doc, err, w)
			}
		}
	}
}

// TestReadUnknownField checks that a field the schema does not know is
// refused, not dropped.
func TestReadUnknownField(t *testing.T) {
	var b bytes.Buffer
	if err := report.WriteJSON(&b, "probe", map[string]any{"url": "https://x/", "runs": []any{}, "extra": 1}); err != nil {
		t.Fatal(err)
	}
	if _, err := report.Read(&b); err == nil || !strings.Contains(err.Error(), "extra") {
		t.Errorf("Read of a probe with an unknown field = %v; want an error naming it", err)
	}
}

// TestReadNamesWhere checks that a document breaking its schema is
// refused with where, in JSON Pointer form, and why.
func TestReadNamesWhere(t *testing.T) {
	srv, ca := labTarget(t)
	out := string(runJSON(t, "probe", "--json", "--cacert", ca, "-n", "2", srv.HTTPSURL+"/"))
	for _, tc := range []struct{ old, new, want string }{
		{`"status": 200`, `"status": "200"`, `at /result/runs/0/hops/0/status: type:`},
		{`"status": 200`, `"status": 200, "colour": 1`, `at /result/runs/0/hops/0: unexpected additional properties ["colour"]`},
		{`"hops": [`, `"hops": "none", "h": [`, `at /result/runs/0/hops: type: none has type "string", want "array"`},
		{`"url"`, `"address"`, `at /result: unexpected additional properties ["address"]`},
		{`"schema": "` + report.SchemaName("probe") + `",`, `"schema": "` + report.SchemaName("probe") + `", "schema2": 1,`, `at /: unexpected additional properties ["schema2"]`},
		{`"httpslab_version": `, `"httpslab_version": 1, "v": `, `at /httpslab_version: type: 1 has type "integer", want "string"`},
		// date-time: the envelope's created is decoded into time.Time.
		{`"created": "`, `"created": "yesterday `, `decoding probe envelope: parsing time`},
	} {
		doc := strings.Replace(out, tc.old, tc.new, 1)
		if doc == out {
			t.Fatalf("the probe document has no %s", tc.old)
		}
		_, err := report.Read(strings.NewReader(doc))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Read of a probe with %s = %v; want it to say %q", tc.new, err, tc.want)
		}
	}
}
