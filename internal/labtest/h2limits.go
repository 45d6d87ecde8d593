package labtest

import (
	"context"
	"io"
	"net"
	"time"

	"golang.org/x/net/http2"
)

// Modes of an HTTP/2 server that announces limits a client must honour:
// it answers a client that breaks them as a strict server would, so the
// break shows in the client's results.
var (
	// H2WindowZero announces SETTINGS_INITIAL_WINDOW_SIZE 0 and never
	// opens a stream's window: once the client acknowledged the setting
	// it may send request headers but no body. What it sent before, under
	// the protocol's initial window of 65,535 bytes, is allowed (RFC 9113,
	// section 6.9.2); a DATA frame after gets RST_STREAM
	// FLOW_CONTROL_ERROR.
	H2WindowZero = h2LimitMode("HTTP/2 window 0", http2.Setting{ID: http2.SettingInitialWindowSize, Val: 0})
	// H2NoStreams announces SETTINGS_MAX_CONCURRENT_STREAMS 0: once the
	// client acknowledged the setting it may open no stream. A stream it
	// opened before (allowed: the limit starts unlimited) is refused with
	// RST_STREAM REFUSED_STREAM, which a client may retry; one opened
	// after gets a GOAWAY with PROTOCOL_ERROR.
	H2NoStreams = h2LimitMode("HTTP/2 max streams 0", http2.Setting{ID: http2.SettingMaxConcurrentStreams, Val: 0})
)

// maxLimitFrames bounds the frames a limits mode reads from one client.
const maxLimitFrames = 100_000

// serveH2Limits reads the client's preface, announces settings and then
// reads the client's frames, answering each that breaks them, until the
// client leaves, ctx ends or endlessTime or maxLimitFrames is reached.
func serveH2Limits(ctx context.Context, c net.Conn, settings ...http2.Setting) {
	c.SetDeadline(time.Now().Add(endlessTime))
	preface := make([]byte, len(http2.ClientPreface))
	if _, err := io.ReadFull(c, preface); err != nil || string(preface) != http2.ClientPreface {
		return
	}
	fr := http2.NewFramer(c, c)
	if fr.WriteSettings(settings...) != nil {
		return
	}
	acked := false // the client acknowledged the settings
	for n := 0; n < maxLimitFrames && ctx.Err() == nil; n++ {
		f, err := fr.ReadFrame()
		if err != nil {
			return
		}
		switch f := f.(type) {
		case *http2.DataFrame:
			if acked && f.Length > 0 {
				err = fr.WriteRSTStream(f.StreamID, http2.ErrCodeFlowControl)
			}
		case *http2.HeadersFrame:
			switch {
			case settings[0].ID != http2.SettingMaxConcurrentStreams:
			case acked:
				err = fr.WriteGoAway(0, http2.ErrCodeProtocol, []byte("stream opened while none are allowed"))
			default:
				err = fr.WriteRSTStream(f.StreamID, http2.ErrCodeRefusedStream)
			}
		case *http2.SettingsFrame:
			if f.IsAck() {
				acked = true
			} else {
				err = fr.WriteSettingsAck()
			}
		}
		if err != nil {
			return
		}
	}
}

// h2LimitMode is an HTTP/2 server that announces the setting and holds
// the client to it, as serveH2Limits does.
func h2LimitMode(name string, setting http2.Setting) Mode {
	return Mode{name: name, tls: true, alpn: []string{"h2"},
		serve: func(ctx context.Context, _ *Misbehaving, c net.Conn) { serveH2Limits(ctx, c, setting) }}
}
