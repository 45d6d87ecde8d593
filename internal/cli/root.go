// Package cli is the httpslab command tree: it turns flags into each
// package's Config, picks the output format and maps errors to exit codes.
// It is the only package that prints to the user or chooses an exit code.
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/httpslab/httpslab/internal/report"
	"github.com/httpslab/httpslab/internal/usage"
	"github.com/spf13/cobra"
)

// Exit codes of the httpslab binary.
const (
	ExitOK          = 0   // the command did its job
	ExitFailure     = 1   // the command failed
	ExitUsage       = 2   // bad flags or arguments
	ExitThreshold   = 3   // a --fail-if threshold or a regression tripped
	ExitInterrupted = 130 // the user pressed Ctrl-C
)

// Version is set at build time with -ldflags "-X .../cli.Version=v1.2.3".
var Version = ""

// env carries the streams and the context shared by all commands.
type env struct {
	ctx    context.Context
	stdout io.Writer
	stderr io.Writer
}

// Run executes the command line args and returns the process exit code.
func Run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	e := &env{ctx: ctx, stdout: stdout, stderr: stderr}
	report.Version = versionString()
	root := newRootCmd(e)
	root.SetArgs(args)
	root.SetOut(stdout)
	root.SetErr(stderr)
	err := root.ExecuteContext(ctx)
	return e.exitCode(err)
}

func newRootCmd(e *env) *cobra.Command {
	root := &cobra.Command{
		Use:           "httpslab",
		Short:         "An HTTPS performance lab",
		SilenceUsage:  true,
		SilenceErrors: true,
		// --version, as curl, wrk and h2load spell it, beside the
		// version command.
		Version: versionString(),
	}
	root.SetVersionTemplate("httpslab {{.Version}}\n")
	root.InitDefaultVersionFlag()
	root.Flags().Lookup("version").Usage = "print the httpslab version"
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error {
		return usageError{err}
	})
	root.AddCommand(newVersionCmd(e))
	root.AddCommand(newServeCmd(e))
	root.AddCommand(newLabCmd(e))
	root.AddCommand(newBenchCmd(e))
	root.AddCommand(newK8sCmd(e))
	root.AddCommand(newMergeCmd(e))
	root.AddCommand(newProbeCmd(e))
	root.AddCommand(newCompareCmd(e))
	root.AddCommand(newAuditCmd(e))
	root.AddCommand(newDemoCmd(e))
	root.AddCommand(newPageCmd(e))
	root.AddCommand(newExperimentCmd(e))
	root.AddCommand(newReportCmd(e))
	// Further commands register here.
	setHelp(root)
	return root
}

func newVersionCmd(e *env) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print the httpslab version",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			fmt.Fprintf(e.stdout, "httpslab %s\n", versionString())
			return nil
		},
	}
}

func versionString() string {
	if Version != "" {
		return Version
	}
	if bi, ok := debug.ReadBuildInfo(); ok {
		v := bi.Main.Version
		for _, s := range bi.Settings {
			if s.Key == "vcs.revision" && len(s.Value) >= 12 {
				v += " " + s.Value[:12]
			}
		}
		return fmt.Sprintf("%s (%s)", v, bi.GoVersion)
	}
	return "(devel)"
}

// usageError marks an error in the command line itself (exit code 2).
type usageError struct{ err error }

func (u usageError) Error() string { return u.err.Error() }
func (u usageError) Unwrap() error { return u.err }

// usagef returns a usage error with a formatted message.
func usagef(format string, args ...any) error {
	return usageError{fmt.Errorf(format, args...)}
}

// hintError carries a hint line for the user next to the error.
type hintError struct {
	err  error
	hint string
}

func (h hintError) Error() string { return h.err.Error() }
func (h hintError) Unwrap() error { return h.err }

// withHint attaches a hint to err; a nil err stays nil.
func withHint(err error, hint string) error {
	if err == nil {
		return nil
	}
	return hintError{err: err, hint: hint}
}

