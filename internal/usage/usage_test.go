package usage

import (
	"errors"
	"io/fs"
	"testing"
)

func TestError(t *testing.T) {
	for _, tt := range []struct {
		err       error
		msg, hint string
	}{
		{Errorf("-n %d: want 1 to %d", 0, 10), "-n 0: want 1 to 10", ""},
		{Hinted("give the scheme", "%q: want a URL", "x"), `"x": want a URL`, "give the scheme"},
		{Wrap(fs.ErrNotExist, "give a file that exists"), "file does not exist", "give a file that exists"},
	} {
		var u *Error
		if !errors.As(tt.err, &u) {
			t.Errorf("error %v is not a usage error", tt.err)
		} else if u.Error() != tt.msg || u.Hint != tt.hint {
			t.Errorf("usage error %q, hint %q; want %q, hint %q", u.Error(), u.Hint, tt.msg, tt.hint)
		}
	}
	if !errors.Is(Wrap(fs.ErrNotExist, ""), fs.ErrNotExist) {
		t.Error("Wrap(fs.ErrNotExist) does not unwrap to it")
	}
	if Wrap(nil, "hint") != nil {
		t.Error("Wrap(nil) is not nil")
	}
}
