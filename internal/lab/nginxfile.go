package lab

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/httpslab/httpslab/internal/nginxconf"
)

// NginxFileConfig describes a private nginx instance run from a complete
// configuration of the user's, as experiment runs each variant.
type NginxFileConfig struct {
	// Binary is the nginx executable; empty means "nginx" on PATH.
	Binary string
	// Config is the complete nginx.conf. Its pid, error and access logs
	// and temporary paths are moved into the instance's own directory;
	// its listen ports and everything else stay as they are.
	Config []byte
	// ConfDir is the directory the configuration came from: its entries
	// are linked into the instance's directory, so that relative paths
	// (include mime.types, ssl_certificate cert.pem) find the same files.
	ConfDir string
	// CPUs, when set, pins nginx (its master, and so the workers it
	// forks) to these CPUs, e.g. "1" or "2-3", through taskset.
	CPUs string
	// Wrap, when set, prefixes nginx's command line (ip netns exec NS:
	// nginx behind an emulated link); nginx -t runs without it.
	Wrap []string
}

// NginxProcess is a running private nginx started from a configuration
// file. Close stops it and removes its directory.
type NginxProcess struct {
	Dir      string
	ErrorLog string
	// Warnings are the lines nginx -t warned with (an obsolete directive,
	// a duplicate), without its own "syntax is ok" lines.
	Warnings []string
	cmd      *exec.Cmd
	done     chan error
	stopOnce sync.Once
}

// NginxCheckError is a configuration nginx -t refused, with nginx's own
// message.
type NginxCheckError struct{ Message string }

func (e *NginxCheckError) Error() string { return "nginx -t: " + e.Message }

// maxLinked bounds how many entries of the configuration's directory are
// linked into an instance's directory: a configuration kept in a large
// directory (/tmp) gets the first ones only.
const maxLinked = 2000

// StartNginxFile checks the configuration with nginx -t and starts it as
// a private instance: its own prefix, pid file and logs, in the
// foreground of a child process in a process group of its own (Ctrl-C
// reaches httpslab, which stops it), killed if httpslab dies. It returns
// once nginx has written its pid file, which it does after binding its
// listening sockets.
func StartNginxFile(ctx context.Context, cfg NginxFileConfig) (*NginxProcess, error) {
	bin, err := exec.LookPath(cmpOr(cfg.Binary, "nginx"))
	if err != nil {
		return nil, fmt.Errorf("finding nginx: %w (install it: apt-get install -y nginx)", err)
	}
	dir, err := PrivateDir("httpslab-nginx-")
	if err != nil {
		return nil, err
	}
	p := &NginxProcess{Dir: dir, ErrorLog: filepath.Join(dir, "httpslab-error.log"), done: make(chan error, 1)}
	if err := p.prepare(cfg); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	if err := p.check(ctx, bin); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	if err := p.start(ctx, bin, cfg.CPUs, cfg.Wrap); err != nil {
		p.Close()
		return nil, err
	}
	return p, nil
}

func cmpOr(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// prepare links the configuration's directory in and writes the
// privatised configuration.
func (p *NginxProcess) prepare(cfg NginxFileConfig) error {
	if cfg.ConfDir != "" {
		entries, err := os.ReadDir(cfg.ConfDir)
		if err != nil {
			return fmt.Errorf("reading the nginx config's directory: %w", err)
		}
		for i, e := range entries {
			if i >= maxLinked || strings.HasPrefix(e.Name(), "httpslab-") {
				continue
			}
			abs, err := filepath.Abs(filepath.Join(cfg.ConfDir, e.Name()))
			if err != nil {
				continue
			}
			_ = os.Symlink(abs, filepath.Join(p.Dir, e.Name()))
		}
	}
	// nginx's workers run as the template's user (Debian's: www-data)
	// when started as root: they must reach the temporary directory, so
	// the instance's directory can be passed through (not listed) and the
	// temporary one written by anyone, as /tmp.
	tmp := filepath.Join(p.Dir, "httpslab-tmp")
	if err := os.MkdirAll(tmp, 0o700); err != nil {
		return fmt.Errorf("creating nginx directory: %w", err)
	}
	if err := errors.Join(os.Chmod(p.Dir, 0o711), os.Chmod(tmp, 0o1777)); err != nil {
		return fmt.Errorf("opening the nginx directory to its workers: %w", err)
	}
	conf, err := privateConfig(cfg.Config, p.Dir)
	if err != nil {
		return err
	}
	if err := os.WriteFile(p.confPath(), conf, 0o600); err != nil {
		return fmt.Errorf("writing nginx config: %w", err)
	}
	return nil
}

func (p *NginxProcess) confPath() string { return filepath.Join(p.Dir, "httpslab-nginx.conf") }

// privateConfig moves what one nginx instance owns into dir: the pid file,
// every error and access log, the temporary paths; and keeps nginx in the
// foreground. Each step is one in-place edit of the parsed configuration,
// so line numbers in nginx's messages stay the template's.
func privateConfig(src []byte, dir string) ([]byte, error) {
	all := func(*nginxconf.Directive) bool { return true }
	steps := []func(c *nginxconf.Config) ([]byte, error){
		func(c *nginxconf.Config) ([]byte, error) { return c.SetMain("daemon", "off") },
		func(c *nginxconf.Config) ([]byte, error) {
			return c.SetMain("pid", nginxconf.Quote(filepath.Join(dir, "httpslab-nginx.pid")))
		},
		func(c *nginxconf.Config) ([]byte, error) {
			return c.SetArg("error_log", 0, filepath.Join(dir, "httpslab-error.log"), all), nil
		},
		func(c *nginxconf.Config) ([]byte, error) {
			return c.SetArg("access_log", 0, filepath.Join(dir, "httpslab-access.log"),
				func(d *nginxconf.Directive) bool { return d.Args[0] != "off" }), nil
		},
	}
	for _, name := range []string{"client_body_temp_path", "proxy_temp_path", "fastcgi_temp_path", "uwsgi_temp_path", "scgi_temp_path"} {
		steps = append(steps, func(c *nginxconf.Config) ([]byte, error) {
			out, _, err := c.Set(name, nginxconf.Quote(filepath.Join(dir, "httpslab-tmp")))
			if errors.Is(err, nginxconf.ErrNoHTTP) {
				return c.Src, nil // a stream-only configuration
			}
			return out, err
		})
	}
	for _, step := range steps {
		c, err := nginxconf.Parse(src)
		if err != nil {
			return nil, err
		}
		if src, err = step(c); err != nil {
			return nil, fmt.Errorf("making the nginx config private: %w", err)
		}
	}
	return src, nil
}

// argv is nginx's command line for this instance, with extra flags.
func (p *NginxProcess) argv(bin string, extra ...string) []string {
	return append([]string{bin, "-p", p.Dir + "/", "-c", p.confPath(), "-e", p.ErrorLog}, extra...)
}

// check runs nginx -t on the configuration and keeps its warnings.
func (p *NginxProcess) check(ctx context.Context, bin string) error {
	argv := p.argv(bin, "-t")
	out, err := exec.CommandContext(ctx, argv[0], argv[1:]...).CombinedOutput()
	var lines []string
	for l := range strings.Lines(string(out)) {
		l = strings.TrimSpace(l)
		if l == "" || strings.Contains(l, "syntax is ok") || strings.Contains(l, "test is successful") || strings.Contains(l, "test failed") {
			continue
		}
		lines = append(lines, strings.TrimPrefix(l, "nginx: "))
	}
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return &NginxCheckError{Message: p.relative(strings.Join(lines, "\n"))}
	}
	for _, l := range lines {
		if strings.Contains(l, "[warn]") {
			p.Warnings = append(p.Warnings, p.relative(l))
		}
	}
	return nil
}

