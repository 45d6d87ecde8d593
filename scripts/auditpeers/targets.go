package main

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/httpslab/httpslab/internal/lab"
	"github.com/httpslab/httpslab/internal/labtest"
)

// A target is one server the three tools are run against: a lab nginx
// set up as one of the configurations auditors meet, or a server with a
// known TLS flaw.
type target struct {
	Name string
	// Nginx's server blocks, key kind and certificate.
	Cert         lab.KeyKind
	TLS, Plain   string
	Intermediate bool // a leaf of an intermediate CA, served without it
	Leaf         func(dir string) func(*lab.CA, lab.KeyKind) (*lab.Leaf, error)
	// DHBits, if set, makes a prime of that size for ssl_dhparam ({{dh}}
	// in TLS).
	DHBits int
	// Vuln, if set, is the flaw of a labtest server started instead of nginx.
	Vuln labtest.Vuln
	// DNSName, if set, is the name of labZone the tools reach the target
	// by (its leaf is issued for it) instead of 127.0.0.1.
	DNSName string
}

// modernTLS is Mozilla's intermediate profile with a session cache.
const modernTLS = `ssl_protocols TLSv1.2 TLSv1.3;
ssl_ciphers ECDHE-ECDSA-AES128-GCM-SHA256:ECDHE-ECDSA-CHACHA20-POLY1305:ECDHE-ECDSA-AES256-GCM-SHA384;
ssl_session_cache shared:peers:1m;
add_header Strict-Transport-Security "max-age=63072000" always;`

// redirect sends plain HTTP to HTTPS (audit's redirect check follows the
// plain port's answers until the first https:// one).
const redirect = "return 301 https://$host$request_uri;"

// targets are the configurations of the comparison: ten of nginx, two
// more reached by a name of labZone (with a CAA record and without), then
// one server per known flaw.
func targets() []target {
	out := []target{
		{Name: "modern", TLS: modernTLS, Plain: redirect},
		{Name: "legacy", Cert: lab.RSA2048, Plain: redirect, TLS: `ssl_protocols TLSv1 TLSv1.1 TLSv1.2;
ssl_ciphers ECDHE-RSA-AES128-GCM-SHA256:ECDHE-RSA-AES128-SHA:AES128-SHA:AES256-GCM-SHA384:AECDH-AES128-SHA:@SECLEVEL=0;
ssl_session_cache shared:peers:1m;`},
		{Name: "rsa4096-dh1024", Cert: lab.RSA4096, DHBits: 1024, Plain: redirect, TLS: `ssl_protocols TLSv1.2 TLSv1.3;
ssl_ciphers DHE-RSA-AES128-GCM-SHA256:ECDHE-RSA-AES128-GCM-SHA256:DHE-RSA-AES256-GCM-SHA384:@SECLEVEL=0;
ssl_prefer_server_ciphers on;
ssl_dhparam {{dh}};
ssl_session_cache shared:peers:1m;`},
		{Name: "tls13-p384", Plain: redirect, TLS: `ssl_protocols TLSv1.3;
ssl_ecdh_curve secp384r1;
ssl_session_cache shared:peers:1m;`},
		{Name: "expired", TLS: modernTLS, Plain: redirect, Leaf: func(string) func(*lab.CA, lab.KeyKind) (*lab.Leaf, error) {
			return func(ca *lab.CA, kind lab.KeyKind) (*lab.Leaf, error) {
				return ca.IssueValid(kind, time.Now().Add(-90*24*time.Hour), time.Now().Add(-24*time.Hour), lab.DefaultHosts...)
			}
		}},
		{Name: "missing-intermediate", TLS: modernTLS, Plain: redirect, Intermediate: true},
		{Name: "wrong-name", TLS: modernTLS, Plain: redirect, Leaf: func(string) func(*lab.CA, lab.KeyKind) (*lab.Leaf, error) {
			return func(ca *lab.CA, kind lab.KeyKind) (*lab.Leaf, error) { return ca.Issue(kind, "wrong.httpslab.test") }
		}},
		// OpenSSL 3 refuses to serve a SHA-1 certificate above security level 0.
		{Name: "sha1-leaf", Cert: lab.RSA2048, Plain: redirect, Leaf: sha1Leaf, TLS: `ssl_protocols TLSv1.2 TLSv1.3;
ssl_ciphers ECDHE-RSA-AES128-GCM-SHA256:ECDHE-RSA-CHACHA20-POLY1305:@SECLEVEL=0;
ssl_session_cache shared:peers:1m;`},
		{Name: "plain-no-redirect", TLS: modernTLS, Plain: "# serves the same files"},
		{Name: "redirect-chain", TLS: modernTLS,
			Plain: "location = / { return 301 /step; }\nlocation = /step { return 301 https://$host/; }"},
		{Name: "nginx-defaults", Plain: "# serves the same files"},
		{Name: "caa-record", TLS: modernTLS, Plain: redirect, DNSName: caaName, Leaf: namedLeaf(caaName)},
		{Name: "caa-missing", TLS: modernTLS, Plain: redirect, DNSName: noCAAName, Leaf: namedLeaf(noCAAName)},
	}
	for _, v := range labtest.Vulns {
		out = append(out, target{Name: "fake-" + string(v), Vuln: v})
	}
	return out
}

