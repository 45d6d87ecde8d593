package experiment

import (
	"cmp"
	"io"
	"path/filepath"

	"github.com/httpslab/httpslab/internal/lab"
	"github.com/httpslab/httpslab/internal/nginxconf"
	"github.com/httpslab/httpslab/internal/transport"
	"github.com/httpslab/httpslab/internal/usage"
)

// Flags are an experiment's settings as experiment's command line gives
// them, but for its link and its measurement; Config checks them.
// Errors name the flags and are usage errors.
type Flags struct {
	Nginx, NginxBinary string // --nginx (the template's file), --nginx-binary
	Server             string // --server: a command-line template in place of --nginx
	ServerDir          string // the directory the server runs in: --file's for its server, "" for this one
	// Design holds --vary, --all-at-once, --factorial and --together,
	// or --file's variants.
	Design                 Design
	Blocks                 int     // -n
	Seed                   uint64  // --seed
	MaxTime                string  // --max-time: seconds or a duration; "" for none
	Effect                 float64 // --effect, in percent
	ServerCPUs, ClientCPUs string  // --server-cpus, --client-cpus
	// File is --file, whose content takes the place of --nginx, --vary
	// and the measurement after --.
	File string
}

// Config reads the template (--nginx's file, read from stdin for "-", or
// --server's line) and returns the experiment's Config without its link
// and measurement.
func (f Flags) Config(stdin io.Reader) (Config, error) {
	var cfg Config
	if f.Nginx == "" && f.Server == "" || f.Nginx != "" && f.Server != "" {
		return cfg, usage.Hinted("a complete nginx.conf, or a server's command line such as 'httpslab serve --https-port 8443 --no-tickets={off}' with --vary 'off=false|true'",
			"give one template: --nginx FILE or --server COMMAND")
	}
	if len(f.Design.Varies) == 0 && f.Design.File == nil {
		return cfg, usage.Hinted("e.g. --vary 'ssl_session_tickets=off|on'", "nothing to vary: give --vary 'NAME=V1|V2'")
	}
	if f.Blocks < 1 || f.Blocks > 1000 {
		return cfg, usage.Errorf("-n %d: want 1 to 1000 blocks", f.Blocks)
	}
	if !(f.Effect > 0 && f.Effect < 1000) {
		return cfg, usage.Errorf("--effect %v: want a percentage above 0, e.g. 5", f.Effect)
	}
	template, err := f.template(stdin)
	if err != nil {
		return cfg, err
	}
	if cfg.Variants, err = f.Design.Variants(template); err != nil {
		return cfg, usage.Wrap(err, "")
	}
	if f.MaxTime != "" {
		if cfg.MaxTime, err = transport.ParseSeconds(f.MaxTime); err != nil || cfg.MaxTime <= 0 {
			return cfg, usage.Errorf("--max-time %q: want a positive time in seconds or with a unit (20m)", f.MaxTime)
		}
	}
	for _, c := range []struct{ flag, list string }{{"--server-cpus", f.ServerCPUs}, {"--client-cpus", f.ClientCPUs}} {
		if _, err := ParseCPUList(c.list); c.list != "" && err != nil {
			return cfg, usage.Errorf("%s: %v", c.flag, err)
		}
	}
	cfg.Nginx = lab.NginxFileConfig{Binary: f.NginxBinary, ConfDir: filepath.Dir(f.Nginx), CPUs: f.ServerCPUs}
	if f.Server != "" {
		cfg.Server = &lab.CommandConfig{Line: f.Server, CPUs: f.ServerCPUs, Dir: f.ServerDir}
	}
	cfg.ClientCPUs = f.ClientCPUs
	cfg.Blocks, cfg.Seed, cfg.Effect = f.Blocks, f.Seed, f.Effect/100
	return cfg, nil
}

// template reads --nginx, or takes --server's command line.
func (f *Flags) template(stdin io.Reader) ([]byte, error) {
	if f.Server != "" {
		f.Design.Command = true
		return []byte(f.Server), nil
	}
	template, err := transport.ReadInput(f.Nginx, stdin, nginxconf.MaxSize)
	if err != nil {
		return nil, usage.Errorf("reading --nginx %s: %v", f.Nginx, err)
	}
	if _, err := nginxconf.Parse(template); err != nil {
		return nil, usage.Errorf("--nginx %s: %v", f.Nginx, err)
	}
	return template, nil
}

// ReadFile reads --file into the flags it stands for and returns the
// measurement's command line. The template's path is relative to the
// file's directory, where a server command runs; a value the file leaves
// out keeps its flag's.
func (f *Flags) ReadFile(stdin io.Reader) ([]string, error) {
	data, err := transport.ReadInput(f.File, stdin, MaxFileSize)
	if err != nil {
		return nil, usage.Errorf("reading --file %s: %v", f.File, err)
	}
	file, err := ParseFile(data)
	if err != nil {
		return nil, usage.Wrap(err, "")
	}
	f.Design.File, f.Nginx, f.Server = &file, file.Nginx, file.Server
	if f.Nginx != "" && !filepath.IsAbs(f.Nginx) {
		f.Nginx = filepath.Join(filepath.Dir(f.File), f.Nginx)
	}
	if f.Server != "" {
		f.ServerDir = filepath.Dir(f.File)
	}
	f.Blocks, f.Seed, f.Effect = cmp.Or(file.Blocks, f.Blocks), cmp.Or(file.Seed, f.Seed), cmp.Or(file.Effect, f.Effect)
	f.MaxTime, f.ServerCPUs, f.ClientCPUs = cmp.Or(file.MaxTime, f.MaxTime), cmp.Or(file.ServerCPUs, f.ServerCPUs), cmp.Or(file.ClientCPUs, f.ClientCPUs)
	return file.Measure, nil
}
