package transport

import "testing"

func TestCurlProtocol(t *testing.T) {
	for _, tt := range []struct {
		h1, h2, h3 bool
		want       Protocol
		ok         bool
	}{
		{false, false, false, ProtoAuto, true}, {true, false, false, HTTP1, true}, {false, true, false, HTTP2, true},
		{false, false, true, HTTP3, true}, {true, true, false, ProtoAuto, false}, {false, true, true, ProtoAuto, false},
	} {
		got, err := CurlProtocol(tt.h1, tt.h2, tt.h3)
		if got != tt.want || (err == nil) != tt.ok {
			t.Errorf("CurlProtocol(%v, %v, %v) = %v, %v; want %v, ok %v", tt.h1, tt.h2, tt.h3, got, err, tt.want, tt.ok)
		}
	}
}

func TestCurlRoutes(t *testing.T) {
	r, err := CurlRoutes{Resolve: []string{"a.test:443:127.0.0.1"}, IPv6: true}.Routes()
	if err != nil || r.IPVersion != 6 || len(r.Resolve) != 1 {
		t.Errorf("Routes(--resolve a.test:443:127.0.0.1 -6) = %+v, %v; want one entry, IP version 6", r, err)
	}
	if _, err := (CurlRoutes{IPv4: true, IPv6: true}).Routes(); err == nil {
		t.Error("Routes(-4 -6) gave no error")
	}
}
