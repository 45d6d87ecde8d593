package cli

import (
	"fmt"
	"os"

	"github.com/httpslab/httpslab/internal/page"
	"github.com/httpslab/httpslab/internal/report"
)

// runPageSurvey loads every page of the --urls file over the protocols
// and reports, per page and across pages, what each protocol adds or
// saves.
func (e *env) runPageSurvey(args []string, f *pageFlags) error {
	s, err := f.survey(args)
	if err != nil {
		return err
	}
	har, err := createHAR(f.har)
	if err != nil {
		return err
	}
	if har != nil {
		defer har.Close()
	}
	ctx, stop := interruptible(e.ctx)
	defer stop()
	fmt.Fprintf(e.stderr, "httpslab: loading %d pages over %s, %d rounds each (Ctrl-C stops and reports)\n", len(s.Pages), page.JoinProtocols(s.Compare.Protocols), f.p.Rounds)
	s.Progress = func(i int) { fmt.Fprintf(e.stderr, "httpslab: page %d of %d done\n", i+1, len(s.Pages)) }
	res, runErr := s.Run(ctx)
	if f.out.json {
		err = report.WriteJSON(e.stdout, "page-survey", res)
	} else {
		err = report.PageSurvey(e.stdout, res)
	}
	if err != nil {
		return err
	}
	if err := writeHAR(har, func() error { return report.WriteSurveyHAR(har, res, versionString()) }); err != nil {
		return err
	}
	if err := e.writeResultHTML(f.out.html, "page-survey", res); err != nil {
		return err
	}
	switch {
	case runErr == nil:
		return nil
	case ctx.Err() != nil:
		return e.interrupted()
	}
	return withHint(runErr, page.Hint(runErr))
}

// survey turns the flags and the --urls file into the survey.
func (f *pageFlags) survey(args []string) (page.Survey, error) {
	var s page.Survey
	switch {
	case len(args) > 0:
		return s, usagef("--urls %s names the pages; give no URL with it", f.urls)
	case f.link.set():
		return s, usagef("--urls loads the pages as they are; the link flags are for the embedded server")
	case f.out.csv || f.httpURL != "":
		return s, withHint(usagef("--csv and --http-url describe one page, not a survey"),
			"give a page's plain-HTTP URL after its URL on its line of the --urls file")
	}
	if err := checkHTMLPath(f.out.html); err != nil {
		return s, err
	}
	if err := f.getOnly(); err != nil {
		return s, err
	}
	fh, err := os.Open(f.urls)
	if err != nil {
		return s, withHint(usagef("--urls: %v", err), "give a file with one page's URL per line")
	}
	defer fh.Close()
	if s.Pages, err = page.ReadSurvey(fh); err != nil {
		return s, usagef("--urls %s: %v", f.urls, err)
	}
	cfg, err := f.loadConfig()
	if err != nil {
		return s, err
	}
	s.Compare = page.Compare{Load: cfg, Rounds: f.p.Rounds, Warmup: f.p.CompareWarmup(), Warm: f.warm, Seed: f.seed}
	s.Compare.Protocols, err = f.p.ProtocolList(f.req.Curl, s.Pages[0].URL)
	return s, err
}
