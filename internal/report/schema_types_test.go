package report_test

import (
	"encoding"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/httpslab/httpslab/internal/demo"
	"github.com/httpslab/httpslab/internal/page"
	"github.com/httpslab/httpslab/internal/report"
	"github.com/httpslab/httpslab/internal/tlsscan"
)

// schemaRoots are the Go types each kind's result is encoded from.
var schemaRoots = map[string]reflect.Type{
	"probe":       reflect.TypeFor[report.ProbeJSON](),
	"bench":       reflect.TypeFor[report.BenchJSON](),
	"audit":       reflect.TypeFor[tlsscan.Report](),
	"compare":     reflect.TypeFor[report.CompareJSON](),
	"demo":        reflect.TypeFor[demo.Result](),
	"page":        reflect.TypeFor[page.Result](),
	"page-survey": reflect.TypeFor[page.SurveyResult](),
	"experiment":  reflect.TypeFor[report.ExperimentJSON](),
}

// TestSchemasMatchGoTypes walks each schema along the Go type its result
// is encoded from: every object's properties are the struct's JSON fields,
// and its required ones those without omitempty. Real outputs leave out
// the fields they have no value for; this catches a field added to a
// result type, or renamed, whose schema was not changed with it.
func TestSchemasMatchGoTypes(t *testing.T) {
	for _, kind := range schemaKinds {
		data, err := os.ReadFile(filepath.Join("schema", kind+".json"))
		if err != nil {
			t.Fatal(err)
		}
		var doc map[string]any
		if err := json.Unmarshal(data, &doc); err != nil {
			t.Fatal(err)
		}
		w := typeWalker{t: t, kind: kind, defs: asMap(doc["$defs"]), seen: map[reflect.Type]bool{}}
		props := asMap(doc["properties"])
		w.walk(props["result"], schemaRoots[kind], "result")
	}
}

type typeWalker struct {
	t    *testing.T
	kind string
	defs map[string]any
	seen map[reflect.Type]bool
}

var (
	jsonMarshaler = reflect.TypeFor[json.Marshaler]()
	textMarshaler = reflect.TypeFor[encoding.TextMarshaler]()
)

// resolve follows $ref and takes the non-null branch of an anyOf.
func (w *typeWalker) resolve(s any) map[string]any {
	m := asMap(s)
	for range 8 {
		switch {
		case m["$ref"] != nil:
			m = asMap(w.defs[strings.TrimPrefix(m["$ref"].(string), "#/$defs/")])
		case m["anyOf"] != nil:
			branches := m["anyOf"].([]any)
			m = asMap(branches[slices.IndexFunc(branches, func(b any) bool { return asMap(b)["type"] != "null" })])
		default:
			return m
		}
	}
	return m
}

func (w *typeWalker) walk(s any, t reflect.Type, path string) {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	m := w.resolve(s)
	if m == nil {
		w.t.Errorf("schema/%s.json %s: no schema for Go type %s", w.kind, path, t)
		return
	}
	if t == reflect.TypeFor[time.Time]() || t.Implements(jsonMarshaler) || t.Implements(textMarshaler) ||
		reflect.PointerTo(t).Implements(textMarshaler) {
		return // written by its own method (machine.Steal, compare.Summary): the real outputs check it
	}
	switch t.Kind() {
	case reflect.Slice, reflect.Array:
		if t.Elem().Kind() != reflect.Uint8 {
			w.walk(m["items"], t.Elem(), path+"[]")
		}
	case reflect.Map:
		w.walk(m["additionalProperties"], t.Elem(), path+"{}")
	case reflect.Struct:
		if w.seen[t] {
			return
		}
		w.seen[t] = true
		w.walkStruct(m, t, path)
	}
}

// walkStruct compares a struct's JSON fields with an object schema.
func (w *typeWalker) walkStruct(m map[string]any, t reflect.Type, path string) {
	props := asMap(m["properties"])
	var required []string
	for _, r := range asSlice(m["required"]) {
		required = append(required, r.(string))
	}
	fields := jsonFields(t)
	for name, f := range fields {
		p, ok := props[name]
		if !ok {
			w.t.Errorf("schema/%s.json %s: %s's field %q is not in the schema", w.kind, path, t, name)
			continue
		}
		if req := slices.Contains(required, name); req == f.optional {
			w.t.Errorf("schema/%s.json %s.%s: required in the schema %v; want %v (the Go field has omitempty: %v)",
				w.kind, path, name, req, !f.optional, f.optional)
		}
		w.walk(p, f.typ, path+"."+name)
	}
	for name := range props {
		if _, ok := fields[name]; !ok {
			w.t.Errorf("schema/%s.json %s: property %q is not a field of %s", w.kind, path, name, t)
		}
	}
}

type jsonField struct {
	typ      reflect.Type
	optional bool // omitempty or omitzero: left out when empty
}

// jsonFields lists the fields encoding/json writes for a struct, the
// fields of embedded structs among them.
func jsonFields(t reflect.Type) map[string]jsonField {
	out := map[string]jsonField{}
	for f := range t.Fields() {
		name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" && opts == "" {
			continue
		}
		if f.Anonymous && name == "" && f.Type.Kind() == reflect.Struct {
			for n, e := range jsonFields(f.Type) {
				out[n] = e
			}
			continue
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		out[name] = jsonField{typ: f.Type, optional: strings.Contains(opts, "omitempty") || strings.Contains(opts, "omitzero")}
	}
	return out
}

func asMap(v any) map[string]any { m, _ := v.(map[string]any); return m }
func asSlice(v any) []any        { s, _ := v.([]any); return s }
