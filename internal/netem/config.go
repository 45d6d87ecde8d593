package netem

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// Config describes the emulated link. The zero value is a link without
// added delay, loss or rate limit.
type Config struct {
	// RTT is the added round-trip time; each direction delays packets by RTT/2.
	RTT time.Duration
	// Jitter varies the round-trip time by up to ±Jitter: each direction adds
	// a uniform random delay in [-Jitter/2, +Jitter/2]. Packets keep their
	// order unless Reorder is set.
	Jitter time.Duration
	// Loss is the probability (0..1) that a packet is dropped, independently
	// per packet and direction.
	Loss float64
	// Bandwidth is the link rate in bits per second towards the client
	// (download), and towards the server too unless Upload is set;
	// 0 means unlimited.
	Bandwidth int64
	// Upload is the link rate in bits per second towards the server;
	// 0 means the same as Bandwidth.
	Upload int64
	// Queue is how many bytes may wait for the rate limit in each direction
	// before packets are dropped at the tail; 0 means one bandwidth-delay
	// product, at least 64 KiB.
	Queue int64
	// Reorder lets jitter reorder packets, as a real path with several
	// routes can; by default a packet never overtakes an earlier one.
	Reorder bool
}

// JitterError is Validate's error for a jitter above the RTT.
type JitterError struct{ Jitter, RTT time.Duration }

func (e JitterError) Error() string {
	return fmt.Sprintf("link jitter %v is above the RTT %v", e.Jitter, e.RTT)
}

// Validate reports a setting outside its range.
func (c Config) Validate() error {
	switch {
	case c.RTT < 0:
		return fmt.Errorf("link RTT %v is negative", c.RTT)
	case c.RTT > time.Minute:
		return fmt.Errorf("link RTT %v is above one minute", c.RTT)
	case c.Jitter < 0:
		return fmt.Errorf("link jitter %v is negative", c.Jitter)
	case c.Jitter > c.RTT:
		return JitterError{c.Jitter, c.RTT}
	case c.Loss < 0 || c.Loss >= 1 || math.IsNaN(c.Loss):
		return fmt.Errorf("link loss %v is outside 0 to 1 (exclusive)", c.Loss)
	case c.Bandwidth < 0 || c.Upload < 0:
		return fmt.Errorf("link bandwidth is negative")
	case (c.Bandwidth > 0 && c.Bandwidth < 8000) || (c.Upload > 0 && c.Upload < 8000):
		return fmt.Errorf("link bandwidth below 8 kbit/s")
	case c.Queue < 0:
		return fmt.Errorf("link queue %d is negative", c.Queue)
	}
	return nil
}

// String describes the link the way the flags spell it, e.g.
// "rtt 50ms, jitter 5ms, loss 1%, bandwidth 10mbit".
func (c Config) String() string {
	parts := []string{"rtt " + c.RTT.String()}
	if c.Jitter > 0 {
		parts = append(parts, "jitter "+c.Jitter.String())
	}
	if c.Loss > 0 {
		parts = append(parts, "loss "+strconv.FormatFloat(c.Loss*100, 'g', 4, 64)+"%")
	}
	if c.Bandwidth > 0 {
		parts = append(parts, "bandwidth "+FormatBandwidth(c.Bandwidth))
	}
	if c.Upload > 0 && c.Upload != c.Bandwidth {
		parts = append(parts, "upload "+FormatBandwidth(c.Upload))
	}
	return strings.Join(parts, ", ")
}

// upload is the rate towards the server.
func (c Config) upload() int64 {
	if c.Upload > 0 {
		return c.Upload
	}
	return c.Bandwidth
}

