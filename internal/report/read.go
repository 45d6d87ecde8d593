package report

// Reading results back. `httpslab report` and merge read the --json
// documents the commands wrote: Read dispatches on the envelope's
// "schema", validates the document against the strict JSON Schema of its
// kind (the same files the tests check every command's output against,
// embedded in the binary) and decodes its result into the kind's own
// type, rejecting fields the type does not know. A document of a version
// this binary no longer writes is refused with its version named: its
// fields may mean something else, and a report must not guess.

import (
	"bytes"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/httpslab/httpslab/internal/demo"
	"github.com/httpslab/httpslab/internal/page"
	"github.com/httpslab/httpslab/internal/tlsscan"
)

//go:embed schema/*.json
var schemaFiles embed.FS

// MaxDocumentBytes bounds a document Read accepts. A bench result holds
// histograms, not samples, so real documents are far smaller; the bound
// keeps a wrong file (a log, a disk image) from filling memory.
const MaxDocumentBytes = 64 << 20

// Document is one result read back from its --json form.
type Document struct {
	Kind    string    // probe, bench, audit, compare, page, experiment, demo
	Schema  string    // the envelope's schema, httpslab/KIND/vN
	Version string    // httpslab_version of the binary that wrote it
	Created time.Time // when it was written
	// Result is the decoded result, by kind: *BenchJSON, *ProbeJSON,
	// *tlsscan.Report, *CompareJSON, *page.Result, *ExperimentJSON or
	// *demo.Result.
	Result any
}

// ErrNotResult is wrapped by Read's error for input that is not an
// httpslab --json document at all.
var ErrNotResult = errors.New("not an httpslab result")

// newResult returns a pointer to the zero result of kind, or nil for a
// kind no command writes.
func newResult(kind string) any {
	switch kind {
	case "probe":
		return &ProbeJSON{}
	case "bench":
		return &BenchJSON{}
	case "audit":
		return &tlsscan.Report{}
	case "compare":
		return &CompareJSON{}
	case "page":
		return &page.Result{}
	case "page-survey":
		return &page.SurveyResult{}
	case "experiment":
		return &ExperimentJSON{}
	case "demo":
		return &demo.Result{}
	}
	return nil
}

// Read reads one --json document from r.
func Read(r io.Reader) (*Document, error) {
	data, err := io.ReadAll(io.LimitReader(r, MaxDocumentBytes+1))
	if err != nil {
		return nil, fmt.Errorf("reading result: %w", err)
	}
	if len(data) > MaxDocumentBytes {
		return nil, fmt.Errorf("%w: larger than %d MiB", ErrNotResult, MaxDocumentBytes>>20)
	}
	kind, ver, err := peekSchema(data)
	if err != nil {
		return nil, err
	}
	name := SchemaName(kind)
	if want := max(schemaVersions[kind], 1); ver != want {
		return nil, fmt.Errorf("schema httpslab/%s/v%d is not read by this httpslab, which reads %s "+
			"(the %s result was written by another version; rerun the command with this one)", kind, ver, name, kind)
	}
	if err := validateDocument(kind, data); err != nil {
		return nil, fmt.Errorf("%s document does not match schema %s: %w", kind, name, err)
	}
	return decodeDocument(kind, data)
}

// peekSchema reads the envelope's "schema" and splits it into a known
// kind and its version.
func peekSchema(data []byte) (string, int, error) {
	var head struct {
		Schema *string `json:"schema"`
	}
	if err := json.Unmarshal(data, &head); err != nil {
		return "", 0, fmt.Errorf("%w: not a JSON object (%v)", ErrNotResult, err)
	}
	if head.Schema == nil {
		return "", 0, fmt.Errorf(`%w: no "schema" field`, ErrNotResult)
	}
	s := *head.Schema
	rest, ok := strings.CutPrefix(s, "httpslab/")
	kind, v, ok2 := strings.Cut(rest, "/v")
	ver, err := strconv.Atoi(v)
	if !ok || !ok2 || err != nil || ver < 1 {
		return "", 0, fmt.Errorf("%w: schema %q is not httpslab/KIND/vN", ErrNotResult, Escape(s))
	}
	if newResult(kind) == nil {
		return "", 0, fmt.Errorf("%w: unknown result kind %q in schema %q", ErrNotResult, Escape(kind), Escape(s))
	}
	return kind, ver, nil
}

// decodeDocument decodes a validated document into its kind's type.
func decodeDocument(kind string, data []byte) (*Document, error) {
	env := struct {
		Schema          string          `json:"schema"`
		HTTPSLabVersion string          `json:"httpslab_version"`
		Created         time.Time       `json:"created"`
		Result          json.RawMessage `json:"result"`
	}{}
	if err := strictDecode(data, &env); err != nil {
		return nil, fmt.Errorf("decoding %s envelope: %w", kind, err)
	}
	res := newResult(kind)
	if err := strictDecode(env.Result, res); err != nil {
		return nil, fmt.Errorf("decoding %s result: %w", kind, err)
	}
	return &Document{Kind: kind, Schema: env.Schema, Version: env.HTTPSLabVersion, Created: env.Created, Result: res}, nil
}

// strictDecode decodes one JSON value into v, refusing unknown fields and
// trailing data.
func strictDecode(data []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if dec.More() {
		return errors.New("data after the document")
	}
	return nil
}

// schemaSet is one kind's embedded schema, resolved on first use: a
// binary that reads no document pays nothing for its schemas at start.
type schemaSet struct {
	once     sync.Once
	root     *jsonschema.Schema
	resolved *jsonschema.Resolved
	err      error

	mu  sync.Mutex
	sub map[*jsonschema.Schema]*jsonschema.Resolved // subschemas resolved to place an error
}

