package nginxconf

import (
	"slices"
	"strings"
	"testing"
)

// entry is a directive seen from outside: where it stands, its name and
// its arguments.
type entry struct {
	path string
	args string
}

func entries(c *Config, skip string) []entry {
	var out []entry
	c.Walk(func(d *Directive, parents []string) {
		if d.Name != skip {
			out = append(out, entry{strings.Join(append(slices.Clone(parents), d.Name), "/"), strings.Join(d.Args, "\x00")})
		}
	})
	return out
}

// FuzzSet checks that Set never changes anything but the named
// directive: every other directive keeps its place and arguments, every
// named directive gets exactly the value, and one is added in the http
// block only when there was none.
func FuzzSet(f *testing.F) {
	f.Add([]byte(sample), "ssl_session_tickets", "on")
	f.Add([]byte("http { server { listen 1; } }"), "gzip", "on")
	f.Add([]byte("http { a 'x;y'; b \"a\\\"\"; }"), "a", "z w")
	f.Add([]byte("events{}http{a${b}c;}"), "a", "'q r'")
	f.Add([]byte("http { location ~ a\\{ { return 1; } }"), "return", "2")
	f.Add([]byte("events { } http { }"), "worker_processes", "auto")
	f.Add([]byte("events { } http { }"), "worker_connections", "512")
	f.Fuzz(func(t *testing.T, src []byte, name, value string) {
		c, err := Parse(src)
		if err != nil {
			return
		}
		want, err := CheckValue(name, value)
		if err != nil {
			return
		}
		out, n, err := c.Set(name, value)
		if err != nil {
			return
		}
		after, err := Parse(out)
		if err != nil {
			t.Fatalf("Set(%q, %q) on %q gave %q, which does not parse: %v", name, value, src, out, err)
		}
		if !slices.Equal(entries(c, name), entries(after, name)) {
			t.Fatalf("Set(%q, %q) on %q changed other directives: %q", name, value, src, out)
		}
		named := after.Find(name)
		before := c.Find(name)
		if n != len(before) || len(before) == 0 && len(named) != 1 || len(before) > 0 && len(named) != len(before) {
			t.Fatalf("Set(%q, %q) on %q: %d directives before, %d after, n = %d", name, value, src, len(before), len(named), n)
		}
		for _, d := range named {
			if !slices.Equal(d.Args, want) {
				t.Fatalf("Set(%q, %q) on %q: %s has args %q; want %q", name, value, src, d.Name, d.Args, want)
			}
		}
		if len(before) == 0 && Context(name) == "main" && (len(named) != 1 || after.Directives[0] != named[0]) {
			t.Fatalf("Set(%q, %q) on %q: a main-context directive not added at the top: %q", name, value, src, out)
		}
		if strings.Count(string(out), "\n") != strings.Count(string(src), "\n") {
			t.Fatalf("Set(%q, %q) on %q changed the number of lines: %q", name, value, src, out)
		}
	})
}

// FuzzParse checks that Parse never panics and that every directive's
// offsets lie inside the source, in order.
func FuzzParse(f *testing.F) {
	f.Add([]byte(sample))
	f.Add([]byte("a \"b\\\" c\" 'd';"))
	f.Fuzz(func(t *testing.T, src []byte) {
		c, err := Parse(src)
		if err != nil {
			return
		}
		c.Walk(func(d *Directive, _ []string) {
			if d.NameEnd > d.ArgsEnd || d.ArgsEnd >= len(src) || d.IsBlock && d.BlockClose <= d.BlockOpen {
				t.Fatalf("Parse(%q): bad offsets for %s", src, d.Name)
			}
		})
	})
}
