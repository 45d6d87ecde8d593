//go:build !race

package lab

// RaceDetector is false in a binary built without the race detector; see
// race.go for what it changes.
const RaceDetector = false
