package report

// curl's -w/--write-out format. The syntax follows curl's man page:
//
//	%{name}          a variable (see writeoutVars for the list)
//	%header{name}    the first value of a response header, trimmed
//	%{json}          all variables as one JSON object
//	%{header_json}   the response headers as JSON, values in arrays
//	%{stdout}        from here on write to standard output (the default)
//	%{stderr}        from here on write to standard error
//	%output{file}    from here on write to file, made anew for each
//	                 transfer; %output{>>file} appends (curl 8.3)
//	%{onerror}       the rest is written only if the transfer failed
//	%%               a percent sign
//	\n \r \t \\      newline, carriage return, tab, backslash
//
// Anything else is copied as it is, as curl does: a '%' or '\' that does
// not start one of the above is written literally, and an unknown
// variable writes nothing and produces a warning.

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/httpslab/httpslab/internal/probe"
)

// MaxWriteOutFormat bounds the format size in bytes; a format is a few
// lines.
const MaxWriteOutFormat = 1 << 20

// segment kinds of a parsed format.
const (
	segText       = iota // literal text
	segVar               // %{name}
	segHeader            // %header{name}
	segJSON              // %{json}
	segHeaderJSON        // %{header_json}
	segStdout            // %{stdout}
	segStderr            // %{stderr}
	segOnError           // %{onerror}
	segOutput            // %output{file}, text is the file name
	segAppend            // %output{>>file}, text is the file name
)

type segment struct {
	kind int
	text string // the literal text, variable name or header name
}

// WriteOut is a parsed curl -w format.
type WriteOut struct {
	segs []segment
	// Warnings are what curl would print on standard error while
	// parsing: unknown variables ("unknown --write-out variable: 'x'").
	Warnings []string
}

// WriteOutInput is what a format is executed on.
type WriteOutInput struct {
	// Hops are the requests of one transfer, one per redirect hop; the
	// last is the final response.
	Hops []probe.Timeline
	// ExitCode is the exit code of the run (%{exitcode}, %{onerror}).
	// Zero with a failed hop means "failed" all the same.
	ExitCode int
	// ErrorMessage is the error of the run (%{errormsg}); empty means the
	// last hop's Err.
	ErrorMessage string
	// Err is the run's failure, for the certificate error of a
	// handshake that failed (%{ssl_verify_result}); nil for none.
	Err error
	// Filename is where the body was written (-o), for
	// %{filename_effective}.
	Filename string
}

// failed reports whether the transfer counts as failed for %{onerror}.
func (in *WriteOutInput) failed() bool {
	if in.ExitCode != 0 || in.ErrorMessage != "" {
		return true
	}
	return len(in.Hops) == 0 || in.Hops[len(in.Hops)-1].Err != ""
}

// ParseWriteOut parses a curl -w format. Unknown variables are not an
// error (curl writes nothing for them); they are listed in Warnings.
func ParseWriteOut(format string) (*WriteOut, error) {
	if len(format) > MaxWriteOutFormat {
		return nil, fmt.Errorf("parsing write-out format: %d bytes, more than the limit of %d", len(format), MaxWriteOutFormat)
	}
	p := &WriteOut{}
	var text strings.Builder
	flush := func() {
		if text.Len() > 0 {
			p.segs = append(p.segs, segment{kind: segText, text: text.String()})
			text.Reset()
		}
	}
	for i := 0; i < len(format); {
		c := format[i]
		switch {
		case c == '%' && i+1 < len(format):
			n, seg, lit := p.parsePercent(format[i:])
			if seg != nil {
				flush()
				p.segs = append(p.segs, *seg)
			}
			text.WriteString(lit)
			i += n
		case c == '\\' && i+1 < len(format):
			text.WriteString(unescape(format[i+1]))
			i += 2
		default:
			text.WriteByte(c)
			i++
		}
	}
	flush()
	return p, nil
}

// unescape returns what the backslash escape \c writes.
func unescape(c byte) string {
	switch c {
	case 'n':
		return "\n"
	case 'r':
		return "\r"
	case 't':
		return "\t"
	case '\\':
		return "\\"
	}
	return "\\" + string(c)
}

