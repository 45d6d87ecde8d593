package report_test

// The JSON Schemas in schema/ describe what --json writes, one file per
// schema. These tests validate real outputs of every command, run
// in-process against the embedded server, with a JSON Schema validator,
// and check that the schemas are strict: an unknown field, a missing
// required field or a value of the wrong type is rejected.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/httpslab/httpslab/internal/cli"
	"github.com/httpslab/httpslab/internal/lab"
	"github.com/httpslab/httpslab/internal/labtest"
	"github.com/httpslab/httpslab/internal/report"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// schemaKinds are the kinds of --json documents; each has schema/KIND.json.
var schemaKinds = []string{"probe", "bench", "audit", "compare", "demo", "page", "page-survey", "experiment"}

// compileSchema compiles schema/KIND.json, with formats (date-time)
// asserted rather than only annotated.
func compileSchema(t *testing.T, kind string) *jsonschema.Schema {
	t.Helper()
	path, err := filepath.Abs(filepath.Join("schema", kind+".json"))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	s, err := c.Compile(path)
	if err != nil {
		t.Fatalf("compiling the %s schema: %v", kind, err)
	}
	return s
}

// validate checks doc against the schema of kind.
func validate(t *testing.T, kind string, doc []byte) error {
	t.Helper()
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(doc))
	if err != nil {
		return fmt.Errorf("not JSON: %w", err)
	}
	return compileSchema(t, kind).Validate(inst)
}

// runJSON runs an httpslab command line in-process and returns its stdout.
func runJSON(t *testing.T, args ...string) []byte {
	t.Helper()
	var stdout, stderr bytes.Buffer
	// A failed request (exit 1) and a threshold tripped (exit 3) still
	// write their document.
	code := cli.Run(context.Background(), args, &stdout, &stderr)
	if code != cli.ExitOK && code != cli.ExitFailure && code != cli.ExitThreshold || stdout.Len() == 0 {
		t.Fatalf("httpslab %q = %d, %d bytes of output; stderr:\n%s", args, code, stdout.Len(), stderr.String())
	}
	return stdout.Bytes()
}

// labTarget starts the embedded server and writes its CA to a file.
func labTarget(t *testing.T) (*lab.Server, string) {
	t.Helper()
	srv := labtest.StartServer(t, lab.Config{})
	ca := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(ca, srv.CA.CertPEM, 0o600); err != nil {
		t.Fatal(err)
	}
	return srv, ca
}

// TestSchemasValidateGolden validates bench's JSON golden file, the
// result of a deterministic run, in its envelope.
func TestSchemasValidateGolden(t *testing.T) {
	result, err := os.ReadFile(filepath.Join("testdata", "bench-json.golden"))
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := report.WriteJSON(&b, "bench", json.RawMessage(result)); err != nil {
		t.Fatal(err)
	}
	if err := validate(t, "bench", b.Bytes()); err != nil {
		t.Errorf("bench-json.golden does not validate: %v", err)
	}
}

// TestSchemasStrict checks that every object a schema describes is
// closed (additionalProperties false) and lists its required fields,
// and that the envelope's "schema" is fixed to the kind's name.
func TestSchemasStrict(t *testing.T) {
	for _, kind := range schemaKinds {
		data, err := os.ReadFile(filepath.Join("schema", kind+".json"))
		if err != nil {
			t.Fatal(err)
		}
		var doc map[string]any
		if err := json.Unmarshal(data, &doc); err != nil {
			t.Fatalf("schema/%s.json: %v", kind, err)
		}
		walkSchemas(doc, "#", func(path string, s map[string]any) {
			if _, ok := s["properties"]; !ok {
				return
			}
			if s["additionalProperties"] != false {
				t.Errorf("schema/%s.json %s: additionalProperties %v; want false", kind, path, s["additionalProperties"])
			}
			if _, ok := s["required"]; !ok {
				t.Errorf("schema/%s.json %s: no required fields listed", kind, path)
			}
		})
		props, _ := doc["properties"].(map[string]any)
		if sc, _ := props["schema"].(map[string]any); sc["const"] != report.SchemaName(kind) {
			t.Errorf("schema/%s.json: schema const %v; want %q", kind, sc["const"], report.SchemaName(kind))
		}
	}
}

