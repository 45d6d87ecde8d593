//go:build !race

// Helpers of the browser tests: Chromium driven over the DevTools
// protocol, the boxes of a report's figures read from its DOM, their
// axes, and colours sampled from screenshots.

package report_test

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/png"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/emulation"
	cdplog "github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	cdpruntime "github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// startBrowser starts headless Chromium for the test and returns its
// context; every tab opened from it ends with the test.
func startBrowser(t *testing.T) context.Context {
	t.Helper()
	bin, err := exec.LookPath("chromium")
	if err != nil {
		t.Fatal("chromium not installed: the tests need it (scripts/test.sh installs it)")
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(bin), chromedp.NoSandbox,
		chromedp.UserDataDir(t.TempDir()), chromedp.WindowSize(1000, 1000))
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelTime := context.WithTimeout(actx, 3*time.Minute)
	bctx, cancelBrowser := chromedp.NewContext(ctx)
	t.Cleanup(func() { cancelBrowser(); cancelTime(); cancelAlloc() })
	if err := chromedp.Do(bctx, chromedp.Navigate("about:blank")); err != nil {
		t.Fatalf("starting chromium: %v", err)
	}
	return bctx
}

// tab is one page opened in the browser, with what it logged and what
// it asked the network for, from the DevTools protocol's events.
type tab struct {
	ctx      context.Context
	mu       sync.Mutex
	messages []string // console calls, exceptions, log entries of level warning or error
	requests []string // every request's URL, the page's own included
}

// open loads file in a new tab, in the dark colour scheme when dark.
func open(t *testing.T, browser context.Context, file string, dark bool) *tab {
	t.Helper()
	ctx, cancel := chromedp.NewContext(browser)
	t.Cleanup(cancel)
	tb := &tab{ctx: ctx}
	err := chromedp.Listen(ctx, func(ev any) {
		tb.mu.Lock()
		defer tb.mu.Unlock()
		switch e := ev.(type) {
		case *network.EventRequestWillBeSent:
			tb.requests = append(tb.requests, e.Request.URL)
		case *cdplog.EventEntryAdded:
			if e.Entry.Level == cdplog.EntryLevelError || e.Entry.Level == cdplog.EntryLevelWarning {
				tb.messages = append(tb.messages, fmt.Sprintf("log %s: %s", e.Entry.Level, e.Entry.Text))
			}
		case *cdpruntime.EventConsoleAPICalled:
			tb.messages = append(tb.messages, "console."+string(e.Type))
		case *cdpruntime.EventExceptionThrown:
			tb.messages = append(tb.messages, "exception: "+e.ExceptionDetails.Text)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if dark {
		if _, err := chromedp.Call(ctx, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
			Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: "dark"}}}); err != nil {
			t.Fatal(err)
		}
	}
	if err := chromedp.Do(ctx, chromedp.Navigate("file://"+file)); err != nil {
		t.Fatalf("opening %s: %v", file, err)
	}
	// A round trip after the load: the events the load caused are in.
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[int](`1`)); err != nil {
		t.Fatal(err)
	}
	return tb
}

// checkQuiet checks that the page logged nothing and asked the network
// for nothing but itself.
func (tb *tab) checkQuiet(t *testing.T, name, file string) {
	t.Helper()
	tb.mu.Lock()
	defer tb.mu.Unlock()
	if len(tb.messages) > 0 {
		t.Errorf("%s: the console has %d messages:\n%s", name, len(tb.messages), strings.Join(tb.messages, "\n"))
	}
	for _, u := range tb.requests {
		if u != "file://"+file {
			t.Errorf("%s: the page asked for %s", name, u)
		}
	}
}

// box is an element's box in CSS pixels, relative to its figure.
type box struct{ X, Y, W, H float64 }

func (b box) cx() float64 { return b.X + b.W/2 }
func (b box) cy() float64 { return b.Y + b.H/2 }

// figure is what the browser laid out of one chart.
type figure struct {
	ID, Title string
	W, H      float64
	XTicks    []struct {
		Box  box
		Text string
	} // the horizontal axis's labels
	YTicks []struct {
		Box  box
		Text string
	} // the vertical axis's labels
	Lanes []struct {
		Box  box
		Text string
	}
	Rects []struct {
		Box        box
		Class, Tip string
		Fill       string // computed, "rgb(r, g, b)"
	}
	Paths []struct {
		Class string
		Pts   [][2]float64 // each point in CSS pixels, relative to the figure
	}
}

// layoutJS reads every figure's boxes from the DOM.
const layoutJS = `[...document.querySelectorAll('figure')].map(f => {
  const fb = f.getBoundingClientRect();
  const box = e => { const r = e.getBoundingClientRect(); return {X: r.left - fb.left, Y: r.top - fb.top, W: r.width, H: r.height}; };
  const texts = sel => [...f.querySelectorAll(sel)].map(e => ({Box: box(e), Text: e.textContent}));
  return {ID: f.id, Title: f.querySelector('figcaption').firstChild.textContent.trim(), W: fb.width, H: fb.height,
    XTicks: texts('text.tick[text-anchor=middle]'), YTicks: texts('text.tick[text-anchor=end]'), Lanes: texts('text.lane'),
    Rects: [...f.querySelectorAll('svg rect')].map(r => ({Box: box(r), Class: r.getAttribute('class'),
      Tip: (r.querySelector('title') || {textContent: ''}).textContent, Fill: getComputedStyle(r).fill})),
    Paths: [...f.querySelectorAll('svg polyline')].map(p => { const m = p.getScreenCTM();
      return {Class: p.getAttribute('class'), Pts: [...p.points].map(pt => { const q = pt.matrixTransform(m); return [q.x - fb.left, q.y - fb.top]; })}; })};
})`

