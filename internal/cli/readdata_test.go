package cli

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/httpslab/httpslab/internal/report"
)

func TestReadData(t *testing.T) {
	defer func(r io.Reader) { stdin = r }(stdin)
	for _, tt := range []struct {
		arg, stdin, want, wantErr string
	}{
		{"a=1", "", "a=1", ""},
		{"", "", "", ""},
		{"@-", "from stdin\n", "from stdin\n", ""},
		{"@", "", "", "a file name must follow @"},
		{"@/nonexistent/file", "", "", "no such file"},
		{"@-", strings.Repeat("x", maxBody+1), "", "-d @-: more than the limit of 64 MiB"},
	} {
		stdin = strings.NewReader(tt.stdin)
		got, err := readData(tt.arg)
		var u usageError
		switch {
		case tt.wantErr == "" && (err != nil || string(got) != tt.want):
			t.Errorf("readData(%q) = %q, %v; want %q", tt.arg, got, err, tt.want)
		case tt.wantErr != "" && (err == nil || !errors.As(err, &u) || !strings.Contains(err.Error(), tt.wantErr)):
			t.Errorf("readData(%q) error %v; want a usage error containing %q", tt.arg, err, tt.wantErr)
		}
	}
}

// TestReadInput checks the one reader behind -d @, --data-binary @, -w @
// and -i: standard input for "-", a file otherwise, and the size limit
// on a regular file, a device that never ends and a pipe.
func TestReadInput(t *testing.T) {
	dir := t.TempDir()
	exact := filepath.Join(dir, "exact")
	over := filepath.Join(dir, "over")
	if err := os.WriteFile(exact, []byte("0123456789"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(over, []byte("0123456789a"), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, in, want, wantErr string
	}{
		{"-", "stdin", "stdin", ""},
		{"-", "0123456789", "0123456789", ""},
		{"-", "0123456789a", "", "more than the limit of 10 bytes"},
		{exact, "", "0123456789", ""},
		{over, "", "", "more than the limit of 10 bytes"},
		{"/dev/zero", "", "", "more than the limit of 10 bytes"},
		{filepath.Join(dir, "missing"), "", "", "no such file"},
		{dir, "", "", "is a directory"},
		{"", "", "", "a file name must follow @"},
	}
	for _, tt := range tests {
		got, err := readInput(tt.name, strings.NewReader(tt.in), 10)
		switch {
		case tt.wantErr == "" && (err != nil || string(got) != tt.want):
			t.Errorf("readInput(%q) = %q, %v; want %q", tt.name, got, err, tt.want)
		case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
			t.Errorf("readInput(%q) error %v; want one containing %q", tt.name, err, tt.wantErr)
		}
	}
}

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
