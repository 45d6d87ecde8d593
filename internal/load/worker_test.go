package load

import (
	"context"
	"errors"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/httpslab/httpslab/internal/lab"
	"github.com/httpslab/httpslab/internal/labtest"
	"github.com/httpslab/httpslab/internal/transport"
)

func TestShareSplitsTotals(t *testing.T) {
	base := Config{Targets: []Target{{URL: "https://a.test/"}}}
	for _, tc := range []struct {
		name         string
		conns        int
		requests     int64
		rate         float64
		count        int
		wantConns    []int
		wantRequests []int64
		wantRate     []float64
	}{
		{"closed -n", 10, 100, 0, 3, []int{4, 3, 3}, []int64{34, 33, 33}, []float64{0, 0, 0}},
		{"open", 7, 0, 3000, 3, []int{3, 2, 2}, []int64{0, 0, 0}, []float64{1000, 1000, 1000}},
		{"open remainder and fraction", 3, 0, 1001.5, 3, []int{1, 1, 1}, []int64{0, 0, 0}, []float64{334.5, 334, 333}},
		{"-n lowers -c", 100, 10, 0, 3, []int{4, 3, 3}, []int64{4, 3, 3}, []float64{0, 0, 0}},
		{"one worker", 10, 100, 50, 1, []int{10}, []int64{100}, []float64{50}},
	} {
		var conns int
		var requests int64
		var rate float64
		for i := range tc.count {
			c := base
			c.Conns, c.Requests, c.Rate, c.Worker = tc.conns, tc.requests, tc.rate, Worker{Index: i, Count: tc.count}
			got, err := c.withDefaults().share()
			if err != nil {
				t.Fatalf("%s: worker %d: %v", tc.name, i, err)
			}
			if got.Conns != tc.wantConns[i] || got.Requests != tc.wantRequests[i] || got.Rate != tc.wantRate[i] {
				t.Errorf("%s: worker %d: -c %d -n %d --rate %g; want -c %d -n %d --rate %g", tc.name, i,
					got.Conns, got.Requests, got.Rate, tc.wantConns[i], tc.wantRequests[i], tc.wantRate[i])
			}
			conns, requests, rate = conns+got.Conns, requests+got.Requests, rate+got.Rate
		}
		// -n lowers -c to itself: the connections then add up to -n.
		if tc.requests == 0 && conns != tc.conns || requests != tc.requests || rate != tc.rate {
			t.Errorf("%s: shares add up to -c %d -n %d --rate %g; want the totals %d, %d, %g", tc.name, conns, requests, rate,
				tc.conns, tc.requests, tc.rate)
		}
	}
}

func TestShareRefusesTooSmallTotals(t *testing.T) {
	for _, tc := range []struct {
		conns    int
		requests int64
		rate     float64
		flag     string
	}{
		{2, 0, 0, "-c 2 across 3 workers"},
		{3, 2, 0, "-n 2 across 3 workers"},
		{3, 0, 2.5, "--rate 2.5 across 3 workers"},
	} {
		c := Config{Targets: []Target{{URL: "https://a.test/"}}, Conns: tc.conns, Requests: tc.requests, Rate: tc.rate,
			Worker: Worker{Index: 2, Count: 3}}
		_, err := c.withDefaults().share()
		var werr *WorkerError
		if !errors.As(err, &werr) || !strings.Contains(err.Error(), tc.flag) || werr.Hint == "" {
			t.Errorf("share(-c %d -n %d --rate %g) = %v; want a WorkerError naming %q, with a hint", tc.conns, tc.requests, tc.rate, err, tc.flag)
		}
	}
}

func TestNewWorker(t *testing.T) {
	for _, tc := range []struct {
		count      int
		index, env string
		want       Worker
		err        string
	}{
		{0, "", "", Worker{}, ""},
		{1, "", "4", Worker{}, ""}, // a run on its own inside some Indexed Job
		{3, "2", "", Worker{2, 3}, ""},
		{3, "", "1", Worker{1, 3}, ""},
		{3, "0", "2", Worker{0, 3}, ""}, // the flag wins
		{3, "3", "", Worker{}, "--index \"3\": want an index from 0 to 2"},
		{3, "", "x", Worker{}, "JOB_COMPLETION_INDEX \"x\""},
		{3, "-1", "", Worker{}, "want an index from 0 to 2"},
		{3, "", "", Worker{}, "--workers 3 without --index"},
		{0, "1", "", Worker{}, "--index 1 without --workers"},
		{-1, "", "", Worker{}, "--workers -1"},
	} {
		got, err := NewWorker(tc.count, tc.index, tc.env)
		if tc.err == "" && (err != nil || got != tc.want) || tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)) {
			t.Errorf("NewWorker(%d, %q, %q) = %v, %v; want %v, %q", tc.count, tc.index, tc.env, got, err, tc.want, tc.err)
		}
	}
}

