package cli

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/httpslab/httpslab/internal/netem"
	"github.com/spf13/pflag"
)

// linkFlags are the emulated-link flags shared by serve, lab, demo and
// compare: --rtt, --jitter, --loss, --bandwidth, --upload-bandwidth and
// --profile. Flags given explicitly override the profile's values.
type linkFlags struct {
	rtt, jitter   time.Duration
	loss          string
	bandwidth, up string
	profile       string
	fs            *pflag.FlagSet
}

// linkFlagNames are the flag names add registers.
var linkFlagNames = []string{"rtt", "jitter", "loss", "bandwidth", "upload-bandwidth", "profile"}

// add registers the link flags on fs.
func (f *linkFlags) add(fs *pflag.FlagSet) {
	f.fs = fs
	fs.DurationVar(&f.rtt, "rtt", 0, "emulated round-trip time, e.g. 50ms (needs root: builds a network lab)")
	fs.DurationVar(&f.jitter, "jitter", 0, "vary the RTT by up to ± this, without reordering packets")
	fs.StringVar(&f.loss, "loss", "", "random packet loss per direction in percent, e.g. 1% or 0.5")
	fs.StringVar(&f.bandwidth, "bandwidth", "", "link rate, e.g. 10mbit, 1.5Mbps, 500kbit (both ways unless --upload-bandwidth)")
	fs.StringVar(&f.up, "upload-bandwidth", "", "link rate towards the server, if it differs from --bandwidth")
	fs.StringVar(&f.profile, "profile", "", "link preset: "+strings.Join(netem.ProfileNames, ", ")+" (see --help)")
}

// set reports whether any link flag was given, that is whether the
// command should run behind an emulated link.
func (f *linkFlags) set() bool {
	for _, n := range linkFlagNames {
		if f.fs != nil && f.fs.Changed(n) {
			return true
		}
	}
	return false
}

// config turns the flags into a netem.Config: the profile first, then the
// flags given explicitly on top.
func (f *linkFlags) config() (netem.Config, error) {
	var c netem.Config
	var err error
	if f.profile != "" {
		if c, err = netem.Profile(f.profile); err != nil {
			return netem.Config{}, usageError{err}
		}
	}
	changed := func(n string) bool { return f.fs != nil && f.fs.Changed(n) }
	if changed("rtt") {
		c.RTT = f.rtt
	}
	if changed("jitter") {
		c.Jitter = f.jitter
	}
	if changed("loss") {
		if c.Loss, err = parseLoss(f.loss); err != nil {
			return netem.Config{}, err
		}
	}
	if changed("bandwidth") {
		if c.Bandwidth, err = netem.ParseBandwidth(f.bandwidth); err != nil {
			return netem.Config{}, usageError{err}
		}
		c.Upload = 0
	}
	if changed("upload-bandwidth") {
		if c.Upload, err = netem.ParseBandwidth(f.up); err != nil {
			return netem.Config{}, usageError{err}
		}
	}
	if err := c.Validate(); err != nil {
		if _, ok := errors.AsType[netem.JitterError](err); ok {
			return netem.Config{}, withHint(usageError{err}, "the jitter varies the RTT around its value: give --rtt at least as large as --jitter")
		}
		return netem.Config{}, usageError{err}
	}
	return c, nil
}

// parseLoss reads a loss rate in percent ("1%", "0.5", "0.5%") as a fraction.
func parseLoss(s string) (float64, error) {
	v, err := parsePercent(s)
	if err != nil || !(v >= 0 && v < 1) { // NaN fails both
		return 0, usagef("loss %q: want a percentage from 0 to below 100, e.g. 1%% or 0.5", s)
	}
	return v, nil
}

// linkFlagList lists the link flags for a message: "--rtt, --jitter, ...
// or --profile".
func linkFlagList() string {
	names := make([]string, len(linkFlagNames))
	for i, n := range linkFlagNames {
		names[i] = "--" + n
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// linkHelp explains the link flags and lists the profiles with their
// numbers and source, for the Long help of the commands that take them.
func linkHelp() string {
	var b strings.Builder
	b.WriteString(`Emulated network (--rtt, --jitter, --loss, --bandwidth, --profile):
the server side runs in a private network namespace joined to this host by
a link that delays, drops and rate-limits every packet in user space, so
round-trip effects show on one machine. It needs root. The server gets an
address from 198.18.0.0/15; everything is removed on exit.
Profiles (download/upload, RTT; flags given explicitly override them):
`)
	for _, n := range netem.ProfileNames {
		c := netem.Profiles[n]
		fmt.Fprintf(&b, "  %-10s %s/%s, RTT %v\n", n, netem.FormatBandwidth(c.Bandwidth), netem.FormatBandwidth(c.Upload), c.RTT)
	}
	b.WriteString(`3g, 4g, lte and fibre (WebPageTest's "FIOS") are WebPageTest's connectivity
profiles; satellite is a geostationary link (477 ms of propagation alone, about
600 ms in service) at the 25/3 Mbit/s of consumer plans.`)
	return b.String()
}
