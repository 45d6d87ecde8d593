package tlsscan

import (
	"context"
	"crypto/tls"
	"encoding/xml"
	"net/url"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/httpslab/httpslab/internal/lab"
	"github.com/httpslab/httpslab/internal/labtest"
)

// sslscanXML is the part of sslscan's --xml output compared with audit.
type sslscanXML struct {
	Protocols []struct {
		Type    string `xml:"type,attr"`
		Version string `xml:"version,attr"`
		Enabled string `xml:"enabled,attr"`
	} `xml:"ssltest>protocol"`
	Ciphers []struct {
		Version string `xml:"sslversion,attr"`
		ID      string `xml:"id,attr"`
	} `xml:"ssltest>cipher"`
	Groups []struct {
		Version string `xml:"sslversion,attr"`
		ID      string `xml:"id,attr"`
	} `xml:"ssltest>group"`
}

// inventory is versions, suites and groups as comparable strings.
type inventory struct {
	Versions []string
	Suites   map[string][]uint16
	Groups   map[string][]uint16
}

func parseSSLScan(t *testing.T, out []byte) inventory {
	t.Helper()
	var x sslscanXML
	if err := xml.Unmarshal(out, &x); err != nil {
		t.Fatalf("parsing sslscan XML: %v\n%s", err, out)
	}
	inv := inventory{Suites: map[string][]uint16{}, Groups: map[string][]uint16{}}
	names := map[string]string{"ssl2": "SSLv2", "ssl3": "SSLv3", "tls1.0": "TLS 1.0", "tls1.1": "TLS 1.1", "tls1.2": "TLS 1.2", "tls1.3": "TLS 1.3"}
	for _, p := range x.Protocols {
		if p.Enabled == "1" {
			inv.Versions = append(inv.Versions, names[p.Type+p.Version])
		}
	}
	vname := map[string]string{"TLSv1.0": "TLS 1.0", "TLSv1.1": "TLS 1.1", "TLSv1.2": "TLS 1.2", "TLSv1.3": "TLS 1.3", "SSLv3": "SSLv3"}
	hex := func(s string) uint16 {
		v, err := strconv.ParseUint(s, 0, 16)
		if err != nil {
			t.Fatalf("sslscan id %q: %v", s, err)
		}
		return uint16(v)
	}
	for _, c := range x.Ciphers {
		inv.Suites[vname[c.Version]] = append(inv.Suites[vname[c.Version]], hex(c.ID))
	}
	for _, g := range x.Groups {
		inv.Groups[vname[g.Version]] = append(inv.Groups[vname[g.Version]], hex(g.ID))
	}
	return inv.sorted()
}

func (inv inventory) sorted() inventory {
	slices.Sort(inv.Versions)
	for _, m := range []map[string][]uint16{inv.Suites, inv.Groups} {
		for _, v := range m {
			slices.Sort(v)
		}
	}
	return inv
}

func auditInventory(e *Enumeration) inventory {
	inv := inventory{Suites: map[string][]uint16{}, Groups: map[string][]uint16{}}
	for _, v := range e.Versions {
		if !v.Supported {
			continue
		}
		inv.Versions = append(inv.Versions, v.Name)
		for _, s := range v.Suites {
			inv.Suites[v.Name] = append(inv.Suites[v.Name], s.ID)
		}
	}
	for _, g := range e.Groups {
		inv.Groups[tls.VersionName(g.Version)] = append(inv.Groups[tls.VersionName(g.Version)], g.ID)
	}
	return inv.sorted()
}

