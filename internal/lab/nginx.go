package lab

import (
	"bufio"
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"text/template"
	"time"

	"github.com/httpslab/httpslab/internal/machine"
)

// NginxConfig describes a private nginx instance. The zero value serves
// HTTPS (TLS 1.2 and 1.3, HTTP/1.1) and plain HTTP on free loopback ports
// with an ECDSA P-256 certificate, a shared session cache and tickets.
type NginxConfig struct {
	// Binary is the nginx executable; empty means "nginx" on PATH.
	Binary string
	// Cert is the leaf key kind; empty means ECDSA P-256.
	Cert KeyKind
	// SendRoot appends the CA certificate to the served chain (a needless root).
	SendRoot bool
	// Intermediate issues the leaf from an intermediate CA under CA, and
	// serves it after the leaf unless OmitIntermediate leaves it out (an
	// incomplete chain). fullchain.pem in Dir always holds the leaf and
	// its intermediate, if any.
	Intermediate, OmitIntermediate bool
	// CertFile is the file in Dir that ssl_certificate names; empty means
	// chain.pem, the chain as configured above.
	CertFile string
	// Leaf, if set, issues the leaf certificate instead of
	// ca.Issue(kind, DefaultHosts...): an expired or wrongly named one.
	Leaf func(ca *CA, kind KeyKind) (*Leaf, error)
	// HTTP2 enables HTTP/2 on the HTTPS listener.
	HTTP2 bool
	// PlainHTTP2 makes the plain listener speak HTTP/2 with prior
	// knowledge (h2c) instead of HTTP/1.1.
	PlainHTTP2 bool
	// Host is the address to listen on; empty means 127.0.0.1.
	Host string
	// HTTPDirectives go into the http block, TLSDirectives into the HTTPS
	// server block and PlainDirectives into the plain HTTP server block.
	// They override the http block's settings (nginx takes the innermost),
	// but a TLSDirectives line that repeats one of the HTTPS block's default
	// ssl_* lines sits in the same block: nginx refuses most as duplicates
	// and adds ssl_protocols to the default's versions (TLSv1.2 stays on),
	// so replace those with NoDefaults.
	HTTPDirectives, TLSDirectives, PlainDirectives string
	// NoDefaults leaves out the default ssl_* lines of the HTTPS block, so
	// TLSDirectives alone decide (for studying nginx's own defaults).
	NoDefaults bool
	// Command wraps the nginx command line, for example to run it inside a
	// network namespace; nil runs it as is.
	Command func(argv []string) []string
	// Listen opens the probe sockets that find free ports for nginx; nil
	// means the host's network stack. Behind the network lab, pass the
	// link's Listen with Command, so the ports are free in its namespace.
	Listen func(ctx context.Context, network, addr string) (net.Listener, error)
	// Dial opens the connections that check nginx listens; nil means the
	// host's network stack. A server in a namespace the host has no
	// route to is checked from inside it.
	Dial func(ctx context.Context, network, addr string) (net.Conn, error)
}

// Nginx is a running private nginx. Its files live in Dir, which Close removes.
type Nginx struct {
	Dir       string
	CA        *CA
	HTTPURL   string
	HTTPSURL  string
	AccessLog string // path of the access log, in AccessFormat
	Version   string // as nginx -v prints it, e.g. "1.22.1"
	cmd       *exec.Cmd
	done      chan error
	stopOnce  sync.Once
}

// AccessFormat is the access log format of lab nginx instances: the
// connection serial number, the request number on that connection, "r" if
// the TLS session was reused ("." otherwise), the TLS protocol, the HTTP
// protocol, the status and the URI.
const AccessFormat = `$connection $connection_requests $ssl_session_reused $ssl_protocol $server_protocol $status $request_uri`

