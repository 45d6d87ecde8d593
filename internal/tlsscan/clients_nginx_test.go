//go:build !race

package tlsscan

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"

	"github.com/httpslab/httpslab/internal/lab"
	"github.com/httpslab/httpslab/internal/labtest"
	"github.com/httpslab/httpslab/internal/transport"
)

// realOutcome is what a real client negotiated, in the simulation's
// terms; Group is empty where the client does not say.
type realOutcome struct {
	ok                    bool
	version, suite, group string
	detail                string
}

// realClient connects a client that runs here to host:port.
type realClient struct {
	sim string // the simulated client it is checked against
	run func(t *testing.T, hostport string) realOutcome
}

// openSSLNames maps OpenSSL's suite names to IANA's, from OpenSSL itself.
func openSSLNames(t *testing.T) map[string]string {
	t.Helper()
	out, err := exec.Command("openssl", "ciphers", "-stdname", "ALL:@SECLEVEL=0").Output()
	if err != nil {
		t.Fatalf("openssl ciphers -stdname: %v", err)
	}
	m := map[string]string{}
	for _, line := range strings.Split(string(out), "\n") {
		f := strings.Fields(line)
		if len(f) >= 3 && f[1] == "-" {
			m[f[2]] = f[0]
		}
	}
	return m
}

func runCmd(t *testing.T, name string, args ...string) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Stdin = strings.NewReader("")
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// groupFromTempKey reads OpenSSL's "Server Temp Key: X25519, 253 bits",
// "ECDH, prime256v1, 256 bits" or "DH, 1024 bits".
func groupFromTempKey(s string) string {
	m := regexp.MustCompile(`Server Temp Key: ([^,\n]+), (?:([^,\n]+), )?(\d+) bits`).FindStringSubmatch(s)
	switch {
	case m == nil:
		return ""
	case m[1] == "DH":
		return "DH " + m[3]
	case m[1] == "ECDH" && m[2] == "prime256v1":
		return "secp256r1"
	case m[1] == "ECDH":
		return m[2]
	}
	return strings.ToLower(m[1])
}

func realClients(t *testing.T) []realClient {
	names := openSSLNames(t)
	iana := func(n string) string {
		if v, ok := names[n]; ok {
			return v
		}
		return n
	}
	cs := []realClient{
		{"OpenSSL 3.0, curl (Debian 12)", func(t *testing.T, hp string) realOutcome {
			out, _ := runCmd(t, "openssl", "s_client", "-brief", "-connect", hp, "-servername", "localhost")
			p := regexp.MustCompile(`Protocol version: (TLSv[\d.]+)`).FindStringSubmatch(out)
			m := regexp.MustCompile(`Ciphersuite: (\S+)`).FindStringSubmatch(out)
			if m == nil || p == nil {
				return realOutcome{detail: out}
			}
			return realOutcome{ok: true, version: version12(p[1]), suite: iana(m[1]), group: groupFromTempKey(out), detail: out}
		}},
		{"OpenSSL 3.0, curl (Debian 12)", func(t *testing.T, hp string) realOutcome {
			out, err := runCmd(t, "curl", "-sSv", "-k", "-o", "/dev/null", "https://"+hp+"/")
			m := regexp.MustCompile(`SSL connection using (TLSv[\d.]+) / (\S+)`).FindStringSubmatch(out)
			if err != nil || m == nil {
				return realOutcome{detail: out}
			}
			return realOutcome{ok: true, version: version12(m[1]), suite: iana(m[2]), detail: out}
		}},
		{"Python 3.10+ ssl (Debian 12)", func(t *testing.T, hp string) realOutcome {
			host, port, _ := strings.Cut(hp, ":")
			script := `import json, socket, ssl, sys
c = ssl.create_default_context(); c.check_hostname = False; c.verify_mode = ssl.CERT_NONE
with socket.create_connection((sys.argv[1], int(sys.argv[2])), timeout=10) as s:
    with c.wrap_socket(s) as t:
        print(json.dumps([t.version(), t.cipher()[0]]))`
			out, err := runCmd(t, "python3", "-c", script, host, port)
			var r []string
			if err != nil || json.Unmarshal([]byte(strings.TrimSpace(out)), &r) != nil || len(r) != 2 {
				return realOutcome{detail: out}
			}
			return realOutcome{ok: true, version: version12(r[0]), suite: iana(r[1]), detail: out}
		}},
		{"Node.js 18+", func(t *testing.T, hp string) realOutcome {
			host, port, _ := strings.Cut(hp, ":")
			script := `const tls = require('tls');
const s = tls.connect({host: process.argv[1], port: +process.argv[2], rejectUnauthorized: false, servername: 'localhost'}, () => {
  const k = s.getEphemeralKeyInfo() || {};
  console.log(JSON.stringify([s.getProtocol(), s.getCipher().standardName, k.type === 'DH' ? 'DH ' + k.size : (k.name || '')]));
  s.end();
});
s.on('error', e => { console.error(e.message); process.exit(1); });`
			out, err := runCmd(t, "node", "-e", script, host, port)
			var r []string
			if err != nil || json.Unmarshal([]byte(strings.TrimSpace(out)), &r) != nil || len(r) != 3 {
				return realOutcome{detail: out}
			}
			g := r[2]
			if g == "X25519" {
				g = "x25519"
			} else if g == "prime256v1" {
				g = "secp256r1"
			}
			return realOutcome{ok: true, version: version12(r[0]), suite: r[1], group: g, detail: out}
		}},
		{"Go 1.24+ crypto/tls", func(t *testing.T, hp string) realOutcome {
			d := &tls.Dialer{Config: &tls.Config{InsecureSkipVerify: true, ServerName: "localhost"}}
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			c, err := d.DialContext(ctx, "tcp", hp)
			if err != nil {
				return realOutcome{detail: err.Error()}
			}
			defer c.Close()
			cs := c.(*tls.Conn).ConnectionState()
			return realOutcome{ok: true, version: tls.VersionName(cs.Version), suite: SuiteName(cs.CipherSuite), group: transport.GroupName(cs.CurveID)}
		}},
	}
	if bin, err := exec.LookPath("chromium"); err == nil {
		cs = append(cs, realClient{"Chrome 131+", chromiumClient(bin)})
	}
	if _, err := exec.LookPath("javac"); err == nil {
		cs = append(cs, realClient{"Java 17", javaClient(t)})
	}
	return cs
}

