package cli

import (
	"bytes"
	"fmt"
	"math"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/httpslab/httpslab/internal/probe"
	"github.com/httpslab/httpslab/internal/transport"
	"github.com/spf13/pflag"
)

// requestFlags are the request, connection and TLS flags that probe,
// bench and compare share, spelled as curl spells them.
type requestFlags struct {
	tls12, tls13         bool
	tlsMax               string
	ciphers, curves      string
	cacert               string
	insecure             bool
	resolve, connectTo   []string
	ipv4, ipv6           bool
	headers              []string
	method               string
	data, dataBinary     []string
	http11, http2, http3 bool
	maxTime              string
	maxHeader            headerSize
}

// add registers the flags on fs.
func (f *requestFlags) add(fs *pflag.FlagSet) {
	f.addTLS(fs)
	f.addRequest(fs)
}

// addOnly registers the named flags of the shared set only, for a
// command whose own flags take the others' letters (bench's -d and -m).
func (f *requestFlags) addOnly(fs *pflag.FlagSet, names ...string) {
	all := pflag.NewFlagSet("request", pflag.ContinueOnError)
	f.add(all)
	for _, name := range names {
		fs.AddFlag(all.Lookup(name))
	}
}

// addTLS registers curl's TLS and trust flags only (bench uses these and
// spells the rest as wrk and h2load do).
func (f *requestFlags) addTLS(fs *pflag.FlagSet) {
	fs.BoolVar(&f.tls12, "tlsv1.2", false, "use TLS 1.2 or later")
	fs.BoolVar(&f.tls13, "tlsv1.3", false, "use TLS 1.3")
	fs.StringVar(&f.tlsMax, "tls-max", "", "highest TLS `version` to offer: 1.0, 1.1, 1.2 or 1.3")
	fs.StringVar(&f.ciphers, "ciphers", "", "TLS 1.2 cipher suite `list`, OpenSSL or IANA names, ':' separated")
	fs.StringVar(&f.curves, "curves", "", "key exchange group `list` in order, as the TLS registry names them (x25519:secp256r1, X25519MLKEM768) or OpenSSL does (prime256v1, P-256)")
	fs.StringVar(&f.cacert, "cacert", "", "verify the server against the CA certificates in this PEM `file`")
	fs.BoolVarP(&f.insecure, "insecure", "k", false, "do not verify the server's certificate")
}

// addRequest registers the connection, request and protocol flags.
func (f *requestFlags) addRequest(fs *pflag.FlagSet) {
	fs.StringArrayVar(&f.resolve, "resolve", nil, "connect to ADDR without DNS, given as `HOST:PORT:ADDR[,ADDR]` (repeatable)")
	fs.StringArrayVar(&f.connectTo, "connect-to", nil, "connect to HOST2:PORT2 instead, given as `HOST1:PORT1:HOST2:PORT2` (repeatable)")
	fs.BoolVarP(&f.ipv4, "ipv4", "4", false, "use IPv4 addresses only")
	fs.BoolVarP(&f.ipv6, "ipv6", "6", false, "use IPv6 addresses only")
	fs.StringArrayVarP(&f.headers, "header", "H", nil, "extra request `header` 'Name: value' (repeatable; 'Name:' removes a default)")
	fs.StringVarP(&f.method, "request", "X", "", "request `method`")
	fs.StringArrayVarP(&f.data, "data", "d", nil, "request body `data`, sent as a form; @file reads a file, @- standard input, without newlines (repeatable, joined with &)")
	fs.StringArrayVar(&f.dataBinary, "data-binary", nil, "request body `data` as is; @file reads a file, @- standard input, unchanged")
	fs.BoolVar(&f.http11, "http1.1", false, "use HTTP/1.1")
	fs.BoolVar(&f.http2, "http2", false, "use HTTP/2 (over http://: with prior knowledge)")
	fs.BoolVar(&f.http3, "http3", false, "use HTTP/3 over QUIC")
	fs.StringVarP(&f.maxTime, "max-time", "m", "", "give up after this long, in `seconds` (2.5) or with a unit (1500ms)")
	addHeaderSize(fs, &f.maxHeader)
}

// tls returns the TLS setup of the flags.
func (f *requestFlags) tls() (transport.TLS, error) {
	t, err := transport.CurlTLS{TLSv12: f.tls12, TLSv13: f.tls13, Max: f.tlsMax, Ciphers: f.ciphers, Curves: f.curves,
		CAFile: f.cacert, Insecure: f.insecure}.TLS()
	if err != nil {
		return t, usageError{err}
	}
	if f.cacert != "" {
		if _, err := os.Stat(f.cacert); err != nil {
			return t, usagef("--cacert: %v", err)
		}
	}
	return t, nil
}