var nginxConf = template.Must(template.New("nginx").Parse(`
daemon off;
master_process on;
worker_processes 1;
pid {{.Dir}}/nginx.pid;
error_log {{.Dir}}/error.log warn;
{{if .Root}}user root;{{end}}
events { worker_connections 4096; }
http {
    log_format lab '{{.Format}}';
    access_log {{.Dir}}/access.log lab;
    client_body_temp_path {{.Dir}}/tmp;
    proxy_temp_path {{.Dir}}/tmp;
    fastcgi_temp_path {{.Dir}}/tmp;
    uwsgi_temp_path {{.Dir}}/tmp;
    scgi_temp_path {{.Dir}}/tmp;
    types { text/html html; application/octet-stream bin; text/css css; application/javascript js; }
    default_type application/octet-stream;
    keepalive_requests 1000000;
    keepalive_timeout 60s;
    {{.HTTPDirectives}}
    server {
        listen {{.Host}}:{{.HTTPSPort}} ssl{{if .HTTP2}} http2{{end}};
        server_name localhost;
        ssl_certificate {{.Dir}}/{{.CertFile}};
        ssl_certificate_key {{.Dir}}/key.pem;
{{- if not .NoDefaults}}
        ssl_protocols TLSv1.2 TLSv1.3;
        ssl_session_cache shared:lab:1m;
        ssl_session_tickets on;
{{- end}}
        root {{.Dir}}/www;
        location /redirect/ { return 302 /; }
        {{.TLSDirectives}}
    }
    server {
        listen {{.Host}}:{{.HTTPPort}}{{if .PlainHTTP2}} http2{{end}};
        server_name localhost;
        root {{.Dir}}/www;
        {{.PlainDirectives}}
    }
}
`))

// nginxFiles are the static files every lab nginx serves from its root.
var nginxFiles = map[string]int{"1k.bin": 1024, "16k.bin": 16 << 10, "100k.bin": 100 << 10, "1m.bin": 1 << 20}

// StartNginx writes the certificates and configuration of a private nginx
// into a fresh private directory and starts it in the foreground of a
// child process. It returns once both ports accept connections.
func StartNginx(ctx context.Context, cfg NginxConfig) (*Nginx, error) {
	bin := cfg.Binary
	if bin == "" {
		bin = "nginx"
	}
	path, err := exec.LookPath(bin)
	if err != nil {
		return nil, fmt.Errorf("finding nginx: %w (install it: apt-get install -y nginx)", err)
	}
	dir, err := PrivateDir("httpslab-nginx-")
	if err != nil {
		return nil, err
	}
	n := &Nginx{Dir: dir, AccessLog: filepath.Join(dir, "access.log"), done: make(chan error, 1)}
	if err := n.writeFiles(cfg); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	n.Version = nginxVersion(path)
	if err := n.start(ctx, path, cfg); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	return n, nil
}

func (n *Nginx) writeFiles(cfg NginxConfig) error {
	kind := cfg.Cert
	if kind == "" {
		kind = ECDSAP256
	}
	ca, err := NewCA(kind)
	if err != nil {
		return err
	}
	n.CA = ca
	issuer := ca
	if cfg.Intermediate {
		if issuer, err = ca.NewIntermediate(kind); err != nil {
			return err
		}
	}
	issue := cfg.Leaf
	if issue == nil {
		issue = func(ca *CA, kind KeyKind) (*Leaf, error) { return ca.Issue(kind, DefaultHosts...) }
	}
	leaf, err := issue(issuer, kind)
	if err != nil {
		return err
	}
	chain := append([]byte{}, leaf.CertPEM...)
	full := append([]byte{}, leaf.CertPEM...)
	if cfg.Intermediate {
		full = append(full, issuer.CertPEM...)
		if !cfg.OmitIntermediate {
			chain = append(chain, issuer.CertPEM...)
		}
	}
	if cfg.SendRoot {
		chain = append(chain, ca.CertPEM...)
	}
	www := filepath.Join(n.Dir, "www")
	for _, d := range []string{www, filepath.Join(n.Dir, "tmp")} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			return fmt.Errorf("creating nginx directory: %w", err)
		}
	}
	files := map[string][]byte{
		"chain.pem":      chain,
		"fullchain.pem":  full,
		"key.pem":        leaf.KeyPEM,
		"ca.pem":         ca.CertPEM,
		"www/index.html": []byte(indexPage),
		"www/.env":       []byte("SECRET=lab\n"),
		"www/style.css":  bytes.Repeat([]byte("body { margin: 0; }\n"), 200),
		"www/.git/HEAD":  []byte("ref: refs/heads/main\n"),
		"www/script.js":  bytes.Repeat([]byte("console.log('httpslab');\n"), 200),
	}
	for name, size := range nginxFiles {
		files["www/"+name] = bytes.Repeat([]byte("x"), size)
	}
	for name, data := range files {
		p := filepath.Join(n.Dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			return fmt.Errorf("creating nginx directory: %w", err)
		}
		if err := os.WriteFile(p, data, 0o600); err != nil {
			return fmt.Errorf("writing nginx file %s: %w", name, err)
		}
	}
	return nil
}

