package demo

import (
	"context"
	"fmt"
	"net"
	"net/url"
	"strconv"

	"github.com/httpslab/httpslab/internal/embedded"
	"github.com/httpslab/httpslab/internal/tlsscan"
	"github.com/httpslab/httpslab/internal/transport"
)

// runAudit audits the embedded server, plain port included.
func runAudit(ctx context.Context, srv *embedded.Server) (*tlsscan.Report, error) {
	host, port, err := hostPort(srv.HTTPSURL)
	if err != nil {
		return nil, err
	}
	_, plain, err := hostPort(srv.HTTPURL)
	if err != nil {
		return nil, err
	}
	return tlsscan.Run(ctx, tlsscan.Config{Host: host, Port: port, HTTPPort: plain, Trust: transport.Trust{RootCAs: srv.CA.Pool()},
		LargePath: "/bytes/65536"})
}

// hostPort splits the host and port of one of the server's URLs.
func hostPort(raw string) (string, int, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return "", 0, fmt.Errorf("parsing %q: %w", raw, err)
	}
	host, p, err := net.SplitHostPort(u.Host)
	if err != nil {
		return "", 0, fmt.Errorf("parsing %q: %w", raw, err)
	}
	port, err := strconv.Atoi(p)
	return host, port, err
}
