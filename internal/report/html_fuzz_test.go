package report

import (
	"bytes"
	"io"
	"testing"
	"time"
)

// FuzzHTMLReport reads arbitrary result files, as httpslab report does,
// and writes the HTML report and the CSV of each that reads: a file that
// passes its schema may still hold any histogram, interval or sample, and
// must give a report or an error, never a panic or a hang. The seeds are
// the fixed bench result (open model, intervals) and experiment of the
// golden tests.
func FuzzHTMLReport(f *testing.F) {
	created := time.Date(2026, 11, 22, 0, 0, 0, 0, time.UTC)
	bench, exp := NewBenchJSON(sampleBench()), ExperimentResultJSON(experimentFixture())
	for kind, v := range map[string]any{"bench": bench, "experiment": exp} {
		var b bytes.Buffer
		if err := WriteJSON(&b, kind, v); err != nil {
			f.Fatal(err)
		}
		f.Add(b.Bytes())
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		d, err := Read(bytes.NewReader(data))
		if err != nil {
			return
		}
		d.Created = created
		in := []HTMLInput{{Label: "a", Doc: d}, {Label: "b", Doc: d}}
		if err := WriteHTML(io.Discard, in); err != nil {
			t.Logf("WriteHTML: %v", err)
		}
		if err := WriteCSV(io.Discard, d.Kind, d.Result); err != nil {
			t.Logf("WriteCSV: %v", err)
		}
	})
}
