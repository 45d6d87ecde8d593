package report

// The CSV of probe, page, audit, experiment and demo (--csv): a header
// line, then one line per row of the result's main table, for
// spreadsheets. Times are in milliseconds to the microsecond; a phase
// that did not happen leaves its cell empty. Every text cell (URLs,
// certificate names, error texts, findings) goes through csvText: no
// terminal control and no formula reaches the reader.
//
// probe, one line per hop of each run:
//
//	run, hop               1-based
//	method, url, status, proto, remote_addr, reused
//	tls_version, cipher, group, alpn, resumed   empty for plain HTTP
//	cert_subject, cert_issuer                   of the leaf certificate
//	chain_bytes            the certificate chain's DER size
//	server, location       the response's Server and Location headers
//	dns_ms ... download_ms each phase's duration; total_ms the hop's
//	error                  why the request failed, if it did
//
// page, one line per request of each protocol's median load:
//
//	protocol, load_ms      the protocol and its median load's duration
//	request, url, kind, connection, status, body_bytes
//	start_ms, end_ms       from the start of the load
//	queued_ms ... download_ms   each phase's total duration
//	error
//
// audit, one line per finding, most severe first:
//
//	id, severity, category, finding, cost_ms, cost_rtts, cost_bytes, per, fix, evidence
//
// experiment, one line per variant and metric compared with the baseline:
//
//	variant, metric, unit, baseline_median, variant_median
//	ratio                  true when change and its interval are ratios
//	change, ci_lo, ci_hi, ci_level, p, p_holm, significant, inconclusive
//
// demo: its comparison, as compare's CSV.

import (
	"encoding/csv"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/httpslab/httpslab/internal/demo"
	"github.com/httpslab/httpslab/internal/page"
	"github.com/httpslab/httpslab/internal/probe"
	"github.com/httpslab/httpslab/internal/tlsscan"
)

// WriteCSV writes the CSV of a result of kind, given as its --json
// document (the value the command writes with WriteJSON, or the one Read
// returns).
func WriteCSV(w io.Writer, kind string, doc any) error {
	var rows [][]string
	switch r := doc.(type) {
	case ProbeJSON:
		rows = probeCSV(&r)
	case *ProbeJSON:
		rows = probeCSV(r)
	case *CompareJSON:
		return CompareCSV(w, r.Result)
	case *ExperimentJSON:
		rows = experimentCSV(r)
	case *page.Result:
		rows = pageCSV(r)
	case *tlsscan.Report:
		rows = auditCSV(r)
	case ExperimentJSON:
		rows = experimentCSV(&r)
	case *demo.Result:
		if r.Comparison == nil {
			return fmt.Errorf("writing %s csv: no comparison was measured", kind)
		}
		return CompareCSV(w, r.Comparison)
	default:
		return fmt.Errorf("writing %s csv: no table for a %T", kind, doc)
	}
	cw := csv.NewWriter(w)
	if err := cw.WriteAll(rows); err != nil {
		return fmt.Errorf("writing %s csv: %w", kind, err)
	}
	return nil
}

// csvDur is a duration in milliseconds to the microsecond.
func csvDur(d time.Duration) string { return strconv.FormatFloat(float64(d)/1e6, 'f', 3, 64) }

var csvPhases = []string{"dns", "connect", "tls", "send", "wait", "download"}

func probeCSV(r *ProbeJSON) [][]string {
	head := []string{"run", "hop", "method", "url", "status", "proto", "remote_addr", "reused", "tls_version", "cipher",
		"group", "alpn", "resumed", "cert_subject", "cert_issuer", "chain_bytes", "server", "location"}
	for _, p := range csvPhases {
		head = append(head, p+"_ms")
	}
	rows := [][]string{append(head, "total_ms", "error")}
	for i, run := range r.Runs {
		if run == nil {
			continue
		}
		for j, hop := range run.Hops {
			rows = append(rows, probeCSVRow(i+1, j+1, hop))
		}
	}
	return rows
}

