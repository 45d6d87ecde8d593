package report

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

func TestColorEnabled(t *testing.T) {
	// The master side of a pseudo-terminal is a terminal.
	tty, err := os.OpenFile("/dev/ptmx", os.O_RDWR, 0)
	if err != nil {
		t.Fatalf("opening a pseudo-terminal: %v", err)
	}
	defer tty.Close()
	file, err := os.Create(filepath.Join(t.TempDir(), "out"))
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	tests := []struct {
		name    string
		w       any
		noColor string
		want    bool
	}{
		{"terminal", tty, "", true},
		{"terminal with NO_COLOR", tty, "1", false},
		{"regular file", file, "", false},
		{"buffer", &bytes.Buffer{}, "", false},
	}
	for _, tt := range tests {
		t.Setenv("NO_COLOR", tt.noColor)
		var got bool
		switch w := tt.w.(type) {
		case *os.File:
			got = ColorEnabled(w)
		case *bytes.Buffer:
			got = ColorEnabled(w)
		}
		if got != tt.want {
			t.Errorf("ColorEnabled(%s) = %v; want %v", tt.name, got, tt.want)
		}
	}
}
