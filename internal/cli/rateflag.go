package cli

import (
	"strconv"

	"github.com/httpslab/httpslab/internal/load"
)

// rateValue is the --rate flag: requests per second as load.ParseRate
// reads them, 0 for the closed model.
type rateValue float64

// Set implements pflag.Value.
func (r *rateValue) Set(v string) error {
	f, err := load.ParseRate(v)
	if err != nil {
		return err
	}
	*r = rateValue(f)
	return nil
}

// String implements pflag.Value.
func (r *rateValue) String() string { return strconv.FormatFloat(float64(*r), 'g', -1, 64) }

// Type implements pflag.Value.
func (*rateValue) Type() string { return "rate" }
