// Package report renders every httpslab result type, one set of files
// per type:
//
//   - probe (probe.Result, probe.Timeline): probe.go, probe_waterfall.go,
//     probe_summary.go, probe_redirects.go, probe_facts.go,
//     probe_certinfo.go, HAR 1.2 (probe_har.go), curl's -w/--write-out
//     (probe_writeout*.go, probe_curl*.go), JSON (probe_json.go);
//   - bench (load.Result): bench.go, bench_json.go, bench_csv.go;
//   - compare (compare.Result): compare.go, compare_json.go, compare_csv.go;
//   - audit (tlsscan.Report): audit.go;
//   - demo (demo.Result): demo.go;
//   - page (page.Result): page.go;
//   - experiment (experiment.Result): experiment.go, experiment_json.go;
//
// and the versioned JSON envelope every command writes for --json
// (json.go), with a strict JSON Schema per schema in schema/, read back
// by Read (read.go) against the same schemas; and the self-contained
// HTML report of any of them (html.go, html.tmpl, html_chart.go and a
// file per kind of drawing: html_bench.go, html_waterfall.go,
// html_compare.go, html_audit.go). Shared
// helpers: units.go (numbers), color.go, escape.go (strings from the
// network on their way to a terminal).
//
// The package only formats: it reads result types and writes to an
// io.Writer. It never measures, prints on its own or exits; choosing the
// streams, colour and exit code is the caller's job. Result packages
// never import it: they hold data, measurement and analysis.
package report
