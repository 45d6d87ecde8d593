package load

import (
	"context"
	"fmt"
	"strings"
	"time"
)

// ParseStartAt reads bench's --start-at: an RFC 3339 time
// (2026-11-24T07:00:00Z, fractions of a second allowed) or a duration
// from now with a leading + (+5s).
func ParseStartAt(s string, now time.Time) (time.Time, error) {
	if rest, ok := strings.CutPrefix(s, "+"); ok {
		d, err := time.ParseDuration(rest)
		if err != nil || d < 0 {
			return time.Time{}, fmt.Errorf("start time %q: want +DURATION such as +5s, or an RFC 3339 time", s)
		}
		return now.Add(d), nil
	}
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}, fmt.Errorf("start time %q: want an RFC 3339 time such as 2026-11-24T07:00:00Z, or +5s", s)
	}
	return t, nil
}

// LateError is a worker that reached its start time later than its
// grace allows: it refuses to run, since its share of the load would
// cover only part of the window the other workers measure.
type LateError struct {
	StartAt     time.Time
	Late, Grace time.Duration
}

func (e *LateError) Error() string {
	return fmt.Sprintf("start at %s missed by %s, more than the grace of %s: this worker would load only part of the run's window",
		e.StartAt.UTC().Format(time.RFC3339Nano), e.Late.Round(time.Millisecond), e.Grace)
}

// Hint says what to do about a late worker.
func (e *LateError) Hint() string {
	return "start the workers with a later --start-at (k8s job: a longer --lead), or allow more with --start-grace; merge names this worker as missing"
}

// waitStart waits for c.StartAt, once the run is set up; a worker later
// than c.StartGrace (0: DefaultStartGrace) returns a LateError, an
// interrupted wait ctx's error.
func waitStart(ctx context.Context, c Config) error {
	if c.StartAt.IsZero() {
		return nil
	}
	grace := c.StartGrace
	if grace == 0 {
		grace = DefaultStartGrace
	}
	wait := time.Until(c.StartAt)
	if -wait > grace {
		return &LateError{StartAt: c.StartAt, Late: -wait, Grace: grace}
	}
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("waiting for the start at %s: %w", c.StartAt.UTC().Format(time.RFC3339Nano), ctx.Err())
	}
}

// beforeStart opens the request log, if the run keeps one, and waits for
// the start time.
func beforeStart(ctx context.Context, cfg Config) (*requestLog, error) {
	if cfg.RequestLog == "" {
		return nil, waitStart(ctx, cfg)
	}
	log, err := openRequestLog(cfg.RequestLog)
	if err != nil {
		return nil, err
	}
	if err := waitStart(ctx, cfg); err != nil {
		log.close()
		return nil, err
	}
	return log, nil
}
