//go:build !race

package cli

// compareRaceDetector is false in a test binary without the race detector.
const compareRaceDetector = false
