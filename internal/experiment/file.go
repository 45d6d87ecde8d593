package experiment

import (
	"fmt"
	"slices"
	"strings"

	"github.com/BurntSushi/toml"
	"github.com/httpslab/httpslab/internal/nginxconf"
)

// File is an experiment file: the template (an nginx.conf, or a server's
// command line whose {NAME} placeholders the settings fill), the
// baseline's settings, the variants by name (each any number of
// directives, such as a certificate with its key), the measurement and
// the design. It is TOML:
//
//	nginx = "nginx.conf"
//	measure = ["bench", "--conn", "resume", "-d", "3s", "https://localhost:8443/", "--cacert", "ca.pem"]
//	blocks = 10
//
//	[baseline]
//	ssl_session_tickets = "off"
//
//	[[variant]]
//	name = "tickets on"
//	set = { ssl_session_tickets = "on" }
//
//	[[variant]]
//	name = "RSA"
//	set = { ssl_certificate = "rsa.pem", ssl_certificate_key = "rsa.key" }
//
// or, for any other server, in place of nginx:
//
//	server = "httpslab serve --https-port 8443 --cert-file cert.pem --key-file key.pem {tickets}"
//
//	[baseline]
//	tickets = "--no-tickets"
//
//	[[variant]]
//	name = "tickets on"
//	set = { tickets = "--no-tickets=false" }
type File struct {
	// Nginx is the template, relative to the file's directory.
	Nginx string `toml:"nginx"`
	// Server is the template in place of Nginx: a server's command line
	// (as --server), run in the file's directory. The baseline sets each
	// placeholder a variant sets.
	Server string `toml:"server"`
	// Measure is the measurement's command line, one argument per string.
	Measure []string `toml:"measure"`
	// Blocks, Seed, MaxTime ("20m"), Effect (percent), ServerCPUs and
	// ClientCPUs are the command line's -n, --seed, --max-time, --effect,
	// --server-cpus and --client-cpus; zero values leave their defaults.
	Blocks     int     `toml:"blocks"`
	Seed       uint64  `toml:"seed"`
	MaxTime    string  `toml:"max_time"`
	Effect     float64 `toml:"effect"`
	ServerCPUs string  `toml:"server_cpus"`
	ClientCPUs string  `toml:"client_cpus"`
	// Baseline sets directives in the template for every variant.
	Baseline map[string]string `toml:"baseline"`
	Variants []FileVariant     `toml:"variant"`
}

// FileVariant is one named variant: the directives it sets, on top of the
// baseline's.
type FileVariant struct {
	Name string            `toml:"name"`
	Set  map[string]string `toml:"set"`
}

// MaxFileSize bounds an experiment file.
const MaxFileSize = 1 << 20

// ParseFile reads an experiment file. Unknown keys are refused: a
// misspelt "variants" would otherwise silently run no variant.
func ParseFile(data []byte) (File, error) {
	var f File
	if len(data) > MaxFileSize {
		return f, fmt.Errorf("experiment file: more than %d bytes", MaxFileSize)
	}
	md, err := toml.Decode(string(data), &f)
	if err != nil {
		return f, fmt.Errorf("experiment file: %w", err)
	}
	if keys := md.Undecoded(); len(keys) > 0 {
		return f, fmt.Errorf("experiment file: unknown key %q", keys[0].String())
	}
	return f, f.check()
}

func (f File) check() error {
	switch {
	case (f.Nginx == "") == (f.Server == ""):
		return fmt.Errorf("experiment file: want one template: nginx = \"nginx.conf\" or server = \"COMMAND {NAME}\"")
	case len(f.Measure) == 0:
		return fmt.Errorf("experiment file: no measurement (measure = [\"bench\", ...])")
	case len(f.Variants) == 0:
		return fmt.Errorf("experiment file: no [[variant]]")
	case len(f.Variants) >= MaxVariants:
		return fmt.Errorf("experiment file: %d variants, at most %d", len(f.Variants), MaxVariants-1)
	}
	names := map[string]bool{}
	for i, v := range f.Variants {
		if v.Name == "" || names[v.Name] || len(v.Set) == 0 {
			return fmt.Errorf("experiment file: variant %d: want a name of its own and at least one directive in set", i+1)
		}
		names[v.Name] = true
		for _, c := range sortedChanges(v.Set) {
			if err := checkChange(c); err != nil {
				return fmt.Errorf("experiment file: variant %q: %w", v.Name, err)
			}
			// A command has no value of its own where a placeholder is:
			// the baseline would run with "{NAME}" in its command line.
			if _, ok := f.Baseline[c.Directive]; f.Server != "" && !ok {
				return fmt.Errorf("experiment file: variant %q sets %s, which [baseline] does not: a server command needs the baseline's value of every placeholder", v.Name, c.Directive)
			}
		}
	}
	for _, c := range sortedChanges(f.Baseline) {
		if err := checkChange(c); err != nil {
			return fmt.Errorf("experiment file: baseline: %w", err)
		}
	}
	return nil
}

// checkChange checks a directive's name and that its value is arguments
// only.
func checkChange(c Change) error {
	if c.Directive == "" || strings.ContainsAny(c.Directive, " \t\r\n;{}#\"'") {
		return fmt.Errorf("directive name %q", c.Directive)
	}
	_, err := nginxconf.CheckValue(c.Directive, c.Value)
	return err
}

// sortedChanges returns a map's settings in directive order, so that the
// rewrite and the names do not depend on map order.
func sortedChanges(m map[string]string) []Change {
	var out []Change
	for k, v := range m {
		out = append(out, Change{Directive: k, Value: v})
	}
	slices.SortFunc(out, func(a, b Change) int { return strings.Compare(a.Directive, b.Directive) })
	return out
}

// RenderVariants renders the file's baseline and variants on the template.
func (f File) RenderVariants(template Template) ([]Variant, error) {
	base := Variant{Name: "baseline", Baseline: true, Settings: sortedChanges(f.Baseline)}
	out := []Variant{base}
	for _, fv := range f.Variants {
		changes := sortedChanges(fv.Set)
		settings := slices.Clone(base.Settings)
		for _, c := range changes {
			if i := slices.IndexFunc(settings, func(s Change) bool { return s.Directive == c.Directive }); i >= 0 {
				settings[i] = c
			} else {
				settings = append(settings, c)
			}
		}
		out = append(out, Variant{Name: fv.Name, Changes: changes, Settings: settings})
	}
	for i := range out {
		if err := out[i].render(template); err != nil {
			return nil, err
		}
	}
	return out, nil
}