var (
	schemaSetsMu sync.Mutex
	schemaSets   = map[string]*schemaSet{}
)

// kindSchema returns kind's schema, resolving schema/KIND.json once.
func kindSchema(kind string) (*schemaSet, error) {
	schemaSetsMu.Lock()
	ss := schemaSets[kind]
	if ss == nil {
		ss = &schemaSet{sub: map[*jsonschema.Schema]*jsonschema.Resolved{}}
		schemaSets[kind] = ss
	}
	schemaSetsMu.Unlock()
	ss.once.Do(func() {
		name := "schema/" + kind + ".json"
		data, err := schemaFiles.ReadFile(name)
		if err != nil {
			ss.err = fmt.Errorf("loading schema %s.json: %w", kind, err)
			return
		}
		ss.root = new(jsonschema.Schema)
		if err := json.Unmarshal(data, ss.root); err != nil {
			ss.err = fmt.Errorf("loading schema %s.json: %w", kind, err)
			return
		}
		if ss.resolved, err = ss.root.Resolve(nil); err != nil {
			ss.err = fmt.Errorf("resolving schema %s.json: %w", kind, err)
		}
	})
	return ss, ss.err
}

// validateDocument validates data against schema/KIND.json: types,
// required fields, additionalProperties, const, anyOf and $ref to $defs.
// The validator records "format" without asserting it; the schemas'
// date-time fields (created, started, not_after ...) are time.Time in
// the result types, so decodeDocument refuses one that is not RFC 3339.
func validateDocument(kind string, data []byte) error {
	ss, err := kindSchema(kind)
	if err != nil {
		return err
	}
	var inst any
	if err := json.Unmarshal(data, &inst); err != nil {
		return err
	}
	if err := ss.resolved.Validate(inst); err != nil {
		return errors.New(ss.firstCause(ss.root, inst, "", err))
	}
	return nil
}

// valid reports whether inst matches the subschema s of the kind's
// schema, or why not.
func (ss *schemaSet) valid(s *jsonschema.Schema, inst any) error {
	if s == ss.root {
		return ss.resolved.Validate(inst)
	}
	ss.mu.Lock()
	rs := ss.sub[s]
	ss.mu.Unlock()
	if rs == nil {
		// s on its own, with the root's $defs its $refs point into.
		w := s.CloneSchemas()
		w.Schema = ss.root.Schema
		if w.Defs == nil {
			w.Defs = ss.root.CloneSchemas().Defs
		}
		var err error
		if rs, err = w.Resolve(nil); err != nil {
			return err
		}
		ss.mu.Lock()
		ss.sub[s] = rs
		ss.mu.Unlock()
	}
	return rs.Validate(inst)
}

// firstCause names the first reason, in document order, that inst (at
// loc) fails s, with where it is: the deepest property or item that
// fails on its own, and the first alternative of an anyOf none of which
// matched. err is inst's error against s.
func (ss *schemaSet) firstCause(s *jsonschema.Schema, inst any, loc string, err error) string {
	descend := func(sub *jsonschema.Schema, v any, at string) (string, bool) {
		if sub == nil {
			return "", false
		}
		if e := ss.valid(sub, v); e != nil {
			return ss.firstCause(sub, v, at, e), true
		}
		return "", false
	}
	if name, ok := strings.CutPrefix(s.Ref, "#/$defs/"); ok {
		if msg, failed := descend(ss.root.Defs[name], inst, loc); failed {
			return msg
		}
	}
	switch v := inst.(type) {
	case map[string]any:
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		for _, k := range keys {
			sub, known := s.Properties[k]
			if !known && s.AdditionalProperties != nil && s.AdditionalProperties.Not == nil {
				sub = s.AdditionalProperties
			}
			if msg, failed := descend(sub, v[k], loc+"/"+pointerToken(k)); failed {
				return msg
			}
		}
	case []any:
		for i, item := range v {
			if msg, failed := descend(s.Items, item, loc+"/"+strconv.Itoa(i)); failed {
				return msg
			}
		}
	}
	for u := errors.Unwrap(err); u != nil; u = errors.Unwrap(err) {
		err = u
	}
	reason := err.Error()
	if strings.HasPrefix(reason, "anyOf:") && len(s.AnyOf) > 0 {
		if e := ss.valid(s.AnyOf[0], inst); e != nil {
			return ss.firstCause(s.AnyOf[0], inst, loc, e)
		}
	}
	if r := []rune(reason); len(r) > 300 {
		reason = string(r[:300]) + "..."
	}
	if loc == "" {
		loc = "/"
	}
	return fmt.Sprintf("at %s: %s", Escape(loc), Escape(reason))
}

// pointerToken escapes a property name as a JSON Pointer token.
func pointerToken(k string) string {
	return strings.ReplaceAll(strings.ReplaceAll(k, "~", "~0"), "/", "~1")
}

// ReadFiles reads the result files at paths, as Read does, each named by
// its label in labels or else by its file name. An error names the file.
func ReadFiles(paths, labels []string) ([]HTMLInput, error) {
	var in []HTMLInput
	for i, p := range paths {
		f, err := os.Open(p)
		if err != nil {
			return nil, err
		}
		doc, err := Read(f)
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("reading %s: %w", p, err)
		}
		label := filepath.Base(p)
		if i < len(labels) {
			label = labels[i]
		}
		in = append(in, HTMLInput{Label: label, Doc: doc})
	}
	return in, nil
}