// TestEnumerationAgreesWithSSLScan compares audit's versions, suites and
// groups with sslscan's on an nginx with TLS 1.2 and 1.3, CBC and RSA
// key-exchange suites, and is faster than sslscan.
func TestEnumerationAgreesWithSSLScan(t *testing.T) {
	t.Parallel()
	n := labtest.StartNginx(t, lab.NginxConfig{Cert: lab.RSA2048, NoDefaults: true, TLSDirectives: `
ssl_protocols TLSv1.2 TLSv1.3;
ssl_ciphers ECDHE-RSA-AES128-GCM-SHA256:ECDHE-RSA-AES256-SHA384:AES128-SHA:DHE-RSA-AES256-GCM-SHA384:ECDHE-RSA-CHACHA20-POLY1305;
ssl_prefer_server_ciphers on;
ssl_ecdh_curve X25519:prime256v1:secp384r1;`})
	u, _ := url.Parse(n.HTTPSURL)
	port, _ := strconv.Atoi(u.Port())
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	start := time.Now()
	d := &countingDialer{}
	e, err := enumerate(ctx, newProber(u.Host, u.Hostname(), 8, 5*time.Second, d), nil)
	if err != nil {
		t.Fatalf("enumerate: %v", err)
	}
	ours := time.Since(start)
	start = time.Now()
	out, err := exec.CommandContext(ctx, "sslscan", "--xml=-", "--no-colour", u.Hostname()+":"+strconv.Itoa(port)).Output()
	if err != nil {
		t.Fatalf("sslscan: %v\n%s", err, out)
	}
	theirs := time.Since(start)
	if diff := cmp.Diff(parseSSLScan(t, out), auditInventory(e)); diff != "" {
		t.Errorf("audit vs sslscan (-sslscan +audit):\n%s", diff)
	}
	if v := e.Version(VersionTLS12); v == nil || !v.ServerOrder || len(v.Suites) != 4 || v.Suites[0].ID != 0xC02F {
		t.Errorf("TLS 1.2 result %+v; want 4 suites (DHE needs ssl_dhparam) in the server's order, ECDHE-RSA-AES128-GCM-SHA256 first", v)
	}
	t.Logf("enumeration %v (%d connections), sslscan %v", ours, d.n.Load(), theirs)
	if ours > theirs && !raceEnabled {
		t.Errorf("enumeration took %v, sslscan %v; want audit faster", ours, theirs)
	}
}

// TestLegacyEnumerationAgreesWithSSLScan compares audit with sslscan on an
// nginx that accepts everything its OpenSSL builds (TLS 1.0 to 1.2, every
// suite at security level 0, anonymous and CCM_8 ones included) with a
// 1024-bit DH prime: the suites agree and dh-small names the prime.
func TestLegacyEnumerationAgreesWithSSLScan(t *testing.T) {
	t.Parallel()
	dh := filepath.Join(t.TempDir(), "dh1024.pem")
	if out, err := exec.Command("openssl", "dhparam", "-dsaparam", "-out", dh, "1024").CombinedOutput(); err != nil {
		t.Fatalf("openssl dhparam: %v\n%s", err, out)
	}
	n := labtest.StartNginx(t, lab.NginxConfig{Cert: lab.RSA2048, NoDefaults: true, TLSDirectives: `
ssl_protocols TLSv1 TLSv1.1 TLSv1.2;
ssl_ciphers ALL:COMPLEMENTOFALL:@SECLEVEL=0;
ssl_dhparam ` + dh + `;`})
	u, _ := url.Parse(n.HTTPSURL)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	e, err := enumerate(ctx, newProber(u.Host, u.Hostname(), 8, 5*time.Second, nil), nil)
	if err != nil {
		t.Fatalf("enumerate: %v", err)
	}
	out, err := exec.CommandContext(ctx, "sslscan", "--xml=-", "--no-colour", u.Host).Output()
	if err != nil {
		t.Fatalf("sslscan: %v\n%s", err, out)
	}
	want, got := parseSSLScan(t, out), auditInventory(e)
	if diff := cmp.Diff(want.Suites, got.Suites); diff != "" {
		t.Errorf("suites, audit vs sslscan (-sslscan +audit):\n%s", diff)
	}
	if e.DHBits != 1024 {
		t.Errorf("DHBits = %d; want 1024 (ssl_dhparam)", e.DHBits)
	}
	fs := findings(&Report{Enumeration: e})
	if i := slices.IndexFunc(fs, func(f Finding) bool { return f.ID == "dh-small" }); i < 0 || !strings.Contains(fs[i].Evidence, "1024-bit") {
		t.Errorf("findings %+v; want dh-small for the 1024-bit prime", fs)
	}
}