func TestHashSameForEveryWorker(t *testing.T) {
	c := Config{Targets: []Target{{URL: "https://a.test/", Body: []byte("x")}}, Conns: 9, Rate: 3000, Duration: 5 * time.Second}
	hashOf := func(change func(*Config)) string {
		c := c
		c.Worker = Worker{Index: 1, Count: 3}
		if change != nil {
			change(&c)
		}
		return c.withDefaults().Hash()
	}
	want := hashOf(nil)
	if !strings.HasPrefix(want, "sha256:") || len(want) != len("sha256:")+64 {
		t.Fatalf("Hash() = %q; want sha256:<64 hex digits>", want)
	}
	same := map[string]func(*Config){
		"another index":     func(c *Config) { c.Worker.Index = 2 },
		"another start":     func(c *Config) { c.StartAt = time.Now() },
		"another CA file":   func(c *Config) { c.TLS.CAFile = "/elsewhere/ca.pem" },
		"server processes":  func(c *Config) { c.ServerPIDs = []int{1} },
		"a longer grace":    func(c *Config) { c.StartGrace = time.Minute },
		"a default written": func(c *Config) { c.Timeout = DefaultTimeout },
	}
	for name, change := range same {
		if got := hashOf(change); got != want {
			t.Errorf("%s: Hash() = %s; want %s, the run's", name, got, want)
		}
	}
	differ := map[string]func(*Config){
		"another URL":        func(c *Config) { c.Targets = []Target{{URL: "https://b.test/", Body: []byte("x")}} },
		"another body":       func(c *Config) { c.Targets = []Target{{URL: "https://a.test/", Body: []byte("y")}} },
		"another total rate": func(c *Config) { c.Rate = 3001 },
		"another total -c":   func(c *Config) { c.Conns = 10 },
		"another protocol":   func(c *Config) { c.Protocol = transport.HTTP2 },
		"another mode":       func(c *Config) { c.Mode = transport.Fresh },
		"another duration":   func(c *Config) { c.Duration = 6 * time.Second },
		"more workers":       func(c *Config) { c.Worker = Worker{Index: 1, Count: 4} },
		"verification off":   func(c *Config) { c.TLS.Insecure = true },
	}
	for name, change := range differ {
		if got := hashOf(change); got == want {
			t.Errorf("%s: Hash() = %s, the same as the run's", name, got)
		}
	}
}

func TestParseStartAt(t *testing.T) {
	now := time.Date(2026, 11, 24, 7, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		in   string
		want time.Time
	}{
		{"+5s", now.Add(5 * time.Second)},
		{"+0s", now},
		{"2026-11-24T07:01:00Z", now.Add(time.Minute)},
		{"2026-11-24T08:00:00.25+01:00", now.Add(250 * time.Millisecond)},
	} {
		got, err := ParseStartAt(tc.in, now)
		if err != nil || !got.Equal(tc.want) {
			t.Errorf("ParseStartAt(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
		}
	}
	for _, in := range []string{"", "5s", "+-5s", "+x", "2026-11-24 07:00:00", "tomorrow"} {
		if got, err := ParseStartAt(in, now); err == nil {
			t.Errorf("ParseStartAt(%q) = %v; want an error", in, got)
		}
	}
}

func TestWaitStart(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		if err := waitStart(t.Context(), Config{StartAt: start.Add(3 * time.Second)}); err != nil || time.Since(start) != 3*time.Second {
			t.Errorf("waitStart(+3s) = %v after %v; want nil after 3s", err, time.Since(start))
		}
		if err := waitStart(t.Context(), Config{StartAt: time.Now().Add(-900 * time.Millisecond)}); err != nil {
			t.Errorf("waitStart(900ms ago) = %v; want nil, within the grace of 1s", err)
		}
		err := waitStart(t.Context(), Config{StartAt: time.Now().Add(-1500 * time.Millisecond)})
		var late *LateError
		if !errors.As(err, &late) || late.Late != 1500*time.Millisecond || late.Grace != DefaultStartGrace {
			t.Errorf("waitStart(1.5s ago) = %v; want a LateError of 1.5s past a grace of 1s", err)
		}
		if err := waitStart(t.Context(), Config{StartAt: time.Now().Add(-1500 * time.Millisecond), StartGrace: 2 * time.Second}); err != nil {
			t.Errorf("waitStart(1.5s ago, grace 2s) = %v; want nil", err)
		}
		ctx, cancel := context.WithTimeout(t.Context(), time.Second)
		defer cancel()
		if err := waitStart(ctx, Config{StartAt: time.Now().Add(time.Hour)}); !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("waitStart(+1h) interrupted = %v; want the context's error", err)
		}
	})
}

