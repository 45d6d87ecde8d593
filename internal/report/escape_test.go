package report

import (
	"testing"
	"unicode/utf8"
)

func TestEscape(t *testing.T) {
	tests := []struct{ in, want string }{
		{"plain text, ünïcödé, 日本", "plain text, ünïcödé, 日本"},
		{"evil\x1b]0;title\x07", `evil\x1b]0;title\x07`},
		{"CN\r\nInjected: line", `CN\r\nInjected: line`},
		{"tab\there", `tab\there`},
		{"del\x7f c1\u009b[31m", `del\x7f c1\u009b[31m`},
		{"bidi \u202egnp.exe", `bidi \u202egnp.exe`},
		{"bad \xff\xfe utf-8", `bad \xff\xfe utf-8`},
		{"", ""},
	}
	for _, tt := range tests {
		if got := Escape(tt.in); got != tt.want {
			t.Errorf("Escape(%q) = %q; want %q", tt.in, got, tt.want)
		}
	}
}

// FuzzEscape: whatever a server sends, the escaped text is valid UTF-8
// without a character a terminal acts on.
func FuzzEscape(f *testing.F) {
	for _, s := range []string{"a", "\x1b]0;t\x07", "\r\n", "\u202e", "\xff", "\u009b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := Escape(s)
		if !utf8.ValidString(got) {
			t.Fatalf("Escape(%q) = %q: not UTF-8", s, got)
		}
		for _, r := range got {
			if escaped(r) {
				t.Fatalf("Escape(%q) = %q: keeps %U", s, got, r)
			}
		}
		if !needsEscape(s) && got != s {
			t.Fatalf("Escape(%q) = %q; want it unchanged", s, got)
		}
	})
}
