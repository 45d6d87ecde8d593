package cli

import (
	"errors"
	"fmt"
	"os"

	"github.com/httpslab/httpslab/internal/load"
	"github.com/httpslab/httpslab/internal/merge"
	"github.com/httpslab/httpslab/internal/report"
	"github.com/spf13/cobra"
)

func newMergeCmd(e *env) *cobra.Command {
	var out outputFlags
	var failIf []string
	cmd := &cobra.Command{Use: "merge RESULT.json...", Short: "Combine the bench results of a run's workers into one, exactly",
		Long: merge.Help, Example: merge.Example, Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ths, err := load.ParseThresholds(failIf)
			if _, cerr := out.check(); cerr != nil || err != nil {
				return usageError{errors.Join(cerr, err)}
			}
			in := make([]merge.Input, len(args))
			for i, path := range args {
				if in[i].Result, err = readBench(path); err != nil {
					return err
				}
				in[i].Name = path
			}
			res, err := merge.Merge(in)
			if err != nil {
				return withHint(err, merge.Hint(err))
			}
			if err := e.write(out, "bench", report.NewBenchJSON(res, ths...), func() error { return report.Bench(e.stdout, res) },
				func() error { return report.BenchCSV(e.stdout, res) }); err != nil {
				return err
			}
			return benchVerdict(res, ths)
		}}
	out.add(cmd.Flags(), "write the merged result as bench --json does (schema httpslab/bench/v4)", "write the merged result as bench --csv does")
	cmd.Flags().StringArrayVar(&failIf, "fail-if", nil, "exit with code 3 when this holds on the merged result, as bench's --fail-if (repeatable)")
	return cmd
}

// readBench reads a bench --json file into the result it describes.
func readBench(path string) (*load.Result, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r, err := report.ReadBench(f)
	if err != nil {
		return nil, withHint(fmt.Errorf("reading %s: %w", path, err), "give the files bench --json wrote, one per worker")
	}
	return r, nil
}
