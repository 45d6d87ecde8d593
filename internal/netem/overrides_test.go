package netem

import (
	"testing"
	"time"
)

// TestBuild: overrides go on top of the profile, a bandwidth sets both
// directions unless an upload is given too, and bad values are refused.
func TestBuild(t *testing.T) {
	rtt, bw, up, loss := 100*time.Millisecond, "10mbit", "1mbit", "0.5%"
	c, err := Build("3g", Overrides{RTT: &rtt, Loss: &loss, Bandwidth: &bw})
	if err != nil || c.RTT != rtt || c.Loss != 0.005 || c.Bandwidth != 10_000_000 || c.Upload != 0 {
		t.Errorf("Build(3g, rtt 100ms, loss 0.5%%, 10mbit) = %+v, %v", c, err)
	}
	c, err = Build("", Overrides{Bandwidth: &bw, Upload: &up})
	if err != nil || c.Bandwidth != 10_000_000 || c.Upload != 1_000_000 {
		t.Errorf("Build(10mbit up 1mbit) = %+v, %v", c, err)
	}
	jitter := 2 * rtt
	for _, o := range []Overrides{{Loss: ptr("100%")}, {Loss: ptr("NaN")}, {Bandwidth: ptr("fast")}, {RTT: &rtt, Jitter: &jitter}} {
		if c, err := Build("", o); err == nil {
			t.Errorf("Build(%+v) = %+v; want an error", o, c)
		}
	}
	if _, err := Build("5g", Overrides{}); err == nil {
		t.Error("Build(5g) = nil error; want an unknown profile")
	}
}

func ptr(s string) *string { return &s }
