package transport

import (
	"fmt"
	"strings"
)

// Protocol is the HTTP version a request or a run speaks: one type for
// probe, load (bench) and compare. The zero value, ProtoAuto, leaves the
// choice to ALPN where the runner can negotiate (probe offers h2 then
// http/1.1) and means HTTP/1.1 where it cannot (load).
type Protocol int

// Protocols.
const (
	ProtoAuto Protocol = iota // ALPN chooses (h2, then http/1.1); plain HTTP is HTTP/1.1
	HTTP1                     // HTTP/1.1, over TLS or plain TCP
	HTTP2                     // HTTP/2 over TLS (ALPN h2), or cleartext with prior knowledge (h2c) on http://
	HTTP3                     // HTTP/3 over QUIC, https:// only
)

// protocolNames are each protocol's two spellings: the token of curl's
// flags (--http1.1), of compare's --vary and of JSON, and the name the
// reports show.
var protocolNames = [...]struct{ token, name string }{
	ProtoAuto: {"auto", "auto"},
	HTTP1:     {"http1.1", "HTTP/1.1"},
	HTTP2:     {"http2", "HTTP/2"},
	HTTP3:     {"http3", "HTTP/3"},
}

func (p Protocol) known() bool { return p >= 0 && int(p) < len(protocolNames) }

// String names the protocol as reports show it: HTTP/1.1, HTTP/2, HTTP/3
// (auto for ProtoAuto).
func (p Protocol) String() string {
	if !p.known() {
		return fmt.Sprintf("Protocol(%d)", int(p))
	}
	return protocolNames[p].name
}

// Token spells the protocol as curl's flags do (http1.1, http2, http3):
// the spelling of compare's --vary values and of JSON.
func (p Protocol) Token() string {
	if !p.known() {
		return p.String()
	}
	return protocolNames[p].token
}

// MarshalText writes the protocol's token in JSON.
func (p Protocol) MarshalText() ([]byte, error) {
	if !p.known() {
		return nil, fmt.Errorf("marshaling %v: no such protocol", p)
	}
	return []byte(p.Token()), nil
}

// UnmarshalText reads a protocol as ParseProtocol does.
func (p *Protocol) UnmarshalText(b []byte) error {
	v, err := ParseProtocol(string(b))
	if err == nil {
		*p = v
	}
	return err
}

// ParseProtocol reads a protocol by its token (http1.1, http2, http3,
// auto) or its name (HTTP/1.1, HTTP/2, HTTP/3), case-insensitively.
func ParseProtocol(s string) (Protocol, error) {
	for p, n := range protocolNames {
		if strings.EqualFold(s, n.token) || strings.EqualFold(s, n.name) {
			return Protocol(p), nil
		}
	}
	return 0, fmt.Errorf("unknown protocol %q (want http1.1, http2 or http3)", s)
}