func probeCSVRow(run, hop int, h probe.Timeline) []string {
	row := []string{strconv.Itoa(run), strconv.Itoa(hop), csvText(h.Method), csvText(h.URL), strconv.Itoa(h.Status),
		csvText(h.Proto), csvText(h.RemoteAddr), strconv.FormatBool(h.Reused)}
	if t := h.TLS; t != nil {
		subj, iss := "", ""
		if len(t.Chain) > 0 {
			subj, iss = t.Chain[0].Subject, t.Chain[0].Issuer
		}
		row = append(row, t.Version, t.CipherSuite, t.Group, csvText(t.ALPN), strconv.FormatBool(t.Resumed),
			csvText(subj), csvText(iss), strconv.Itoa(t.ChainBytes))
	} else {
		row = append(row, "", "", "", "", "", "", "", "")
	}
	row = append(row, csvText(strings.Join(h.Header["Server"], ", ")), csvText(strings.Join(h.Header["Location"], ", ")))
	durs := map[string]time.Duration{}
	for _, p := range h.Phases {
		durs[p.Name] += p.Duration
	}
	for _, p := range csvPhases {
		if d, ok := durs[p]; ok {
			row = append(row, csvDur(d))
		} else {
			row = append(row, "")
		}
	}
	return append(row, csvDur(h.Total), csvText(h.Err))
}

func pageCSV(r *page.Result) [][]string {
	head := []string{"protocol", "load_ms", "request", "url", "kind", "connection", "status", "body_bytes", "start_ms", "end_ms"}
	for _, p := range wfPhases {
		head = append(head, p+"_ms")
	}
	rows := [][]string{append(head, "error")}
	for _, p := range r.Protocols {
		if p.Median == nil {
			continue
		}
		for _, rq := range p.Median.Requests {
			row := []string{string(p.Protocol), csvDur(p.Median.Duration), strconv.Itoa(rq.ID), csvText(rq.URL), csvText(rq.Kind.String()),
				strconv.Itoa(rq.Conn), strconv.Itoa(rq.Status), strconv.FormatInt(rq.BodyBytes, 10), csvDur(rq.Start), csvDur(rq.End)}
			durs := map[string]time.Duration{}
			for _, ph := range rq.Phases {
				durs[ph.Name] += ph.Duration
			}
			for _, ph := range wfPhases {
				if d, ok := durs[ph]; ok {
					row = append(row, csvDur(d))
				} else {
					row = append(row, "")
				}
			}
			rows = append(rows, append(row, csvText(rq.Error)))
		}
	}
	return rows
}

func auditCSV(r *tlsscan.Report) [][]string {
	rows := [][]string{{"id", "severity", "category", "finding", "cost_ms", "cost_rtts", "cost_bytes", "per", "fix", "evidence"}}
	for _, sv := range []tlsscan.Severity{tlsscan.High, tlsscan.Medium, tlsscan.Low, tlsscan.Info} {
		for _, f := range r.Findings {
			if f.Severity != sv {
				continue
			}
			ms, rtts, bytes := "", "", ""
			if f.Cost.Time != 0 {
				ms = csvDur(time.Duration(f.Cost.Time))
			}
			if f.Cost.RoundTrips != 0 {
				rtts = strconv.FormatFloat(f.Cost.RoundTrips, 'f', -1, 64)
			}
			if f.Cost.Bytes != 0 {
				bytes = strconv.FormatInt(f.Cost.Bytes, 10)
			}
			rows = append(rows, []string{csvText(f.ID), sv.String(), csvText(fmt.Sprint(f.Category)), csvText(f.Title), ms, rtts, bytes,
				csvText(f.Cost.Per), csvText(f.Fix), csvText(f.Evidence)})
		}
	}
	return rows
}

func experimentCSV(r *ExperimentJSON) [][]string {
	rows := [][]string{{"variant", "metric", "unit", "baseline_median", "variant_median", "ratio", "change", "ci_lo", "ci_hi",
		"ci_level", "p", "p_holm", "significant", "inconclusive"}}
	units := map[string]string{}
	for _, m := range r.Metrics {
		units[m.Name] = m.Unit
	}
	num := func(v float64) string { return strconv.FormatFloat(v, 'g', 6, 64) }
	ptr := func(v *float64) string {
		if v == nil {
			return ""
		}
		return num(*v)
	}
	for _, v := range r.Analysis.Verdicts {
		rows = append(rows, []string{csvText(v.Variant), csvText(v.Metric), csvText(units[v.Metric]), num(v.Baseline), num(v.Value),
			strconv.FormatBool(v.Ratio), num(v.Shift), ptr(v.CILo), ptr(v.CIHi), num(v.CILevel), num(v.P), num(v.PHolm),
			strconv.FormatBool(v.Significant), strconv.FormatBool(v.Inconclusive)})
	}
	return rows
}
