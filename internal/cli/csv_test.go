package cli

import (
	"context"
	"encoding/csv"
	"slices"
	"strings"
	"testing"

	"github.com/httpslab/httpslab/internal/lab"
)

// TestCSVOutput runs bench, compare, probe, page and audit with --csv
// against the embedded server: a header and one line per run (bench),
// variant (compare), hop (probe), request of the median load (page) or
// finding (audit), each as wide as the header, with what ran.
func TestCSVOutput(t *testing.T) {
	srv, ca := probeTarget(t, lab.Config{NoHTTP3: true})
	tests := []struct {
		name  string
		args  []string
		lines int
		want  map[string][]string // column: value per line after the header
	}{
		{"bench", []string{"bench", "--csv", "--cacert", ca, "-n", "30", "-c", "2", srv.HTTPSURL + "/"}, 2,
			map[string][]string{"requests": {"30"}, "errors": {"0"}, "connections": {"2"}, "status": {"200:30"}, "protocol": {"HTTP/1.1"}}},
		{"compare", []string{"compare", "--csv", "--cacert", ca, "--http-url", srv.HTTPURL + "/", "--vary", "scheme", "-n", "3",
			srv.HTTPSURL + "/"}, 3, map[string][]string{"variant": {"http h1", "https h1 TLS1.3"}, "n": {"3", "3"}, "scheme": {"http", "https"}}},
		{"probe", []string{"probe", "--csv", "--cacert", ca, "-L", srv.HTTPSURL + "/redirect/1"}, 3,
			map[string][]string{"hop": {"1", "2"}, "status": {"302", "200"}, "tls_version": {"TLS 1.3", "TLS 1.3"}, "reused": {"false", "true"}}},
		{"page", []string{"page", "--csv", "--cacert", ca, "-n", "1", "--protocols", "h2", srv.HTTPSURL + "/page/styled"}, -1,
			map[string][]string{"protocol": {"h2"}, "request": {"1"}, "status": {"200"}}},
	}
	for _, tt := range tests {
		code, stdout, stderr := run(t, context.Background(), tt.args...)
		if code != ExitOK {
			t.Fatalf("%s --csv = %d; stderr %s", tt.name, code, stderr)
		}
		records, err := csv.NewReader(strings.NewReader(stdout)).ReadAll()
		if err != nil || len(records) != tt.lines && (tt.lines > 0 || len(records) < 3) {
			t.Fatalf("%s --csv: %d lines, %v; want %d of the header's width:\n%s", tt.name, len(records), err, tt.lines, stdout)
		}
		for col, want := range tt.want {
			i := slices.Index(records[0], col)
			for line, w := range want {
				if i < 0 || records[line+1][i] != w {
					t.Errorf("%s --csv: column %q of line %d; want %q:\n%s", tt.name, col, line+1, w, stdout)
				}
			}
		}
	}
	for _, cmd := range []string{"bench", "compare"} {
		code, _, stderr := run(t, context.Background(), cmd, "--csv", "--json", srv.HTTPSURL+"/")
		if code != ExitUsage || !strings.Contains(stderr, "--json and --csv: give one of them") {
			t.Errorf("%s --csv --json = %d, %q; want a usage error", cmd, code, stderr)
		}
	}
}
