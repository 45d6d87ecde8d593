package cli

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/httpslab/httpslab/internal/report"
	"github.com/spf13/cobra"
)

func newReportCmd(e *env) *cobra.Command {
	var out string
	var labels []string
	cmd := &cobra.Command{
		Use:   "report RESULT.json... -o report.html",
		Short: "Write one self-contained HTML report of httpslab --json results",
		Args:  cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if out == "" {
				return usagef("report needs -o FILE (the HTML file to write; - for stdout)")
			}
			if len(labels) > len(args) {
				return usagef("%d --label for %d results: give at most one per result, in order", len(labels), len(args))
			}
			in, err := report.ReadFiles(args, labels)
			if errors.Is(err, report.ErrNotResult) {
				return withHint(err, "give files that httpslab commands wrote with --json, e.g. httpslab bench --json URL > bench.json")
			}
			if err != nil {
				return err
			}
			return e.writeHTML(out, in)
		},
	}
	cmd.Flags().StringVarP(&out, "output", "o", "", "the HTML file to write (- for stdout)")
	cmd.Flags().StringArrayVar(&labels, "label", nil, "the name of each result in the report, in order (default: its file name)")
	return cmd
}

// writeHTML writes the report of in to path, or to stdout for "-".
func (e *env) writeHTML(path string, in []report.HTMLInput) error {
	var b bytes.Buffer
	if err := report.WriteHTML(&b, in); err != nil {
		return err
	}
	if path == "-" {
		_, err := e.stdout.Write(b.Bytes())
		return err
	}
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		return fmt.Errorf("writing the html report: %w", err)
	}
	return nil
}

// checkHTMLPath refuses, before a run, an --html file that cannot be
// written, so that a long run does not end without its report.
func checkHTMLPath(path string) error {
	if path == "" {
		return nil
	}
	if fi, err := os.Stat(filepath.Dir(path)); err != nil || !fi.IsDir() {
		return withHint(usagef("--html %s: no directory %s", path, filepath.Dir(path)), "give a file in a directory that exists and that you can write to")
	}
	return nil
}

// writeResultHTML writes the HTML report of one result of kind to path
// (nothing when path is empty). The result goes through its --json
// document and is read back, so the report is exactly the one
// 'httpslab report' makes from that document.
func (e *env) writeResultHTML(path, kind string, v any) error {
	if path == "" {
		return nil
	}
	var b bytes.Buffer
	if err := report.WriteJSON(&b, kind, v); err != nil {
		return err
	}
	doc, err := report.Read(&b)
	if err != nil {
		return fmt.Errorf("writing the html report: %w", err)
	}
	return e.writeHTML(path, []report.HTMLInput{{Label: kind, Doc: doc}})
}
