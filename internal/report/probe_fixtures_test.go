package report

import (
	"time"

	"github.com/httpslab/httpslab/internal/probe"
	"github.com/httpslab/httpslab/internal/transport"
)

// t0 is the wall-clock start of the fixtures.
var t0 = time.Date(2026, 11, 22, 0, 0, 0, 0, time.UTC)

// at is an offset from t0 in microseconds.
func at(us int) time.Time { return t0.Add(time.Duration(us) * time.Microsecond) }

// timeline finishes a hand-built Timeline: its phases come from its
// events through probe's own derivation, its total from the body's end.
func timeline(tl probe.Timeline) probe.Timeline {
	tl.Phases = tl.Events.Phases()
	tl.Started = tl.Events.Start
	if !tl.Events.BodyDone.IsZero() {
		tl.Total = tl.Events.BodyDone.Sub(tl.Events.Start)
	}
	return tl
}

// leafChain is a two-certificate ECDSA chain.
func leafChain() []transport.Cert {
	return []transport.Cert{
		{Subject: "CN=127.0.0.1", Issuer: "CN=httpslab CA", KeyType: "ECDSA P-256", KeyBits: 256, SigAlg: "ECDSA-SHA256",
			NotAfter: t0.Add(40 * 24 * time.Hour), Bytes: 512},
		{Subject: "CN=httpslab CA", Issuer: "CN=httpslab CA", KeyType: "ECDSA P-256", KeyBits: 256, SigAlg: "ECDSA-SHA256",
			NotAfter: t0.Add(3650 * 24 * time.Hour), Bytes: 420, SelfSigned: true},
	}
}

// h2Fresh is an HTTPS request over HTTP/2 on a new connection: DNS
// 100 µs, connect 1 ms, TLS 1.3 1 ms, 1 ms RTT.
func h2Fresh() probe.Timeline {
	return timeline(probe.Timeline{
		URL: "https://localhost:8443/bytes/1000?x=1", Method: "GET", Proto: "HTTP/2.0", Status: 200,
		Events: probe.Events{
			Start: at(0), DNSStart: at(10), DNSDone: at(110),
			ConnectStart: at(120), ConnectDone: at(1120),
			TLSStart: at(1130), TLSDone: at(2140),
			GotConn: at(2150), WroteRequest: at(2200), FirstByte: at(3500), BodyDone: at(3700),
		},
		RemoteAddr: "127.0.0.1:8443", LocalAddr: "127.0.0.1:50000",
		TLS: &probe.TLS{
			Version: "TLS 1.3", VersionID: 0x0304, CipherSuite: "TLS_AES_128_GCM_SHA256",
			Group: "X25519MLKEM768", PostQuantum: true, ALPN: "h2", ServerName: "localhost",
			Chain: leafChain(), ChainBytes: 932, Verified: true,
		},
		Bytes: probe.Bytes{HandshakeWritten: 1400, HandshakeRead: 2300, RequestWritten: 120,
			ResponseRead: 1150, HeaderSize: 90, BodySize: 1000},
		RTT:           probe.RTT{Kernel: time.Millisecond, KernelVar: 250 * time.Microsecond, Connect: time.Millisecond},
		RequestHeader: map[string][]string{"User-Agent": {"httpslab"}, "Accept": {"*/*"}},
		Header: map[string][]string{
			"Content-Type":   {"application/octet-stream"},
			"Content-Length": {"1000"},
			"Set-Cookie":     {"session=abc; Path=/; HttpOnly; Secure"},
		},
	})
}