func (n *Nginx) start(ctx context.Context, path string, cfg NginxConfig) error {
	host := cfg.Host
	if host == "" {
		host = "127.0.0.1"
	}
	ports, err := freePorts(ctx, cfg.Listen, host, 2)
	if err != nil {
		return err
	}
	var conf bytes.Buffer
	err = nginxConf.Execute(&conf, map[string]any{
		"Dir": n.Dir, "Root": os.Geteuid() == 0, "Format": AccessFormat, "Host": bracket(host),
		"CertFile": cmp.Or(cfg.CertFile, "chain.pem"), "HTTPSPort": ports[0], "HTTPPort": ports[1], "HTTP2": cfg.HTTP2, "PlainHTTP2": cfg.PlainHTTP2, "NoDefaults": cfg.NoDefaults,
		"HTTPDirectives": cfg.HTTPDirectives, "TLSDirectives": cfg.TLSDirectives, "PlainDirectives": cfg.PlainDirectives,
	})
	if err != nil {
		return fmt.Errorf("writing nginx config: %w", err)
	}
	confPath := filepath.Join(n.Dir, "nginx.conf")
	if err := os.WriteFile(confPath, conf.Bytes(), 0o600); err != nil {
		return fmt.Errorf("writing nginx config: %w", err)
	}
	argv := []string{path, "-p", n.Dir, "-c", confPath, "-e", filepath.Join(n.Dir, "error.log")}
	if cfg.Command != nil {
		argv = cfg.Command(argv)
	}
	n.cmd = exec.Command(argv[0], argv[1:]...)
	var stderr bytes.Buffer
	n.cmd.Stderr = &stderr
	if err := n.cmd.Start(); err != nil {
		return fmt.Errorf("starting nginx: %w", err)
	}
	go func() { n.done <- n.cmd.Wait() }()
	n.HTTPSURL = fmt.Sprintf("https://%s", net.JoinHostPort(host, strconv.Itoa(ports[0])))
	n.HTTPURL = fmt.Sprintf("http://%s", net.JoinHostPort(host, strconv.Itoa(ports[1])))
	if err := n.waitReady(ctx, cfg.Dial, host, ports); err != nil {
		log, _ := os.ReadFile(filepath.Join(n.Dir, "error.log"))
		n.stop()
		return fmt.Errorf("starting nginx: %w\n%s%s", err, stderr.Bytes(), log)
	}
	return nil
}

func (n *Nginx) waitReady(ctx context.Context, dial func(context.Context, string, string) (net.Conn, error), host string, ports []int) error {
	if dial == nil {
		dial = (&net.Dialer{}).DialContext
	}
	deadline := time.Now().Add(10 * time.Second)
	for _, p := range ports {
		addr := net.JoinHostPort(host, strconv.Itoa(p))
		for {
			dctx, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
			c, err := dial(dctx, "tcp", addr)
			cancel()
			if err == nil {
				c.Close()
				break
			}
			select {
			case err := <-n.done:
				n.done <- err
				return fmt.Errorf("nginx exited: %v", err)
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(20 * time.Millisecond):
			}
			if time.Now().After(deadline) {
				return fmt.Errorf("nginx did not listen on %s within 10s", addr)
			}
		}
	}
	return nil
}

