package machine

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"
)

// Clock sources a ClockOffset names.
const (
	ClockChrony = "chronyc" // chronyd's estimate, read from `chronyc tracking`
	ClockNone   = "none"    // no estimate: no chronyd, or not synchronised
)

// chronyTimeout bounds `chronyc tracking`: a chronyc that finds no
// chronyd retries for seconds, and a run waits for no clock.
const chronyTimeout = time.Second

// maxChronyOutput bounds what is read of chronyc's output (a dozen lines).
const maxChronyOutput = 64 << 10

// ClockOffset returns how far this machine's system clock is ahead of
// true time (negative: behind), as chronyd estimates it, and the source
// of the estimate: ClockChrony, or ClockNone with ok false where chronyc
// is not installed, chronyd does not answer within a second, or the
// clock is not synchronised.
func ClockOffset(ctx context.Context) (offset time.Duration, source string, ok bool) {
	path, err := exec.LookPath("chronyc")
	if err != nil {
		return 0, ClockNone, false
	}
	ctx, cancel := context.WithTimeout(ctx, chronyTimeout)
	defer cancel()
	var out limitedBuffer
	cmd := exec.CommandContext(ctx, path, "tracking")
	cmd.Stdout, cmd.WaitDelay = &out, chronyTimeout
	if cmd.Run() != nil {
		return 0, ClockNone, false
	}
	if offset, ok = parseChronyTracking(out.String()); !ok {
		return 0, ClockNone, false
	}
	return offset, ClockChrony, true
}

// parseChronyTracking reads the offset from `chronyc tracking`'s
// output, from its line "System time : 0.000012345 seconds fast of NTP
// time" ("slow" for a clock behind); ok is false without that line, or
// when the leap status says the clock is not synchronised.
func parseChronyTracking(text string) (time.Duration, bool) {
	var offset time.Duration
	found := false
	for line := range strings.Lines(text) {
		key, value, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		fields := strings.Fields(value)
		switch strings.TrimSpace(key) {
		case "Leap status":
			if strings.Contains(strings.ToLower(value), "not synchronised") {
				return 0, false
			}
		case "System time":
			if len(fields) < 3 || fields[1] != "seconds" || fields[2] != "fast" && fields[2] != "slow" {
				return 0, false
			}
			s, err := strconv.ParseFloat(fields[0], 64)
			if err != nil || s < 0 || s > 1e6 {
				return 0, false
			}
			offset = time.Duration(s * float64(time.Second))
			if fields[2] == "slow" {
				offset = -offset
			}
			found = true
		}
	}
	return offset, found
}

// Hostname returns the machine's host name (a pod's name on
// Kubernetes), or "" when the kernel does not say.
func Hostname() string {
	name, err := os.Hostname()
	if err != nil {
		return ""
	}
	return name
}

// limitedBuffer keeps the first maxChronyOutput bytes written to it and
// drops the rest.
type limitedBuffer struct{ bytes.Buffer }

func (b *limitedBuffer) Write(p []byte) (int, error) {
	if room := maxChronyOutput - b.Len(); room > 0 {
		b.Buffer.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}
