package load

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// ParseRate reads a rate of the open model as --rate takes it: requests
// per second, a plain or exponent number (2000, 2.5e3), 0 for the closed
// model, at most MaxRate. Its errors say what a rate is rather than
// quoting strconv.
func ParseRate(s string) (float64, error) {
	f, err := strconv.ParseFloat(strings.TrimSpace(s), 64)
	switch {
	case err != nil && !errors.Is(err, strconv.ErrRange), math.IsNaN(f), math.IsInf(f, 0) && !errors.Is(err, strconv.ErrRange):
		return 0, errors.New("want requests per second, a number such as 1000 or 2.5e3 (0: the closed model)")
	case f < 0:
		return 0, errors.New("want 0 (the closed model) or a positive number of requests per second")
	case f > MaxRate || errors.Is(err, strconv.ErrRange):
		return 0, fmt.Errorf("want at most %g requests per second, one a nanosecond (the resolution of the schedule)", float64(MaxRate))
	}
	return f, nil
}
