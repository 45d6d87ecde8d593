package nginxconf

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

const sample = `# a comment { ; }
user www-data;
events { worker_connections 1024; }
http {
    log_format main '$remote_addr "$request"';
    ssl_session_tickets off; # tickets
    server {
        listen 8443 ssl;
        location ~ \.(jpg|png)$ { return 200 "a;b{c}"; }
        set $x "${host}s";
        add_header X-A 1}2;
        ssl_session_tickets off;
    }
}
`

func TestParse(t *testing.T) {
	c, err := Parse([]byte(sample))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	c.Walk(func(d *Directive, parents []string) {
		got = append(got, strings.Join(append(slices.Clone(parents), d.String()), "/"))
	})
	want := []string{
		"user www-data",
		"events", "events/worker_connections 1024",
		"http",
		`http/log_format main $remote_addr "$request"`,
		"http/ssl_session_tickets off",
		"http/server",
		"http/server/listen 8443 ssl",
		`http/server/location ~ \.(jpg|png)$`,
		"http/server/location/return 200 a;b{c}",
		"http/server/set $x ${host}s",
		"http/server/add_header X-A 1}2",
		"http/server/ssl_session_tickets off",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Parse: directives differ (-want +got):\n%s", diff)
	}
	if d := c.Find("listen")[0]; d.Line != 8 {
		t.Errorf("listen on line %d; want 8", d.Line)
	}
}

func TestParseErrors(t *testing.T) {
	for _, src := range []string{
		"http {",
		"}",
		"a b",
		"a b }",
		";",
		"{ }",
		`a "b`,
		`a "b"c;`,
		"http { server { }",
	} {
		if _, err := Parse([]byte(src)); err == nil {
			t.Errorf("Parse(%q) = nil error; want a syntax error", src)
		}
	}
	for _, src := range []string{"", "# only\n", `a "b";`, `if ($a = "b") { }`, `a \;b;`, "a b#c;"} {
		if _, err := Parse([]byte(src)); err != nil {
			t.Errorf("Parse(%q) = %v; want no error", src, err)
		}
	}
}

func TestSet(t *testing.T) {
	for _, tc := range []struct {
		src, name, value, want string
		n                      int
	}{
		{"http { a on; server { a on; } }", "a", "off", "http { a off; server { a off; } }", 2},
		{"http { server { listen 1; } }", "a", "off", "http { a off; server { listen 1; } }", 0},
		{"http {\n  a 'x y' z; # keep\n}", "a", "shared:SSL:10m", "http {\n  a shared:SSL:10m; # keep\n}", 1},
		{"http { a; }", "a", "on", "http { a on; }", 1},
		{"http { b \"a on\"; }", "a", "x", "http { a x; b \"a on\"; }", 0},
		{"http { ab on; }", "a", "TLSv1.2 TLSv1.3", "http { a TLSv1.2 TLSv1.3; ab on; }", 0},
		{"events { }\nhttp { }", "worker_processes", "2", "worker_processes 2; events { }\nhttp { }", 0},
		{"events { }\nhttp { }", "worker_connections", "512", "events { worker_connections 512; }\nhttp { }", 0},
	} {
		c, err := Parse([]byte(tc.src))
		if err != nil {
			t.Fatal(err)
		}
		got, n, err := c.Set(tc.name, tc.value)
		if err != nil || string(got) != tc.want || n != tc.n {
			t.Errorf("Set(%q, %q) on %q = %q, %d, %v; want %q, %d", tc.name, tc.value, tc.src, got, n, err, tc.want, tc.n)
		}
	}
}

func TestSetRefuses(t *testing.T) {
	c, _ := Parse([]byte("events { }"))
	if _, _, err := c.Set("a", "on"); !errors.Is(err, ErrNoHTTP) {
		t.Errorf("Set without an http block: %v; want ErrNoHTTP", err)
	}
	c, _ = Parse([]byte("http { }"))
	if _, _, err := c.Set("multi_accept", "on"); !errors.Is(err, ErrNoHTTP) {
		t.Errorf("Set without an http block: %v; want ErrNoHTTP", err)
	}
	c, _ = Parse([]byte("http { }"))
	for _, v := range []string{"", "on; user root", "on { }", "a\nb", "on # x", "}"} {
		if _, _, err := c.Set("a", v); err == nil {
			t.Errorf("Set(a, %q) = nil error; want the value refused", v)
		}
	}
}

func TestSetMainAndArg(t *testing.T) {
	c, _ := Parse([]byte("pid /run/nginx.pid;\nhttp { access_log /var/log/a.log main; access_log off; }"))
	got, _ := c.SetMain("pid", "/tmp/x.pid")
	if want := "pid /tmp/x.pid;\nhttp { access_log /var/log/a.log main; access_log off; }"; string(got) != want {
		t.Errorf("SetMain = %q; want %q", got, want)
	}
	got = c.SetArg("access_log", 0, "/tmp/my dir/a.log", func(d *Directive) bool { return d.Args[0] != "off" })
	if want := "pid /run/nginx.pid;\nhttp { access_log \"/tmp/my dir/a.log\" main; access_log off; }"; string(got) != want {
		t.Errorf("SetArg = %q; want %q", got, want)
	}
	c, _ = Parse([]byte("http { }"))
	got, _ = c.SetMain("daemon", "off")
	if want := "daemon off; http { }"; string(got) != want {
		t.Errorf("SetMain = %q; want %q", got, want)
	}
}

func TestQuote(t *testing.T) {
	for _, s := range []string{"a", "a b", `a"b\c`, "x;y", "", "t\tn\n"} {
		c, err := Parse([]byte("d " + Quote(s) + ";"))
		if err != nil || len(c.Directives) != 1 || len(c.Directives[0].Args) != 1 || c.Directives[0].Args[0] != s {
			t.Errorf("Quote(%q) = %q does not read back", s, Quote(s))
		}
	}
}
