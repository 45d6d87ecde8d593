package cli

import (
	"io"
	"strings"
	"testing"

	"github.com/httpslab/httpslab/internal/report"
)

// TestStdinOnePlace: -w @- and -i - read the same replaceable standard
// input as -d @- (they read os.Stdin directly).
func TestStdinOnePlace(t *testing.T) {
	defer func(r io.Reader) { stdin = r }(stdin)
	stdin = strings.NewReader("code=\r\n%{exitcode}\n")
	wo, err := (&env{stderr: io.Discard}).parseWriteOut("@-")
	if err != nil {
		t.Fatalf("parseWriteOut(@-) = %v; want the format from stdin", err)
	}
	var out strings.Builder
	if err := wo.Execute(&out, io.Discard, report.WriteOutInput{ExitCode: 7}); err != nil || out.String() != "code=7" {
		t.Errorf("-w @- with \"code=\\r\\n%%{exitcode}\\n\" on stdin wrote %q, %v; want %q", out.String(), err, "code=7")
	}
	stdin = strings.NewReader("https://127.0.0.1/a\n")
	got, err := readURLFile("-")
	if err != nil || string(got) != "https://127.0.0.1/a\n" {
		t.Errorf("readURLFile(-) = %q, %v; want the list from stdin", got, err)
	}
	stdin = strings.NewReader(strings.Repeat("x", maxURLFile+1))
	if _, err := readURLFile("-"); err == nil || !strings.Contains(err.Error(), "more than the limit of 16 MiB") {
		t.Errorf("readURLFile(-) of %d bytes = %v; want the limit error", maxURLFile+1, err)
	}
}
