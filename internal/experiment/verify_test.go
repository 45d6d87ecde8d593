package experiment

import (
	"strings"
	"testing"
)

const (
	idle        = `[warn] the "http2_idle_timeout" directive is obsolete, use the "keepalive_timeout" directive instead in nginx.conf:3`
	maxRequests = `[warn] the "http2_max_requests" directive is obsolete, use the "keepalive_requests" directive instead in nginx.conf:4`
	deprecated  = `[warn] the "ssl" directive is deprecated, use the "listen ... ssl" directive instead in nginx.conf:1`
)

func TestVerify(t *testing.T) {
	base := Observation{"resumed": "no", "version": "TLS 1.3", "header X-Frame-Options": "DENY", "content-encoding": "none"}
	variant := func(directive, value string) Variant {
		return Variant{Name: directive + " " + value, Changes: []Change{{directive, value}}}
	}
	for _, tc := range []struct {
		v        Variant
		obs      Observation
		warnings []string
		status   Status
		evidence string
	}{
		{variant("ssl_session_tickets", "on"), Observation{"resumed": "yes"}, nil, Verified, "resumed: no → yes"},
		{variant("ssl_session_tickets", "on"), Observation{"resumed": "no"}, nil, NotLive, "resumed: no, as in the baseline"},
		{variant("gzip", "on"), Observation{"content-encoding": "gzip"}, nil, Verified, "content-encoding: none → gzip"},
		{variant("add_header", "x-frame-options SAMEORIGIN"), Observation{"header X-Frame-Options": "SAMEORIGIN"}, nil,
			Verified, "header X-Frame-Options: DENY → SAMEORIGIN"},
		{variant("add_header", "X-New 1"), Observation{}, nil, NotLive, "header X-New: none, as in the baseline"},
		{variant("tcp_nopush", "on"), Observation{}, nil, Unverified, "not observable"},
		{Variant{Name: "both", Changes: []Change{{"ssl_certificate", "rsa.pem"}, {"ssl_certificate_key", "rsa.key"}}},
			Observation{"certificate": "RSA 2048"}, nil, Verified, "certificate: none → RSA 2048"},
		// Several changes: the one that moved verifies the variant, and the
		// one that did not is said as well.
		{Variant{Name: "tuned", Changes: []Change{{"ssl_session_cache", "shared:SSL:1m"}, {"gzip", "on"}}},
			Observation{"resumed": "no", "content-encoding": "gzip"}, nil, Verified,
			"content-encoding: none → gzip; resumed: no, as in the baseline"},
		// The record size shows only in a large response: not seen on either
		// side is no evidence either way.
		{variant("ssl_buffer_size", "1460"), Observation{"tls record size": "1477 B"}, nil, Verified, "tls record size: none → 1477 B"},
		{variant("ssl_buffer_size", "1460"), Observation{}, nil, Unverified, "tls record size: not seen (a response over 64 KiB shows it)"},
		{variant("ssl_stapling_file", "ocsp.der"), Observation{"ocsp staple": "732 B"}, nil, Verified, "ocsp staple: none → 732 B"},
		{variant("http2_max_requests", "10"), Observation{},
			[]string{`[warn] the "http2_max_requests" directive is obsolete, use the "keepalive_requests" directive instead in nginx.conf:4`},
			Obsolete, `"http2_max_requests" directive is obsolete`},
		// A warning about another directive does not make this one obsolete.
		{variant("tcp_nopush", "on"), Observation{}, []string{`[warn] the "http2_max_requests" directive is obsolete`}, Unverified, "not observable"},
		// A session cache shows in resumption by session ID where tickets
		// already resume every connection.
		{variant("ssl_session_cache", "shared:SSL:10m"), Observation{"resumed": "no", "resumed by session ID": "yes"}, nil,
			Verified, "resumed by session ID: none → yes"},
		{variant("http2_max_concurrent_streams", "64"), Observation{"h2 MAX_CONCURRENT_STREAMS": "64"}, nil,
			Verified, "h2 MAX_CONCURRENT_STREAMS: none → 64"},
		// nginx's default: not live, and the evidence says it may be.
		{variant("ssl_session_tickets", "on"), Observation{"resumed": "no"}, nil, NotLive, "nginx's default"},
		// A deprecated directive is judged, with nginx's warning named.
		{variant("ssl", "on"), Observation{}, []string{deprecated}, Unverified,
			`not observable from a client; nginx: [warn] the "ssl" directive is deprecated`},
		// Several changes, some obsolete: judged on the others, the
		// obsolete ones named; all obsolete: obsolete, every warning kept.
		{Variant{Name: "all", Changes: []Change{{"http2_idle_timeout", "30s"}, {"gzip", "on"}, {"ssl", "on"}}},
			Observation{"content-encoding": "gzip"}, []string{idle, deprecated}, Verified,
			"content-encoding: none → gzip; obsolete, ignored by nginx: http2_idle_timeout"},
		{Variant{Name: "both obsolete", Changes: []Change{{"http2_idle_timeout", "30s"}, {"http2_max_requests", "10"}}},
			Observation{}, []string{idle, maxRequests}, Obsolete, idle + "\n" + maxRequests},
	} {
		status, evidence := verify(tc.v, tc.obs, base, tc.warnings)
		if status != tc.status || !strings.Contains(evidence, tc.evidence) || strings.Count(evidence, tc.evidence) > 1 {
			t.Errorf("verify(%s) = %s, %q; want %s, %q", tc.v.Name, status, evidence, tc.status, tc.evidence)
		}
	}
}

// TestNothingCached checks that ip's answer for an address without
// cached metrics counts as flushed, and that its other errors do not.
func TestNothingCached(t *testing.T) {
	for _, tc := range []struct {
		out  string
		want bool
	}{
		{"RTNETLINK answers: No such process\n", true},
		{"RTNETLINK answers: Operation not permitted\n", false},
		{"", false},
	} {
		if got := nothingCached([]byte(tc.out)); got != tc.want {
			t.Errorf("nothingCached(%q) = %v; want %v", tc.out, got, tc.want)
		}
	}
}
