package cli

import (
	_ "embed"
	"strings"

	"github.com/spf13/cobra"
)

// helpText holds every command's long help and examples: text that is
// data, kept apart from the flags and wiring (see help.txt's note).
//
//go:embed help.txt
var helpText string

// helpSections is help.txt by section name: the long help, the examples.
var helpSections = func() map[string][2]string {
	_, text, _ := strings.Cut(helpText, "\n=== ")
	m := map[string][2]string{}
	for _, sec := range strings.Split(text, "\n=== ") {
		name, body, _ := strings.Cut(sec, "\n")
		long, example, _ := strings.Cut(strings.TrimSuffix(body, "\n"), "\n--- example\n")
		m[name] = [2]string{long, example}
	}
	return m
}()

// setHelp gives cmd and the commands under it the long help and the
// examples of their sections of help.txt, named by the command's path
// without "httpslab " (the root's is "httpslab"); a command without a
// section keeps what it has.
func setHelp(cmd *cobra.Command) {
	name := strings.TrimPrefix(cmd.CommandPath(), "httpslab ")
	if s, ok := helpSections[name]; ok {
		long := strings.ReplaceAll(s[0], "{{stats}}", helpLong("stats"))
		cmd.Long, cmd.Example = strings.ReplaceAll(long, "{{link}}", linkHelp()), s[1]
	}
	for _, c := range cmd.Commands() {
		setHelp(c)
	}
}

// helpLong is the long help of the section name.
func helpLong(name string) string { return helpSections[name][0] }
