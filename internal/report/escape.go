package report

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Escape returns s fit for a terminal or a text report: every character
// that a terminal would act on instead of showing is written as a Go
// escape (\r, \n, \t, \x1b, \u009b, \u202e), and each byte that is not
// UTF-8 as \xNN. Those are the C0 controls (ESC starts the sequences that
// set a window title or a colour, CR and LF forge lines) and DEL, the C1
// controls (U+009B is a CSI on some terminals), and the bidirectional
// overrides and isolates that reorder the text after them. Every string
// that comes from the network (certificate fields, header values, reason
// phrases, and the error texts that quote them) goes through Escape on
// its way to text output; JSON keeps the exact value, which its encoder
// escapes.
func Escape(s string) string {
	if !needsEscape(s) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case !escaped(r):
			b.WriteString(s[i : i+size])
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x80:
			fmt.Fprintf(&b, `\x%02x`, r)
		default:
			fmt.Fprintf(&b, `\u%04x`, r)
		}
		i += size
	}
	return b.String()
}

// needsEscape reports whether Escape would change s.
func needsEscape(s string) bool {
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if (r == utf8.RuneError && size == 1) || escaped(r) {
			return true
		}
		i += size
	}
	return false
}

// escaped reports whether Escape writes r as an escape.
func escaped(r rune) bool {
	switch {
	case r < 0x20, r == 0x7f, r >= 0x80 && r < 0xa0:
		return true
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069: // bidi embeddings, overrides, isolates
		return true
	}
	return false
}
