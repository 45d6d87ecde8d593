package netem

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Overrides are link settings given one by one on top of a profile, as
// the link flags give them: a nil field keeps the profile's value.
// Bandwidth sets both directions unless Upload is given too.
type Overrides struct {
	RTT, Jitter             *time.Duration
	Loss, Bandwidth, Upload *string
}

// Build returns the named profile ("" for none: a link with no delay)
// with the overrides on top, validated.
func Build(profile string, o Overrides) (Config, error) {
	var c Config
	var err error
	if profile != "" {
		if c, err = Profile(profile); err != nil {
			return Config{}, err
		}
	}
	if o.RTT != nil {
		c.RTT = *o.RTT
	}
	if o.Jitter != nil {
		c.Jitter = *o.Jitter
	}
	if o.Loss != nil {
		if c.Loss, err = ParseLoss(*o.Loss); err != nil {
			return Config{}, err
		}
	}
	if o.Bandwidth != nil {
		if c.Bandwidth, err = ParseBandwidth(*o.Bandwidth); err != nil {
			return Config{}, err
		}
		c.Upload = 0
	}
	if o.Upload != nil {
		if c.Upload, err = ParseBandwidth(*o.Upload); err != nil {
			return Config{}, err
		}
	}
	return c, c.Validate()
}

// ParseLoss reads a loss rate in percent ("1%", "0.5", "0.5%") as a
// fraction, from 0 to below 1.
func ParseLoss(s string) (float64, error) {
	v, err := strconv.ParseFloat(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(s), "%")), 64)
	if err != nil || !(v >= 0 && v < 100) { // NaN fails both
		return 0, fmt.Errorf("loss %q: want a percentage from 0 to below 100, e.g. 1%% or 0.5", s)
	}
	return v / 100, nil
}

// ProfileTable lists the profiles with their numbers and source, one per
// line, for help texts.
func ProfileTable() string {
	var b strings.Builder
	for _, n := range ProfileNames {
		c := Profiles[n]
		fmt.Fprintf(&b, "  %-10s %s/%s, RTT %v\n", n, FormatBandwidth(c.Bandwidth), FormatBandwidth(c.Upload), c.RTT)
	}
	b.WriteString(`3g, 4g, lte and fibre (WebPageTest's "FIOS") are WebPageTest's connectivity
profiles; satellite is a geostationary link (477 ms of propagation alone, about
600 ms in service) at the 25/3 Mbit/s of consumer plans.`)
	return b.String()
}
