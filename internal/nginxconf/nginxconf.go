// Package nginxconf reads nginx's configuration syntax and rewrites single
// directives in place. It keeps every byte it does not change (layout,
// comments, quoting), so that a rewritten file differs from its template
// in the named directive alone and a user can diff the two.
//
// The tokenizer follows nginx's own (ngx_conf_read_token in
// src/core/ngx_conf_file.c): words end at whitespace, ';' or '{'; a '}'
// ends a block only at the start of a word; '#' starts a comment only at
// the start of a word; quotes and backslash escapes keep separators inside
// a word; "${" does not open a block. nginx's crossplane library for Go
// parses the same syntax but rebuilds the whole file when it writes one
// (layout and comments lost) and its lexer gives lines, not byte offsets,
// so an in-place edit needs this small tokenizer of its own.
package nginxconf

import (
	"fmt"
	"strings"
)

// Directive is one directive: its name, its arguments (unquoted and
// unescaped as nginx reads them) and, for a block directive, the
// directives inside its braces. Offsets index the source.
type Directive struct {
	Name  string
	Args  []string
	Block []*Directive // nil for a simple directive
	// IsBlock is true for a directive followed by braces, empty or not.
	IsBlock bool
	// Line is the 1-based line of the directive's name.
	Line int
	// NameEnd is the offset just past the name; ArgsEnd is the offset of
	// the terminating ';' or '{' (ArgsEnd > NameEnd). ArgStart and ArgEnd
	// hold each argument's raw span, quotes included.
	NameEnd, ArgsEnd int
	ArgStart, ArgEnd []int
	// BlockOpen is the offset of '{' and BlockClose of the matching '}'.
	BlockOpen, BlockClose int
}

// Config is a parsed configuration and the source it came from.
type Config struct {
	Src        []byte
	Directives []*Directive
}

// MaxSize bounds the configuration Parse accepts: a real nginx.conf is a
// few kilobytes, and the parse keeps every directive in memory.
const MaxSize = 4 << 20

// maxDepth bounds block nesting, as nginx's own parser is recursive too.
const maxDepth = 100

// SyntaxError is a configuration nginx's parser would refuse.
type SyntaxError struct {
	Line int
	Msg  string
}

func (e *SyntaxError) Error() string { return fmt.Sprintf("line %d: %s", e.Line, e.Msg) }

// Parse reads a configuration. It checks syntax only: which directives
// exist and where they may stand is nginx's to say (nginx -t).
func Parse(src []byte) (*Config, error) {
	if len(src) > MaxSize {
		return nil, fmt.Errorf("parsing nginx config: %d bytes, more than %d", len(src), MaxSize)
	}
	p := &parser{lx: lexer{src: src, line: 1}}
	ds, err := p.block(0)
	if err != nil {
		return nil, fmt.Errorf("parsing nginx config: %w", err)
	}
	return &Config{Src: src, Directives: ds}, nil
}

type parser struct{ lx lexer }

// block reads directives up to the end of the file (depth 0) or up to the
// '}' that closes the current block.
func (p *parser) block(depth int) ([]*Directive, error) {
	if depth > maxDepth {
		return nil, &SyntaxError{p.lx.line, "blocks nested too deep"}
	}
	var out []*Directive
	for {
		d, tok, err := p.directive()
		if err != nil {
			return nil, err
		}
		switch {
		case tok.kind == tokEOF && depth > 0:
			return nil, &SyntaxError{tok.line, `unexpected end of file, expecting "}"`}
		case tok.kind == tokEOF:
			return out, nil
		case tok.kind == tokClose && depth == 0:
			return nil, &SyntaxError{tok.line, `unexpected "}"`}
		case tok.kind == tokClose:
			return out, nil
		}
		if d.IsBlock {
			if d.Block, err = p.block(depth + 1); err != nil {
				return nil, err
			}
			d.BlockClose = p.lx.pos - 1
		}
		out = append(out, d)
	}
}

// directive reads one directive up to its ';' or '{'. At the start of a
// directive, a '}' or the end of the file is returned as tok instead.
func (p *parser) directive() (*Directive, token, error) {
	var d *Directive
	for {
		tok, err := p.lx.next()
		if err != nil {
			return nil, tok, err
		}
		switch tok.kind {
		case tokWord:
			if d == nil {
				d = &Directive{Name: tok.value, Line: tok.line, NameEnd: tok.end}
				continue
			}
			d.Args = append(d.Args, tok.value)
			d.ArgStart = append(d.ArgStart, tok.start)
			d.ArgEnd = append(d.ArgEnd, tok.end)
		case tokSemi, tokOpen:
			if d == nil {
				return nil, tok, &SyntaxError{tok.line, fmt.Sprintf("unexpected %q", p.lx.src[tok.start])}
			}
			d.ArgsEnd = tok.start
			if tok.kind == tokOpen {
				d.IsBlock, d.BlockOpen = true, tok.start
			}
			return d, tok, nil
		case tokClose, tokEOF:
			if d != nil {
				return nil, tok, &SyntaxError{tok.line, `unexpected end of directive, expecting ";" or "{"`}
			}
			return nil, tok, nil
		}
	}
}

// Walk calls fn for every directive, depth first, with the names of the
// blocks that enclose it (outermost first).
func (c *Config) Walk(fn func(d *Directive, parents []string)) {
	walk(c.Directives, nil, fn)
}

func walk(ds []*Directive, parents []string, fn func(*Directive, []string)) {
	for _, d := range ds {
		fn(d, parents)
		if d.IsBlock {
			walk(d.Block, append(parents[:len(parents):len(parents)], d.Name), fn)
		}
	}
}

// Find returns every directive with the given name, at any depth.
func (c *Config) Find(name string) []*Directive {
	var out []*Directive
	c.Walk(func(d *Directive, _ []string) {
		if d.Name == name {
			out = append(out, d)
		}
	})
	return out
}

// String is the directive as one line: its name and raw arguments.
func (d *Directive) String() string {
	return strings.Join(append([]string{d.Name}, d.Args...), " ")
}