// namedLeaf issues a leaf for one DNS name.
func namedLeaf(name string) func(string) func(*lab.CA, lab.KeyKind) (*lab.Leaf, error) {
	return func(string) func(*lab.CA, lab.KeyKind) (*lab.Leaf, error) {
		return func(ca *lab.CA, kind lab.KeyKind) (*lab.Leaf, error) {
			return ca.Issue(kind, strings.TrimSuffix(name, "."))
		}
	}
}

// sha1Leaf issues a leaf signed with SHA-1 by the lab CA, with openssl:
// Go signs no certificate with SHA-1.
func sha1Leaf(dir string) func(*lab.CA, lab.KeyKind) (*lab.Leaf, error) {
	return func(ca *lab.CA, kind lab.KeyKind) (*lab.Leaf, error) {
		file := func(name string) string { return filepath.Join(dir, name) }
		caKey, err := x509.MarshalPKCS8PrivateKey(ca.Key)
		if err != nil {
			return nil, err
		}
		for name, data := range map[string][]byte{
			"sha1-ca.pem": ca.CertPEM, "sha1-ca.key": pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: caKey}),
			"sha1-ext": []byte("subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n"),
		} {
			if err := os.WriteFile(file(name), data, 0o600); err != nil {
				return nil, err
			}
		}
		newKey := []string{"-newkey", "rsa:2048"}
		if kind != lab.RSA2048 {
			newKey = []string{"-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256"}
		}
		for _, args := range [][]string{
			append(append([]string{"req"}, newKey...), "-nodes", "-keyout", file("sha1-leaf.key"), "-out", file("sha1-leaf.csr"), "-subj", "/CN=127.0.0.1"),
			{"x509", "-req", "-in", file("sha1-leaf.csr"), "-CA", file("sha1-ca.pem"), "-CAkey", file("sha1-ca.key"),
				"-set_serial", "0x5f3a9c0e1d2b4a6879c1e3f5a7b9d1e3", "-sha1", "-days", "30", "-extfile", file("sha1-ext"), "-out", file("sha1-leaf.pem")},
		} {
			if out, err := exec.Command("openssl", args...).CombinedOutput(); err != nil {
				return nil, fmt.Errorf("openssl %s: %v\n%s", args[0], err, out)
			}
		}
		certPEM, err1 := os.ReadFile(file("sha1-leaf.pem"))
		keyPEM, err2 := os.ReadFile(file("sha1-leaf.key"))
		if err1 != nil || err2 != nil {
			return nil, fmt.Errorf("reading the SHA-1 leaf: %v %v", err1, err2)
		}
		pair, err := tls.X509KeyPair(certPEM, keyPEM)
		if err != nil {
			return nil, err
		}
		return &lab.Leaf{TLS: pair, CertPEM: certPEM, KeyPEM: keyPEM}, nil
	}
}

// A running target: where it listens, the CA that issued its
// certificate, and how to stop it.
type running struct {
	HostPort  string // the HTTPS address
	PlainPort string // "" when there is no plain listener
	CAFile    string
	Close     func()
}

// start starts the target, its files in dir, listening on host ("" for
// 127.0.0.1).
func (tg target) start(ctx context.Context, dir, host string) (*running, error) {
	if tg.Vuln != "" {
		s, err := labtest.NewVulnServerAt(tg.Vuln, host)
		if err != nil {
			return nil, err
		}
		ca := filepath.Join(dir, "ca.pem")
		if err := s.CA.WriteFile(ca); err != nil {
			s.Close()
			return nil, err
		}
		return &running{HostPort: s.Addr, CAFile: ca, Close: s.Close}, nil
	}
	tlsDirectives := tg.TLS
	if tg.DHBits > 0 {
		dh := filepath.Join(dir, "dhparam.pem")
		if out, err := exec.CommandContext(ctx, "openssl", "dhparam", "-dsaparam", "-out", dh, fmt.Sprint(tg.DHBits)).CombinedOutput(); err != nil {
			return nil, fmt.Errorf("openssl dhparam: %v\n%s", err, out)
		}
		tlsDirectives = strings.ReplaceAll(tlsDirectives, "{{dh}}", dh)
	}
	cfg := lab.NginxConfig{HTTP2: true, Cert: tg.Cert, TLSDirectives: tlsDirectives, NoDefaults: true, Host: host,
		Intermediate: tg.Intermediate, OmitIntermediate: tg.Intermediate}
	if tg.Leaf != nil {
		cfg.Leaf = tg.Leaf(dir)
	}
	cfg.PlainDirectives = tg.Plain
	n, err := lab.StartNginx(ctx, cfg)
	if err != nil {
		return nil, err
	}
	u, _ := url.Parse(n.HTTPSURL)
	p, _ := url.Parse(n.HTTPURL)
	hostPort := u.Host
	if tg.DNSName != "" {
		hostPort = net.JoinHostPort(strings.TrimSuffix(tg.DNSName, "."), u.Port())
	}
	return &running{HostPort: hostPort, PlainPort: p.Port(), CAFile: filepath.Join(n.Dir, "ca.pem"), Close: func() { n.Close() }}, nil
}
