//go:build !race

// These tests run every command that writes --json, the demo among them,
// whose HTTP/3 0-RTT requests meet a race inside quic-go's own stream map
// (quic-go issue #4303; scripts/test.sh says why 0-RTT tests run only
// without -race); they are also the package's heaviest, so they run once,
// in the pass without the race detector.

package report_test

import (
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/httpslab/httpslab/internal/report"
)

// realOutputs runs every command that writes --json against the embedded
// server, in the shapes that differ most: redirects, HTTP/3, resumption
// and 0-RTT, a failed request, the open model, a comparison over plain
// HTTP and HTTPS, an audit and the demo.
func realOutputs(t *testing.T) map[string][][]byte {
	srv, ca := labTarget(t)
	pu, _ := url.Parse(srv.HTTPURL)
	out := map[string][][]byte{}
	add := func(kind string, args ...string) {
		out[kind] = append(out[kind], runJSON(t, append([]string{kind, "--json"}, args...)...))
	}
	add("probe", "--cacert", ca, "-L", srv.HTTPSURL+"/redirect/2")
	add("probe", "--cacert", ca, "--http3", "-n", "2", "--resume", srv.HTTPSURL+"/bytes/2000")
	add("probe", "--cacert", ca, "--http3", "--0rtt", srv.HTTPSURL+"/")
	add("probe", "--cacert", ca, "-X", "POST", "-d", "hello", "--http2", srv.HTTPSURL+"/status/204")
	add("probe", "--max-time", "2", srv.HTTPURL+"/delay/5s")
	add("bench", "--cacert", ca, "-n", "50", "-c", "2", srv.HTTPSURL+"/")
	add("bench", "--cacert", ca, "-n", "40", "--rate", "400", "--http2", "--conn", "resume", srv.HTTPSURL+"/", "--server-pid", fmt.Sprint(os.Getpid()))
	out["bench"] = append(out["bench"], mergedOutput(t, ca, srv.HTTPSURL+"/"))
	add("audit", "--cacert", ca, "--attempts", "2", "--http-port", pu.Port(), srv.HTTPSURL+"/")
	add("compare", "--cacert", ca, "--http-url", srv.HTTPURL+"/", "--vary", "scheme,tls", "-n", "3", srv.HTTPSURL+"/")
	add("demo", "--runs", "2", "--bench-time", "200ms")
	add("page", "--cacert", ca, "-n", "2", "--protocols", "http,h1,h2,h3", "--http-url", srv.HTTPURL+"/page/styled", srv.HTTPSURL+"/page/styled")
	urls := filepath.Join(t.TempDir(), "pages.txt")
	if err := os.WriteFile(urls, []byte(srv.HTTPSURL+"/page/styled "+srv.HTTPURL+"/page/styled\n"+srv.HTTPSURL+"/page/images?n=4&size=900\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	out["page-survey"] = append(out["page-survey"], runJSON(t, "page", "--json", "--urls", urls, "--cacert", ca, "-n", "2", "--protocols", "h1,h2"))
	out["experiment"] = append(out["experiment"], experimentOutput(t))
	return out
}

// mergedOutput is httpslab merge --json of two bench workers' results.
func mergedOutput(t *testing.T, ca, url string) []byte {
	files := []string{"merge", "--json"}
	for i := range 2 {
		f := filepath.Join(t.TempDir(), "worker.json")
		doc := runJSON(t, "bench", "--json", "--cacert", ca, "-n", "40", "--workers", "2", "--index", strconv.Itoa(i), url)
		if err := os.WriteFile(f, doc, 0o600); err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	return runJSON(t, files...)
}

func TestSchemasValidateRealOutputs(t *testing.T) {
	outputs := realOutputs(t)
	for _, kind := range schemaKinds {
		if len(outputs[kind]) == 0 {
			t.Errorf("no real %s output to validate", kind)
		}
		for i, doc := range outputs[kind] {
			if err := validate(t, kind, doc); err != nil {
				t.Errorf("%s output %d does not validate against schema/%s.json: %v\n%s", kind, i, kind, err, doc)
			}
			var env report.Envelope
			if err := json.Unmarshal(doc, &env); err != nil || env.Schema != report.SchemaName(kind) {
				t.Errorf("%s output %d: schema %q, %v; want %q", kind, i, env.Schema, err, report.SchemaName(kind))
			}
		}
	}
	t.Run("broken", func(t *testing.T) {
		for _, kind := range schemaKinds {
			if len(outputs[kind]) > 0 {
				checkBrokenRejected(t, kind, outputs[kind][0])
			}
		}
	})
}
