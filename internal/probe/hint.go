package probe

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"syscall"

	"github.com/httpslab/httpslab/internal/transport"
)

// Hint suggests what to do about a probe of cfg that failed with err
// after the results given, in the words of probe's flags (curl's); ""
// when nothing useful can be said or the probe was cancelled. It knows
// probe's own failures (a close after the connection was set up, legacy
// TLS refused, the redirect limit, no HTTP/3 on the port) and leaves the
// rest to transport.Hint.
func Hint(err error, cfg Config, results []*Result) string {
	if err == nil || errors.Is(err, context.Canceled) {
		return ""
	}
	if afterHandshake(results) && errors.Is(err, io.EOF) {
		return "the server closed the connection without an answer, after the connection was set up; " +
			"its error log may say why (a request it refused, a crash, a limit on connections or requests)"
	}
	var op *net.OpError
	if transport.LegacyOnly(cfg.TLS.Max) && errors.As(err, &op) && op.Op == "remote error" {
		// OpenSSL 3 servers refuse TLS 1.1 and older at their default
		// security level, often with an "internal error" alert.
		return fmt.Sprintf("the server refused the handshake at --tls-max %s; most servers no longer speak TLS 1.1 or older (OpenSSL 3 turns them off by default): raise --tls-max",
			strings.TrimPrefix(tls.VersionName(cfg.TLS.Max), "TLS "))
	}
	if errors.Is(err, ErrRedirectLimit) {
		return "the server redirects more often than --max-redirs allows (a loop?); raise --max-redirs, or leave out -L to see the first answer"
	}
	if cfg.Protocol == transport.HTTP3 && errors.Is(err, syscall.ECONNREFUSED) {
		return "nothing listens on this UDP port: the server does not serve HTTP/3 here; try without --http3"
	}
	if cfg.Protocol == transport.HTTP3 && errors.Is(err, context.DeadlineExceeded) {
		return "no HTTP/3 answer in time; is HTTP/3 served over UDP on this port? Try without --http3"
	}
	if h := transport.UntrustedHint(err, cfg.TLS.Trust, "-k"); h != "" {
		return h // knows whether --cacert was given
	}
	return transport.Hint(err)
}

// afterHandshake reports whether the failed run's last hop failed with
// its connection set up: plain HTTP connected, or the TLS handshake done.
// A close then is no refused handshake.
func afterHandshake(results []*Result) bool {
	for _, r := range results {
		if fin := r.Final(); r.Err != nil && fin != nil {
			return !fin.Events.TLSDone.IsZero() || (strings.HasPrefix(fin.URL, "http://") && !fin.Events.ConnectDone.IsZero())
		}
	}
	return false
}
