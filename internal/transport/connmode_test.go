package transport

import (
	"encoding/json"
	"testing"
)

func TestConnModeNames(t *testing.T) {
	tests := []struct {
		m     ConnMode
		name  string
		other []string
	}{
		{KeepAlive, "keepalive", []string{"keep-alive", "reuse", "KeepAlive"}},
		{Fresh, "new", []string{"fresh"}},
		{Resumed, "resume", []string{"resumed"}},
		{ZeroRTT, "0-rtt", []string{"0rtt", "0-RTT"}},
	}
	for _, tt := range tests {
		if got := tt.m.String(); got != tt.name {
			t.Errorf("ConnMode(%d).String() = %q; want %q", int(tt.m), got, tt.name)
		}
		for _, s := range append([]string{tt.name}, tt.other...) {
			if got, err := ParseConnMode(s); err != nil || got != tt.m {
				t.Errorf("ParseConnMode(%q) = %v, %v; want %v", s, got, err, tt.m)
			}
		}
	}
	for _, s := range []string{"", "sometimes", "1-rtt"} {
		if m, err := ParseConnMode(s); err == nil {
			t.Errorf("ParseConnMode(%q) = %v; want an error", s, m)
		}
	}
	if s := ConnMode(7).String(); s != "ConnMode(7)" {
		t.Errorf("ConnMode(7).String() = %q; want ConnMode(7)", s)
	}
}

func TestConnModeJSON(t *testing.T) {
	b, err := json.Marshal([]ConnMode{Fresh, ZeroRTT})
	if err != nil || string(b) != `["new","0-rtt"]` {
		t.Fatalf("Marshal = %s, %v; want [\"new\",\"0-rtt\"]", b, err)
	}
	var back []ConnMode
	if err := json.Unmarshal([]byte(`["resume","reuse"]`), &back); err != nil || len(back) != 2 || back[0] != Resumed || back[1] != KeepAlive {
		t.Errorf("Unmarshal = %v, %v; want [resume keepalive]", back, err)
	}
	if _, err := json.Marshal(ConnMode(-1)); err == nil {
		t.Errorf("Marshal ConnMode(-1): no error")
	}
}
