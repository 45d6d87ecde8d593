package transport

import (
	"fmt"
	"strings"
)

// ConnMode is which connection a request goes on and with what handshake:
// one type for probe's modes and bench's --conn. The zero value,
// KeepAlive, is bench's default.
type ConnMode int

// Connection modes.
const (
	// KeepAlive sends the request on a connection kept alive from an
	// earlier request, opening one when there is none.
	KeepAlive ConnMode = iota
	// Fresh opens a new connection with a full handshake: no session
	// cache, no tickets, no session IDs.
	Fresh
	// Resumed opens a new connection resuming the TLS session of an
	// earlier one.
	Resumed
	// ZeroRTT opens a new QUIC connection resuming a session and sends the
	// request as 0-RTT early data (Go's TLS over TCP sends none).
	ZeroRTT
)

// connModeNames are the modes' names, as bench's --conn spells them, and
// the other names they go by (probe's JSON before, compare's --vary
// values), which ParseConnMode reads too.
var connModeNames = [...]struct {
	name  string
	other []string
}{
	KeepAlive: {"keepalive", []string{"keep-alive", "reuse"}},
	Fresh:     {"new", []string{"fresh"}},
	Resumed:   {"resume", []string{"resumed"}},
	ZeroRTT:   {"0-rtt", []string{"0rtt"}},
}

func (m ConnMode) known() bool { return m >= 0 && int(m) < len(connModeNames) }

// String names the mode: keepalive, new, resume or 0-rtt.
func (m ConnMode) String() string {
	if !m.known() {
		return fmt.Sprintf("ConnMode(%d)", int(m))
	}
	return connModeNames[m].name
}

// MarshalText writes the mode's name in JSON.
func (m ConnMode) MarshalText() ([]byte, error) {
	if !m.known() {
		return nil, fmt.Errorf("marshaling %v: no such connection mode", m)
	}
	return []byte(m.String()), nil
}

// UnmarshalText reads a mode as ParseConnMode does.
func (m *ConnMode) UnmarshalText(b []byte) error {
	v, err := ParseConnMode(string(b))
	if err == nil {
		*m = v
	}
	return err
}

// ParseConnMode reads a mode by its name (keepalive, new, resume, 0-rtt)
// or another it goes by (keep-alive or reuse, fresh, resumed,
// 0rtt), case-insensitively.
func ParseConnMode(s string) (ConnMode, error) {
	for m, n := range connModeNames {
		if strings.EqualFold(s, n.name) {
			return ConnMode(m), nil
		}
		for _, o := range n.other {
			if strings.EqualFold(s, o) {
				return ConnMode(m), nil
			}
		}
	}
	return 0, fmt.Errorf("unknown connection mode %q (want keepalive, new, resume or 0-rtt)", s)
}
