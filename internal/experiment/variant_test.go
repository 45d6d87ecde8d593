package experiment

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseVary(t *testing.T) {
	got, err := ParseVary("ssl_protocols=TLSv1.2 TLSv1.3 | TLSv1.3")
	want := Vary{"ssl_protocols", []string{"TLSv1.2 TLSv1.3", "TLSv1.3"}}
	if err != nil || !cmp.Equal(got, want) {
		t.Errorf("ParseVary = %v, %v; want %v", got, err, want)
	}
	// An empty first value is the template's own setting.
	got, err = ParseVary("tcp_nopush= | on")
	want = Vary{"tcp_nopush", []string{"", "on"}}
	if err != nil || !cmp.Equal(got, want) {
		t.Errorf("ParseVary = %v, %v; want %v", got, err, want)
	}
	for _, s := range []string{"", "a", "=on|off", "a=on", "a=on|on", "a=on|", "a=|", "a=||on", "a=on|x;y", "a b=1|2", "a=1|{"} {
		if _, err := ParseVary(s); err == nil {
			t.Errorf("ParseVary(%q) = nil error; want it refused", s)
		}
	}
}

const template = `events { }
http {
    ssl_session_tickets on;
    server { listen 8443 ssl; ssl_session_tickets on; }
}
`

func TestVariants(t *testing.T) {
	vs, err := Variants(NginxTemplate([]byte(template)), []Vary{
		{"ssl_session_tickets", []string{"off", "on"}},
		{"gzip", []string{"off", "on"}},
	}, true)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, v := range vs {
		names = append(names, v.Name)
	}
	want := []string{"ssl_session_tickets off, gzip off", "ssl_session_tickets on", "gzip on",
		"all at once (ssl_session_tickets on, gzip on)"}
	if diff := cmp.Diff(want, names); diff != "" {
		t.Errorf("variant names (-want +got):\n%s", diff)
	}
	base := string(vs[0].Config)
	if strings.Count(base, "ssl_session_tickets off;") != 2 || !strings.Contains(base, "http { gzip off;") {
		t.Errorf("baseline config:\n%s\nwant tickets off twice and gzip off added to http", base)
	}
	if !cmp.Equal(vs[0].Edits, []int{2, 0}) {
		t.Errorf("baseline edits = %v; want [2 0]", vs[0].Edits)
	}
	if c := string(vs[2].Config); !strings.Contains(c, "gzip on;") || strings.Contains(c, "ssl_session_tickets on") {
		t.Errorf("gzip variant config:\n%s\nwant gzip on and tickets at the baseline's off", c)
	}
	if _, err := Variants(NginxTemplate([]byte(template)), []Vary{{"a", []string{"1", "2"}}}, true); err == nil {
		t.Error("--all-at-once with one --vary: want an error")
	}
	if _, err := Variants(NginxTemplate([]byte("events { }")), []Vary{{"a", []string{"1", "2"}}}, false); err == nil {
		t.Error("a directive absent from a template without http: want an error")
	}
}

