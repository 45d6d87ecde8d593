package page

import (
	"context"
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/systeminfo"
	"github.com/chromedp/chromedp"
)

// Engine is what loads the page: httpslab's own scheduler, or a real
// browser driven over the DevTools protocol.
type Engine string

// Engines, as --engine spells them.
const (
	EngineOwn      Engine = ""         // httpslab's: discovery and scheduling in this process
	EngineChromium Engine = "chromium" // headless Chromium, its own network stack, parser and scheduler
)

// ParseEngine reads an engine name: httpslab or chromium.
func ParseEngine(s string) (Engine, error) {
	switch s {
	case "", "httpslab":
		return EngineOwn, nil
	case string(EngineChromium):
		return EngineChromium, nil
	}
	return "", fmt.Errorf("unknown engine %q (want httpslab or chromium)", s)
}

// ErrBrowser is wrapped by the errors of a browser that could not be
// started or driven.
var ErrBrowser = errors.New("chromium")

// chromiumProtocolFlags are the switches that force Chromium onto p.
// Without --disable-quic, an Alt-Svc header would move later requests of
// an HTTP/1.1 or HTTP/2 load onto HTTP/3; over h3, QUIC is forced on the
// page's origin from its first request, as no Alt-Svc has been seen in a
// fresh profile.
func chromiumProtocolFlags(p Protocol, page *url.URL) ([]chromedp.ExecAllocatorOption, error) {
	switch p {
	case HTTP:
		return []chromedp.ExecAllocatorOption{chromedp.Flag("disable-quic", true)}, nil
	case HTTP1:
		return []chromedp.ExecAllocatorOption{chromedp.Flag("disable-quic", true), chromedp.Flag("disable-http2", true)}, nil
	case HTTP2:
		return []chromedp.ExecAllocatorOption{chromedp.Flag("disable-quic", true)}, nil
	case HTTP3:
		return []chromedp.ExecAllocatorOption{chromedp.Flag("enable-quic", true),
			chromedp.Flag("origin-to-force-quic-on", hostPort443(page))}, nil
	}
	return nil, fmt.Errorf("%w: it has no %s (HTTP/2 without TLS)", ErrBrowser, p)
}

// hostPort443 is the page's host:port, the port made explicit.
func hostPort443(u *url.URL) string {
	port := u.Port()
	if port == "" {
		port = "443"
	}
	return net.JoinHostPort(u.Hostname(), port)
}

// chromiumTrustFlags are the switches that make Chromium trust the
// server as the load's TLS setup does, and no further:
//
//   - -k (InsecureSkipVerify): --ignore-certificate-errors, what the user
//     asked for;
//   - a CA of the user's or the embedded server's (RootCAs): httpslab
//     connects to the page's origin itself, verifies its chain against
//     that CA and the URL's name, and passes the SHA-256 hash of the leaf's
//     public key that it verified with --ignore-certificate-errors-spki-list.
//     Chromium then overlooks its own verdict for that one key only, never
//     for another certificate, which --ignore-certificate-errors would;
//   - otherwise Chromium's own trust, as a user's browser.
func chromiumTrustFlags(ctx context.Context, cfg Config, page *url.URL) ([]chromedp.ExecAllocatorOption, error) {
	switch {
	case page.Scheme != "https":
		return nil, nil
	case cfg.tlsConf.InsecureSkipVerify:
		return []chromedp.ExecAllocatorOption{chromedp.Flag("ignore-certificate-errors", true)}, nil
	case cfg.tlsConf.RootCAs == nil:
		return nil, nil
	}
	hash, err := verifiedKeyHash(ctx, cfg, page)
	if err != nil {
		return nil, err
	}
	return []chromedp.ExecAllocatorOption{chromedp.Flag("ignore-certificate-errors-spki-list", hash)}, nil
}

