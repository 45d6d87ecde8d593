package cli

import (
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"syscall"
	"time"

	"github.com/httpslab/httpslab/internal/netem"
	"github.com/spf13/cobra"
	"golang.org/x/sys/unix"
)

// labKillAfter is how long lab waits for the command to exit after the
// first interrupt before it kills it.
const labKillAfter = 10 * time.Second

func newLabCmd(e *env) *cobra.Command {
	var f linkFlags
	cmd := &cobra.Command{
		Use:   "lab [flags] -- COMMAND [ARGS...]",
		Short: "Run a server command behind an emulated network link",
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) == 0 {
				return withHint(usagef("lab needs a command to run behind the link"),
					"put it after the link flags and --: httpslab lab --rtt 50ms -- COMMAND [ARGS...]")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error { return e.runLab(f, args) },
	}
	cmd.Flags().SetInterspersed(false)
	f.add(cmd.Flags())
	return cmd
}

func (e *env) runLab(f linkFlags, args []string) error {
	if !f.set() {
		return usagef("lab needs a link: give %s", linkFlagList())
	}
	if _, err := exec.LookPath(args[0]); err != nil {
		return withHint(fmt.Errorf("finding %s: %w", args[0], err), "give the command's full path, or install it")
	}
	link, err := e.startLink(f)
	if err != nil {
		return err
	}
	defer link.Close()
	c := link.Cmd(args)
	c.Stdin, c.Stdout, c.Stderr = os.Stdin, e.stdout, e.stderr
	// Catch signals before the command starts, so none is lost between.
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, syscall.SIGTERM, syscall.SIGHUP, os.Interrupt)
	defer signal.Stop(sigs)
	if err := c.Start(); err != nil {
		// The command itself was found above: what failed to start is
		// "ip netns exec", which enters the namespace.
		return withHint(fmt.Errorf("starting %s in namespace %s: %w", args[0], link.Namespace, err),
			"lab runs the command with 'ip netns exec'; install iproute2")
	}
	fmt.Fprintf(e.stderr, "httpslab: %s runs at %s behind an emulated link (%s); namespace %s\n",
		args[0], link.ServerIP, link.Config, link.Namespace)
	code, err := netem.Supervise(c, sigs, isTerminal(os.Stdin), labKillAfter, func() {
		fmt.Fprintf(e.stderr, "httpslab: %s did not exit within %v; killing it\n", args[0], labKillAfter)
	})
	if err != nil {
		return fmt.Errorf("running %s: %w", args[0], err)
	}
	if code != 0 {
		return exitError{code: code}
	}
	return nil
}

// isTerminal reports whether f is a terminal.
func isTerminal(f *os.File) bool {
	_, err := unix.IoctlGetTermios(int(f.Fd()), unix.TCGETS)
	return err == nil
}
