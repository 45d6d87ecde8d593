package transport

import (
	"crypto/x509"
	"fmt"
	"io"
	"os"
)

// Trust says which servers a client accepts: those whose chain verifies
// against the roots of a CA file (CAFile, curl's --cacert), against a
// pool already in memory (RootCAs: the embedded server's generated CA, so
// that a caller holding the CA needs no temporary file), or against the
// system roots when both are empty. Insecure (curl's -k) accepts any
// server; for audit it turns an untrusted chain into a finding. At most one
// of CAFile and RootCAs is set. The zero value trusts the system roots.
type Trust struct {
	CAFile   string         // PEM bundle; empty: RootCAs
	RootCAs  *x509.CertPool // trusted roots when CAFile is empty; nil: system roots
	Insecure bool           // -k: do not verify the server
}

// Roots returns the pool to verify a chain against: CAFile's certificates,
// read now, or RootCAs; nil means the system roots.
func (t Trust) Roots() (*x509.CertPool, error) {
	if t.CAFile != "" && t.RootCAs != nil {
		// Merging them would hide which one a failed verification used.
		return nil, fmt.Errorf("tls config: both a CA file (%s) and a CA pool given; give one", t.CAFile)
	}
	if t.CAFile != "" {
		return loadPool(t.CAFile)
	}
	return t.RootCAs, nil
}

// Load returns t with its CA file read into RootCAs, so that a bad file is
// found once, when the command line is read, and not at every use.
func (t Trust) Load() (Trust, error) {
	roots, err := t.Roots()
	if err != nil {
		return t, err
	}
	return Trust{RootCAs: roots, Insecure: t.Insecure}, nil
}

// maxCABundle bounds a CA bundle file: Debian's whole system bundle is
// about 220 KiB, so 16 MiB is no real bundle, and a device such as
// /dev/zero would otherwise be read until memory runs out.
const maxCABundle = 16 << 20

func loadPool(path string) (*x509.CertPool, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("reading CA bundle: %w", err)
	}
	defer f.Close()
	pem, err := io.ReadAll(io.LimitReader(f, maxCABundle+1))
	if err != nil {
		return nil, fmt.Errorf("reading CA bundle: %w", err)
	}
	if len(pem) > maxCABundle {
		return nil, fmt.Errorf("reading CA bundle %q: more than %d MiB, no CA bundle is that large", path, maxCABundle>>20)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pem) {
		return nil, fmt.Errorf("reading CA bundle %q: no PEM certificate in it", path)
	}
	return pool, nil
}