// javaClient runs OpenJDK's default SSLSocket, trusting any certificate.
func javaClient(t *testing.T) func(t *testing.T, hp string) realOutcome {
	src := filepath.Join(t.TempDir(), "Hello.java")
	prog := `import javax.net.ssl.*; import java.security.cert.X509Certificate;
public class Hello { public static void main(String[] a) throws Exception {
  TrustManager[] tm = { new X509TrustManager() {
    public void checkClientTrusted(X509Certificate[] c, String s) {}
    public void checkServerTrusted(X509Certificate[] c, String s) {}
    public X509Certificate[] getAcceptedIssuers() { return new X509Certificate[0]; } } };
  SSLContext ctx = SSLContext.getInstance("TLS"); ctx.init(null, tm, null);
  try (SSLSocket s = (SSLSocket) ctx.getSocketFactory().createSocket(a[0], Integer.parseInt(a[1]))) {
    s.setSoTimeout(10000); s.startHandshake();
    System.out.println(s.getSession().getProtocol() + " " + s.getSession().getCipherSuite());
  } } }`
	if err := os.WriteFile(src, []byte(prog), 0o600); err != nil {
		t.Fatal(err)
	}
	if out, err := runCmd(t, "javac", "-d", filepath.Dir(src), src); err != nil {
		t.Fatalf("javac: %v\n%s", err, out)
	}
	return func(t *testing.T, hp string) realOutcome {
		host, port, _ := strings.Cut(hp, ":")
		out, err := runCmd(t, "java", "-cp", filepath.Dir(src), "Hello", host, port)
		f := strings.Fields(strings.TrimSpace(out))
		if err != nil || len(f) != 2 {
			return realOutcome{detail: out}
		}
		return realOutcome{ok: true, version: version12(f[0]), suite: f[1], detail: out}
	}
}

// version12 names a version as Go does: "TLSv1.2" and "TLSv1" become
// "TLS 1.2" and "TLS 1.0".
func version12(v string) string {
	v = strings.Replace(v, "TLSv", "TLS ", 1)
	if v == "TLS 1" {
		return "TLS 1.0"
	}
	return v
}

