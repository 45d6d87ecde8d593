//go:build race

package tlsscan

// raceEnabled is true under the race detector, which slows audit's Go code
// down several times but not the peer tools it is timed against.
const raceEnabled = true