// TestVariantsAsInTemplate checks the empty baseline value: the baseline
// is the template itself, each variant adds its one directive, and an
// all-at-once variant of many is named by their number.
func TestVariantsAsInTemplate(t *testing.T) {
	var varies []Vary
	for _, d := range []string{"tcp_nopush", "gzip", "ssl_session_tickets", "accept_mutex_delay", "worker_rlimit_nofile"} {
		varies = append(varies, Vary{d, []string{"", "7"}})
	}
	vs, err := Variants(NginxTemplate([]byte(template)), varies, true)
	if err != nil {
		t.Fatal(err)
	}
	if len(vs) != 7 || vs[0].Name != "the template" || string(vs[0].Config) != template {
		t.Fatalf("%d variants, baseline %q:\n%s\nwant 7, the template as it is", len(vs), vs[0].Name, vs[0].Config)
	}
	if want := []int{AsInTemplate, AsInTemplate, AsInTemplate, AsInTemplate, AsInTemplate}; !cmp.Equal(vs[0].Edits, want) {
		t.Errorf("baseline edits = %v; want %v", vs[0].Edits, want)
	}
	gzip := string(vs[2].Config)
	if vs[2].Name != "gzip 7" || !strings.Contains(gzip, "http { gzip 7;") || strings.Contains(gzip, "tcp_nopush") ||
		strings.Count(gzip, "ssl_session_tickets on;") != 2 {
		t.Errorf("variant %q:\n%s\nwant gzip 7 added, the rest as in the template", vs[2].Name, gzip)
	}
	all := vs[6]
	if all.Name != "all at once (5 directives)" || len(all.Changes) != 5 ||
		!strings.HasPrefix(string(all.Config), "worker_rlimit_nofile 7; events { accept_mutex_delay 7; }") {
		t.Errorf("all at once %q, %d changes:\n%s", all.Name, len(all.Changes), all.Config)
	}
	if got := (Change{"tcp_nopush", ""}).String(); got != "tcp_nopush as in the template" {
		t.Errorf("Change.String() = %q", got)
	}
	// A command's placeholder given the empty value holds nothing.
	cmd, err := Variants(Template{Src: []byte("serve {t}"), Command: true}, []Vary{{"t", []string{"", "--no-tickets"}}}, false)
	if err != nil || string(cmd[0].Config) != "serve " || string(cmd[1].Config) != "serve --no-tickets" {
		t.Errorf("command variants %q, %q, %v; want the placeholder empty, then filled", cmd[0].Config, cmd[1].Config, err)
	}
}

func TestFactorial(t *testing.T) {
	vs, err := Factorial(NginxTemplate([]byte(template)), []Vary{
		{"ssl_session_tickets", []string{"off", "on"}},
		{"gzip", []string{"off", "on", "always"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, v := range vs {
		names = append(names, v.Name)
	}
	want := []string{"ssl_session_tickets off, gzip off", "ssl_session_tickets on", "gzip on",
		"ssl_session_tickets on, gzip on", "gzip always", "ssl_session_tickets on, gzip always"}
	if diff := cmp.Diff(want, names); diff != "" {
		t.Errorf("factorial names (-want +got):\n%s", diff)
	}
	if c := string(vs[5].Config); !strings.Contains(c, "gzip always;") || strings.Count(c, "ssl_session_tickets on;") != 2 {
		t.Errorf("last combination's config:\n%s", c)
	}
	var many []Vary
	for _, name := range []string{"a", "b", "c", "d", "e", "f", "g"} {
		many = append(many, Vary{name, []string{"1", "2"}})
	}
	if _, err := Factorial(NginxTemplate([]byte(template)), many); err == nil {
		t.Error("128 combinations: want them refused")
	}
}

func TestTogether(t *testing.T) {
	vs, err := Together(NginxTemplate([]byte(template)), []Vary{
		{"ssl_certificate", []string{"ec.pem", "rsa.pem"}},
		{"ssl_certificate_key", []string{"ec.key", "rsa.key"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(vs) != 2 || vs[1].Name != "ssl_certificate rsa.pem, ssl_certificate_key rsa.key" || len(vs[1].Changes) != 2 {
		t.Fatalf("Together = %d variants, the second %q; want the baseline and both changed together", len(vs), vs[len(vs)-1].Name)
	}
	if c := string(vs[1].Config); !strings.Contains(c, "ssl_certificate rsa.pem;") || !strings.Contains(c, "ssl_certificate_key rsa.key;") {
		t.Errorf("together variant's config:\n%s", c)
	}
	if _, err := Together(NginxTemplate([]byte(template)), []Vary{{"a", []string{"1", "2"}}, {"b", []string{"1", "2", "3"}}}); err == nil {
		t.Error("varies of unequal lengths: want an error")
	}
}