// redirectHops is http://localhost:8080/redirect/1 → 301 (HTTP/1.1,
// new connection) followed to an HTTPS/HTTP/1.1 200 on a new connection
// that starts 2 ms after the first.
func redirectHops() []probe.Timeline {
	hop1 := timeline(probe.Timeline{
		URL: "http://localhost:8080/redirect/1", Method: "GET", Proto: "HTTP/1.1", Status: 301,
		Events: probe.Events{
			Start: at(0), DNSStart: at(5), DNSDone: at(50),
			ConnectStart: at(60), ConnectDone: at(560),
			GotConn: at(570), WroteRequest: at(600), FirstByte: at(1600), BodyDone: at(1650),
		},
		RemoteAddr: "127.0.0.1:8080", LocalAddr: "127.0.0.1:40000",
		Bytes:         probe.Bytes{RequestWritten: 80, ResponseRead: 180, HeaderSize: 150, BodySize: 30},
		RTT:           probe.RTT{Connect: 500 * time.Microsecond},
		RequestHeader: map[string][]string{"User-Agent": {"httpslab"}},
		Header:        map[string][]string{"Location": {"https://localhost:8443/final"}, "Content-Type": {"text/html"}},
	})
	start := 2000
	hop2 := timeline(probe.Timeline{
		URL: "https://localhost:8443/final", Method: "GET", Proto: "HTTP/1.1", Status: 200,
		Events: probe.Events{
			Start: at(start), DNSStart: at(start + 5), DNSDone: at(start + 40),
			ConnectStart: at(start + 50), ConnectDone: at(start + 550),
			TLSStart: at(start + 560), TLSDone: at(start + 2560),
			GotConn: at(start + 2570), WroteRequest: at(start + 2600), FirstByte: at(start + 3100), BodyDone: at(start + 3200),
		},
		RemoteAddr: "127.0.0.1:8443", LocalAddr: "127.0.0.1:40001",
		TLS: &probe.TLS{Version: "TLS 1.2", VersionID: 0x0303, CipherSuite: "TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256",
			Group: "x25519", ALPN: "http/1.1", Chain: leafChain()[:1], ChainBytes: 512, Verified: true},
		Bytes:         probe.Bytes{HandshakeWritten: 300, HandshakeRead: 1500, RequestWritten: 110, ResponseRead: 260, HeaderSize: 120, BodySize: 100},
		RTT:           probe.RTT{Kernel: 480 * time.Microsecond, Connect: 500 * time.Microsecond},
		RequestHeader: map[string][]string{"User-Agent": {"httpslab"}},
		Header:        map[string][]string{"Content-Type": {"text/plain"}},
	})
	return []probe.Timeline{hop1, hop2}
}

// h3 is an HTTP/3 request: no TCP connect, the QUIC handshake is the TLS
// phase; the address was given as an IP (no DNS).
func h3() probe.Timeline {
	return timeline(probe.Timeline{
		URL: "https://127.0.0.1:8443/", Method: "GET", Proto: "HTTP/3.0", Status: 200,
		Events: probe.Events{
			Start: at(0), TLSStart: at(20), TLSDone: at(1020),
			GotConn: at(1030), WroteRequest: at(1040), FirstByte: at(2040), BodyDone: at(2100),
		},
		RemoteAddr: "127.0.0.1:8443", LocalAddr: "127.0.0.1:51000",
		TLS: &probe.TLS{Version: "TLS 1.3", VersionID: 0x0304, CipherSuite: "TLS_AES_128_GCM_SHA256",
			Group: "x25519", ALPN: "h3", Chain: leafChain(), ChainBytes: 932, Verified: true},
		Bytes: probe.Bytes{HandshakeWritten: 2400, HandshakeRead: 3200, RequestWritten: 60, ResponseRead: 120, HeaderSize: 200, BodySize: 50},
		RTT:   probe.RTT{Kernel: time.Millisecond},
	})
}

// reused is a second request on an open HTTPS connection.
func reused() probe.Timeline {
	tl := h2Fresh()
	tl.Events = probe.Events{Start: at(0), GotConn: at(5), WroteRequest: at(30), FirstByte: at(1030), BodyDone: at(1100)}
	tl.Reused = true
	tl.Bytes.HandshakeRead, tl.Bytes.HandshakeWritten = 0, 0
	tl.RTT = probe.RTT{Kernel: time.Millisecond}
	return timeline(tl)
}

// refused failed to connect: two dial attempts (Happy Eyeballs), both
// refused.
func refused() probe.Timeline {
	return timeline(probe.Timeline{
		URL: "https://localhost:1/", Method: "GET",
		Events: probe.Events{Start: at(0), DNSStart: at(5), DNSDone: at(45), ConnectStart: at(50)},
		Total:  400 * time.Microsecond,
		Dials: []probe.Dial{
			{Network: "tcp6", Addr: "[::1]:1", Start: 50 * time.Microsecond, Duration: 30 * time.Microsecond, Err: "connection refused"},
			{Network: "tcp4", Addr: "127.0.0.1:1", Start: 300 * time.Microsecond, Duration: 40 * time.Microsecond, Err: "connection refused"},
		},
		Err: "dial tcp 127.0.0.1:1: connect: connection refused",
	})
}

func durationOf(ns int64) time.Duration { return time.Duration(ns) }

// post is h2Fresh as a POST of a 1000 B body, with the Host field set
// by -H.
func post() probe.Timeline {
	tl := h2Fresh()
	tl.URL, tl.Method = "https://localhost:8443/headers", "POST"
	tl.Bytes.RequestBodySize, tl.Bytes.RequestWritten = 1000, 1120
	tl.RequestHeader = map[string][]string{"User-Agent": {"httpslab"}, "Accept": {"*/*"},
		"Content-Type": {"application/x-www-form-urlencoded"}, "Host": {"httpslab.test"}}
	return tl
}
