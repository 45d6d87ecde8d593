package transport

import (
	"fmt"
	"net/http"
	"strings"
)

// ParseHeaderLines reads request header lines as curl's -H takes them,
// for every client that sends them (probe, load, page): "Name: value"
// adds a value; "Name:" with nothing after the colon removes a header the
// client would send by default (an empty value list); "Name;" sends the
// header with an empty value.
func ParseHeaderLines(lines []string) (http.Header, error) {
	h := http.Header{}
	for _, line := range lines {
		if name, ok := strings.CutSuffix(line, ";"); ok && !strings.Contains(name, ":") {
			h[http.CanonicalHeaderKey(name)] = []string{""}
			continue
		}
		name, value, ok := strings.Cut(line, ":")
		name = strings.TrimSpace(name)
		if !ok || name == "" || strings.ContainsAny(name, " \t") {
			return nil, fmt.Errorf("-H %q: want 'Name: value'", line)
		}
		key := http.CanonicalHeaderKey(name)
		if value = strings.TrimSpace(value); value == "" {
			h[key] = []string{}
			continue
		}
		h[key] = append(h[key], value)
	}
	return h, nil
}
