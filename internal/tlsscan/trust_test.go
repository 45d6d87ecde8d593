package tlsscan

import (
	"context"
	"crypto/x509"
	"errors"
	"net"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/httpslab/httpslab/internal/lab"
	"github.com/httpslab/httpslab/internal/labtest"
	"github.com/httpslab/httpslab/internal/transport"
)

// TestAuditTrust: each way transport.Trust names the roots reaches the
// chain check. The server trickles its answer, so every audit that gets
// past the first handshake stops at its one-second limit.
func TestAuditTrust(t *testing.T) {
	t.Parallel()
	s := labtest.NewMisbehaving(t, labtest.TLS(labtest.Trickle("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok", time.Second)))
	_, p, _ := net.SplitHostPort(s.Addr)
	port, _ := strconv.Atoi(p)
	caFile := filepath.Join(t.TempDir(), "ca.pem")
	if err := s.CA.WriteFile(caFile); err != nil {
		t.Fatal(err)
	}
	other, err := lab.NewCA(lab.ECDSAP256)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		trust   transport.Trust
		wantErr error // nil: past the chain check, to the time limit
		trusted bool
	}{
		{"the server's CA file", transport.Trust{CAFile: caFile}, nil, true},
		{"the server's CA pool", transport.Trust{RootCAs: s.CA.Pool()}, nil, true},
		{"another CA", transport.Trust{RootCAs: other.Pool()}, ErrUntrusted, false},
		{"another CA, insecure", transport.Trust{RootCAs: other.Pool(), Insecure: true}, nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rep, err := Run(context.Background(), Config{Host: "127.0.0.1", Port: port, Trust: tt.trust, Timeout: 5 * time.Second, MaxTime: time.Second})
			if tt.wantErr != nil {
				if !errors.Is(err, tt.wantErr) || rep != nil {
					t.Fatalf("Run = %v, report %v; want %v and no report", err, rep != nil, tt.wantErr)
				}
				return
			}
			if !errors.Is(err, ErrTimeLimit) || rep == nil {
				t.Fatalf("Run = %v, report %v; want ErrTimeLimit and the report", err, rep != nil)
			}
			if rep.Chain.Trusted != tt.trusted {
				t.Errorf("chain trusted %v; want %v", rep.Chain.Trusted, tt.trusted)
			}
		})
	}
}

// TestAuditTrustBadFile: a CA file that cannot be read, or one given with
// a pool, ends the audit before it dials.
func TestAuditTrustBadFile(t *testing.T) {
	t.Parallel()
	port := labtest.FreePort(t, "tcp")
	pool := x509.NewCertPool()
	for _, tt := range []struct {
		trust transport.Trust
		want  string
	}{
		{transport.Trust{CAFile: filepath.Join(t.TempDir(), "missing.pem")}, "reading CA bundle"},
		{transport.Trust{CAFile: "ca.pem", RootCAs: pool}, "both a CA file (ca.pem) and a CA pool"},
	} {
		rep, err := Run(context.Background(), Config{Host: "127.0.0.1", Port: port, Trust: tt.trust})
		if err == nil || !strings.Contains(err.Error(), tt.want) || rep != nil {
			t.Errorf("Run(%+v) = %v, report %v; want an error with %q and no report", tt.trust, err, rep != nil, tt.want)
		}
	}
}
