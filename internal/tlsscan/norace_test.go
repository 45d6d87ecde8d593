//go:build !race

package tlsscan

const raceEnabled = false