// parsePercent parses the directive at the start of s (s[0] == '%') and
// returns how many bytes it used, the segment it makes (nil for none)
// and literal text to write instead.
func (p *WriteOut) parsePercent(s string) (int, *segment, string) {
	switch {
	case s[1] == '%':
		return 2, nil, "%"
	case s[1] == '{':
		end := strings.IndexByte(s, '}')
		if end < 0 {
			// curl writes "%{" and goes on after it.
			return 2, nil, "%{"
		}
		return end + 1, p.variable(s[2:end]), ""
	case strings.HasPrefix(s[1:], "output{"):
		end := strings.IndexByte(s, '}')
		if end < 0 {
			return len("%output{"), nil, "%output{"
		}
		name, kind := s[len("%output{"):end], segOutput
		if rest, ok := strings.CutPrefix(name, ">>"); ok {
			name, kind = rest, segAppend
		}
		return end + 1, &segment{kind: kind, text: name}, ""
	case strings.HasPrefix(s[1:], "header{"):
		end := strings.IndexByte(s, '}')
		if end < 0 {
			return len("%header{"), nil, "%header{"
		}
		return end + 1, &segment{kind: segHeader, text: s[len("%header{"):end]}, ""
	}
	return 2, nil, s[:2]
}

// variable returns the segment for %{name}, or nil with a warning when
// the name is unknown. Names match case-insensitively, as in curl.
func (p *WriteOut) variable(name string) *segment {
	lower := strings.ToLower(name)
	switch lower {
	case "json":
		return &segment{kind: segJSON}
	case "header_json":
		return &segment{kind: segHeaderJSON}
	case "stdout":
		return &segment{kind: segStdout}
	case "stderr":
		return &segment{kind: segStderr}
	case "onerror":
		return &segment{kind: segOnError}
	}
	if _, ok := writeoutVars[lower]; ok {
		return &segment{kind: segVar, text: lower}
	}
	p.Warnings = append(p.Warnings, fmt.Sprintf("unknown --write-out variable: '%s'", name))
	return nil
}

// Execute writes the format for one transfer. Output starts on stdout;
// %{stderr}, %{stdout} and %output{file} switch between writers.
func (p *WriteOut) Execute(stdout, stderr io.Writer, in WriteOutInput) (err error) {
	ctx := newWriteoutContext(&in)
	out := stdout
	var files []*os.File
	defer func() {
		for _, f := range files {
			if cerr := f.Close(); cerr != nil && err == nil {
				err = fmt.Errorf("writing write-out output: %w", cerr)
			}
		}
	}()
	for _, s := range p.segs {
		var err error
		switch s.kind {
		case segText:
			_, err = io.WriteString(out, s.text)
		case segVar:
			_, err = io.WriteString(out, ctx.value(s.text).text())
		case segHeader:
			_, err = io.WriteString(out, Escape(ctx.header(s.text)))
		case segJSON:
			err = ctx.writeJSON(out)
		case segHeaderJSON:
			err = ctx.writeHeaderJSON(out)
		case segStdout:
			out = stdout
		case segStderr:
			out = stderr
		case segOutput, segAppend:
			flag := os.O_WRONLY | os.O_CREATE | os.O_TRUNC
			if s.kind == segAppend {
				flag = os.O_WRONLY | os.O_CREATE | os.O_APPEND
			}
			var f *os.File
			if f, err = os.OpenFile(s.text, flag, 0o666); err == nil {
				files = append(files, f)
				out = f
			}
		case segOnError:
			if !in.failed() {
				return nil
			}
		}
		if err != nil {
			return fmt.Errorf("writing write-out output: %w", err)
		}
	}
	return nil
}

// JoinFormatLines prepares a -w format read from a file or standard
// input (curl's -w @file and -w @-): like curl, it drops its line
// breaks, so that its lines are joined and only \n in the format makes
// a new line.
func JoinFormatLines(format string) string {
	return strings.NewReplacer("\r", "", "\n", "").Replace(format)
}