// walkSchemas calls f on every object of a schema document.
func walkSchemas(v any, path string, f func(string, map[string]any)) {
	switch v := v.(type) {
	case map[string]any:
		f(path, v)
		for k, c := range v {
			walkSchemas(c, path+"/"+k, f)
		}
	case []any:
		for i, c := range v {
			walkSchemas(c, fmt.Sprintf("%s/%d", path, i), f)
		}
	}
}

// breakPoints are, for each kind, objects of a real document and two of
// their fields: one to remove (a required one) and one to give a value of
// another type. One object is the result itself, the other nested deep in
// it, so that strictness is checked beyond the top level.
var breakPoints = map[string][]struct{ path, remove, retype string }{
	"probe": {{"/result", "url", "runs"}, {"/result/runs/0/hops/0/tls", "cipher_suite", "resumed"}},
	"bench": {{"/result", "requests", "status"}, {"/result/latency_us/total", "count", "percentiles"}, {"/result/intervals/0", "requests", "hdr"}},
	"audit": {{"/result", "findings", "connections"}, {"/result/chain/certs/0", "key_type", "key_bits"}},
	"compare": {{"/result", "comparison", "findings"},
		{"/result/comparison/variants/0/key", "scheme", "conn"}},
	"demo":        {{"/result", "comparison", "behind_link"}, {"/result/comparison/variants/0/samples/0", "total_ns", "round"}},
	"page":        {{"/result", "protocols", "rounds"}, {"/result/protocols/1/median_load/requests/0", "kind", "phases"}},
	"page-survey": {{"/result", "pages", "rounds"}, {"/result/pages/1/differences/0", "diff", "from"}},
	"experiment":  {{"/result", "variants", "seed"}, {"/result/variants/1/samples/0", "requests", "values"}},
}

// checkBrokenRejected breaks a valid document in three ways at each of
// its kind's break points: an unknown field, a required field removed, a
// value of another type; and gives it a creation time that is not RFC
// 3339. The schema must reject every one.
func checkBrokenRejected(t *testing.T, kind string, valid []byte) {
	t.Helper()
	retype := func(v any) any {
		switch v.(type) {
		case string:
			return 12
		case float64:
			return "12"
		case bool:
			return "yes"
		}
		return true // an array or an object
	}
	for _, bp := range breakPoints[kind] {
		for name, brk := range map[string]func(obj map[string]any) bool{
			"unknown field " + bp.path + "/no_such_field": func(obj map[string]any) bool { obj["no_such_field"] = 1; return true },
			"missing field " + bp.path + "/" + bp.remove: func(obj map[string]any) bool {
				_, ok := obj[bp.remove]
				delete(obj, bp.remove)
				return ok
			},
			"wrong type " + bp.path + "/" + bp.retype: func(obj map[string]any) bool {
				v, ok := obj[bp.retype]
				obj[bp.retype] = retype(v)
				return ok
			},
		} {
			var doc any
			if err := json.Unmarshal(valid, &doc); err != nil {
				t.Fatal(err)
			}
			obj, ok := pointer(doc, bp.path).(map[string]any)
			if !ok || !brk(obj) {
				t.Errorf("%s: %s: the document has no such object or field", kind, name)
				continue
			}
			broken, _ := json.Marshal(doc)
			if err := validate(t, kind, broken); err == nil {
				t.Errorf("%s: a document with a %s validates; want it rejected", kind, name)
			}
		}
	}
	var doc map[string]any
	_ = json.Unmarshal(valid, &doc)
	doc["created"] = "yesterday"
	if broken, _ := json.Marshal(doc); validate(t, kind, broken) == nil {
		t.Errorf("%s: a created time that is not RFC 3339 validates; want it rejected", kind)
	}
}

// pointer resolves a JSON pointer of object keys and array indexes.
func pointer(v any, path string) any {
	for _, part := range strings.Split(strings.TrimPrefix(path, "/"), "/") {
		switch c := v.(type) {
		case map[string]any:
			v = c[part]
		case []any:
			i, err := strconv.Atoi(part)
			if err != nil || i >= len(c) {
				return nil
			}
			v = c[i]
		default:
			return nil
		}
	}
	return v
}