// verifiedKeyHash connects to the page's origin over TLS with the load's
// trust and returns the base64 SHA-256 hash of the public key of the
// leaf certificate it verified.
func verifiedKeyHash(ctx context.Context, cfg Config, page *url.URL) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, cfg.RequestTimeout)
	defer cancel()
	tc := cfg.tlsConf.Clone()
	tc.ServerName = page.Hostname()
	tc.NextProtos = []string{"h2", "http/1.1"}
	conn, err := cfg.Dialer.DialTLS(ctx, "tcp", hostPort443(page), tc)
	if err != nil {
		return "", fmt.Errorf("page: verifying the server's certificate for Chromium: %w", err)
	}
	defer conn.Close()
	return keyHash(conn.ConnectionState().PeerCertificates[0]), nil
}

// keyHash is the base64 SHA-256 hash of a certificate's public key, as
// --ignore-certificate-errors-spki-list reads it.
func keyHash(c *x509.Certificate) string {
	sum := sha256.Sum256(c.RawSubjectPublicKeyInfo)
	return base64.StdEncoding.EncodeToString(sum[:])
}

// chromiumOptions are the command line of one load's browser: headless,
// on a fresh profile in a private temporary directory (newProfile; the
// browser is killed when the load ends, and the profile removed), so that
// the load is cold: no cache, no TLS session, no Alt-Svc or HSTS memory,
// no preconnect of an earlier visit or of the navigation itself.
func chromiumOptions(cfg Config, extra ...[]chromedp.ExecAllocatorOption) []chromedp.ExecAllocatorOption {
	opts := append([]chromedp.ExecAllocatorOption{}, chromedp.DefaultExecAllocatorOptions[:]...)
	opts = append(opts,
		chromedp.Flag("disk-cache-size", "1"),
		chromedp.Flag("no-proxy-server", true),
		chromedp.WindowSize(1366, 768),
	)
	if cfg.Browser != "" {
		opts = append(opts, chromedp.ExecPath(cfg.Browser))
	}
	if os.Geteuid() == 0 {
		// Chromium refuses to start as root with its sandbox.
		opts = append(opts, chromedp.NoSandbox)
	}
	for _, e := range extra {
		opts = append(opts, e...)
	}
	return opts
}

// ErrNetworkChanged is wrapped by the error of a browser load that met a
// change of the host's network three times over.
var ErrNetworkChanged = errors.New("the host's network changed during the load")

// maxNetworkChanges bounds the browser loads taken again after a change
// of the host's network.
const maxNetworkChanges = 3

// runChromium loads the page in a headless Chromium of its own. Chromium
// watches the host's interfaces and, when one comes or goes (another
// emulated link's TUN device on a shared machine), drops its connections
// and fails the requests in flight with ERR_NETWORK_CHANGED: such a load
// measures the host, not the page, and is taken again in a new browser,
// up to three times.
func runChromium(ctx context.Context, cfg Config, page *url.URL) (*Load, error) {
	switch {
	case len(cfg.Dialer.Resolve) > 0 || len(cfg.Dialer.ConnectTo) > 0:
		return nil, fmt.Errorf("%w: --resolve and --connect-to are not passed to the browser", ErrBrowser)
	case cfg.Sessions != nil:
		return nil, fmt.Errorf("%w: every browser load starts cold, in a fresh profile; --warm is for httpslab's engine", ErrBrowser)
	}
	var relayed []string // the origins an isolated browser reaches
	if behindLink(page) {
		oc := cfg.origins
		if oc == nil {
			oc = &originCache{}
		}
		relayed = oc.relayed(ctx, cfg, page)
	}
	for attempt := 1; ; attempt++ {
		ld, err := runChromiumOnce(ctx, cfg, page, relayed)
		if ld == nil || !networkChanged(ld) || ctx.Err() != nil {
			return ld, err
		}
		if attempt == maxNetworkChanges {
			return ld, fmt.Errorf("%w: %w (net::ERR_NETWORK_CHANGED in %d loads)", ErrBrowser, ErrNetworkChanged, attempt)
		}
	}
}

// networkChanged reports whether a request of ld failed because the
// host's network changed.
func networkChanged(ld *Load) bool {
	for _, r := range ld.Requests {
		if strings.Contains(r.Error, "ERR_NETWORK_CHANGED") {
			return true
		}
	}
	return false
}