// PID returns the process id of the nginx master.
func (n *Nginx) PID() int { return n.cmd.Process.Pid }

// WorkerPIDs returns the process ids of the nginx worker processes.
func (n *Nginx) WorkerPIDs() []int { return machine.Children(n.PID()) }

// Close stops nginx (fast shutdown) and removes its directory. It may be
// called more than once.
func (n *Nginx) Close() error {
	n.stop()
	return os.RemoveAll(n.Dir)
}

// stop ends the nginx process, once.
func (n *Nginx) stop() {
	n.stopOnce.Do(func() {
		if n.cmd == nil || n.cmd.Process == nil {
			return
		}
		_ = n.cmd.Process.Signal(os.Interrupt)
		select {
		case <-n.done:
		case <-time.After(5 * time.Second):
			_ = n.cmd.Process.Kill()
			<-n.done
		}
	})
}

// AccessEntry is one line of a lab nginx access log.
type AccessEntry struct {
	Conn, ConnRequest int
	Reused            bool
	TLSProtocol       string
	HTTPProtocol      string
	Status            int
	URI               string
}

// ReadAccessLog parses the access log written so far. nginx writes each
// line when the request completes, so callers read it after the load ends.
func (n *Nginx) ReadAccessLog() ([]AccessEntry, error) {
	f, err := os.Open(n.AccessLog)
	if err != nil {
		return nil, fmt.Errorf("reading nginx access log: %w", err)
	}
	defer f.Close()
	var out []AccessEntry
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		e, err := parseAccessLine(sc.Text())
		if err != nil {
			return out, err
		}
		out = append(out, e)
	}
	return out, sc.Err()
}

func parseAccessLine(line string) (AccessEntry, error) {
	f := strings.Fields(line)
	if len(f) != 7 {
		return AccessEntry{}, fmt.Errorf("access log line %q: want 7 fields", line)
	}
	conn, err1 := strconv.Atoi(f[0])
	req, err2 := strconv.Atoi(f[1])
	status, err3 := strconv.Atoi(f[5])
	if err := errors.Join(err1, err2, err3); err != nil {
		return AccessEntry{}, fmt.Errorf("access log line %q: %w", line, err)
	}
	return AccessEntry{Conn: conn, ConnRequest: req, Reused: f[2] == "r", TLSProtocol: f[3],
		HTTPProtocol: f[4], Status: status, URI: f[6]}, nil
}

func nginxVersion(path string) string {
	out, _ := exec.Command(path, "-v").CombinedOutput()
	s := string(out)
	if i := strings.Index(s, "nginx/"); i >= 0 {
		return strings.Fields(s[i+len("nginx/"):])[0]
	}
	return ""
}

// freePorts finds n distinct free TCP ports on host. The ports are free
// when found; another process could take one before nginx binds it, in
// which case nginx fails to start with a clear error.
func freePorts(ctx context.Context, listen func(context.Context, string, string) (net.Listener, error), host string, n int) ([]int, error) {
	if listen == nil {
		var lc net.ListenConfig
		listen = lc.Listen
	}
	var lns []net.Listener
	defer func() {
		for _, l := range lns {
			l.Close()
		}
	}()
	var ports []int
	for i := 0; i < n; i++ {
		l, err := listen(ctx, "tcp", net.JoinHostPort(host, "0"))
		if err != nil {
			return nil, fmt.Errorf("finding a free port: %w", err)
		}
		lns = append(lns, l)
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}

func bracket(host string) string {
	if strings.Contains(host, ":") {
		return "[" + host + "]"
	}
	return host
}
