package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
)

// stdin is where every "standard input" argument reads from: -d @-,
// --data-binary @-, -w @- and -i -. Tests replace it.
var stdin io.Reader = os.Stdin

// tooLargeError is an input over its size limit.
type tooLargeError struct{ limit int64 }

func (e tooLargeError) Error() string {
	if e.limit%(1<<20) == 0 {
		return fmt.Sprintf("more than the limit of %d MiB", e.limit>>20)
	}
	return fmt.Sprintf("more than the limit of %d bytes", e.limit)
}

// readInput reads the file name, or in for "-", up to limit bytes: a
// regular file over the limit is refused before it is read, and a pipe
// or device (/dev/zero, a fast producer) is read no further than one
// byte past it, not by its reported size. Errors name neither the flag
// nor the file; the caller adds them.
func readInput(name string, in io.Reader, limit int64) ([]byte, error) {
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
			return nil, tooLargeError{limit}
		}
		r = fh
	}
	b, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > limit {
		return nil, tooLargeError{limit}
	}
	return b, nil
}
