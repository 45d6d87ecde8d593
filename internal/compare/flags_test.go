package compare

import (
	"errors"
	"strings"
	"testing"

	"github.com/httpslab/httpslab/internal/usage"
)

func TestFlagsConfig(t *testing.T) {
	ok := Flags{Warmup: 1, MaxRuns: 200, Alpha: 0.05}
	for _, tt := range []struct {
		name    string
		edit    func(*Flags)
		wantErr string
	}{
		{"defaults", func(*Flags) {}, ""},
		{"n 0 given", func(f *Flags) { f.RunsGiven = true }, "-n 0: want 1 to 2000"},
		{"n too many", func(f *Flags) { f.Runs = 2001 }, "-n 2001: want 1 to 2000"},
		{"max runs", func(f *Flags) { f.MaxRuns = 1 }, "--max-runs 1: want 2 to 2000"},
		{"warmup", func(f *Flags) { f.Warmup = -1 }, "--warmup -1: want 0 to 100"},
		{"alpha", func(f *Flags) { f.Alpha = 0.5 }, "--alpha 0.5: want a level"},
		{"precision", func(f *Flags) { f.Precision = "abc" }, `--precision "abc": want a percentage`},
		{"precision 100%", func(f *Flags) { f.Precision = "100%" }, `--precision "100%"`},
		{"n above max", func(f *Flags) { f.Precision, f.Runs, f.MaxRuns = "5%", 300, 200 }, "-n 300 is above --max-runs 200"},
		{"tls max", func(f *Flags) { f.TLSMax = "1.1" }, "--tls-max 1.1: compare measures TLS 1.2 and 1.3"},
		{"tls max and vary tls", func(f *Flags) { f.TLSMax, f.Vary = "1.2", "tls" }, "leave tls out of --vary"},
		{"vary", func(f *Flags) { f.Vary = "colour" }, `unknown dimension "colour"`},
	} {
		f := ok
		tt.edit(&f)
		cfg, keys, err := f.Config()
		switch {
		case tt.wantErr == "" && (err != nil || len(keys) < 2):
			t.Errorf("%s: Config() = %d keys, %v; want the default matrix", tt.name, len(keys), err)
		case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
			t.Errorf("%s: Config() error %v; want one containing %q", tt.name, err, tt.wantErr)
		case tt.wantErr != "" && !errors.As(err, new(*usage.Error)):
			t.Errorf("%s: Config() error %v is not a usage error", tt.name, err)
		}
		if tt.name == "defaults" && cfg.Warmup != 1 {
			t.Errorf("Config().Warmup = %d; want 1", cfg.Warmup)
		}
	}
	if cfg, _, _ := (Flags{MaxRuns: 200, Alpha: 0.05, Precision: "5%"}).Config(); cfg.Warmup != -1 || cfg.Precision != 0.05 {
		t.Errorf("--warmup 0 --precision 5%%: Warmup %d, Precision %v; want -1, 0.05", cfg.Warmup, cfg.Precision)
	}
}

func TestCheckURLs(t *testing.T) {
	for _, tt := range []struct {
		url, httpURL, wantErr, wantHint string
	}{
		{"https://127.0.0.1:8443/", "", "", ""},
		{"https://127.0.0.1:8443/", "http://127.0.0.1:8080/", "", ""},
		{"http://127.0.0.1:8080/", "", "want an https:// URL", "--http-url"},
		{"https://", "", "compare https://:", ""},
		{"https://127.0.0.1:8443/", "https://127.0.0.1:8443/", "--http-url https://127.0.0.1:8443/: want an http:// URL", "plain-HTTP URL"},
	} {
		err := CheckURLs(tt.url, tt.httpURL)
		var u *usage.Error
		switch {
		case tt.wantErr == "" && err != nil:
			t.Errorf("CheckURLs(%q, %q) = %v; want nil", tt.url, tt.httpURL, err)
		case tt.wantErr != "" && !errors.As(err, &u):
			t.Errorf("CheckURLs(%q, %q) = %v; want a usage error", tt.url, tt.httpURL, err)
		case tt.wantErr != "" && (!strings.Contains(u.Error(), tt.wantErr) || !strings.Contains(u.Hint, tt.wantHint)):
			t.Errorf("CheckURLs(%q, %q) = %q, hint %q; want %q, hint with %q", tt.url, tt.httpURL, u.Error(), u.Hint, tt.wantErr, tt.wantHint)
		}
	}
}
