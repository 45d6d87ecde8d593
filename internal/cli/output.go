package cli

// output is the form a command writes its result in on stdout.
type output int

const (
	textOutput output = iota // the human report
	jsonOutput               // the versioned JSON envelope (--json)
	csvOutput                // CSV, one header line (--csv)
)

// outputOf is the output --json and --csv ask for; both at once is a
// usage error.
func outputOf(asJSON, asCSV bool) (output, error) {
	switch {
	case asJSON && asCSV:
		return textOutput, usagef("--json and --csv: give one of them")
	case asJSON:
		return jsonOutput, nil
	case asCSV:
		return csvOutput, nil
	}
	return textOutput, nil
}
