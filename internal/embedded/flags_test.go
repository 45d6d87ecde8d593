package embedded

import (
	"errors"
	"strings"
	"testing"

	"github.com/httpslab/httpslab/internal/usage"
)

func TestFlagsServerConfig(t *testing.T) {
	ok := Flags{Host: "127.0.0.1", Cert: "ecdsa-p256", TLSMin: "1.2", TLSMax: "1.3"}
	for _, tt := range []struct {
		name    string
		edit    func(*Flags)
		wantErr string
	}{
		{"defaults", func(*Flags) {}, ""},
		{"ipv6 loopback", func(f *Flags) { f.Host = "::1" }, ""},
		{"link address", func(f *Flags) { f.Host = "198.19.0.2" }, ""},
		{"public address", func(f *Flags) { f.Host = "0.0.0.0" }, `--host "0.0.0.0": want a loopback address`},
		{"port range", func(f *Flags) { f.HTTPSPort = 70000 }, "--https-port 70000: want a port from 1 to 65535"},
		{"same ports", func(f *Flags) { f.HTTPPort, f.HTTPSPort = 8080, 8080 }, "both 8080"},
		{"key kind", func(f *Flags) { f.Cert = "dsa" }, "dsa"},
		{"versions", func(f *Flags) { f.TLSMin, f.TLSMax = "1.3", "1.2" }, "1.3"},
		{"key without cert", func(f *Flags) { f.KeyFile = "key.pem" }, "--cert-file and --key-file go together"},
		{"cert with ca-out", func(f *Flags) { f.CertFile, f.KeyFile, f.CAOut = "c.pem", "k.pem", "ca.pem" }, "--cert-file excludes --cert and --ca-out"},
		{"missing files", func(f *Flags) { f.CertFile, f.KeyFile = "/nonexistent/c.pem", "/nonexistent/k.pem" }, "--cert-file /nonexistent/c.pem"},
	} {
		f := ok
		tt.edit(&f)
		cfg, err := f.ServerConfig()
		switch {
		case tt.wantErr == "" && err != nil:
			t.Errorf("%s: ServerConfig() error %v", tt.name, err)
		case tt.wantErr == "" && cfg.Host != f.Host:
			t.Errorf("%s: ServerConfig().Host = %q; want %q", tt.name, cfg.Host, f.Host)
		case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
			t.Errorf("%s: ServerConfig() error %v; want one containing %q", tt.name, err, tt.wantErr)
		case tt.wantErr != "" && !errors.As(err, new(*usage.Error)):
			t.Errorf("%s: ServerConfig() error %v is not a usage error", tt.name, err)
		}
	}
}
