package load

import "fmt"

// HeaderTooLargeError is the error of a request whose response header
// went over the run's limit (Config.MaxHeaderBytes): on HTTP/1.1 the
// status lines and fields, on HTTP/2 the header block as sent or as
// decoded (the header list size of RFC 9113, section 6.5.2).
type HeaderTooLargeError struct {
	Limit int64 // bytes
}

func (e *HeaderTooLargeError) Error() string {
	return "response header over the limit of " + sizeName(e.Limit)
}

// sizeName writes a limit in the unit it was most likely given in.
func sizeName(n int64) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return fmt.Sprintf("%d GiB", n>>30)
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}
