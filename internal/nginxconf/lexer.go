package nginxconf

import (
	"fmt"
	"strings"
)

type tokKind uint8

const (
	tokWord  tokKind = iota
	tokSemi          // ;
	tokOpen          // {
	tokClose         // }
	tokEOF
)

// token is one token; start and end bound its raw bytes (quotes included).
type token struct {
	kind       tokKind
	value      string
	start, end int
	line       int
}

// lexer splits a configuration into tokens as nginx's ngx_conf_read_token
// does.
type lexer struct {
	src  []byte
	pos  int
	line int
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }

// next returns the next token, skipping whitespace and comments.
func (l *lexer) next() (token, error) {
	for l.pos < len(l.src) {
		c := l.src[l.pos]
		switch {
		case isSpace(c):
			l.advance()
		case c == '#':
			for l.pos < len(l.src) && l.src[l.pos] != '\n' {
				l.pos++
			}
		case c == ';' || c == '{' || c == '}':
			kind := map[byte]tokKind{';': tokSemi, '{': tokOpen, '}': tokClose}[c]
			l.pos++
			return token{kind: kind, start: l.pos - 1, end: l.pos, line: l.line}, nil
		case c == '"' || c == '\'':
			return l.quoted(c)
		default:
			return l.word()
		}
	}
	return token{kind: tokEOF, start: l.pos, end: l.pos, line: l.line}, nil
}

func (l *lexer) advance() {
	if l.src[l.pos] == '\n' {
		l.line++
	}
	l.pos++
}

// word reads an unquoted word: it ends at whitespace, ';' or '{' (a '{'
// right after '$' is part of a "${name}" variable), and a backslash
// keeps the next byte in the word whatever it is.
func (l *lexer) word() (token, error) {
	t := token{kind: tokWord, start: l.pos, line: l.line}
	variable := false
	for l.pos < len(l.src) {
		c := l.src[l.pos]
		if c == '{' && variable {
			l.pos++
			continue
		}
		variable = false
		switch {
		case c == '\\':
			l.advance()
			if l.pos < len(l.src) {
				l.advance()
			}
			continue
		case c == '$':
			variable = true
		case isSpace(c) || c == ';' || c == '{':
			t.end = l.pos
			t.value = unescape(string(l.src[t.start:t.end]))
			return t, nil
		}
		l.pos++
	}
	t.end = l.pos
	t.value = unescape(string(l.src[t.start:t.end]))
	return t, nil
}

// quoted reads a word in quotes; after the closing quote nginx wants
// whitespace, ';', '{' or ')'.
func (l *lexer) quoted(q byte) (token, error) {
	t := token{kind: tokWord, start: l.pos, line: l.line}
	l.pos++
	for l.pos < len(l.src) {
		c := l.src[l.pos]
		if c == '\\' {
			l.advance()
			if l.pos < len(l.src) {
				l.advance()
			}
			continue
		}
		if c == q {
			t.end = l.pos + 1
			t.value = unescape(string(l.src[t.start+1 : l.pos]))
			l.pos++
			if l.pos < len(l.src) {
				if n := l.src[l.pos]; !isSpace(n) && n != ';' && n != '{' && n != ')' {
					return t, &SyntaxError{l.line, fmt.Sprintf("unexpected %q after a quoted string", n)}
				}
			}
			return t, nil
		}
		l.advance()
	}
	return t, &SyntaxError{t.line, "unexpected end of file in a quoted string"}
}

// unescape undoes nginx's escapes in a word: \" \' \\ stand for
// themselves and \t \r \n for their control characters; any other
// backslash stays as it is (regular expressions keep theirs).
func unescape(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			switch s[i+1] {
			case '"', '\'', '\\':
				i++
			case 't', 'r', 'n':
				b.WriteByte(map[byte]byte{'t': '\t', 'r': '\r', 'n': '\n'}[s[i+1]])
				i++
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}
