package transport

import (
	"errors"
	"fmt"
	"io"
	"os"
)

// TooLargeError is an input over its size limit.
type TooLargeError struct{ Limit int64 }

func (e TooLargeError) Error() string {
	if e.Limit%(1<<20) == 0 {
		return fmt.Sprintf("more than the limit of %d MiB", e.Limit>>20)
	}
	return fmt.Sprintf("more than the limit of %d bytes", e.Limit)
}

// ReadInput reads the file a command line names, or in for "-", up to
// limit bytes: a request body (-d @FILE), a -w format, a list of URLs, an
// nginx template. A regular file over the limit is refused before it is
// read, and a pipe or device (/dev/zero, a fast producer) is read no
// further than one byte past it, not by its reported size. Errors name
// neither the flag nor the file; the caller adds them.
func ReadInput(name string, in io.Reader, limit int64) ([]byte, error) {
	if name == "" {
		return nil, errors.New("a file name must follow @ (@- reads standard input)")
	}
	r := in
	if name != "-" {
		fh, err := os.Open(name)
		if err != nil {
			return nil, err
		}
		defer fh.Close()
		if fi, err := fh.Stat(); err == nil && fi.Mode().IsRegular() && fi.Size() > limit {
			return nil, TooLargeError{limit}
		}
		r = fh
	}
	b, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > limit {
		return nil, TooLargeError{limit}
	}
	return b, nil
}
