package page

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/httpslab/httpslab/internal/compare"
	"github.com/httpslab/httpslab/internal/stats"
	"github.com/httpslab/httpslab/internal/transport"
)

// SurveyPage is one line of a --urls file: a page and, when the line
// gives it, its plain-HTTP URL for the http protocol.
type SurveyPage struct {
	URL     string `json:"url"`
	HTTPURL string `json:"http_url,omitempty"`
}

// MaxSurveyPages bounds the pages of one survey.
const MaxSurveyPages = 10000

// ReadSurvey reads a --urls file: one page per line, its URL, optionally
// followed by its plain-HTTP URL; blank lines and lines starting with #
// are skipped. Each URL must be http:// or https:// with a host.
func ReadSurvey(r io.Reader) ([]SurveyPage, error) {
	var out []SurveyPage
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), 64<<10) // a line longer than 64 KiB is an error
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Fields(line)
		if len(f) > 2 {
			return nil, fmt.Errorf("line %d: %d fields; want a URL and, optionally, its plain-HTTP URL", n, len(f))
		}
		p := SurveyPage{URL: f[0]}
		if len(f) == 2 {
			p.HTTPURL = f[1]
		}
		for _, raw := range f {
			u, err := url.Parse(raw)
			if err == nil {
				err = transport.CheckURL(u)
			}
			if err != nil {
				return nil, fmt.Errorf("line %d: %q: %w", n, raw, err)
			}
		}
		if len(out) == MaxSurveyPages {
			return nil, fmt.Errorf("line %d: more than %d pages", n, MaxSurveyPages)
		}
		out = append(out, p)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("reading the pages: %w", err)
	}
	if len(out) == 0 {
		return nil, errors.New("no page: every line is blank or a comment")
	}
	return out, nil
}

// Survey loads each of many pages over the same protocols, as seed 002
// measured what HTTPS adds across sites: each page Rounds times per
// protocol, interleaved (Compare), one page after the other.
type Survey struct {
	// Compare is the setup of each page's run; its Load.URL and HTTPURL
	// are set per page.
	Compare Compare
	Pages   []SurveyPage
	// Progress, if set, is called after each page with its index.
	Progress func(page int)
}

// SurveyResult is the survey: per page the median load time of each
// protocol and the differences, and across pages the spread of each
// difference.
type SurveyResult struct {
	Rounds    int          `json:"rounds"`
	Protocols []Protocol   `json:"protocols"`
	Pages     []PageResult `json:"pages"`
	Effects   []Spread     `json:"effects"`
}

// PageResult is one page of a survey. Error says why it could not be
// measured in full; its protocols and differences hold what was.
type PageResult struct {
	URL         string            `json:"url"`
	RTT         time.Duration     `json:"rtt_ns,omitempty"`
	LoadTimes   []compare.Summary `json:"load_ms"` // per protocol, in the survey's order
	Differences []Difference      `json:"differences"`
	Error       string            `json:"error,omitempty"`
	// Run is the page's run in full, with each protocol's median load,
	// for the survey's HAR; not in the JSON, which keeps the summaries.
	Run *Result `json:"-"`
}

// SpreadLevels are the shares of pages Spread gives the quantiles at.
var SpreadLevels = []float64{0.1, 0.25, 0.5, 0.75, 0.9}

// Spread is how one difference between protocols spreads across pages:
// the quantiles at SpreadLevels of the per-page shifts, in ms and, over
// the pages whose RTT was long enough to count round trips, in RTTs. Its
// 10% quantile is exceeded by 90% of the pages ("for 90% of pages HTTPS
// adds more than X ms"). MS holds every page's shift, sorted, for a CDF.
type Spread struct {
	Name      string    `json:"name"`
	From      Protocol  `json:"from"`
	To        Protocol  `json:"to"`
	MS        []float64 `json:"ms"`
	QuantMS   []float64 `json:"quantiles_ms"`
	RTTPages  int       `json:"rtt_pages"`
	QuantRTTs []float64 `json:"quantiles_rtts,omitempty"`
}

// Run loads every page. A page that fails is kept with its error and the
// survey goes on; when ctx is cancelled it returns what was measured with
// the context's error. The error is that of the first failed page.
func (s Survey) Run(ctx context.Context) (*SurveyResult, error) {
	res := &SurveyResult{Protocols: s.Compare.Protocols, Pages: []PageResult{}, Effects: []Spread{}}
	res.Rounds = s.Compare.Rounds
	if res.Rounds <= 0 {
		res.Rounds = DefaultRounds
	}
	var first error
	for i, p := range s.Pages {
		if ctx.Err() != nil {
			break
		}
		c := s.Compare
		c.Load.URL, c.HTTPURL, c.Progress = p.URL, p.HTTPURL, nil
		r, err := c.Run(ctx)
		pr := pageResultOf(p.URL, r)
		if err != nil {
			pr.Error = err.Error()
			if first == nil && ctx.Err() == nil {
				first = fmt.Errorf("page %s: %w", p.URL, err)
			}
		}
		res.Pages = append(res.Pages, pr)
		if s.Progress != nil {
			s.Progress(i)
		}
	}
	res.Effects = spreads(res.Pages)
	if ctx.Err() != nil {
		return res, ctx.Err()
	}
	return res, first
}

// pageResultOf keeps of a page's run its medians and differences.
func pageResultOf(pageURL string, r *Result) PageResult {
	pr := PageResult{URL: pageURL, LoadTimes: []compare.Summary{}, Differences: []Difference{}, Run: r}
	if r == nil {
		return pr
	}
	pr.RTT, pr.Differences = r.RTT, r.Differences
	for _, p := range r.Protocols {
		pr.LoadTimes = append(pr.LoadTimes, p.LoadTime)
	}
	return pr
}

// spreads gathers each named difference over the pages that have it, in
// the order the differences first appear.
func spreads(pages []PageResult) []Spread {
	out := []Spread{}
	rtts := map[int][]float64{}
	for _, p := range pages {
		for _, d := range p.Differences {
			i := slices.IndexFunc(out, func(s Spread) bool { return s.From == d.From && s.To == d.To })
			if i < 0 {
				out = append(out, Spread{Name: d.Name, From: d.From, To: d.To})
				i = len(out) - 1
			}
			out[i].MS = append(out[i].MS, d.Diff.MS)
			if d.Diff.RTTs != 0 {
				rtts[i] = append(rtts[i], d.Diff.RTTs)
			}
		}
	}
	for i := range out {
		out[i].MS = stats.Sorted(out[i].MS)
		out[i].QuantMS = quantiles(out[i].MS)
		if r := rtts[i]; len(r) > 0 {
			out[i].RTTPages, out[i].QuantRTTs = len(r), quantiles(stats.Sorted(r))
		}
	}
	return out
}

func quantiles(sorted []float64) []float64 {
	q := make([]float64, len(SpreadLevels))
	for i, p := range SpreadLevels {
		q[i] = stats.Quantile(sorted, p)
	}
	return q
}
