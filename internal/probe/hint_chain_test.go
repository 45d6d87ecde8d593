package probe

import (
	"crypto/tls"
	"strings"
	"testing"

	"github.com/httpslab/httpslab/internal/lab"
	"github.com/httpslab/httpslab/internal/transport"
)

// TestHintIncompleteChain: a server that sends its leaf without the
// intermediate gets a hint naming the missing issuer, and none asks for
// the --cacert already given; a leaf of an unknown CA keeps asking for it.
func TestHintIncompleteChain(t *testing.T) {
	root, err := lab.NewCA(lab.ECDSAP256)
	if err != nil {
		t.Fatal(err)
	}
	inter, err := root.NewIntermediate(lab.ECDSAP256)
	if err != nil {
		t.Fatal(err)
	}
	leaf, err := inter.Issue(lab.ECDSAP256, "127.0.0.1")
	if err != nil {
		t.Fatal(err)
	}
	ln, err := tls.Listen("tcp", "127.0.0.1:0", &tls.Config{Certificates: []tls.Certificate{leaf.TLS}})
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			_ = c.(*tls.Conn).Handshake()
			c.Close()
		}
	}()
	dialErr := func(trust transport.Trust) error {
		roots, _ := trust.Roots()
		c, err := tls.Dial("tcp", ln.Addr().String(), &tls.Config{RootCAs: roots, ServerName: "127.0.0.1"})
		if err == nil {
			c.Close()
			t.Fatal("the handshake verified a chain without its intermediate")
		}
		return err
	}
	given := transport.Trust{RootCAs: root.Pool()}
	hint := Hint(dialErr(given), Config{TLS: transport.TLS{Trust: given}}, nil)
	if !strings.Contains(hint, "sends 1 certificate; its issuer, CN=httpslab test intermediate CA") || strings.Contains(hint, "--cacert") {
		t.Errorf("hint with --cacert given = %q; want the missing intermediate named and no --cacert", hint)
	}
	other, err := lab.NewCA(lab.ECDSAP256)
	if err != nil {
		t.Fatal(err)
	}
	// A leaf of a CA that is not trusted: nothing says it is incomplete.
	ln2, err := tls.Listen("tcp", "127.0.0.1:0", &tls.Config{GetCertificate: func(*tls.ClientHelloInfo) (*tls.Certificate, error) {
		l, err := other.Issue(lab.ECDSAP256, "127.0.0.1")
		if err != nil {
			return nil, err
		}
		return &l.TLS, nil
	}})
	if err != nil {
		t.Fatal(err)
	}
	defer ln2.Close()
	go func() {
		c, err := ln2.Accept()
		if err == nil {
			_ = c.(*tls.Conn).Handshake()
			c.Close()
		}
	}()
	_, err = tls.Dial("tcp", ln2.Addr().String(), &tls.Config{RootCAs: nil, ServerName: "127.0.0.1"})
	if hint := Hint(err, Config{}, nil); !strings.Contains(hint, "pass --cacert FILE or -k") {
		t.Errorf("hint for an unknown CA without --cacert = %q; want it to ask for --cacert", hint)
	}
}
