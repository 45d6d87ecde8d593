package transport

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/httpslab/httpslab/internal/usage"
)

// Curl is a request as curl's options give it, for every command that
// takes them (probe, bench, compare, page, audit): the TLS and route
// options, --http1.1/--http2/--http3, -X, -H, -d, --data-binary,
// --max-time and --max-header-size, as given. Its methods read them;
// their errors are usage errors that name the option.
type Curl struct {
	CurlTLS
	CurlRoutes
	HTTP11, HTTP2, HTTP3 bool
	Method               string   // -X
	Headers              []string // -H lines
	Data, DataBinary     []string // -d and --data-binary: TEXT, @FILE or @-
	MaxTime              string   // --max-time: seconds or a duration; "" for the command's bound
	MaxHeaderBytes       int64    // --max-header-size
}

// TLS returns the TLS setup of the options; a --cacert file that cannot
// be read is refused now.
func (c Curl) TLS() (TLS, error) {
	t, err := c.CurlTLS.TLS()
	if err != nil {
		return t, usage.Wrap(err, "")
	}
	if c.CAFile != "" {
		if _, err := os.Stat(c.CAFile); err != nil {
			return t, usage.Errorf("--cacert: %v", err)
		}
	}
	return t, nil
}

// Routes returns the routes of --resolve, --connect-to, -4 and -6.
func (c Curl) Routes() (Routes, error) {
	r, err := c.CurlRoutes.Routes()
	return r, usage.Wrap(err, "")
}

// Protocol returns the protocol chosen by --http1.1, --http2 or --http3.
func (c Curl) Protocol() (Protocol, error) {
	p, err := CurlProtocol(c.HTTP11, c.HTTP2, c.HTTP3)
	return p, usage.Wrap(err, "")
}

// Timeout reads --max-time: seconds as curl takes them, or a duration.
// Not given, it is def, the command's own bound; 0 is curl's "no limit".
func (c Curl) Timeout(def time.Duration) (time.Duration, error) {
	if c.MaxTime == "" {
		return def, nil
	}
	d, err := ParseSeconds(c.MaxTime)
	if err != nil || d < 0 {
		return 0, usage.Errorf("--max-time %q: want seconds (2.5) or a duration (1500ms)", c.MaxTime)
	}
	return d, nil
}

// Header reads the -H lines.
func (c Curl) Header() (http.Header, error) {
	h, err := ParseHeaderLines(c.Headers)
	return h, usage.Wrap(err, "")
}

// MaxBody bounds a request body read from a file or standard input.
const MaxBody = 64 << 20

// Body reads -d and --data-binary, with curl's @file forms (@- reads
// stdin): -d's files lose their line ends, the parts are joined with &.
func (c Curl) Body(stdin io.Reader) ([]byte, error) {
	if len(c.Data) == 0 && len(c.DataBinary) == 0 {
		return nil, nil
	}
	var parts [][]byte
	for _, d := range c.Data {
		b, err := ReadData(d, stdin)
		if err != nil {
			return nil, err
		}
		if strings.HasPrefix(d, "@") {
			b = bytes.ReplaceAll(bytes.ReplaceAll(b, []byte("\r"), nil), []byte("\n"), nil)
		}
		parts = append(parts, b)
	}
	for _, d := range c.DataBinary {
		b, err := ReadData(d, stdin)
		if err != nil {
			return nil, err
		}
		parts = append(parts, b)
	}
	return bytes.Join(parts, []byte("&")), nil
}

// ReadData reads a -d or --data-binary argument: the text itself, or
// with @ the contents of a file, @- stdin, as curl does, up to MaxBody
// bytes.
func ReadData(arg string, stdin io.Reader) ([]byte, error) {
	name, ok := strings.CutPrefix(arg, "@")
	if !ok {
		return []byte(arg), nil
	}
	b, err := ReadInput(name, stdin, MaxBody)
	if err != nil {
		return nil, usage.Errorf("-d %s: %v", arg, err)
	}
	return b, nil
}

// ParseSeconds reads a time as curl (--max-time 2.5) and wrk (-d 5) take
// it, a bare number of seconds, or as a Go duration (1500ms, 1m30s).
func ParseSeconds(s string) (time.Duration, error) {
	if secs, err := strconv.ParseFloat(s, 64); err == nil {
		if math.IsNaN(secs) || math.IsInf(secs, 0) || math.Abs(secs) > maxBareSeconds {
			return 0, fmt.Errorf("%q seconds is out of range", s)
		}
		return time.Duration(secs * float64(time.Second)), nil
	}
	return time.ParseDuration(s)
}

// maxBareSeconds bounds a bare number of seconds, so that its conversion
// to a Duration cannot overflow (about 292 years fit).
const maxBareSeconds = 1e9