// relative shortens the instance's configuration path in nginx's messages
// to "nginx.conf", which names the same lines in the template, and the
// paths of the files linked from the template's directory to their
// names there.
func (p *NginxProcess) relative(msg string) string {
	msg = strings.ReplaceAll(msg, p.confPath(), "nginx.conf")
	return strings.ReplaceAll(msg, p.Dir+"/", "")
}

func (p *NginxProcess) start(ctx context.Context, bin string, cpus string, wrap []string) error {
	argv := append(slices.Clone(wrap), p.argv(bin)...)
	if cpus != "" {
		// taskset sets the affinity before nginx runs, so that every
		// worker inherits it; setting it on a running master would race
		// with its forks.
		taskset, err := exec.LookPath("taskset")
		if err != nil {
			return fmt.Errorf("pinning nginx to CPUs %s: %w (install util-linux)", cpus, err)
		}
		argv = append([]string{taskset, "-c", cpus}, argv...)
	}
	p.cmd = exec.Command(argv[0], argv[1:]...)
	p.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGTERM}
	var stderr bytes.Buffer
	p.cmd.Stderr = &stderr
	if err := p.cmd.Start(); err != nil {
		return fmt.Errorf("starting nginx: %w", err)
	}
	go func() { p.done <- p.cmd.Wait() }()
	pidFile := filepath.Join(p.Dir, "httpslab-nginx.pid")
	deadline := time.Now().Add(10 * time.Second)
	for {
		if data, err := os.ReadFile(pidFile); err == nil && strings.TrimSpace(string(data)) == strconv.Itoa(p.PID()) {
			return nil
		}
		select {
		case err := <-p.done:
			p.done <- err
			log, _ := os.ReadFile(p.ErrorLog)
			return fmt.Errorf("starting nginx: it exited (%v): %s", err, p.relative(strings.TrimSpace(stderr.String()+string(log))))
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(10 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			return errors.New("starting nginx: no pid file within 10s")
		}
	}
}

// PID returns the process id of the nginx master.
func (p *NginxProcess) PID() int { return p.cmd.Process.Pid }

// ErrorLogLines returns the lines nginx wrote to its error log so far, at
// most the last n of them.
func (p *NginxProcess) ErrorLogLines(n int) []string {
	data, _ := os.ReadFile(p.ErrorLog)
	lines := strings.Split(strings.TrimSpace(p.relative(string(data))), "\n")
	if len(lines) == 1 && lines[0] == "" {
		return nil
	}
	return lines[max(0, len(lines)-n):]
}

// Close stops nginx (fast shutdown; its whole process group is killed if
// it has not exited after 5 seconds, workers included) and removes its
// directory. It may be called more than once.
func (p *NginxProcess) Close() error {
	p.stopOnce.Do(func() {
		if p.cmd == nil || p.cmd.Process == nil {
			return
		}
		_ = p.cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-p.done:
		case <-time.After(5 * time.Second):
			_ = syscall.Kill(-p.PID(), syscall.SIGKILL)
			<-p.done
		}
	})
	return os.RemoveAll(p.Dir)
}
