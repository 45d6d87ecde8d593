package compare

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/httpslab/httpslab/internal/transport"
)

// Dimension names, as --vary spells them.
const (
	DimScheme    = "scheme"    // http or https
	DimProto     = "proto"     // http1.1, http2, http3
	DimTLS       = "tls"       // 1.2 or 1.3
	DimHandshake = "handshake" // full, resumed, 0rtt
	DimConn      = "conn"      // fresh or reuse
)

// Dimensions lists the dimensions in the order variants are named.
var Dimensions = []string{DimScheme, DimProto, DimTLS, DimHandshake, DimConn}

// Values of each dimension; the first is the one a variant takes when its
// dimension does not vary.
var dimValues = map[string][]string{
	DimScheme:    {"https", "http"},
	DimProto:     {transport.HTTP1.Token(), transport.HTTP2.Token(), transport.HTTP3.Token()},
	DimTLS:       {"1.3", "1.2"},
	DimHandshake: {"full", "resumed", "0rtt"},
	DimConn:      {"fresh", "reuse"},
}

// Key places a variant in the matrix. Plain HTTP has no TLS version and
// no handshake (empty strings), and a reused connection no handshake.
type Key struct {
	Scheme    string             `json:"scheme"`
	Proto     transport.Protocol `json:"proto"`
	TLS       string             `json:"tls,omitempty"`
	Handshake string             `json:"handshake,omitempty"`
	Conn      string             `json:"conn"`
}

// get returns the key's value in dimension d.
func (k Key) get(d string) string {
	switch d {
	case DimScheme:
		return k.Scheme
	case DimProto:
		return k.Proto.Token()
	case DimTLS:
		return k.TLS
	case DimHandshake:
		return k.Handshake
	}
	return k.Conn
}

// with returns the key with dimension d set to v, normalized.
func (k Key) with(d, v string) Key {
	switch d {
	case DimScheme:
		k.Scheme = v
		if v == "https" && k.TLS == "" {
			k.TLS, k.Handshake = "1.3", "full"
		}
	case DimProto:
		k.Proto, _ = transport.ParseProtocol(v) // v is one of dimValues[DimProto]
	case DimTLS:
		k.TLS = v
	case DimHandshake:
		k.Handshake = v
	case DimConn:
		k.Conn = v
	}
	return k.normalize()
}

// normalize clears what a variant cannot have: plain HTTP has no TLS, a
// reused connection has no handshake.
func (k Key) normalize() Key {
	if k.Scheme == "http" {
		k.TLS, k.Handshake = "", ""
	}
	if k.Conn == "reuse" && k.Scheme == "https" {
		k.Handshake = "full" // the one handshake before the first request
	}
	return k
}

// valid reports whether the combination can be measured: HTTP/2 and
// HTTP/3 need TLS here (no h2c), QUIC is TLS 1.3 only, and 0-RTT is
// offered on QUIC only (Go's TLS client sends no early data over TCP).
func (k Key) valid() bool {
	switch {
	case k.Scheme == "http" && k.Proto != transport.HTTP1:
		return false
	case k.Proto == transport.HTTP3 && k.TLS != "1.3":
		return false
	case k.Handshake == "0rtt" && k.Proto != transport.HTTP3:
		return false
	}
	return true
}

// Name is the short label of the variant, e.g. "https h1 TLS1.2 resumed".
func (k Key) Name() string {
	parts := []string{k.Scheme, map[transport.Protocol]string{transport.HTTP1: "h1", transport.HTTP2: "h2", transport.HTTP3: "h3"}[k.Proto]}
	if k.TLS != "" {
		parts = append(parts, "TLS"+k.TLS)
	}
	if k.Handshake != "" && k.Handshake != "full" {
		parts = append(parts, map[string]string{"resumed": "resumed", "0rtt": "0-RTT"}[k.Handshake])
	}
	if k.Conn == "reuse" {
		parts = append(parts, "keep-alive")
	}
	return strings.Join(parts, " ")
}

// base is the variant every dimension starts from.
var base = Key{Scheme: "https", Proto: transport.HTTP1, TLS: "1.3", Handshake: "full", Conn: "fresh"}

