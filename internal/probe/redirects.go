package probe

import "fmt"

// MaxRedirectsLimit bounds the redirects a probe follows, so that a
// redirect loop ends: curl's "no limit" means this many.
const MaxRedirectsLimit = 1000

// CurlMaxRedirects reads a redirect limit as curl's --max-redirs gives it
// into Config.MaxRedirects: 0 follows none (NoRedirects), -1 is curl's
// "no limit" (here MaxRedirectsLimit; it is not NoRedirects, also -1),
// anything else is the count, up to MaxRedirectsLimit.
func CurlMaxRedirects(n int) (int, error) {
	switch {
	case n == 0:
		return NoRedirects, nil
	case n == -1:
		return MaxRedirectsLimit, nil
	case n < 0 || n > MaxRedirectsLimit:
		return 0, fmt.Errorf("want 0 to %d, or -1 for the most (%d)", MaxRedirectsLimit, MaxRedirectsLimit)
	}
	return n, nil
}
