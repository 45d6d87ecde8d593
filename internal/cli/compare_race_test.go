//go:build race

package cli

// compareRaceDetector is true in a race-enabled test binary. quic-go races with
// itself when a 0-RTT connection opens streams while the handshake
// applies the server's transport parameters (quic-go issue #4303, open),
// so tests built with -race leave the 0-RTT variant out.
const compareRaceDetector = true
