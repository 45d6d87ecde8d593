package page

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/netip"
	"net/url"
	"os"
	"os/exec"
	"sync"
	"syscall"

	"github.com/chromedp/chromedp"
	"github.com/httpslab/httpslab/internal/netem"
)

// labRange is where emulated links put their servers (RFC 2544's
// benchmarking range).
var labRange = netip.MustParsePrefix("198.18.0.0/15")

// behindLink reports whether the page is at an emulated link's address
// and this process may build namespaces (root): its browser is then
// isolated.
func behindLink(page *url.URL) bool {
	ip, err := netip.ParseAddr(page.Hostname())
	return err == nil && labRange.Contains(ip) && os.Geteuid() == 0
}

// isolation is the private network namespace of a browser load of a
// page behind an emulated link: the browser runs in it with loopback only, the page's
// address on that loopback, and a relay that carries each of its
// connections to the page's origin in this process's namespace, through
// the emulated link. The browser then sees no interface of the host come
// or go, which would make it drop its connections (ERR_NETWORK_CHANGED).
// Its TCP connect completes on loopback: the connect to the server, one
// round trip, shows in its TLS handshake or its first wait instead; the
// load's time is unchanged.
type isolation struct {
	ns     *netem.Isolated
	ln     net.Listener
	wg     sync.WaitGroup
	mu     sync.Mutex
	conns  []net.Conn
	closed bool
}

// isolate builds the namespace and the relay for the page's origin.
func isolate(ctx context.Context, cfg Config, page *url.URL) (*isolation, error) {
	ip := net.ParseIP(page.Hostname())
	switch {
	case cfg.Protocol == HTTP3:
		return nil, fmt.Errorf("%w: an isolated browser relays TCP only, not HTTP/3's QUIC", ErrBrowser)
	case ip == nil:
		return nil, fmt.Errorf("%w: an isolated browser needs the page's address in its URL, not %q", ErrBrowser, page.Hostname())
	}
	ns, err := netem.Isolate(ctx)
	if err != nil {
		return nil, fmt.Errorf("%w: isolating the browser's network: %w", ErrBrowser, err)
	}
	iso := &isolation{ns: ns}
	addr := hostPort443(page)
	if page.Scheme == "http" && page.Port() == "" {
		addr = net.JoinHostPort(ip.String(), "80")
	}
	if err := ns.AddAddress(ctx, ip); err != nil {
		iso.close()
		return nil, fmt.Errorf("%w: %w", ErrBrowser, err)
	}
	if iso.ln, err = ns.Listen(ctx, "tcp", addr); err != nil {
		iso.close()
		return nil, fmt.Errorf("%w: relaying %s: %w", ErrBrowser, addr, err)
	}
	iso.wg.Add(1)
	go iso.accept(ctx, cfg, addr)
	return iso, nil
}

// accept relays each connection of the browser to addr.
func (iso *isolation) accept(ctx context.Context, cfg Config, addr string) {
	defer iso.wg.Done()
	for {
		c, err := iso.ln.Accept()
		if err != nil {
			return
		}
		iso.wg.Add(1)
		go func() {
			defer iso.wg.Done()
			up, err := cfg.Dialer.DialContext(ctx, "tcp", addr)
			if err != nil {
				c.Close()
				return
			}
			if !iso.track(c, up) {
				return
			}
			done := make(chan struct{}, 2)
			pipe := func(dst, src net.Conn) {
				io.Copy(dst, src)
				if cw, ok := dst.(interface{ CloseWrite() error }); ok {
					cw.CloseWrite()
				}
				done <- struct{}{}
			}
			go pipe(up, c)
			go pipe(c, up)
			<-done
			<-done
			c.Close()
			up.Close()
		}()
	}
}

// track keeps a relayed pair for close; false (both closed) once the
// relay is closing.
func (iso *isolation) track(c ...net.Conn) bool {
	iso.mu.Lock()
	defer iso.mu.Unlock()
	if iso.closed {
		for _, x := range c {
			x.Close()
		}
		return false
	}
	iso.conns = append(iso.conns, c...)
	return true
}

// command makes the browser start inside the namespace, killed with this
// process (chromedp's own option, which this replaces).
func (iso *isolation) command() chromedp.ExecAllocatorOption {
	return chromedp.ModifyCmdFunc(func(cmd *exec.Cmd) {
		argv := iso.ns.Command(append([]string{cmd.Path}, cmd.Args[1:]...))
		if p, err := exec.LookPath(argv[0]); err == nil {
			cmd.Path = p
		}
		cmd.Args = argv
		if cmd.SysProcAttr == nil {
			cmd.SysProcAttr = &syscall.SysProcAttr{}
		}
		cmd.SysProcAttr.Pdeathsig = syscall.SIGKILL
	})
}

// close ends the relay and removes the namespace.
func (iso *isolation) close() error {
	iso.mu.Lock()
	iso.closed = true
	conns := iso.conns
	iso.conns = nil
	iso.mu.Unlock()
	if iso.ln != nil {
		iso.ln.Close()
	}
	for _, c := range conns {
		c.Close()
	}
	iso.wg.Wait()
	return errors.Join(iso.ns.Close())
}
