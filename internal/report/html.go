package report

// The HTML report: one self-contained file for any number of results.
// Everything it needs is inside it: the CSS inline, the charts as inline
// SVG drawn in Go, no script at all (a chart's hover text is SVG's own
// <title>). Its Content-Security-Policy forbids every load (default-src
// 'none') and allows one inline style, its own, by the SHA-256 of the
// exact text written (computed when the page is rendered), so the file
// opens offline, and neither a string a server sent nor an edit of the
// saved file can add a style, a script or a fetch that the browser would
// run. Every text from a result goes through html/template, which escapes
// it for where it lands; no result data is ever passed as template.HTML.
//
// Size: every chart is drawn from summaries (HDR histograms, medians,
// the phases of one median load), never from every sample, so a report
// grows with the number of results, variants and connections, not with
// the length of the runs.

import (
	"crypto/sha256"
	_ "embed"
	"encoding/base64"
	"fmt"
	"html/template"
	"io"
	"strconv"
	"strings"

	"github.com/httpslab/httpslab/internal/page"
)

//go:embed html.tmpl
var htmlTemplate string

//go:embed html.css
var htmlCSS string

var htmlPage = template.Must(template.New("report").Funcs(template.FuncMap{
	"num":      func(v float64) string { return strconv.FormatFloat(v, 'f', 1, 64) },
	"textCell": textCell,
}).Parse(htmlTemplate))

// HTMLInput is one result given to the HTML report, with the name it is
// shown under (a file name or a --label).
type HTMLInput struct {
	Label string
	Doc   *Document
}

// htmlReport is the template's data.
type htmlReport struct {
	Title, Subtitle, Version string
	CSP                      string       // the page's Content-Security-Policy
	CSS                      template.CSS // the one inline style, constant
	Sections                 []section
}

// contentPolicy is the Content-Security-Policy of a page whose only
// inline content is the style css: nothing may load, no script may run,
// and the style applies only while it is byte for byte the one hashed.
func contentPolicy(css string) string {
	sum := sha256.Sum256([]byte(css))
	return "default-src 'none'; style-src 'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'; base-uri 'none'; form-action 'none'"
}

// section is the part of the report about one result, or about several
// bench or page results drawn together.
type section struct {
	Title  string
	Meta   []string
	Charts []chart
	Tables []table
	Notes  []string
}

// WriteHTML writes the report of the inputs to w. Bench results, and page
// results, are also drawn together, one series each, when there are
// several of a kind.
func WriteHTML(w io.Writer, in []HTMLInput) error {
	rep := htmlReport{Title: "httpslab report", Version: versionOrDevel(), CSS: template.CSS(htmlCSS), CSP: contentPolicy(htmlCSS)}
	var labels []string
	var benches, pages []HTMLInput
	for _, d := range in {
		labels = append(labels, d.Label)
		switch d.Doc.Result.(type) {
		case *BenchJSON:
			benches = append(benches, d)
		case *page.Result:
			pages = append(pages, d)
		}
	}
	rep.Subtitle = strings.Join(labels, ", ")
	if len(benches) > 1 {
		rep.Sections = append(rep.Sections, benchOverlay(benches))
	}
	if len(pages) > 1 {
		rep.Sections = append(rep.Sections, pageOverlay(pages))
	}
	for _, d := range in {
		s, err := htmlSection(d)
		if err != nil {
			return err
		}
		rep.Sections = append(rep.Sections, s)
	}
	for i, s := range rep.Sections {
		for j := range s.Charts {
			s.Charts[j].ID = fmt.Sprintf("s%dc%d", i, j)
		}
	}
	if err := htmlPage.Execute(w, rep); err != nil {
		return fmt.Errorf("writing the html report: %w", err)
	}
	return nil
}

// htmlSection draws one result by its kind.
func htmlSection(in HTMLInput) (section, error) {
	var s section
	switch r := in.Doc.Result.(type) {
	case *BenchJSON:
		s = benchSection(r)
	case *ProbeJSON:
		s = probeSection(r)
	case *CompareJSON:
		s = compareSection(r.Result, r.Findings)
		s.Meta = append([]string{"target " + r.Target}, s.Meta...)
	case *ExperimentJSON:
		s = experimentSection(r)
	default:
		return moreSections(in)
	}
	s.Title = in.Doc.Kind + ": " + in.Label
	s.Meta = append(s.Meta, docMeta(in.Doc))
	return s, nil
}

// docMeta says which schema and binary wrote a document, and when.
func docMeta(d *Document) string {
	return fmt.Sprintf("%s, written by httpslab %s at %s", d.Schema, d.Version, d.Created.UTC().Format("2006-01-02 15:04:05 UTC"))
}

// textCell tells a cell of words (left-aligned) from a number.
func textCell(s string) bool {
	for _, r := range s {
		if (r < '0' || r > '9') && !strings.ContainsRune(" .,+-−~%<>[]()/µmsBkMG×", r) {
			return true
		}
	}
	return false
}

func versionOrDevel() string {
	if Version == "" {
		return "(devel)"
	}
	return Version
}