// layout returns the tab's figures by section and title: "s2/Waterfall"
// is the waterfall of the report's third section.
func (tb *tab) layout(t *testing.T) map[string]figure {
	t.Helper()
	figs, err := chromedp.Run(tb.ctx, chromedp.Evaluate[[]figure](layoutJS))
	if err != nil {
		t.Fatal(err)
	}
	m := map[string]figure{}
	for _, f := range figs {
		sec, _, _ := strings.Cut(f.ID, "c")
		m[sec+"/"+f.Title] = f
	}
	return m
}

// axis is a linear axis read from its labels: pixel = at + per*value.
type axis struct{ at, per float64 }

// xAxis reads a figure's horizontal value axis from its first and last
// numeric labels.
func (f figure) xAxis(t *testing.T) axis {
	t.Helper()
	var xs, vs []float64
	for _, tk := range f.XTicks {
		if v, err := strconv.ParseFloat(tk.Text, 64); err == nil {
			xs, vs = append(xs, tk.Box.cx()), append(vs, v)
		}
	}
	if len(xs) < 2 {
		t.Fatalf("%s: %d numeric axis labels; want 2 or more", f.Title, len(xs))
	}
	n := len(xs) - 1
	per := (xs[n] - xs[0]) / (vs[n] - vs[0])
	return axis{at: xs[0] - per*vs[0], per: per}
}

// yAxis reads the vertical axis the same way (its labels sit 4 units
// below their value).
func (f figure) yAxis(t *testing.T) axis {
	t.Helper()
	var ys, vs []float64
	for _, tk := range f.YTicks {
		if v, err := strconv.ParseFloat(tk.Text, 64); err == nil {
			ys, vs = append(ys, tk.Box.cy()), append(vs, v)
		}
	}
	if len(ys) < 2 {
		t.Fatalf("%s: %d numeric axis labels; want 2 or more", f.Title, len(ys))
	}
	n := len(ys) - 1
	per := (ys[n] - ys[0]) / (vs[n] - vs[0])
	return axis{at: ys[0] - per*vs[0], per: per}
}

func (a axis) px(v float64) float64 { return a.at + a.per*v }

// shot is a figure's screenshot, to sample colours in.
type shot struct {
	img   image.Image
	scale float64 // image pixels per CSS pixel
}

func (tb *tab) screenshot(t *testing.T, f figure) shot {
	t.Helper()
	buf, err := chromedp.Run(tb.ctx, chromedp.Screenshot(chromedp.ID(f.ID)))
	if err != nil {
		t.Fatalf("screenshot of %s: %v", f.Title, err)
	}
	img, err := png.Decode(bytes.NewReader(buf))
	if err != nil {
		t.Fatal(err)
	}
	return shot{img: img, scale: float64(img.Bounds().Dx()) / f.W}
}

// at returns the colour at a point of the figure as "rgb(r, g, b)".
func (s shot) at(x, y float64) string {
	r, g, b, _ := s.img.At(int(x*s.scale), int(y*s.scale)).RGBA()
	return fmt.Sprintf("rgb(%d, %d, %d)", r>>8, g>>8, b>>8)
}

// sameColour tells two "rgb(r, g, b)" colours apart by 3 per channel.
func sameColour(a, b string) bool {
	var r1, g1, b1, r2, g2, b2 int
	if _, err := fmt.Sscanf(a, "rgb(%d, %d, %d)", &r1, &g1, &b1); err != nil {
		return false
	}
	if _, err := fmt.Sscanf(b, "rgb(%d, %d, %d)", &r2, &g2, &b2); err != nil {
		return false
	}
	d := func(x, y int) bool { return x-y <= 3 && y-x <= 3 }
	return d(r1, r2) && d(g1, g2) && d(b1, b2)
}

// Colours the CSS gives the phases and the first series, in the light
// and the dark scheme (Okabe and Ito's palette).
var (
	phaseRGB = map[string]string{"ph-dns": "rgb(0, 158, 115)", "ph-connect": "rgb(230, 159, 0)", "ph-tls": "rgb(204, 121, 167)",
		"ph-send": "rgb(86, 180, 233)", "ph-wait": "rgb(0, 114, 178)", "ph-download": "rgb(213, 94, 0)", "ph-queued": "rgb(187, 187, 187)"}
	s0RGB = map[bool]string{false: "rgb(0, 114, 178)", true: "rgb(86, 180, 233)"}
	bgRGB = map[bool]string{false: "rgb(255, 255, 255)", true: "rgb(22, 22, 22)"}
)

// checkColours samples every rectangle of at least 3 by 3 pixels at its
// centre: the pixel must have the colour the browser computed for it,
// and that colour the one its class stands for (want, by class).
func checkColours(t *testing.T, tb *tab, f figure, want func(class string) string) int {
	t.Helper()
	s := tb.screenshot(t, f)
	n := 0
	for _, r := range f.Rects {
		if r.Box.W < 3 || r.Box.H < 3 {
			continue
		}
		n++
		got := s.at(r.Box.cx(), r.Box.cy())
		if w := want(r.Class); !sameColour(got, r.Fill) || w != "" && !sameColour(r.Fill, w) {
			t.Errorf("%s: the %s bar at (%.0f, %.0f) is %s on screen, %s in its style; want %s", f.Title, r.Class, r.Box.cx(), r.Box.cy(), got, r.Fill, w)
		}
	}
	return n
}