// Profiles are the named link presets. The mobile and fixed-line numbers
// are WebPageTest's connectivity profiles (www/settings/connectivity.ini.sample
// in the WPO-Foundation/webpagetest repository); the satellite one is a
// geostationary link: 4 x 35,786 km at the speed of light is 477 ms of
// propagation alone, about 600 ms with the ground segment, at the 25/3
// Mbit/s that geostationary consumer plans offer.
var Profiles = map[string]Config{
	"3g":        {RTT: 300 * time.Millisecond, Bandwidth: 1_600_000, Upload: 768_000},
	"4g":        {RTT: 170 * time.Millisecond, Bandwidth: 9_000_000, Upload: 9_000_000},
	"lte":       {RTT: 70 * time.Millisecond, Bandwidth: 12_000_000, Upload: 12_000_000},
	"fibre":     {RTT: 4 * time.Millisecond, Bandwidth: 20_000_000, Upload: 5_000_000},
	"satellite": {RTT: 600 * time.Millisecond, Bandwidth: 25_000_000, Upload: 3_000_000},
}

// ProfileNames lists the profile names in a stable order for help texts.
var ProfileNames = []string{"3g", "4g", "lte", "fibre", "satellite"}

// Profile returns the named preset ("3g", "4g", "lte", "fibre", "satellite").
func Profile(name string) (Config, error) {
	n := strings.ToLower(strings.TrimSpace(name))
	if n == "fiber" {
		n = "fibre"
	}
	c, ok := Profiles[n]
	if !ok {
		return Config{}, fmt.Errorf("unknown link profile %q (want %s)", name, strings.Join(ProfileNames, ", "))
	}
	return c, nil
}

// bandwidthUnits maps unit spellings (lower case) to bits per second.
// "bit" and "bps" mean bits, as in tc; "Bps" (bytes) is handled apart.
var bandwidthUnits = []struct {
	suffix string
	bits   float64
}{
	{"gbit", 1e9}, {"gbps", 1e9}, {"gb/s", 1e9}, {"g", 1e9},
	{"mbit", 1e6}, {"mbps", 1e6}, {"mb/s", 1e6}, {"m", 1e6},
	{"kbit", 1e3}, {"kbps", 1e3}, {"kb/s", 1e3}, {"k", 1e3},
	{"bit", 1}, {"bps", 1}, {"b/s", 1},
}

// ParseBandwidth reads a link rate such as "10mbit", "1.5Mbps", "500kbit"
// or "2gbit" and returns bits per second. Units are decimal (k = 1000) and
// count bits, as tc and WebPageTest do; "MB/s" (capital B) counts bytes.
// A bare number is bits per second; "0" means unlimited.
func ParseBandwidth(s string) (int64, error) {
	t := strings.TrimSpace(s)
	if t == "" {
		return 0, fmt.Errorf("empty bandwidth")
	}
	mult, num := 1.0, t
	lower := strings.ToLower(t)
	for _, u := range bandwidthUnits {
		if strings.HasSuffix(lower, u.suffix) {
			unit := t[len(t)-len(u.suffix):]
			mult, num = u.bits, strings.TrimSpace(t[:len(t)-len(u.suffix)])
			if strings.Contains(unit, "B") && !strings.Contains(strings.ToLower(unit), "bit") {
				mult *= 8 // a capital B counts bytes: "MB/s", "MBps"
			}
			break
		}
	}
	v, err := strconv.ParseFloat(num, 64)
	if err != nil || v < 0 || math.IsInf(v, 0) || math.IsNaN(v) {
		return 0, fmt.Errorf("bandwidth %q: want a rate like 10mbit, 1.5Mbps or 500kbit", s)
	}
	bits := v * mult
	if bits > 1e12 {
		return 0, fmt.Errorf("bandwidth %q is above 1 Tbit/s", s)
	}
	return int64(math.Round(bits)), nil
}

// FormatBandwidth prints bits per second with the largest whole unit, as
// ParseBandwidth reads it back: 1600000 becomes "1.6mbit".
func FormatBandwidth(bps int64) string {
	switch {
	case bps <= 0:
		return "unlimited"
	case bps >= 1e9:
		return strconv.FormatFloat(float64(bps)/1e9, 'f', -1, 64) + "gbit"
	case bps >= 1e6:
		return strconv.FormatFloat(float64(bps)/1e6, 'f', -1, 64) + "mbit"
	case bps >= 1e3:
		return strconv.FormatFloat(float64(bps)/1e3, 'f', -1, 64) + "kbit"
	}
	return strconv.FormatInt(bps, 10) + "bit"
}
