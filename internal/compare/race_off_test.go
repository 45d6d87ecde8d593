//go:build !race

package compare

// raceDetector is false in a test binary without the race detector.
const raceDetector = false