// chromiumClient loads https://hostport/ in headless Chromium and reads
// the connection from the DevTools protocol's security details.
func chromiumClient(bin string) func(t *testing.T, hp string) realOutcome {
	return func(t *testing.T, hp string) realOutcome {
		opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(bin), chromedp.NoSandbox,
			chromedp.UserDataDir(t.TempDir()), chromedp.Flag("ignore-certificate-errors", true))
		actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
		defer cancelAlloc()
		ctx, cancelTime := context.WithTimeout(actx, time.Minute)
		defer cancelTime()
		bctx, cancelBrowser := chromedp.NewContext(ctx)
		defer cancelBrowser()
		var mu sync.Mutex
		var sec *network.SecurityDetails
		err := chromedp.Listen(bctx, func(ev any) {
			if r, ok := ev.(*network.EventResponseReceived); ok && r.Type == network.ResourceTypeDocument && r.Response.SecurityDetails != nil {
				mu.Lock()
				sec = r.Response.SecurityDetails
				mu.Unlock()
			}
		})
		if err != nil {
			t.Fatalf("starting chromium: %v", err)
		}
		if _, err := chromedp.Call(bctx, network.Enable, network.EnableParams{}); err != nil {
			t.Fatalf("chromium: %v", err)
		}
		err = chromedp.Do(bctx, chromedp.Navigate("https://"+hp+"/"))
		mu.Lock()
		defer mu.Unlock()
		if err != nil || sec == nil {
			return realOutcome{detail: fmt.Sprint(err)}
		}
		return realOutcome{ok: true, version: sec.Protocol, suite: chromiumSuite(sec), group: chromiumGroup(sec.KeyExchangeGroup),
			detail: fmt.Sprintf("%+v", *sec)}
	}
}

// chromiumSuite names the suite of Chromium's security details as IANA
// does: key exchange ("ECDHE_RSA", empty in TLS 1.3), cipher
// ("AES_128_GCM") and MAC ("HMAC-SHA1", none with an AEAD).
func chromiumSuite(sec *network.SecurityDetails) string {
	hash := map[string]string{"AES_128_GCM": "SHA256", "AES_256_GCM": "SHA384", "CHACHA20_POLY1305": "SHA256"}[sec.Cipher]
	if sec.Mac != "" {
		hash = strings.TrimPrefix(strings.ReplaceAll(sec.Mac, "-", ""), "HMAC")
		if hash == "SHA1" {
			hash = "SHA"
		}
	}
	if sec.KeyExchange == "" {
		return "TLS_" + sec.Cipher + "_" + hash
	}
	return "TLS_" + sec.KeyExchange + "_WITH_" + sec.Cipher + "_" + hash
}

func chromiumGroup(g string) string {
	switch g {
	case "X25519":
		return "x25519"
	case "P-256":
		return "secp256r1"
	case "P-384":
		return "secp384r1"
	}
	return g
}