// TestRunWorkerShare runs worker 1 of 3 of a run of -n 10 against the
// embedded server, at a start time: it runs its share, starts on time
// and says which worker of which run it was.
func TestRunWorkerShare(t *testing.T) {
	s := labtest.StartServer(t, lab.Config{NoHTTP3: true})
	at := time.Now().Add(300 * time.Millisecond)
	cfg := Config{Targets: []Target{{URL: s.HTTPSURL + "/"}}, TLS: clientTLS(t, s.CA.CertPEM), Conns: 6, Requests: 10,
		Worker: Worker{Index: 1, Count: 3}, StartAt: at}
	res := mustRun(t, cfg)
	if res.Requests != 3 || res.Config.Conns != 2 {
		t.Errorf("worker 1 of 3 of -n 10 -c 6 ran %d requests on %d connections; want 3 on 2", res.Requests, res.Config.Conns)
	}
	if early := at.Sub(res.Start); early > 0 {
		t.Errorf("the run started %v before its start time", early)
	}
	if late := res.Start.Sub(at); late > 500*time.Millisecond {
		t.Errorf("the run started %v after its start time; want it at once", late)
	}
	want := cfg
	want.Worker.Index = 0
	if res.Run.Worker != cfg.Worker || res.Run.ConfigHash != want.withDefaults().Hash() || res.Run.Host == "" || res.Run.ClockSource == "" {
		t.Errorf("Run = %+v; want worker 1 of 3, the totals' hash %s, a host and a clock source", res.Run, want.withDefaults().Hash())
	}
	cfg.StartAt = time.Now().Add(-2 * time.Second)
	if _, err := Run(context.Background(), cfg); !errors.As(err, new(*LateError)) {
		t.Errorf("Run 2 s after its start time = %v; want a LateError", err)
	}
}

func TestPlanApply(t *testing.T) {
	t.Setenv(IndexEnv, "2")
	now := time.Date(2026, 11, 24, 7, 0, 0, 0, time.UTC)
	cfg := Config{Targets: []Target{{URL: "https://a.test/"}}, Conns: 3, Rate: 3000}
	if err := (Plan{Workers: 3, StartAt: "+1m", StartGrace: 2 * time.Second}).Apply(&cfg, now); err != nil {
		t.Fatal(err)
	}
	if cfg.Worker != (Worker{Index: 2, Count: 3}) || !cfg.StartAt.Equal(now.Add(time.Minute)) || cfg.StartGrace != 2*time.Second || cfg.Conns != 3 {
		t.Errorf("Apply: worker %v, start %v, grace %v, -c %d; want worker 2 of 3 from %s, +1m, 2s, the total -c 3 kept",
			cfg.Worker, cfg.StartAt, cfg.StartGrace, cfg.Conns, IndexEnv)
	}
	before := cfg
	for _, p := range []Plan{{Workers: 4}, {Workers: 3, StartAt: "later"}, {Workers: 3, StartGrace: -time.Second}, {Workers: 3, Index: "3"}} {
		err := p.Apply(&cfg, now)
		if !errors.As(err, new(*WorkerError)) || Hint(err) == "" && p.Workers == 4 {
			t.Errorf("Apply(%+v) = %v; want a WorkerError", p, err)
		}
		if cfg.Worker != before.Worker || !cfg.StartAt.Equal(before.StartAt) {
			t.Errorf("Apply(%+v) failed but changed the configuration", p)
		}
	}
}
