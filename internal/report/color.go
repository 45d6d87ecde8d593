package report

import (
	"io"
	"os"

	"github.com/httpslab/httpslab/internal/probe"
	"golang.org/x/sys/unix"
)

// ANSI SGR sequences used by the waterfall.
const (
	ansiReset = "\x1b[0m"
	ansiBold  = "\x1b[1m"
	ansiDim   = "\x1b[2m"
	ansiRed   = "\x1b[31m"
)

// phaseColors gives each phase its bar colour.
var phaseColors = map[string]string{
	probe.PhaseDNS:      "\x1b[36m", // cyan
	probe.PhaseConnect:  "\x1b[33m", // yellow
	probe.PhaseTLS:      "\x1b[35m", // magenta
	probe.PhaseSend:     "\x1b[32m", // green
	probe.PhaseWait:     "\x1b[34m", // blue
	probe.PhaseDownload: "\x1b[31m", // red
}

// ColorEnabled reports whether output to w should be coloured: w is a
// terminal and the NO_COLOR environment variable (https://no-color.org)
// is unset or empty. The command line calls it to fill
// WaterfallOptions.Color; the formatters themselves never look at the
// environment.
func ColorEnabled(w io.Writer) bool {
	if os.Getenv("NO_COLOR") != "" {
		return false
	}
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	_, err := unix.IoctlGetTermios(int(f.Fd()), unix.TCGETS)
	return err == nil
}

// painter wraps text in colour codes when colour is on.
type painter bool

func (p painter) paint(code, s string) string {
	if !p || code == "" || s == "" {
		return s
	}
	return code + s + ansiReset
}