// DefaultMatrix is the matrix compare runs without --vary: the questions
// of the cost of the S (HTTPS over HTTP with TLS 1.3 and 1.2), what
// resumption saves on each, what HTTP/2, HTTP/3 and 0-RTT save on a fresh
// connection, and what a kept-alive connection leaves of it all. Plain
// HTTP comes first, as the baseline.
func DefaultMatrix() []Key {
	http := Key{Scheme: "http", Proto: transport.HTTP1, Conn: "fresh"}
	return []Key{
		http,
		base,
		base.with(DimTLS, "1.2"),
		base.with(DimHandshake, "resumed"),
		base.with(DimTLS, "1.2").with(DimHandshake, "resumed"),
		base.with(DimProto, "http2"),
		base.with(DimProto, "http3"),
		base.with(DimProto, "http3").with(DimHandshake, "0rtt"),
		http.with(DimConn, "reuse"),
		base.with(DimConn, "reuse"),
	}
}

// Matrix returns every valid combination of the named dimensions, the
// others kept at their first value, without duplicates. The first key is
// the baseline: every dimension at its reference value (plain HTTP when
// the scheme varies).
func Matrix(vary []string) ([]Key, error) {
	keys := []Key{base}
	for _, d := range vary {
		vals, ok := dimValues[d]
		if !ok {
			return nil, fmt.Errorf("unknown dimension %q (want %s)", d, strings.Join(Dimensions, ", "))
		}
		var next []Key
		for _, k := range keys {
			for _, v := range vals {
				next = append(next, k.with(d, v))
			}
		}
		keys = next
	}
	var out []Key
	for _, k := range keys {
		if k.valid() && !slices.Contains(out, k) {
			out = append(out, k)
		}
	}
	slices.SortStableFunc(out, func(a, b Key) int { return rank(a) - rank(b) })
	return out, nil
}

// references holds the reference value of each dimension, the one the
// other values are compared against and listed after.
var references = map[string]string{DimScheme: "http", DimProto: transport.HTTP1.Token(), DimTLS: "1.3", DimHandshake: "full", DimConn: "fresh"}

// rank orders keys so that the reference of each dimension comes first:
// plain HTTP, then HTTP/1.1, TLS 1.3, full handshake, fresh connection.
func rank(k Key) int {
	r := 0
	for i, d := range Dimensions {
		v := k.get(d)
		if v != references[d] && !(v == "" && d != DimScheme) {
			r += 1 << (len(Dimensions) - i)
		}
	}
	return r
}

// ParseVary reads the --vary list ("scheme,tls"); "all" means every
// dimension.
func ParseVary(s string) ([]string, error) {
	if strings.TrimSpace(s) == "all" {
		return slices.Clone(Dimensions), nil
	}
	var out []string
	for _, f := range strings.Split(s, ",") {
		f = strings.ToLower(strings.TrimSpace(f))
		if f == "" {
			continue
		}
		if _, ok := dimValues[f]; !ok {
			return nil, fmt.Errorf("unknown dimension %q (want %s, or all)", f, strings.Join(Dimensions, ", "))
		}
		if !slices.Contains(out, f) {
			out = append(out, f)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no dimension to vary (want %s, or all)", strings.Join(Dimensions, ", "))
	}
	return out, nil
}

// ErrOneTLSVersion is Plan's error for varying the TLS version of a
// server without TLS 1.3.
var ErrOneTLSVersion = errors.New("a server without TLS 1.3 has one TLS version to measure")

// Plan returns the variants to measure: DefaultMatrix, or with vary
// ("scheme,tls", "all") every valid combination of those dimensions; for
// a server without TLS 1.3 (noTLS13) their TLS 1.2 forms (WithoutTLS13).
// Fewer than two variants is an error: there is nothing to compare.
func Plan(vary string, noTLS13 bool) ([]Key, error) {
	keys := DefaultMatrix()
	if vary != "" {
		dims, err := ParseVary(vary)
		if err != nil {
			return nil, err
		}
		if noTLS13 && slices.Contains(dims, DimTLS) {
			return nil, ErrOneTLSVersion
		}
		if keys, err = Matrix(dims); err != nil {
			return nil, err
		}
	}
	if noTLS13 {
		keys = WithoutTLS13(keys)
	}
	if len(keys) < 2 {
		return nil, fmt.Errorf("varying %s gives a single variant", vary)
	}
	return keys, nil
}

// WithoutTLS13 returns the keys for a server that speaks TLS 1.2 at most
// (nginx before 1.23.4 unless told otherwise, the servers of most older
// studies): each TLS 1.3 variant is measured with TLS 1.2 instead, those
// that need TLS 1.3 (HTTP/3, 0-RTT) are left out, and so are the
// duplicates that leaves. The order, and so the baseline, is kept.
func WithoutTLS13(keys []Key) []Key {
	var out []Key
	for _, k := range keys {
		if k.TLS == "1.3" {
			k.TLS = "1.2"
		}
		if k.valid() && !slices.Contains(out, k) {
			out = append(out, k)
		}
	}
	return out
}
