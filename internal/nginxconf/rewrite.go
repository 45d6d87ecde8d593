package nginxconf

import (
	"bytes"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// ErrNoHTTP is returned by Set when the directive appears nowhere and the
// configuration has no block it belongs in to add it to (http, or
// events for the events module's directives).
var ErrNoHTTP = errors.New("no block to add it to")

// mainDirectives and eventsDirectives are the directives of nginx's core
// that belong in the main context and in the events block: Set adds one
// of them there, and every other directive to the http block.
var (
	mainDirectives = []string{"worker_processes", "worker_rlimit_nofile", "worker_rlimit_core", "worker_cpu_affinity",
		"worker_priority", "worker_shutdown_timeout", "timer_resolution", "pcre_jit", "thread_pool", "env",
		"ssl_engine", "load_module", "daemon", "master_process", "pid", "lock_file", "user", "working_directory"}
	eventsDirectives = []string{"worker_connections", "multi_accept", "accept_mutex", "accept_mutex_delay", "use",
		"worker_aio_requests"}
)

// Context names the block Set adds a directive to where the configuration
// does not have it: "main", "events" or "http".
func Context(name string) string {
	switch {
	case slices.Contains(mainDirectives, name):
		return "main"
	case slices.Contains(eventsDirectives, name):
		return "events"
	}
	return "http"
}

// CheckValue checks that value is one or more arguments and nothing else:
// no ';', '{', '}' or comment that would end the directive or open a block,
// and no line break (an edit keeps the template's line numbers, so that
// nginx's messages name the template's lines). It returns the arguments
// as nginx reads them.
func CheckValue(name, value string) ([]string, error) {
	if strings.ContainsAny(value, "\r\n") {
		return nil, fmt.Errorf("value %q of %s: a line break is not allowed", value, name)
	}
	src := name + " " + value + ";"
	c, err := Parse([]byte(src))
	// The ';' that ends the directive must be the one added here: a value
	// with a ';' or '#' of its own ends it earlier.
	if err != nil || len(c.Directives) != 1 || c.Directives[0].Name != name || c.Directives[0].IsBlock ||
		len(c.Directives[0].Args) == 0 || c.Directives[0].ArgsEnd != len(src)-1 {
		return nil, fmt.Errorf("value %q of %s: want arguments only, without ';', '{', '}' or '#'", value, name)
	}
	return c.Directives[0].Args, nil
}

// edit replaces src[start:end] with text.
type edit struct {
	start, end int
	text       string
}

// apply returns the source with the edits made; edits do not overlap.
func (c *Config) apply(edits []edit) []byte {
	slices.SortFunc(edits, func(a, b edit) int { return a.start - b.start })
	var out []byte
	last := 0
	for _, e := range edits {
		out = append(append(out, c.Src[last:e.start]...), e.text...)
		last = e.end
	}
	return append(out, c.Src[last:]...)
}

// argsEdit replaces all of d's arguments with value (raw text). Line
// breaks between the old arguments are kept after the value, so that the
// lines below keep their numbers.
func (c *Config) argsEdit(d *Directive, value string) edit {
	if len(d.Args) == 0 {
		return edit{d.NameEnd, d.NameEnd, " " + value}
	}
	start, end := d.ArgStart[0], d.ArgEnd[len(d.ArgEnd)-1]
	return edit{start, end, value + strings.Repeat("\n", bytes.Count(c.Src[start:end], []byte("\n")))}
}

// Set returns the configuration with the directive name set to value
// wherever it appears, at any depth, or, where it appears nowhere, added
// as the first directive of the block it belongs in (see Context), on the
// line of that block's '{' (the main context's: the file's first line).
// It returns how many directives it changed (0 when it added one).
// Everything else stays byte for byte as it was.
func (c *Config) Set(name, value string) ([]byte, int, error) {
	if _, err := CheckValue(name, value); err != nil {
		return nil, 0, err
	}
	var edits []edit
	for _, d := range c.Find(name) {
		if d.IsBlock {
			return nil, 0, fmt.Errorf("setting %s: line %d: it is a block, not a directive with a value", name, d.Line)
		}
		edits = append(edits, c.argsEdit(d, value))
	}
	if len(edits) > 0 {
		return c.apply(edits), len(edits), nil
	}
	block := Context(name)
	if block == "main" {
		return c.apply([]edit{{0, 0, name + " " + value + "; "}}), 0, nil
	}
	for _, d := range c.Directives {
		if d.Name == block && d.IsBlock {
			at := d.BlockOpen + 1
			return c.apply([]edit{{at, at, " " + name + " " + value + ";"}}), 0, nil
		}
	}
	return nil, 0, fmt.Errorf("setting %s: %w", name, ErrNoHTTP)
}

// SetMain returns the configuration with the top-level directive name set
// to value: every top-level occurrence changed, or one added at the very
// start of the file, on its first line.
func (c *Config) SetMain(name, value string) ([]byte, error) {
	if _, err := CheckValue(name, value); err != nil {
		return nil, err
	}
	var edits []edit
	for _, d := range c.Directives {
		if d.Name == name && !d.IsBlock {
			edits = append(edits, c.argsEdit(d, value))
		}
	}
	if len(edits) == 0 {
		edits = []edit{{0, 0, name + " " + value + "; "}}
	}
	return c.apply(edits), nil
}

// SetArg returns the configuration with argument i of every directive
// named name (at any depth) replaced by value, where keep(d) allows it;
// directives with fewer arguments are left alone. The value is quoted
// for nginx when it needs to be.
func (c *Config) SetArg(name string, i int, value string, keep func(d *Directive) bool) []byte {
	var edits []edit
	for _, d := range c.Find(name) {
		if i < len(d.Args) && keep(d) {
			edits = append(edits, edit{d.ArgStart[i], d.ArgEnd[i], Quote(value)})
		}
	}
	return c.apply(edits)
}

// Quote returns s as one nginx argument: as it is when it holds nothing
// that nginx would read otherwise, in double quotes with escapes if not.
func Quote(s string) string {
	if s != "" && !strings.ContainsAny(s, " \t\r\n;{}#\"'\\$") {
		return s
	}
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\t", `\t`, "\r", `\r`, "\n", `\n`)
	return `"` + r.Replace(s) + `"`
}
