package cli

import (
	"errors"
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
	var o netem.Overrides
	changed := func(n string) bool { return f.fs != nil && f.fs.Changed(n) }
	for _, v := range []struct {
		flag string
		set  func()
	}{
		{"rtt", func() { o.RTT = &f.rtt }}, {"jitter", func() { o.Jitter = &f.jitter }}, {"loss", func() { o.Loss = &f.loss }},
		{"bandwidth", func() { o.Bandwidth = &f.bandwidth }}, {"upload-bandwidth", func() { o.Upload = &f.up }},
	} {
		if changed(v.flag) {
			v.set()
		}
	}
	c, err := netem.Build(f.profile, o)
	if _, ok := errors.AsType[netem.JitterError](err); ok {
		return netem.Config{}, withHint(usageError{err}, "the jitter varies the RTT around its value: give --rtt at least as large as --jitter")
	}
	if err != nil {
		return netem.Config{}, usageError{err}
	}
	return c, nil
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
	return helpLong("link") + "\n" + netem.ProfileTable()
}
