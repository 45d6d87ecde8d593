package cli

import (
	"bytes"
	"context"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestK8sJob checks the command line the Job's pods run, with the start
// --lead ahead, and the flags a pod cannot be given.
func TestK8sJob(t *testing.T) {
	var stdout, stderr bytes.Buffer
	before := time.Now()
	code := Run(context.Background(), []string{"k8s", "job", "https://198.18.0.1/", "-k", "--workers", "3", "--rate", "3000", "-d", "5s",
		"--lead", "2m", "--image", "registry.test/httpslab:v1"}, &stdout, &stderr)
	if code != ExitOK {
		t.Fatalf("k8s job: exit %d; stderr:\n%s", code, stderr.String())
	}
	m := regexp.MustCompile(`- "--start-at"\n\s+- "([^"]+)"`).FindStringSubmatch(stdout.String())
	if m == nil {
		t.Fatalf("no --start-at in the manifest:\n%s", stdout.String())
	}
	at, err := time.Parse(time.RFC3339Nano, m[1])
	if lead := at.Sub(before); err != nil || lead < 119*time.Second || lead > 125*time.Second {
		t.Errorf("--start-at %s, %v after the command started; want --lead 2m", m[1], lead)
	}
	for _, want := range []string{`completions: 3`, `image: "registry.test/httpslab:v1"`, `- "--rate=3000"`, `- "--insecure=true"`, `- "https://198.18.0.1/"`} {
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("manifest lacks %q:\n%s", want, stdout.String())
		}
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--workers", "3", "-c", "2"}, "-c 2 across 3 workers"},
		{[]string{"--workers", "3", "--index", "1"}, "--index: each pod takes its index from JOB_COMPLETION_INDEX"},
		{[]string{"--workers", "3", "--server-pid", "1"}, "--server-pid"},
		{[]string{"--workers", "3", "--name", "Big"}, `job name "Big"`},
		{[]string{"--workers", "3", "--conn", "sometimes"}, "unknown connection mode"},
	} {
		stdout.Reset()
		stderr.Reset()
		code := Run(context.Background(), append([]string{"k8s", "job", "https://198.18.0.1/", "-k"}, tc.args...), &stdout, &stderr)
		if code != ExitUsage || stdout.Len() != 0 || !strings.Contains(stderr.String(), tc.want) {
			t.Errorf("k8s job %q: exit %d, %d bytes out, stderr %q; want %d and %q", tc.args, code, stdout.Len(), stderr.String(), ExitUsage, tc.want)
		}
	}
}
