package load

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/binary"
	"errors"
	"sync"
	"sync/atomic"
	"time"
)

// verifyCache verifies server certificate chains for a run, once per
// distinct chain and name rather than on every handshake: a browser keeps
// such results too, and verifying the same chain from scratch on each of
// thousands of new connections measures the client's x509 code, not the
// server. The handshake's own signature (TLS 1.3's CertificateVerify,
// TLS 1.2's ServerKeyExchange) is still checked by crypto/tls on every
// handshake against the leaf's key, so a server that presents a cached
// chain without its private key is refused as before.
//
// An entry holds until the earliest expiry in the verified chains and
// never longer than verifyTTL, so a run notices a revoked trust or an
// expired certificate within that time.
type verifyCache struct {
	roots *x509.CertPool // nil: the system roots
	now   func() time.Time

	mu      sync.Mutex
	entries map[string]*verifyEntry

	verified atomic.Int64 // chains verified from scratch, for tests
}

// verifyTTL is the longest a verification result is reused.
const verifyTTL = time.Minute

// maxVerifyEntries bounds the cache: a run talks to one name, and a server
// rotating through more chains than this is verified as they come.
const maxVerifyEntries = 64

type verifyEntry struct {
	done  chan struct{} // closed once err and until are set
	err   error
	until time.Time
}

func newVerifyCache(roots *x509.CertPool) *verifyCache {
	return &verifyCache{roots: roots, now: time.Now, entries: map[string]*verifyEntry{}}
}

// install makes tc verify through the cache: crypto/tls's own chain
// verification is turned off and VerifyConnection does it instead, with
// the same options (roots, name, intermediates, server authentication).
func (c *verifyCache) install(tc *tls.Config) {
	name := tc.ServerName // what crypto/tls verifies against
	tc.InsecureSkipVerify = true
	tc.VerifyConnection = func(cs tls.ConnectionState) error {
		return c.verify(cs.PeerCertificates, name)
	}
}

// verify checks certs (leaf first, as the server sent them) for name,
// from the cache when the same chain was verified for the same name before.
// Concurrent first handshakes wait for one verification.
func (c *verifyCache) verify(certs []*x509.Certificate, name string) error {
	if len(certs) == 0 {
		return errors.New("tls: server presented no certificate")
	}
	// The key is built in a buffer on the stack for the usual chain: a
	// map look-up by string(kb) copies nothing, so a hit allocates
	// nothing; the key is copied once, when it is stored.
	var buf [4096]byte
	kb := appendChainKey(buf[:0], certs, name)
	now := c.now()
	c.mu.Lock()
	e, ok := c.entries[string(kb)]
	if ok {
		select {
		case <-e.done:
			if e.err == nil && now.Before(e.until) {
				c.mu.Unlock()
				return nil
			}
			ok = false // expired or failed: verify again
		default:
		}
	}
	if ok {
		c.mu.Unlock()
		<-e.done
		return e.err
	}
	if len(c.entries) >= maxVerifyEntries {
		c.evict(now)
	}
	key := string(kb)
	e = &verifyEntry{done: make(chan struct{})}
	c.entries[key] = e
	c.mu.Unlock()

	e.until, e.err = c.verifyChain(certs, name, now)
	if e.err != nil {
		// Failures are not kept: the next handshake tries afresh.
		c.mu.Lock()
		if c.entries[key] == e {
			delete(c.entries, key)
		}
		c.mu.Unlock()
	}
	close(e.done)
	return e.err
}

// verifyChain is crypto/tls's verification of a server's chain; it returns
// how long the result holds.
func (c *verifyCache) verifyChain(certs []*x509.Certificate, name string, now time.Time) (time.Time, error) {
	c.verified.Add(1)
	opts := x509.VerifyOptions{
		Roots:         c.roots,
		CurrentTime:   now,
		DNSName:       name,
		Intermediates: x509.NewCertPool(),
	}
	for _, cert := range certs[1:] {
		opts.Intermediates.AddCert(cert)
	}
	chains, err := certs[0].Verify(opts)
	if err != nil {
		// As crypto/tls reports it, so that hints find the x509 error.
		return time.Time{}, &tls.CertificateVerificationError{UnverifiedCertificates: certs, Err: err}
	}
	until := now.Add(verifyTTL)
	for _, chain := range chains {
		for _, cert := range chain {
			if cert.NotAfter.Before(until) {
				until = cert.NotAfter
			}
		}
	}
	return until, nil
}

// evict drops finished entries that no longer hold, or all finished ones
// when none has expired; c.mu is held.
func (c *verifyCache) evict(now time.Time) {
	for _, stale := range []bool{true, false} {
		for k, e := range c.entries {
			select {
			case <-e.done:
				if !stale || !now.Before(e.until) {
					delete(c.entries, k)
				}
			default:
			}
		}
		if len(c.entries) < maxVerifyEntries {
			return
		}
	}
}

// appendChainKey appends to b the key of a chain and name: the name and
// the exact bytes of the chain, each prefixed by its length, so that two
// chains share a key only when every byte is the same.
func appendChainKey(b []byte, certs []*x509.Certificate, name string) []byte {
	b = binary.BigEndian.AppendUint32(b, uint32(len(name)))
	b = append(b, name...)
	for _, cert := range certs {
		b = binary.BigEndian.AppendUint32(b, uint32(len(cert.Raw)))
		b = append(b, cert.Raw...)
	}
	return b
}
