package experiment

import (
	"fmt"
	"strings"

	"github.com/httpslab/httpslab/internal/nginxconf"
)

// Template is what each variant is rendered from: a complete nginx.conf,
// whose directives a setting sets, or a server's command line, whose
// {NAME} placeholders a setting fills (any server: caddy, h2o, a Go
// service, httpslab serve itself).
type Template struct {
	Src []byte
	// Command says Src is a command line rather than an nginx.conf.
	Command bool
}

// NginxTemplate is the template of an nginx.conf.
func NginxTemplate(conf []byte) Template { return Template{Src: conf} }

// set applies one setting to src, a rendering of the template so far, and
// says how many places it changed: for nginx the directives set (0: added
// to its block), for a command the placeholders filled (at least one);
// AsInTemplate for an empty value, which changes nothing in an nginx.conf
// (a command's placeholders it fills with nothing).
func (t Template) set(src []byte, c Change) ([]byte, int, error) {
	if c.Value == "" && !t.Command {
		return src, AsInTemplate, nil
	}
	if !t.Command {
		conf, err := nginxconf.Parse(src)
		if err != nil {
			return nil, 0, err
		}
		return conf.Set(c.Directive, c.Value)
	}
	placeholder := "{" + c.Directive + "}"
	n := strings.Count(string(src), placeholder)
	if n == 0 {
		return nil, 0, fmt.Errorf("the server command has no %s for --vary %s: put it where the value goes", placeholder, c.Directive)
	}
	return []byte(strings.ReplaceAll(string(src), placeholder, c.Value)), n, nil
}
