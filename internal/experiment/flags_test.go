package experiment

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/httpslab/httpslab/internal/usage"
)

func TestFlagsConfig(t *testing.T) {
	conf := filepath.Join(t.TempDir(), "nginx.conf")
	if err := os.WriteFile(conf, []byte("events {}\nhttp { server { listen 8443; } }\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	ok := Flags{Nginx: conf, Design: Design{Varies: []string{"gzip=off|on"}}, Blocks: DefaultBlocks, Effect: 5}
	for _, tt := range []struct {
		name    string
		edit    func(*Flags)
		wantErr string
	}{
		{"nginx", func(*Flags) {}, ""},
		{"server", func(f *Flags) {
			f.Nginx, f.Server, f.Design.Varies = "", "httpslab serve {t}", []string{"t=--no-tickets|--no-0rtt"}
		}, ""},
		{"two templates", func(f *Flags) { f.Server = "httpslab serve" }, "give one template"},
		{"nothing to vary", func(f *Flags) { f.Design.Varies = nil }, "nothing to vary"},
		{"blocks", func(f *Flags) { f.Blocks = 0 }, "-n 0: want 1 to 1000 blocks"},
		{"effect", func(f *Flags) { f.Effect = 0 }, "--effect 0"},
		{"missing template", func(f *Flags) { f.Nginx = conf + ".missing" }, "reading --nginx"},
		{"max time", func(f *Flags) { f.MaxTime = "-1s" }, `--max-time "-1s"`},
		{"cpus", func(f *Flags) { f.ServerCPUs = "x" }, "--server-cpus"},
	} {
		f := ok
		tt.edit(&f)
		cfg, err := f.Config(strings.NewReader(""))
		switch {
		case tt.wantErr == "" && (err != nil || len(cfg.Variants) != 2 || cfg.Effect != 0.05):
			t.Errorf("%s: Config() = %d variants, effect %v, %v; want 2 variants, 0.05", tt.name, len(cfg.Variants), cfg.Effect, err)
		case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr) || !errors.As(err, new(*usage.Error))):
			t.Errorf("%s: Config() error %v; want a usage error containing %q", tt.name, err, tt.wantErr)
		}
	}
}
