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
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/httpslab/httpslab/internal/demo"
	"github.com/httpslab/httpslab/internal/page"
	"github.com/httpslab/httpslab/internal/tlsscan"
	"github.com/santhosh-tekuri/jsonschema/v6"
	"golang.org/x/text/language"
	"golang.org/x/text/message"
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

var (
	schemasOnce sync.Once
	schemas     map[string]*jsonschema.Schema
	schemasErr  error
)

// validateDocument validates data against schema/KIND.json.
func validateDocument(kind string, data []byte) error {
	schemasOnce.Do(compileSchemas)
	if schemasErr != nil {
		return schemasErr
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		return err
	}
	if err := schemas[kind].Validate(inst); err != nil {
		var ve *jsonschema.ValidationError
		if errors.As(err, &ve) {
			return errors.New(firstCause(ve))
		}
		return err
	}
	return nil
}

// firstCause names the deepest first reason a document failed, with
// where it is, instead of the validator's whole tree.
func firstCause(ve *jsonschema.ValidationError) string {
	for len(ve.Causes) > 0 {
		ve = ve.Causes[0]
	}
	loc := "/" + strings.Join(ve.InstanceLocation, "/")
	return fmt.Sprintf("at %s: %s", Escape(loc), Escape(ve.ErrorKind.LocalizedString(message.NewPrinter(language.English))))
}

// compileSchemas compiles every embedded schema once.
func compileSchemas() {
	schemas = map[string]*jsonschema.Schema{}
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	entries, err := schemaFiles.ReadDir("schema")
	if err != nil {
		schemasErr = err
		return
	}
	for _, e := range entries {
		data, _ := schemaFiles.ReadFile("schema/" + e.Name())
		doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
		if err == nil {
			err = c.AddResource("schema/"+e.Name(), doc)
		}
		if err != nil {
			schemasErr = fmt.Errorf("loading schema %s: %w", e.Name(), err)
			return
		}
	}
	for _, e := range entries {
		kind := strings.TrimSuffix(e.Name(), ".json")
		if schemas[kind], err = c.Compile("schema/" + e.Name()); err != nil {
			schemasErr = fmt.Errorf("compiling schema %s: %w", e.Name(), err)
			return
		}
	}
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
