package transport

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/httpslab/httpslab/internal/usage"
)

func TestReadData(t *testing.T) {
	for _, tt := range []struct {
		arg, stdin, want, wantErr string
	}{
		{"a=1", "", "a=1", ""},
		{"", "", "", ""},
		{"@-", "from stdin\n", "from stdin\n", ""},
		{"@", "", "", "a file name must follow @"},
		{"@/nonexistent/file", "", "", "no such file"},
		{"@-", strings.Repeat("x", MaxBody+1), "", "-d @-: more than the limit of 64 MiB"},
	} {
		got, err := ReadData(tt.arg, strings.NewReader(tt.stdin))
		var u *usage.Error
		switch {
		case tt.wantErr == "" && (err != nil || string(got) != tt.want):
			t.Errorf("ReadData(%q) = %q, %v; want %q", tt.arg, got, err, tt.want)
		case tt.wantErr != "" && (err == nil || !errors.As(err, &u) || !strings.Contains(err.Error(), tt.wantErr)):
			t.Errorf("ReadData(%q) error %v; want a usage error containing %q", tt.arg, err, tt.wantErr)
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
		got, err := ReadInput(tt.name, strings.NewReader(tt.in), 10)
		switch {
		case tt.wantErr == "" && (err != nil || string(got) != tt.want):
			t.Errorf("ReadInput(%q) = %q, %v; want %q", tt.name, got, err, tt.want)
		case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
			t.Errorf("ReadInput(%q) error %v; want one containing %q", tt.name, err, tt.wantErr)
		}
	}
}
