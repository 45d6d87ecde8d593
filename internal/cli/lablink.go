package cli

import (
	"errors"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/httpslab/httpslab/internal/embedded"
	"github.com/httpslab/httpslab/internal/lab"
	"github.com/httpslab/httpslab/internal/netem"
)

// brokenPipe receives SIGPIPE once a link exists; nothing reads it.
var brokenPipe = make(chan os.Signal, 1)

// linkConfig reads the link flags for a command about to build the link.
func linkConfig(f linkFlags) (netem.Config, error) {
	cfg, err := f.config()
	if err != nil {
		return cfg, err
	}
	// A write to a closed standard output (httpslab ... | head) kills a Go
	// program with SIGPIPE unless it asks for the signal, and a killed
	// httpslab leaves the namespace, and the server inside, behind. Asked
	// for, the write fails with EPIPE instead and the link is removed as
	// the command ends. Commands started later get the default action back.
	signal.Notify(brokenPipe, syscall.SIGPIPE)
	return cfg, nil
}

// startLink builds the emulated link the flags describe, with the hint a
// user needs when that fails.
func (e *env) startLink(f linkFlags) (*netem.Link, error) {
	cfg, err := linkConfig(f)
	if err != nil {
		return nil, err
	}
	link, err := netem.Start(e.ctx, cfg)
	if err != nil {
		return nil, linkHint(err)
	}
	return link, nil
}

// startEmbedded starts the embedded server with cfg, behind the emulated
// link when link flags are given; serve, compare and demo start it here.
func (e *env) startEmbedded(lf linkFlags, cfg lab.Config) (*embedded.Server, error) {
	ec := embedded.Config{Server: cfg}
	if lf.set() {
		link, err := linkConfig(lf)
		if err != nil {
			return nil, err
		}
		ec.Link = &link
	}
	srv, err := embedded.Start(e.ctx, ec)
	if _, ok := errors.AsType[*embedded.LinkError](err); ok {
		return nil, linkHint(err)
	}
	if err != nil {
		return nil, fmt.Errorf("starting the embedded server: %w", err)
	}
	return srv, nil
}

// startEmbeddedAt starts the embedded server as startEmbedded does, for
// a command that measures its --path.
func (e *env) startEmbeddedAt(lf linkFlags, path string) (*embedded.Server, error) {
	if !strings.HasPrefix(path, "/") {
		return nil, usagef("--path %q: want a path starting with /", path)
	}
	return e.startEmbedded(lf, lab.Config{})
}

// linkHint is the error of a link that could not be built, with
// netem's hint.
func linkHint(err error) error {
	if !errors.Is(err, netem.ErrPermission) {
		err = fmt.Errorf("building the emulated link: %w", err)
	}
	return withHint(err, netem.Hint(err))
}

// notBehindLink refuses the link flags with a URL: they put the embedded
// server behind the link, and a URL is measured as it is (verb: how the
// command uses the URL).
func notBehindLink(lf linkFlags, verb, hint string) error {
	if !lf.set() {
		return nil
	}
	return withHint(usagef("the link flags put the embedded server behind an emulated link; a URL is %s as it is", verb), hint)
}
