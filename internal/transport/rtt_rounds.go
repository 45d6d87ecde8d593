package transport

import "time"

// MinRTTForRounds is the round-trip time below which httpslab does not
// state times in round trips: on loopback a round trip takes microseconds
// and a handshake's time is computation, so "26 RTT" would mislead.
const MinRTTForRounds = 500 * time.Microsecond
