// Package report holds the output formats of httpslab results: the
// terminal waterfall and the -n summary table, the versioned JSON
// envelope every command writes for --json, HAR 1.2 export, and curl's
// -w/--write-out format.
//
// The package only formats: it reads result types (probe.Timeline) and
// writes to an io.Writer. It never measures, prints on its own or exits;
// choosing the streams, colour and exit code is the caller's job.
package report
