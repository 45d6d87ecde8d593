package transport

import (
	"encoding/json"
	"testing"
)

func TestProtocolSpellings(t *testing.T) {
	tests := []struct {
		p           Protocol
		token, name string
	}{
		{ProtoAuto, "auto", "auto"},
		{HTTP1, "http1.1", "HTTP/1.1"},
		{HTTP2, "http2", "HTTP/2"},
		{HTTP3, "http3", "HTTP/3"},
	}
	for _, tt := range tests {
		if tt.p.Token() != tt.token || tt.p.String() != tt.name {
			t.Errorf("Protocol %d: token %q, name %q; want %q, %q", int(tt.p), tt.p.Token(), tt.p.String(), tt.token, tt.name)
		}
		for _, s := range []string{tt.token, tt.name} {
			if got, err := ParseProtocol(s); err != nil || got != tt.p {
				t.Errorf("ParseProtocol(%q) = %v, %v; want %v", s, got, err, tt.p)
			}
		}
	}
	for _, s := range []string{"", "spdy", "HTTP/1.0", "h2"} {
		if p, err := ParseProtocol(s); err == nil {
			t.Errorf("ParseProtocol(%q) = %v; want an error", s, p)
		}
	}
	if s := Protocol(9).String(); s != "Protocol(9)" {
		t.Errorf("Protocol(9).String() = %q; want Protocol(9)", s)
	}
}

// TestProtocolJSON: JSON carries the token both ways; a value that is no
// protocol is refused rather than written as a number.
func TestProtocolJSON(t *testing.T) {
	b, err := json.Marshal(struct{ P Protocol }{HTTP2})
	if err != nil || string(b) != `{"P":"http2"}` {
		t.Fatalf("Marshal = %s, %v; want {\"P\":\"http2\"}", b, err)
	}
	var back struct{ P Protocol }
	if err := json.Unmarshal([]byte(`{"P":"HTTP/3"}`), &back); err != nil || back.P != HTTP3 {
		t.Errorf("Unmarshal HTTP/3 = %v, %v; want HTTP3", back.P, err)
	}
	if err := json.Unmarshal([]byte(`{"P":"gopher"}`), &back); err == nil {
		t.Errorf("Unmarshal gopher: no error")
	}
	if _, err := json.Marshal(Protocol(-1)); err == nil {
		t.Errorf("Marshal Protocol(-1): no error")
	}
}
