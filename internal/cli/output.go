package cli

import (
	"cmp"

	"github.com/httpslab/httpslab/internal/report"
	"github.com/spf13/pflag"
)

// output is the form a command writes its result in on stdout.
type output int

const (
	textOutput output = iota // the human report
	jsonOutput               // the versioned JSON envelope (--json)
	csvOutput                // CSV, one header line (--csv)
)

// outputFlags are the output flags of every command that writes a
// result: --json, --html FILE and, where the result is a table, --csv.
type outputFlags struct {
	json, csv bool
	html      string // --html FILE
}

// add registers --json, --html and --csv (its usage the table's, or
// report.WriteCSV's when csvUsage is "").
func (o *outputFlags) add(fs *pflag.FlagSet, jsonUsage, csvUsage string) {
	fs.BoolVar(&o.json, "json", false, jsonUsage)
	fs.StringVar(&o.html, "html", "", "also write the result's self-contained HTML report to `FILE` (as httpslab report makes from --json)")
	fs.BoolVar(&o.csv, "csv", false, cmp.Or(csvUsage, "print the result's table as CSV (a header line, one line per row, times in ms)"))
}

// check returns the output on stdout before the run: an --html file that
// cannot be written, or --json with --csv, is a usage error.
func (o outputFlags) check() (output, error) {
	if err := checkHTMLPath(o.html); err != nil {
		return textOutput, err
	}
	switch {
	case o.json && o.csv:
		return textOutput, usagef("--json and --csv: give one of them")
	case o.json:
		return jsonOutput, nil
	case o.csv:
		return csvOutput, nil
	}
	return textOutput, nil
}

// write prints a result of kind on stdout, as the JSON document doc
// with --json, as CSV with --csv, else as text, and then writes its
// HTML report with --html.
func (e *env) write(o outputFlags, kind string, doc any, text, csv func() error) error {
	var err error
	switch {
	case o.json:
		err = report.WriteJSON(e.stdout, kind, doc)
	case o.csv && csv == nil:
		err = report.WriteCSV(e.stdout, kind, doc)
	case o.csv:
		err = csv()
	default:
		err = text()
	}
	if err != nil {
		return err
	}
	return e.writeResultHTML(o.html, kind, doc)
}
