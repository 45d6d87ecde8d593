package experiment

import (
	"context"

	"github.com/httpslab/httpslab/internal/lab"
)

// instance is one variant's running server: a private nginx or a server
// started from a command line.
type instance interface {
	PID() int
	// log returns the last n lines the server logged (nginx's error log,
	// a command's output).
	log(n int) []string
	// warnings are the server's warnings about its configuration.
	warnings() []string
	// exited is nil while the server runs, and says how it ended after.
	exited() error
	Close() error
}

// startInstance starts variant v's server.
func startInstance(ctx context.Context, cfg Config, v Variant) (instance, error) {
	if cfg.Server != nil {
		c := *cfg.Server
		c.Line = string(v.Config)
		p, err := lab.StartCommand(ctx, c)
		if err != nil {
			return nil, err
		}
		return commandInstance{p}, nil
	}
	ncfg := cfg.Nginx
	ncfg.Config = v.Config
	p, err := lab.StartNginxFile(ctx, ncfg)
	if err != nil {
		return nil, err
	}
	return nginxInstance{p}, nil
}

type nginxInstance struct{ *lab.NginxProcess }

func (n nginxInstance) log(k int) []string { return n.ErrorLogLines(k) }
func (n nginxInstance) warnings() []string { return n.Warnings }

// exited is nil for nginx: it writes its pid file after binding, so the
// wait for an answer need not watch it (a port it refuses is reported at
// once).
func (n nginxInstance) exited() error { return nil }

type commandInstance struct{ *lab.CommandProcess }

func (c commandInstance) log(k int) []string { return c.OutputLines(k) }
func (c commandInstance) warnings() []string { return nil }
func (c commandInstance) exited() error      { return c.ExitError() }

// isNginx reports whether p is a private nginx, which binds its ports
// before it says it runs.
func isNginx(p instance) bool {
	_, ok := p.(nginxInstance)
	return ok
}