// exitError carries a chosen exit code with an optional message; a
// threshold that tripped is reported this way.
type exitError struct {
	code int
	err  error
}

func (x exitError) Error() string {
	if x.err == nil {
		return fmt.Sprintf("exit code %d", x.code)
	}
	return x.err.Error()
}
func (x exitError) Unwrap() error { return x.err }

func (e *env) exitCode(err error) int {
	if err == nil {
		return ExitOK
	}
	var x exitError
	if errors.As(err, &x) {
		if x.err != nil {
			e.printError(x.err)
		}
		return x.code
	}
	if errors.Is(err, context.Canceled) && e.ctx.Err() != nil {
		fmt.Fprintln(e.stderr, "httpslab: interrupted")
		return ExitInterrupted
	}
	e.printError(err)
	var u usageError
	if errors.As(err, &u) || errors.As(err, new(*usage.Error)) || isCobraUsage(err) {
		if !errors.As(err, new(hintError)) && hint(err) == "" {
			fmt.Fprintln(e.stderr, "httpslab: hint: see 'httpslab --help' or 'httpslab COMMAND --help'")
		}
		return ExitUsage
	}
	return ExitFailure
}

func (e *env) printError(err error) {
	// Error texts quote what servers sent (a certificate's names, a
	// header): escaped, they cannot act on the terminal or forge a line.
	fmt.Fprintf(e.stderr, "httpslab: error: %s\n", report.Escape(err.Error()))
	if h := hint(err); h != "" {
		fmt.Fprintf(e.stderr, "httpslab: hint: %s\n", h)
	}
}

// hint is the hint that err carries: withHint's, or a package's usage
// error's.
func hint(err error) string {
	var h hintError
	if errors.As(err, &h) {
		return h.hint
	}
	if u, ok := errors.AsType[*usage.Error](err); ok {
		return u.Hint
	}
	return ""
}

// isCobraUsage reports errors that cobra itself raises for a bad command
// line: an unknown command or a wrong number of arguments. Flag errors
// come through the flag error function as usageError already. The
// patterns are cobra's own wording, which no network or file error has.
func isCobraUsage(err error) bool {
	msg := err.Error()
	for _, p := range []string{"unknown command ", " arg(s), received ", " arg(s), only received "} {
		if strings.Contains(msg, p) {
			return true
		}
	}
	return false
}

// interrupted ends a run that the first Ctrl-C stopped, after its partial
// report, with exit code 130. It does not wait for the process-wide
// signal context to see the signal too: both are told at once, in no
// fixed order, and a run that ended first used to exit with 1 and
// "context canceled". Every command that runs under interruptible uses
// it: probe, bench, compare, audit, demo, page and experiment.
func (e *env) interrupted() error {
	fmt.Fprintln(e.stderr, "httpslab: interrupted")
	return exitError{code: ExitInterrupted}
}

// listening counts the runs whose interruptible is waiting for Ctrl-C: a
// test that sends SIGINT to a run without an outside sign of its start
// (demo measures on its own server) waits for it to be non-zero.
var listening atomic.Int64

// interruptible returns a context that is cancelled on the first Ctrl-C, so
// that a run stops and prints its partial report, while a second Ctrl-C
// exits the process at once. The returned stop function must be called
// when the run ends. Every command that measures runs under it and ends
// with interrupted.
func interruptible(parent context.Context) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(parent)
	ch := make(chan os.Signal, 2)
	signal.Notify(ch, os.Interrupt)
	listening.Add(1)
	done := make(chan struct{})
	go func() {
		select {
		case <-ch:
			cancel()
		case <-done:
			return
		}
		select {
		case <-ch:
			os.Exit(ExitInterrupted)
		case <-done:
		}
	}()
	var once sync.Once
	return ctx, func() {
		once.Do(func() {
			signal.Stop(ch)
			listening.Add(-1)
			close(done)
			cancel()
		})
	}
}