// runChromiumOnce loads the page once in a headless Chromium of its own,
// isolated with relays to the origins relayed when they are not nil.
func runChromiumOnce(ctx context.Context, cfg Config, page *url.URL, relayed []string) (*Load, error) {
	proto, err := chromiumProtocolFlags(cfg.Protocol, page)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, cfg.LoadTimeout)
	defer cancel()
	trust, err := chromiumTrustFlags(ctx, cfg, page)
	if err != nil {
		return nil, err
	}
	isolated := relayed != nil
	if isolated {
		iso, err := isolate(ctx, cfg, page, relayed)
		if err != nil {
			return nil, err
		}
		defer iso.close() // after the browser is killed
		trust = append(trust, iso.command())
	}
	profile, err := newProfile()
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrBrowser, err)
	}
	defer removeProfile(profile) // after the browser is killed
	actx, stopBrowser := chromedp.NewExecAllocator(ctx, chromiumOptions(cfg, proto, trust, []chromedp.ExecAllocatorOption{chromedp.UserDataDir(profile)})...)
	defer stopBrowser() // kills the browser, on every path
	bctx, closeTab := chromedp.NewContext(actx)
	defer closeTab()
	log := newNetLog()
	if err := chromedp.Listen(bctx, log.event); err != nil { // starts the browser
		return nil, fmt.Errorf("%w: starting %s: %w", ErrBrowser, browserName(cfg), err)
	}
	v, err := chromedp.CallBrowser(bctx, browser.GetVersion, cdp.Empty{})
	if err != nil {
		return nil, fmt.Errorf("%w: starting %s: %w", ErrBrowser, browserName(cfg), err)
	}
	version := v.Product
	headers := network.Headers{}
	for k, v := range cfg.Header {
		headers[k] = strings.Join(v, ", ")
	}
	if _, err := chromedp.Call(bctx, network.Enable, network.EnableParams{}); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrBrowser, err)
	}
	if _, err := chromedp.Call(bctx, network.SetCacheDisabled, network.SetCacheDisabledParams{CacheDisabled: true}); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrBrowser, err)
	}
	if _, err := chromedp.Call(bctx, network.SetExtraHTTPHeaders, network.SetExtraHTTPHeadersParams{Headers: headers}); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrBrowser, err)
	}
	cpuBefore, err := processCPU(bctx)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrBrowser, err)
	}
	started := time.Now()
	var nav navTiming
	err = chromedp.Do(bctx, chromedp.Navigate(page.String()))
	if err == nil {
		nav, err = chromedp.Run(bctx, chromedp.Evaluate[navTiming](navTimingJS, chromedp.EvalAwaitPromise))
	}
	ld := log.load(cfg.Protocol, started, nav)
	ld.Engine, ld.Browser = EngineChromium, version
	if err == nil {
		cpuAfter, cerr := processCPU(bctx)
		if cerr != nil {
			return ld, fmt.Errorf("%w: %w", ErrBrowser, cerr)
		}
		ld.BrowserCPU = cpuSpent(cpuBefore, cpuAfter)
	}
	if isolated {
		ld.RTT = 0 // its connects end on loopback, at the relay
	}
	switch {
	case err != nil && ctx.Err() != nil:
		return ld, fmt.Errorf("page load in %s: %w", version, context.Cause(ctx))
	case err != nil:
		return ld, fmt.Errorf("%w: loading %s: %w", ErrBrowser, page.Redacted(), err)
	}
	return ld, log.check(cfg.Protocol)
}

// browserName is the browser a load starts, for errors.
func browserName(cfg Config) string {
	if cfg.Browser != "" {
		return cfg.Browser
	}
	return "chromium"
}

// navTiming is what the page's Navigation Timing entry and its largest
// contentful paint say, in ms from the navigation's start.
type navTiming struct {
	FetchStart       float64 `json:"fetchStart"`
	DOMContentLoaded float64 `json:"domContentLoaded"`
	Load             float64 `json:"load"`
	LCP              float64 `json:"lcp"`
}

