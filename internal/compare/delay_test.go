package compare

import (
	"context"
	"io"
	"net/http"
	"testing"
	"time"

	"github.com/httpslab/httpslab/internal/lab"
	"github.com/httpslab/httpslab/internal/labtest"
)

// httpSampler times one GET of url with net/http on a fresh connection.
func httpSampler(c *http.Client, url string) Sampler {
	return func(ctx context.Context) (Sample, error) {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if err != nil {
			return Sample{}, err
		}
		start := time.Now()
		resp, err := c.Do(req)
		if err != nil {
			return Sample{}, err
		}
		defer resp.Body.Close()
		if _, err := io.Copy(io.Discard, resp.Body); err != nil {
			return Sample{}, err
		}
		return Sample{Total: time.Since(start)}, nil
	}
}

// TestDetectsServerDelay runs real requests against the embedded server:
// a 5 ms server delay on one variant must come out significant, about
// 5 ms, and a variant identical to the baseline must not.
func TestDetectsServerDelay(t *testing.T) {
	srv := labtest.StartServer(t, lab.Config{NoHTTP3: true})
	c := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}, Timeout: 10 * time.Second}
	a, b := twoKeys()
	res, err := Run(context.Background(), Config{
		Variants: []Variant{
			{Key: a, Sampler: httpSampler(c, srv.HTTPURL+"/delay/0")},
			{Key: b, Sampler: httpSampler(c, srv.HTTPURL+"/delay/5ms")},
			{Key: a.with(DimConn, "reuse"), Sampler: httpSampler(c, srv.HTTPURL+"/delay/0")},
		},
		Runs: 20, Seed: 11,
	})
	if err != nil {
		t.Fatal(err)
	}
	d := res.Variants[1].VsBaseline
	if d == nil || !d.Significant || d.MS < 4 || d.MS > 15 {
		t.Errorf("5 ms delay: diff = %+v; want significant, about +5 ms", d)
	}
	if d != nil && (d.CILevel == 0 || d.Lo < 3 || d.Lo > 7) {
		t.Errorf("5 ms delay: interval [%.2f, %.2f] ms at %.3f; want one starting near 5 ms", d.Lo, d.Hi, d.CILevel)
	}
	if same := res.Variants[2].VsBaseline; same == nil || same.MS > 2 || same.MS < -2 {
		t.Errorf("identical variant: diff = %+v; want close to 0 ms", same)
	}
}