// protocol returns the protocol chosen by --http1.1, --http2 or --http3.
func (f *requestFlags) protocol() (transport.Protocol, error) {
	p, err := transport.CurlProtocol(f.http11, f.http2, f.http3)
	if err != nil {
		return p, usageError{err}
	}
	return p, nil
}

// timeout reads --max-time: seconds as curl takes them, or a Go duration.
// Not given, it is def, the command's own bound; 0 is curl's "no limit".
func (f *requestFlags) timeout(def time.Duration) (time.Duration, error) {
	if f.maxTime == "" {
		return def, nil
	}
	d, err := parseSeconds(f.maxTime)
	if err != nil || d < 0 {
		return 0, usagef("--max-time %q: want seconds (2.5) or a duration (1500ms)", f.maxTime)
	}
	return d, nil
}

// parseSeconds reads a time as curl (--max-time 2.5) and wrk (-d 5) take
// it, a bare number of seconds, or as a Go duration (1500ms, 1m30s).
func parseSeconds(s string) (time.Duration, error) {
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

// header reads the -H flags.
func (f *requestFlags) header() (http.Header, error) { return parseHeaders(f.headers) }

// parseHeaders reads -H lines; a malformed one is a usage error.
func parseHeaders(lines []string) (http.Header, error) {
	h, err := transport.ParseHeaderLines(lines)
	if err != nil {
		return nil, usageError{err}
	}
	return h, nil
}

// body reads -d and --data-binary, with curl's @file forms.
func (f *requestFlags) body() ([]byte, error) {
	if len(f.data) == 0 && len(f.dataBinary) == 0 {
		return nil, nil
	}
	var parts [][]byte
	for _, d := range f.data {
		b, err := readData(d)
		if err != nil {
			return nil, err
		}
		if strings.HasPrefix(d, "@") {
			b = bytes.ReplaceAll(bytes.ReplaceAll(b, []byte("\r"), nil), []byte("\n"), nil)
		}
		parts = append(parts, b)
	}
	for _, d := range f.dataBinary {
		b, err := readData(d)
		if err != nil {
			return nil, err
		}
		parts = append(parts, b)
	}
	return bytes.Join(parts, []byte("&")), nil
}

// maxBody bounds a request body read from a file or standard input.
const maxBody = 64 << 20

// readData reads a -d or --data-binary argument: the text itself, or
// with @ the contents of a file, @- standard input, as curl does, up to
// maxBody bytes.
func readData(arg string) ([]byte, error) {
	name, ok := strings.CutPrefix(arg, "@")
	if !ok {
		return []byte(arg), nil
	}
	b, err := readInput(name, stdin, maxBody)
	if err != nil {
		return nil, usagef("-d %s: %v", arg, err)
	}
	return b, nil
}

// probeConfig turns the flags into a probe.Config for url; without
// --max-time, a request gives up after defaultTimeout.
func (f *requestFlags) probeConfig(url string, defaultTimeout time.Duration) (probe.Config, error) {
	cfg := probe.Config{URL: url, Method: f.method}
	var err error
	if cfg.TLS, err = f.tls(); err != nil {
		return cfg, err
	}
	if cfg.Protocol, err = f.protocol(); err != nil {
		return cfg, err
	}
	if cfg.Timeout, err = f.timeout(defaultTimeout); err != nil {
		return cfg, err
	}
	cfg.MaxHeaderBytes = int64(f.maxHeader)
	if cfg.Header, err = f.header(); err != nil {
		return cfg, err
	}
	if cfg.Body, err = f.body(); err != nil {
		return cfg, err
	}
	if cfg.Routes, err = f.routes(); err != nil {
		return cfg, err
	}
	return cfg, nil
}

// checkScheme refuses a target URL given without its scheme, naming what
// it is, with the URL to write: "127.0.0.1:8443/" failed in the URL
// parser ("first path segment in URL cannot contain colon") and
// "localhost:8443" as a scheme.
func checkScheme(what, u string) error {
	if strings.Contains(u, "://") {
		return nil
	}
	return withHint(usagef("%s %q: want an http:// or https:// URL", what, u),
		fmt.Sprintf("write the scheme, e.g. https://%s/", strings.TrimSuffix(u, "/")))
}

// routes reads --resolve, --connect-to, -4 and -6; bad entries are
// usage errors.
func (f *requestFlags) routes() (transport.Routes, error) {
	r, err := transport.CurlRoutes{Resolve: f.resolve, ConnectTo: f.connectTo, IPv4: f.ipv4, IPv6: f.ipv6}.Routes()
	if err != nil {
		return r, usageError{err}
	}
	return r, nil
}
