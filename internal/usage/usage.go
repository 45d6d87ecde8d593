// Package usage is the error of a value a command cannot take: a flag out
// of range, a malformed list, a URL without a scheme. The packages that
// turn a command line's values into their Config return it, with what to
// write instead where that helps; the command tree reports it as a
// usage error (exit code 2) with its hint.
package usage

import "fmt"

// Error is a value the command cannot take, and the hint for the user.
type Error struct {
	Err  error
	Hint string // what to give instead; "" when the message says it
}

func (e *Error) Error() string { return e.Err.Error() }
func (e *Error) Unwrap() error { return e.Err }

// Errorf returns a usage error with the formatted message and no hint.
func Errorf(format string, args ...any) error {
	return &Error{Err: fmt.Errorf(format, args...)}
}

// Hinted returns a usage error with the formatted message and hint.
func Hinted(hint, format string, args ...any) error {
	return &Error{Err: fmt.Errorf(format, args...), Hint: hint}
}

// Wrap marks err as a usage error with hint; a nil err stays nil.
func Wrap(err error, hint string) error {
	if err == nil {
		return nil
	}
	return &Error{Err: err, Hint: hint}
}
