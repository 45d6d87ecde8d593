package compare

import (
	"errors"
	"fmt"

	"github.com/httpslab/httpslab/internal/transport"
)

// Hint suggests what to do about a comparison that failed with err, in
// the words of compare's flags. It knows the failures of compare's own
// checks: a response that is not the resource (an error status, or plain
// HTTP redirected to HTTPS) would have been compared with the resource.
// Otherwise it is transport.Hint's.
func Hint(err error) string {
	var (
		status  *StatusError
		variant *VariantError
	)
	version := transport.ServerAlert(err, transport.AlertProtocolVersion)
	switch {
	case version && errors.As(err, &variant) && variant.Key.TLS == "1.2":
		return "the server does not speak TLS 1.2; leave tls out of --vary to measure TLS 1.3 alone"
	case version:
		return "the server does not speak TLS 1.3; for a server without it (nginx before 1.23.4 by default), --tls-max 1.2 measures the variants with TLS 1.2"
	case transport.ServerAlert(err, transport.AlertNoApplicationProtocol):
		return "the server does not offer this variant's protocol in ALPN (nginx: 'listen 443 ssl http2'); --vary without proto leaves HTTP/2 out"
	case errors.As(err, &status) && status.Location != "":
		return "this URL only redirects to the other scheme; give the URL that serves the resource itself (--http-url for plain HTTP), or --vary without scheme to compare HTTPS variants only"
	case errors.As(err, &status):
		return fmt.Sprintf("the server answers %d; measure a path it serves (in the URL and --http-url, or --path on the embedded server)", status.Status)
	}
	return transport.Hint(err)
}
