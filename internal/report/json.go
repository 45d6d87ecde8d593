package report

// The JSON envelope. Every httpslab command that takes --json writes one
// JSON object of this shape:
//
//	{
//	  "schema": "httpslab/<kind>/v2",   // kind: probe, bench, audit, compare, ...
//	  "httpslab_version": "v0.3.0",     // the binary that wrote it
//	  "created": "2026-11-22T00:00:00Z", // RFC 3339, UTC
//	  "result": { ... }                  // the command's result type, as typed
//	}
//
// The result is the command's own Go type encoded with encoding/json:
// durations stay as typed (time.Duration, integer nanoseconds), which is
// why their field names end in _ns; sizes are bytes, rates per second.
// A reader dispatches on "schema"; a change that breaks readers bumps the
// trailing version (v2) instead of changing v1. Each schema is described
// by a strict JSON Schema in schema/KIND.json, which the tests validate
// every command's real output against: a change to a result type's JSON
// changes that file too, and the README's changelog says what changed.

import (
	"encoding/json"
	"fmt"
	"io"
	"time"
)

// Version is the httpslab version written into every envelope. The
// command line sets it once at start; empty means "(devel)".
var Version = ""

// now is the envelope's clock; tests replace it for golden output.
var now = time.Now

// Envelope is the versioned wrapper around a command's JSON result.
type Envelope struct {
	Schema          string    `json:"schema"`
	HTTPSLabVersion string    `json:"httpslab_version"`
	Created         time.Time `json:"created"`
	Result          any       `json:"result"`
}

// schemaVersions are the current versions of the kinds whose schema has
// changed since v1; every other kind is at v1 (the README's changelog
// lists the changes). v2 of probe, bench, audit and demo names
// key-exchange groups as the TLS registry does (x25519, secp256r1), not
// by Go's identifiers (X25519, CurveP256); v2 of demo also holds
// compare's result (samples, summaries, intervals) in place of probe's
// timelines. v3 of probe, audit and demo describes a certificate by one
// type (transport.Cert) with the same field names in both. v4 of probe
// names a run's connection mode as bench's --conn does
// (transport.ConnMode: new, resume, 0-rtt, keepalive). v3 of bench
// holds run, what a merge of several workers' results needs; v4 adds
// intervals, each second of the run with its counts and histograms. v4 of
// audit (and of demo, which holds an audit) gives no time for round trips
// on loopback (a cost's not_priced says why) and names the clients a
// finding locks out (fails).
var schemaVersions = map[string]int{"probe": 4, "bench": 4, "audit": 4, "demo": 4}

// SchemaName returns the schema identifier for a result kind,
// "httpslab/<kind>/v<n>".
func SchemaName(kind string) string {
	return fmt.Sprintf("httpslab/%s/v%d", kind, max(schemaVersions[kind], 1))
}

// WriteJSON writes v inside the versioned envelope for kind (probe,
// bench, audit, ...), indented, followed by a newline.
func WriteJSON(w io.Writer, kind string, v any) error {
	if !validKind(kind) {
		return fmt.Errorf("writing json: invalid result kind %q", kind)
	}
	ver := Version
	if ver == "" {
		ver = "(devel)"
	}
	env := Envelope{
		Schema:          SchemaName(kind),
		HTTPSLabVersion: ver,
		Created:         now().UTC().Truncate(time.Second),
		Result:          v,
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if err := enc.Encode(env); err != nil {
		return fmt.Errorf("writing %s json: %w", kind, err)
	}
	return nil
}

// validKind accepts lower-case names made of letters, digits and '-'.
func validKind(kind string) bool {
	if kind == "" {
		return false
	}
	for _, r := range kind {
		if (r < 'a' || r > 'z') && (r < '0' || r > '9') && r != '-' {
			return false
		}
	}
	return true
}
