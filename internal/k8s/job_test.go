package k8s

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/httpslab/httpslab/internal/labtest"
	batchv1 "k8s.io/api/batch/v1"
	"sigs.k8s.io/yaml"
)

var testJob = Job{Workers: 3, StartAt: time.Date(2026, 11, 24, 7, 0, 0, 0, time.UTC),
	Args: []string{"https://10.0.0.5/", "-k", "--rate", "3000", "-d", "5s", "-H", "X-Run: a \"quoted\": value # not a comment"}}

func TestJobGolden(t *testing.T) {
	var b bytes.Buffer
	if err := testJob.Write(&b); err != nil {
		t.Fatal(err)
	}
	labtest.Golden(t, "job.golden", b.Bytes())
}

// TestJobDecodesStrictly decodes the manifest into Kubernetes' own Job
// type, refusing any field the type does not have, and checks what
// makes it a Job of synchronised workers.
func TestJobDecodesStrictly(t *testing.T) {
	j := testJob
	j.Name, j.Namespace, j.Image = "load-7", "perf", "registry.test/httpslab:v1"
	var b bytes.Buffer
	if err := j.Write(&b); err != nil {
		t.Fatal(err)
	}
	var job batchv1.Job
	if err := yaml.UnmarshalStrict(b.Bytes(), &job); err != nil {
		t.Fatalf("decoding the manifest strictly: %v\n%s", err, b.String())
	}
	misspelt := strings.Replace(b.String(), "  backoffLimit: 0", "  backofLimit: 0", 1)
	if err := yaml.UnmarshalStrict([]byte(misspelt), new(batchv1.Job)); err == nil {
		t.Error("a manifest with a misspelt field decoded; want the strict decoding to refuse it")
	}
	spec := job.Spec
	if job.APIVersion != "batch/v1" || job.Kind != "Job" || job.Name != "load-7" || job.Namespace != "perf" {
		t.Errorf("%s %s %s/%s; want batch/v1 Job perf/load-7", job.APIVersion, job.Kind, job.Namespace, job.Name)
	}
	if spec.CompletionMode == nil || *spec.CompletionMode != batchv1.IndexedCompletion {
		t.Errorf("completionMode %v; want Indexed", spec.CompletionMode)
	}
	if spec.Completions == nil || *spec.Completions != 3 || spec.Parallelism == nil || *spec.Parallelism != 3 {
		t.Errorf("completions %v, parallelism %v; want 3 and 3", spec.Completions, spec.Parallelism)
	}
	if spec.BackoffLimit == nil || *spec.BackoffLimit != 0 {
		t.Errorf("backoffLimit %v; want 0", spec.BackoffLimit)
	}
	pod := spec.Template.Spec
	if pod.RestartPolicy != "Never" || len(pod.Containers) != 1 {
		t.Fatalf("restartPolicy %q, %d containers; want Never and 1", pod.RestartPolicy, len(pod.Containers))
	}
	c := pod.Containers[0]
	want := []string{"/httpslab", "bench", "--json", "--workers", "3", "--start-at", "2026-11-24T07:00:00Z",
		"https://10.0.0.5/", "-k", "--rate", "3000", "-d", "5s", "-H", "X-Run: a \"quoted\": value # not a comment"}
	if diff := cmp.Diff(want, c.Command); diff != "" || len(c.Args) != 0 || c.Image != "registry.test/httpslab:v1" {
		t.Errorf("the pods run %q %q in %s (-want +got):\n%s", c.Command, c.Args, c.Image, diff)
	}
	if sel := pod.TopologySpreadConstraints; len(sel) != 1 || sel[0].LabelSelector.MatchLabels["app.kubernetes.io/instance"] != spec.Template.Labels["app.kubernetes.io/instance"] {
		t.Errorf("the spread over nodes does not select the job's pods: %+v", sel)
	}
}

func TestJobRefusesBadFields(t *testing.T) {
	for _, tc := range []struct {
		change func(*Job)
		want   string
	}{
		{func(j *Job) { j.Name = "Load" }, `job name "Load"`},
		{func(j *Job) { j.Name = strings.Repeat("a", 53) }, "at most 52"},
		{func(j *Job) { j.Name = "a\nkind: Pod" }, "job name"},
		{func(j *Job) { j.Namespace = "-x" }, `namespace "-x"`},
		{func(j *Job) { j.Workers = 0 }, "0 workers"},
		{func(j *Job) { j.StartAt = time.Time{} }, "start time"},
	} {
		j := testJob
		tc.change(&j)
		var b bytes.Buffer
		if err := j.Write(&b); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Write(%+v) = %v; want an error with %q", j, err, tc.want)
		}
	}
}
