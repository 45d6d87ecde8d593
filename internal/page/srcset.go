package page

import (
	"strconv"
	"strings"
)

// viewportWidth is the width, in CSS pixels at a device pixel ratio of
// 1, for which a srcset is chosen: no layout runs, so every image is
// taken as full width (the default of sizes, 100vw).
const viewportWidth = 1280

// candidate is one entry of a srcset.
type candidate struct {
	url   string
	width int     // w descriptor; 0 when none
	x     float64 // x descriptor; 1 when none
}

// parseSrcset reads a srcset attribute: comma-separated URLs, each with
// an optional width (480w) or density (2x) descriptor. Entries it cannot
// read are skipped.
func parseSrcset(s string) []candidate {
	var out []candidate
	for s = strings.TrimLeft(s, " \t\n\r\f,"); s != ""; s = strings.TrimLeft(s, " \t\n\r\f,") {
		end := strings.IndexAny(s, " \t\n\r\f")
		if end < 0 {
			end = len(s)
		}
		c := candidate{url: strings.TrimRight(s[:end], ","), x: 1}
		endsEntry := strings.HasSuffix(s[:end], ",")
		s = s[end:]
		if !endsEntry {
			desc := s
			if i := strings.IndexByte(s, ','); i >= 0 {
				desc, s = s[:i], s[i:]
			} else {
				s = ""
			}
			c = withDescriptor(c, strings.TrimSpace(desc))
		}
		if c.url != "" && c.x > 0 {
			out = append(out, c)
		}
	}
	return out
}

func withDescriptor(c candidate, d string) candidate {
	switch {
	case d == "":
	case strings.HasSuffix(d, "w"):
		if w, err := strconv.Atoi(strings.TrimSuffix(d, "w")); err == nil && w > 0 {
			c.width = w
		} else {
			c.x = 0 // unreadable: skipped
		}
	case strings.HasSuffix(d, "x"):
		if x, err := strconv.ParseFloat(strings.TrimSuffix(d, "x"), 64); err == nil && x > 0 {
			c.x = x
		} else {
			c.x = 0
		}
	}
	return c
}

// chooseSrcset picks the candidate a browser with a viewportWidth-wide
// window at a device pixel ratio of 1 fetches: the smallest one that
// covers the need (a width of at least the viewport, a density of at
// least 1), else the largest. "" when there is none.
func chooseSrcset(s string) string {
	cs := parseSrcset(s)
	best, bestScore := "", 0.0
	for _, c := range cs {
		// Each candidate's density for the viewport: its width over the
		// viewport for w descriptors, its x descriptor otherwise.
		d := c.x
		if c.width > 0 {
			d = float64(c.width) / viewportWidth
		}
		if best == "" || better(d, bestScore) {
			best, bestScore = c.url, d
		}
	}
	return best
}

// better reports whether density d is a better choice than cur: at
// least 1 and smaller than cur, or larger than a cur below 1.
func better(d, cur float64) bool {
	switch {
	case d >= 1 && cur >= 1:
		return d < cur
	case cur < 1:
		return d > cur
	}
	return false
}
