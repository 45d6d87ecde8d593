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

// Bounds of an isolated browser's relays.
const (
	maxRelayedOrigins = 64   // origins with a TCP relay of their own
	maxQUICFlows      = 64   // client addresses of the HTTP/3 relay
	maxDatagram       = 1500 // QUIC's packets stay below the path's MTU
)

// behindLink reports whether the page is at an emulated link's address
// and this process may build namespaces (root): its browser is then
// isolated.
func behindLink(page *url.URL) bool {
	ip, err := netip.ParseAddr(page.Hostname())
	return err == nil && labRange.Contains(ip) && os.Geteuid() == 0
}

// isolation is the private network namespace of a browser load of a
// page behind an emulated link: the browser runs in it with loopback
// only, the addresses of the page's origins on that loopback, and relays
// that carry each of its connections to its origin in this process's
// namespace, through the emulated link: a TCP relay per origin, and over
// HTTP/3 a UDP relay for the page's origin. The browser then sees no
// interface of the host come or go, which would make it drop its
// connections (ERR_NETWORK_CHANGED). Its TCP connect completes on
// loopback: the connect to the server, one round trip, shows in its TLS
// handshake or its first wait instead; the load's time is unchanged.
type isolation struct {
	ns     *netem.Isolated
	wg     sync.WaitGroup
	mu     sync.Mutex
	conns  []io.Closer // listeners, the UDP socket, relayed connections
	closed bool
}

// isolate builds the namespace and the relays for the origins (host:port,
// the page's first).
func isolate(ctx context.Context, cfg Config, page *url.URL, origins []string) (*isolation, error) {
	if net.ParseIP(page.Hostname()) == nil {
		return nil, fmt.Errorf("%w: an isolated browser needs the page's address in its URL, not %q", ErrBrowser, page.Hostname())
	}
	ns, err := netem.Isolate(ctx)
	if err != nil {
		return nil, fmt.Errorf("%w: isolating the browser's network: %w", ErrBrowser, err)
	}
	iso := &isolation{ns: ns}
	if err := iso.relayAll(ctx, cfg, page, origins); err != nil {
		iso.close()
		return nil, fmt.Errorf("%w: %w", ErrBrowser, err)
	}
	return iso, nil
}

// relayAll gives the namespace each origin's address and a relay to it.
func (iso *isolation) relayAll(ctx context.Context, cfg Config, page *url.URL, origins []string) error {
	added := map[string]bool{}
	for _, addr := range origins {
		host, _, err := net.SplitHostPort(addr)
		if err != nil {
			return fmt.Errorf("relaying %s: %w", addr, err)
		}
		if !added[host] {
			if err := iso.ns.AddAddress(ctx, net.ParseIP(host)); err != nil {
				return err
			}
			added[host] = true
		}
		ln, err := iso.ns.Listen(ctx, "tcp", addr)
		if err != nil || !iso.track(ln) {
			return fmt.Errorf("relaying %s: %w", addr, err)
		}
		iso.wg.Add(1)
		go iso.accept(ctx, cfg, ln, addr)
	}
	if cfg.Protocol != HTTP3 {
		return nil
	}
	addr := originAddr(page)
	pc, err := iso.ns.ListenPacket(ctx, "udp", addr)
	if err != nil || !iso.track(pc) {
		return fmt.Errorf("relaying %s over UDP: %w", addr, err)
	}
	iso.wg.Add(1)
	go iso.relayUDP(ctx, pc, addr)
	return nil
}

// accept relays each connection of the browser to ln's origin, addr.
func (iso *isolation) accept(ctx context.Context, cfg Config, ln net.Listener, addr string) {
	defer iso.wg.Done()
	for {
		c, err := ln.Accept()
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

// relayUDP carries the browser's QUIC packets to addr: each client
// address of the browser (a QUIC connection's socket) gets a socket of
// its own in this process's namespace, whose replies go back to it.
func (iso *isolation) relayUDP(ctx context.Context, pc net.PacketConn, addr string) {
	defer iso.wg.Done()
	flows := map[string]net.Conn{}
	buf := make([]byte, 64<<10)
	for {
		n, from, err := pc.ReadFrom(buf)
		if err != nil {
			return
		}
		up, ok := flows[from.String()]
		if !ok {
			if len(flows) >= maxQUICFlows {
				continue
			}
			if up, err = (&net.Dialer{}).DialContext(ctx, "udp", addr); err != nil {
				continue
			}
			if !iso.track(up) {
				return
			}
			flows[from.String()] = up
			iso.wg.Add(1)
			go func() {
				defer iso.wg.Done()
				b := make([]byte, 64<<10)
				for {
					n, err := up.Read(b)
					if err != nil {
						return
					}
					pc.WriteTo(b[:n], from)
				}
			}()
		}
		up.Write(buf[:n])
	}
}

// track keeps what close must close; false (all of c closed) once the
// relays are closing.
func (iso *isolation) track(c ...io.Closer) bool {
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

// close ends the relays and removes the namespace.
func (iso *isolation) close() error {
	iso.mu.Lock()
	iso.closed = true
	conns := iso.conns
	iso.conns = nil
	iso.mu.Unlock()
	for _, c := range conns {
		c.Close()
	}
	iso.wg.Wait()
	return errors.Join(iso.ns.Close())
}

// originAddr is u's host:port, the scheme's port made explicit.
func originAddr(u *url.URL) string {
	if u.Port() == "" && u.Scheme == "http" {
		return net.JoinHostPort(u.Hostname(), "80")
	}
	return hostPort443(u)
}

// originCache is the origins a page's loads reach, found once for all
// the browser loads of one protocol.
type originCache struct {
	once sync.Once
	list []string
}

// relayed returns the addresses (host:port) an isolated browser's loads
// of the page need relays to: the page's origin, and every other origin
// behind an emulated link that httpslab's own engine reaches in one load
// of the page (through the link, as the browser's loads go), at most
// maxRelayedOrigins. Other addresses are left unreachable, as a
// browser's requests to them fail alike.
func (oc *originCache) relayed(ctx context.Context, cfg Config, page *url.URL) []string {
	oc.once.Do(func() {
		oc.list = []string{originAddr(page)}
		own := cfg
		own.Engine, own.origins = EngineOwn, nil
		ld, _ := Run(ctx, own)
		if ld == nil {
			return
		}
		seen := map[string]bool{oc.list[0]: true}
		for _, r := range ld.Requests {
			u, err := url.Parse(r.URL)
			if err != nil || (u.Scheme != "http" && u.Scheme != "https") || !behindLink(u) || len(oc.list) >= maxRelayedOrigins {
				continue
			}
			if a := originAddr(u); !seen[a] {
				seen[a] = true
				oc.list = append(oc.list, a)
			}
		}
	})
	return oc.list
}
