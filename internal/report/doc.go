// Package report renders every httpslab result type: probe's terminal
// waterfall, -n summary table, HAR 1.2 export and curl's -w/--write-out
// format (probe.Timeline); bench's report and JSON form (load.Result);
// compare's table (compare.Result); audit's report (tlsscan.Report); and
// the versioned JSON envelope every command writes for --json.
//
// The package only formats: it reads result types and writes to an
// io.Writer. It never measures, prints on its own or exits; choosing the
// streams, colour and exit code is the caller's job. Result packages
// never import it: they hold data, measurement and analysis.
package report
