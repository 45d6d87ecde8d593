//go:build race

package lab

// RaceDetector is true in a binary built with the race detector. quic-go
// races with itself when a 0-RTT connection opens streams while the
// handshake applies the server's transport parameters (quic-go issue
// #4303, open), so tests built with -race leave 0-RTT out.
const RaceDetector = true
