package cli

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/httpslab/httpslab/internal/load"
)

// rateValue is the --rate flag: requests per second, a plain or
// exponent number (2000, 2.5e3), 0 for the closed model. Its errors name
// what a rate is rather than quoting strconv.
type rateValue float64

// Set implements pflag.Value.
func (r *rateValue) Set(v string) error {
	f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
	switch {
	case err != nil && !errors.Is(err, strconv.ErrRange), math.IsNaN(f), math.IsInf(f, 0) && !errors.Is(err, strconv.ErrRange):
		return errors.New("want requests per second, a number such as 1000 or 2.5e3 (0: the closed model)")
	case f < 0:
		return errors.New("want 0 (the closed model) or a positive number of requests per second")
	case f > load.MaxRate || errors.Is(err, strconv.ErrRange):
		return fmt.Errorf("want at most %g requests per second, one a nanosecond (the resolution of the schedule)", float64(load.MaxRate))
	}
	*r = rateValue(f)
	return nil
}

// String implements pflag.Value.
func (r *rateValue) String() string { return strconv.FormatFloat(float64(*r), 'g', -1, 64) }

// Type implements pflag.Value.
func (*rateValue) Type() string { return "rate" }
