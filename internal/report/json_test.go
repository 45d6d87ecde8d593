package report

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"

	"github.com/httpslab/httpslab/internal/labtest"
	"github.com/httpslab/httpslab/internal/probe"
)

func TestWriteJSON(t *testing.T) {
	defer func(old func() time.Time, v string) { now, Version = old, v }(now, Version)
	now = func() time.Time { return t0.Add(1500 * time.Millisecond) }
	Version = "v0.1.0"
	var buf bytes.Buffer
	if err := WriteJSON(&buf, "probe", []probe.Timeline{h2Fresh()}); err != nil {
		t.Fatal(err)
	}
	labtest.Golden(t, "envelope-probe.golden", buf.Bytes())
	var env struct {
		Schema  string            `json:"schema"`
		Version string            `json:"httpslab_version"`
		Created time.Time         `json:"created"`
		Result  []json.RawMessage `json:"result"`
	}
	if err := json.Unmarshal(buf.Bytes(), &env); err != nil {
		t.Fatal(err)
	}
	if env.Schema != "httpslab/probe/v4" || env.Version != "v0.1.0" || !env.Created.Equal(t0.Add(time.Second)) || len(env.Result) != 1 {
		t.Errorf("envelope = %q %q %v %d results; want httpslab/probe/v4 v0.1.0 %v 1", env.Schema, env.Version, env.Created, len(env.Result), t0.Add(time.Second))
	}
	var back probe.Timeline
	if err := json.Unmarshal(env.Result[0], &back); err != nil {
		t.Fatal(err)
	}
	if ph, _ := back.Phase(probe.PhaseTLS); ph.Duration != 1010*time.Microsecond {
		t.Errorf("tls duration after a round trip through JSON = %v; want 1.01ms", ph.Duration)
	}
}

func TestWriteJSONKind(t *testing.T) {
	for _, kind := range []string{"", "Probe", "a/b", "probe v1"} {
		if err := WriteJSON(&bytes.Buffer{}, kind, 1); err == nil {
			t.Errorf("WriteJSON(kind %q) = nil error; want an error", kind)
		}
	}
	if err := WriteJSON(&bytes.Buffer{}, "page-load", 1); err != nil {
		t.Errorf("WriteJSON(kind page-load) = %v; want nil", err)
	}
}
