package cli

import (
	"errors"
	"strings"
	"testing"
)

func TestReadData(t *testing.T) {
	for _, tt := range []struct {
		arg, want, wantErr string
	}{
		{"a=1", "a=1", ""},
		{"", "", ""},
		{"@", "", "a file name must follow @"},
		{"@/nonexistent/file", "", "no such file"},
	} {
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