// navTimingJS reads the navigation's timing once the load event has
// fired (chromedp.Navigate waits for it), and the largest contentful
// paint from the buffered entries of a PerformanceObserver, which come
// as a task after the first paint: it waits up to 500 ms for one (a page
// that paints nothing has none: 0).
const navTimingJS = `new Promise(resolve => {
  const n = performance.getEntriesByType('navigation')[0];
  let lcp = 0, waited = 0;
  try {
    new PerformanceObserver(l => { for (const e of l.getEntries()) lcp = Math.max(lcp, e.startTime); })
      .observe({type: 'largest-contentful-paint', buffered: true});
  } catch (e) {}
  const done = () => resolve({fetchStart: n.fetchStart, domContentLoaded: n.domContentLoadedEventStart,
    load: n.loadEventStart, lcp: lcp});
  const poll = () => { waited += 25; if (lcp > 0 || waited >= 500) done(); else setTimeout(poll, 25); };
  setTimeout(poll, 25);
})`

// processCPU is the CPU time each of the browser's processes has taken
// since it started, by process id, with its type.
func processCPU(ctx context.Context) (map[int64]processTime, error) {
	res, err := chromedp.CallBrowser(ctx, systeminfo.GetProcessInfo, cdp.Empty{})
	if err != nil {
		return nil, fmt.Errorf("reading the browser's CPU time: %w", err)
	}
	out := map[int64]processTime{}
	for _, p := range res.ProcessInfo {
		if p != nil {
			out[p.ID] = processTime{kind: processKind(p.Type), cpu: time.Duration(p.CPUTime * float64(time.Second))}
		}
	}
	return out, nil
}

// processTime is one browser process's type and CPU time.
type processTime struct {
	kind string
	cpu  time.Duration
}

// cpuSpent is the CPU time the browser's processes took between two
// readings, by process type; a process started in between counts whole.
func cpuSpent(before, after map[int64]processTime) map[string]time.Duration {
	out := map[string]time.Duration{}
	for id, p := range after {
		if d := p.cpu - before[id].cpu; d > 0 {
			out[p.kind] += d
		}
	}
	return out
}

// processKind names a Chromium process type short: browser, renderer,
// gpu, and a utility process by its service ("network.mojom.NetworkService"
// is network).
func processKind(t string) string {
	if service, _, ok := strings.Cut(t, ".mojom."); ok {
		return service
	}
	return strings.ToLower(t)
}

// profilePreferences turn off the browser's network prediction: without
// them Chromium opens a connection to the page's origin when the
// navigation starts, before any request asks for it, and a request that
// then takes it has no connect or TLS timing of its own, so the load
// would show its handshakes on none of its requests.
const profilePreferences = `{"net":{"network_prediction_options":2}}`

// newProfile makes a fresh browser profile in a private temporary
// directory, with profilePreferences. The caller removes it once the
// browser is gone.
func newProfile() (string, error) {
	dir, err := os.MkdirTemp("", "httpslab-chromium-")
	if err != nil {
		return "", fmt.Errorf("making the browser's profile: %w", err)
	}
	err = os.Mkdir(filepath.Join(dir, "Default"), 0o700)
	if err == nil {
		err = os.WriteFile(filepath.Join(dir, "Default", "Preferences"), []byte(profilePreferences), 0o600)
	}
	if err != nil {
		os.RemoveAll(dir)
		return "", fmt.Errorf("making the browser's profile: %w", err)
	}
	return dir, nil
}

// removeProfile removes a profile made by newProfile once its browser is
// gone, and with it the directory of the browser's process-singleton
// socket: Chromium makes that directory in the temporary directory
// (org.chromium.Chromium.XXXXXX; in the profile its path could pass the
// 107 bytes a socket's path may have) and links to the socket from the
// profile, and a browser that is killed leaves it behind, one per load.
func removeProfile(dir string) {
	if target, err := os.Readlink(filepath.Join(dir, "SingletonSocket")); err == nil {
		sock := filepath.Dir(target)
		if strings.HasPrefix(filepath.Base(sock), "org.chromium.") && filepath.Dir(sock) == filepath.Clean(os.TempDir()) {
			os.RemoveAll(sock)
		}
	}
	os.RemoveAll(dir)
}
