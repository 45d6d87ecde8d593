package cli

import (
	"io"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// TestHelpSections checks that help.txt and the command tree match: each
// section names a command (or is the link paragraph), and each command
// but version gets its long help and examples from its section.
func TestHelpSections(t *testing.T) {
	root := newRootCmd(&env{ctx: t.Context(), stdout: io.Discard, stderr: io.Discard})
	used := map[string]bool{"link": true, "stats": true}
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		name := strings.TrimPrefix(c.CommandPath(), "httpslab ")
		if _, ok := helpSections[name]; ok {
			used[name] = true
			if c.Long == "" || c.Example == "" || strings.Contains(c.Long, "{{") {
				t.Errorf("%s: long help %q, examples %q; want both, with {{link}} replaced", name, c.Long, c.Example)
			}
		} else if name != "version" && c.Long == "" {
			t.Errorf("%s: no section in help.txt and no long help", name)
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
	for name := range helpSections {
		if !used[name] {
			t.Errorf("help.txt: section %q names no command", name)
		}
	}
}
