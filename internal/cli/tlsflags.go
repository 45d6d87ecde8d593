package cli

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/httpslab/httpslab/internal/probe"
	"github.com/httpslab/httpslab/internal/transport"
	"github.com/spf13/pflag"
)

// stdin is where every "standard input" argument reads from: -d @-,
// --data-binary @-, -w @- and -i -. Tests replace it.
var stdin io.Reader = os.Stdin

// requestFlags are the request, connection and TLS flags that probe,
// bench, compare, page and audit share, spelled as curl spells them;
// transport.Curl reads them.
type requestFlags struct{ transport.Curl }

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
	fs.BoolVar(&f.TLSv12, "tlsv1.2", false, "use TLS 1.2 or later")
	fs.BoolVar(&f.TLSv13, "tlsv1.3", false, "use TLS 1.3")
	fs.StringVar(&f.Max, "tls-max", "", "highest TLS `version` to offer: 1.0, 1.1, 1.2 or 1.3")
	fs.StringVar(&f.Ciphers, "ciphers", "", "TLS 1.2 cipher suite `list`, OpenSSL or IANA names, ':' separated")
	fs.StringVar(&f.Curves, "curves", "", "key exchange group `list` in order, as the TLS registry names them (x25519:secp256r1, X25519MLKEM768) or OpenSSL does (prime256v1, P-256)")
	fs.StringVar(&f.CAFile, "cacert", "", "verify the server against the CA certificates in this PEM `file`")
	fs.BoolVarP(&f.Insecure, "insecure", "k", false, "do not verify the server's certificate")
}

// addRequest registers the connection, request and protocol flags.
func (f *requestFlags) addRequest(fs *pflag.FlagSet) {
	fs.StringArrayVar(&f.Resolve, "resolve", nil, "connect to ADDR without DNS, given as `HOST:PORT:ADDR[,ADDR]` (repeatable)")
	fs.StringArrayVar(&f.ConnectTo, "connect-to", nil, "connect to HOST2:PORT2 instead, given as `HOST1:PORT1:HOST2:PORT2` (repeatable)")
	fs.BoolVarP(&f.IPv4, "ipv4", "4", false, "use IPv4 addresses only")
	fs.BoolVarP(&f.IPv6, "ipv6", "6", false, "use IPv6 addresses only")
	fs.StringArrayVarP(&f.Headers, "header", "H", nil, "extra request `header` 'Name: value' (repeatable; 'Name:' removes a default)")
	fs.StringVarP(&f.Method, "request", "X", "", "request `method`")
	fs.StringArrayVarP(&f.Data, "data", "d", nil, "request body `data`, sent as a form; @file reads a file, @- standard input, without newlines (repeatable, joined with &)")
	fs.StringArrayVar(&f.DataBinary, "data-binary", nil, "request body `data` as is; @file reads a file, @- standard input, unchanged")
	fs.BoolVar(&f.HTTP11, "http1.1", false, "use HTTP/1.1")
	fs.BoolVar(&f.HTTP2, "http2", false, "use HTTP/2 (over http://: with prior knowledge)")
	fs.BoolVar(&f.HTTP3, "http3", false, "use HTTP/3 over QUIC")
	fs.StringVarP(&f.MaxTime, "max-time", "m", "", "give up after this long, in `seconds` (2.5) or with a unit (1500ms)")
	addHeaderSize(fs, (*headerSize)(&f.MaxHeaderBytes))
}

// probeConfig turns the flags into a probe.Config for url; without
// --max-time, a request gives up after defaultTimeout.
func (f *requestFlags) probeConfig(url string, defaultTimeout time.Duration) (probe.Config, error) {
	return probe.CurlConfig(url, f.Curl, stdin, defaultTimeout)
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
