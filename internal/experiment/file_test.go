package experiment

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

const exampleFile = `
nginx = "nginx.conf"
measure = ["bench", "--conn", "resume", "-d", "3s", "https://localhost:8443/", "--cacert", "ca.pem"]
blocks = 12
seed = 7

[baseline]
ssl_session_tickets = "off"

[[variant]]
name = "tickets on"
set = { ssl_session_tickets = "on" }

[[variant]]
name = "RSA"
set = { ssl_certificate = "rsa.pem", ssl_certificate_key = "rsa.key" }
`

func TestParseFile(t *testing.T) {
	f, err := ParseFile([]byte(exampleFile))
	if err != nil {
		t.Fatal(err)
	}
	if f.Nginx != "nginx.conf" || f.Blocks != 12 || f.Seed != 7 || len(f.Measure) != 8 || len(f.Variants) != 2 {
		t.Errorf("ParseFile = %+v", f)
	}
	vs, err := f.RenderVariants(NginxTemplate([]byte(template)))
	if err != nil {
		t.Fatal(err)
	}
	want := []Change{{"ssl_session_tickets", "off"}, {"ssl_certificate", "rsa.pem"}, {"ssl_certificate_key", "rsa.key"}}
	if diff := cmp.Diff(want, vs[2].Settings); diff != "" || len(vs[2].Changes) != 2 {
		t.Errorf("RSA variant's settings (-want +got):\n%s", diff)
	}
	if c := string(vs[2].Config); !strings.Contains(c, "ssl_certificate rsa.pem;") || !strings.Contains(c, "ssl_session_tickets off;") {
		t.Errorf("RSA variant's config:\n%s", c)
	}
	if vs[0].Name != "baseline" || !strings.Contains(string(vs[1].Config), "ssl_session_tickets on;") {
		t.Errorf("baseline %q, tickets variant:\n%s", vs[0].Name, vs[1].Config)
	}
}

const serverFile = `
server = "httpslab serve --https-port 8443 --cert-file cert.pem --key-file key.pem {tickets} {h3}"
measure = ["compare", "--vary", "handshake", "https://localhost:8443/", "--cacert", "ca.pem"]

[baseline]
tickets = "--no-tickets"
h3 = "--no-http3"

[[variant]]
name = "tickets on"
set = { tickets = "--no-tickets=false" }
`

// TestParseFileServer checks a file whose template is a server's command
// line: the settings fill its placeholders.
func TestParseFileServer(t *testing.T) {
	f, err := ParseFile([]byte(serverFile))
	if err != nil {
		t.Fatal(err)
	}
	vs, err := f.RenderVariants(Template{Src: []byte(f.Server), Command: true})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"httpslab serve --https-port 8443 --cert-file cert.pem --key-file key.pem --no-tickets --no-http3",
		"httpslab serve --https-port 8443 --cert-file cert.pem --key-file key.pem --no-tickets=false --no-http3",
	}
	var got []string
	for _, v := range vs {
		got = append(got, string(v.Config))
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("rendered commands (-want +got):\n%s", diff)
	}
}

func TestParseFileRefuses(t *testing.T) {
	for _, tc := range []struct{ src, want string }{
		{`nginx = "a"`, "no measurement"},
		{`measure = ["bench"]`, "want one template"},
		{"nginx = \"a\"\nserver = \"s {x}\"\nmeasure = [\"bench\"]", "want one template"},
		{"server = \"s {x}\"\nmeasure = [\"bench\"]\n[[variant]]\nname = \"x\"\nset = { x = \"1\" }", "which [baseline] does not"},
		{"nginx = \"a\"\nmeasure = [\"bench\"]", "no [[variant]]"},
		{"nginx = \"a\"\nmeasure = [\"bench\"]\nvariants = 1", `unknown key "variants"`},
		{"nginx = \"a\"\nmeasure = [\"bench\"]\n[[variant]]\nname = \"x\"", "at least one directive"},
		{"nginx = \"a\"\nmeasure = [\"bench\"]\n[[variant]]\nname = \"x\"\nset = { a = \"on; user root\" }", "want arguments only"},
		{"nginx = \"a\"\nmeasure = [\"bench\"]\n[baseline]\n\"a b\" = \"1\"\n[[variant]]\nname = \"x\"\nset = { a = \"1\" }", `directive name "a b"`},
		{"nginx = ", "experiment file:"},
	} {
		if _, err := ParseFile([]byte(tc.src)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ParseFile(%q) = %v; want an error with %q", tc.src, err, tc.want)
		}
	}
}

// FuzzParseFile checks that no input makes the parser panic, and that a
// file it accepts renders on a template or fails with an error.
func FuzzParseFile(f *testing.F) {
	f.Add([]byte(exampleFile))
	f.Add([]byte("nginx = \"a\"\nmeasure = [\"probe\"]\n[[variant]]\nname = \"x\"\nset = { gzip = \"on\" }"))
	f.Add([]byte(serverFile))
	f.Fuzz(func(t *testing.T, data []byte) {
		file, err := ParseFile(data)
		if err != nil {
			return
		}
		tmpl := NginxTemplate([]byte(template))
		if file.Server != "" {
			tmpl = Template{Src: []byte(file.Server), Command: true}
		}
		vs, err := file.RenderVariants(tmpl)
		if err == nil && len(vs) != len(file.Variants)+1 {
			t.Fatalf("%d variants rendered from %d", len(vs), len(file.Variants))
		}
		// Every placeholder a command's variant fills is filled in the
		// baseline too: none runs with "{NAME}" left for it.
		for _, v := range vs {
			for _, c := range v.Settings {
				if file.Server != "" && strings.Contains(string(vs[0].Config), "{"+c.Directive+"}") {
					t.Fatalf("baseline %q keeps {%s}, which variant %q sets", vs[0].Config, c.Directive, v.Name)
				}
			}
		}
	})
}