// TestClientsMatchRealClients audits nginx set up four ways and checks
// each simulated client that runs here against the real one: the same
// version, suite and (where the client says) group, and a failure where
// the simulation says it fails.
func TestClientsMatchRealClients(t *testing.T) {
	t.Parallel()
	dh1024 := filepath.Join(t.TempDir(), "dh1024.pem")
	if out, err := exec.Command("openssl", "dhparam", "-dsaparam", "-out", dh1024, "1024").CombinedOutput(); err != nil {
		t.Fatalf("openssl dhparam: %v\n%s", err, out)
	}
	clients := realClients(t)
	configs := []struct {
		name string
		cfg  lab.NginxConfig
		// fails are the simulated clients that must fail here.
		fails []string
	}{
		{"modern", lab.NginxConfig{Cert: lab.RSA2048, NoDefaults: true, TLSDirectives: "ssl_protocols TLSv1.2 TLSv1.3;\n" + mozillaCiphers}, nil},
		{"legacy-cbc", lab.NginxConfig{Cert: lab.RSA2048, NoDefaults: true, TLSDirectives: "ssl_protocols TLSv1 TLSv1.1 TLSv1.2;\n" +
			"ssl_ciphers ECDHE-RSA-AES128-SHA:ECDHE-RSA-AES256-SHA:AES128-SHA:AES256-SHA:@SECLEVEL=0;\nssl_prefer_server_ciphers on;"},
			[]string{"Python 3.10+ ssl (Debian 12)"}},
		{"tls13-only", lab.NginxConfig{NoDefaults: true, TLSDirectives: "ssl_protocols TLSv1.3;"},
			[]string{"Java 8 (8u291+)", "Android 7.0", "IE 11 on Windows 7"}},
		{"dh1024-preferred", lab.NginxConfig{Cert: lab.RSA2048, NoDefaults: true, TLSDirectives: "ssl_protocols TLSv1.2;\n" +
			"ssl_ciphers DHE-RSA-AES128-GCM-SHA256:ECDHE-RSA-AES128-GCM-SHA256:@SECLEVEL=0;\nssl_prefer_server_ciphers on;\nssl_dhparam " + dh1024 + ";"},
			[]string{"OpenSSL 3.0, curl (Debian 12)", "Python 3.10+ ssl (Debian 12)"}},
	}
	for _, tc := range configs {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			n := labtest.StartNginx(t, tc.cfg)
			rep, _, err := auditLab(t, n, false)
			if err != nil {
				t.Fatal(err)
			}
			sim := map[string]ClientResult{}
			for _, c := range rep.Clients {
				sim[c.Client] = c
			}
			for _, name := range tc.fails {
				if c, ok := sim[name]; !ok || c.OK {
					t.Errorf("simulated %s: %+v; want a failure", name, c)
				}
			}
			u, _ := url.Parse(n.HTTPSURL)
			for _, rc := range clients {
				s, ok := sim[rc.sim]
				if !ok {
					t.Fatalf("no simulated client %q", rc.sim)
				}
				got := rc.run(t, u.Host)
				t.Logf("%s: real ok=%v %s %s %s; simulated ok=%v %s %s %s", rc.sim, got.ok, got.version, got.suite, got.group, s.OK, s.Version, s.Suite, s.Group)
				switch {
				case got.ok != s.OK:
					t.Errorf("%s: the real client connected: %v (%s %s %s); simulated: %+v\n%s", rc.sim, got.ok, got.version, got.suite, got.group, s, got.detail)
				case !got.ok:
				case got.version != s.Version || got.suite != s.Suite || (got.group != "" && got.group != s.Group):
					t.Errorf("%s: the real client got %s %s %s; simulated %s %s %s", rc.sim, got.version, got.suite, got.group, s.Version, s.Suite, s.Group)
				}
			}
		})
	}
}

// TestClientsFailFix: a 1024-bit prime on nginx's preferred TLS 1.2 suite
// shuts out the current OpenSSL 3 and Python clients; clients-fail names
// them, and its fix applied to nginx lets them in (and the real
// openssl s_client with them).
func TestClientsFailFix(t *testing.T) {
	t.Parallel()
	dh1024, dh2048 := dhParams(t)
	start := []string{"ssl_protocols TLSv1.2;", "ssl_ciphers DHE-RSA-AES128-GCM-SHA256:ECDHE-RSA-AES128-GCM-SHA256:@SECLEVEL=0;",
		"ssl_prefer_server_ciphers on;", "ssl_dhparam " + dh1024 + ";"}
	cfg := lab.NginxConfig{Cert: lab.RSA2048, NoDefaults: true, TLSDirectives: strings.Join(start, "\n")}
	rep, _, err := auditLab(t, labtest.StartNginx(t, cfg), false)
	if err != nil {
		t.Fatal(err)
	}
	f := findingByID(rep.Findings, "clients-fail")
	if f == nil || !strings.Contains(f.Cost.Fails, "OpenSSL 3.0") || !strings.Contains(f.Cost.Fails, "Python") ||
		!strings.Contains(f.Evidence, "under the client's minimum of 2048") {
		t.Fatalf("clients-fail = %+v; want the OpenSSL 3 and Python clients named, with the DH prime as the cause", f)
	}
	cfg.TLSDirectives = strings.Join(applyFix(start, strings.ReplaceAll(f.Fix, dhparamFile, dh2048)), "\n")
	fixed := labtest.StartNginx(t, cfg)
	rep, _, err = auditLab(t, fixed, false)
	if err != nil {
		t.Fatal(err)
	}
	if f := findingByID(rep.Findings, "clients-fail"); f != nil {
		t.Errorf("after its fix, clients-fail is still found: %s", f.Evidence)
	}
	for _, c := range rep.Clients {
		if c.Current && !c.OK {
			t.Errorf("after the fix, %s still fails: %s", c.Client, c.Failure)
		}
	}
	u, _ := url.Parse(fixed.HTTPSURL)
	if out, _ := runCmd(t, "openssl", "s_client", "-connect", u.Host); !strings.Contains(out, "Cipher is DHE-RSA-AES128-GCM-SHA256") {
		t.Errorf("after the fix, openssl s_client did not get the DHE suite:\n%s", out)
	}
}
