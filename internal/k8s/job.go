// Package k8s writes the Kubernetes manifests of a run shared by several
// bench workers: an Indexed Job whose pods each run `httpslab bench
// --json` as one worker, all started at one wall-clock time. It only
// writes YAML; kubectl applies it, and `httpslab merge` combines the
// results that `kubectl logs` gives back.
package k8s

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"io"
	"regexp"
	"text/template"
	"time"
)

// Defaults of a Job's fields.
const (
	DefaultName  = "httpslab-bench"
	DefaultImage = "httpslab:latest" // as the repository's Dockerfile is tagged in the README
	DefaultLead  = 60 * time.Second
)

// Binary is where the image holds httpslab (the Dockerfile's COPY).
const Binary = "/httpslab"

// Job is an Indexed Job of bench workers.
type Job struct {
	// Name is the Job's name, a DNS label of at most MaxNameLength
	// characters; "" means DefaultName.
	Name string
	// Namespace is the Job's namespace; "" leaves it to kubectl.
	Namespace string
	// Image holds httpslab at Binary; "" means DefaultImage.
	Image string
	// Workers is the number of pods, completions and parallelism alike;
	// it is also bench's --workers.
	Workers int
	// StartAt is the wall-clock time every worker starts at (bench's
	// --start-at), far enough ahead for the pods to be scheduled.
	StartAt time.Time
	// Args are the bench flags and URLs every worker runs with, after
	// `httpslab bench --json --workers N --start-at T`; they hold no
	// --index, which each pod reads from JOB_COMPLETION_INDEX.
	Args []string
}

// MaxNameLength bounds a Job's name: a pod's host name is the name, its
// index and a random suffix, within a DNS label's 63 characters.
const MaxNameLength = 52

var dnsLabel = regexp.MustCompile(`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`)

// Command returns the command line each pod runs.
func (j Job) Command() []string {
	cmd := []string{Binary, "bench", "--json", "--workers", fmt.Sprint(j.Workers),
		"--start-at", j.StartAt.UTC().Format(time.RFC3339Nano)}
	return append(cmd, j.Args...)
}

//go:embed job.yaml.tmpl
var jobTemplate string

var tmpl = template.Must(template.New("job").Funcs(template.FuncMap{"q": quote}).Parse(jobTemplate))

// quote writes s as a YAML double-quoted scalar: JSON's string syntax is
// a subset of it, and quoted, no value can be read as a number, a
// boolean or a YAML structure.
func quote(s string) string {
	b, _ := json.Marshal(s) // a string always encodes
	return string(b)
}

// Write writes j's manifest, YAML, to w.
func (j Job) Write(w io.Writer) error {
	if j.Name == "" {
		j.Name = DefaultName
	}
	if j.Image == "" {
		j.Image = DefaultImage
	}
	if len(j.Name) > MaxNameLength || !dnsLabel.MatchString(j.Name) {
		return fmt.Errorf("job name %q: want lower-case letters, digits and '-', at most %d characters, starting and ending with a letter or digit", j.Name, MaxNameLength)
	}
	if j.Namespace != "" && (len(j.Namespace) > 63 || !dnsLabel.MatchString(j.Namespace)) {
		return fmt.Errorf("namespace %q: want a DNS label (lower-case letters, digits and '-')", j.Namespace)
	}
	if j.Workers < 1 {
		return fmt.Errorf("%d workers: want 1 or more", j.Workers)
	}
	if j.StartAt.IsZero() {
		return fmt.Errorf("a job of workers needs a start time")
	}
	if err := tmpl.Execute(w, struct {
		Job
		Command []string
	}{j, j.Command()}); err != nil {
		return fmt.Errorf("writing the job manifest: %w", err)
	}
	return nil
}
