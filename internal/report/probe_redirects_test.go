package report

import (
	"errors"
	"strings"
	"testing"

	"github.com/httpslab/httpslab/internal/probe"
)

// TestRedirectSummary: with -L -n the redirects before the final hop and
// the whole transfer are summarized (curl's time_redirect and
// time_total); failed runs and runs without redirects are left out.
func TestRedirectSummary(t *testing.T) {
	failed := &probe.Result{Hops: redirectHops(), Err: errors.New("cut"), Error: "cut"}
	runs := []*probe.Result{{Hops: redirectHops()}, {Hops: []probe.Timeline{h2Fresh()}}, failed}
	var b strings.Builder
	if err := RedirectSummary(&b, runs); err != nil {
		t.Fatal(err)
	}
	want := "with -L the rows above are each run's final hop, after 1 redirect:\n" +
		"  redirects     1    2.000 ms    2.000 ms    2.000 ms    2.000 ms\n" +
		"  transfer      1    5.200 ms    5.200 ms    5.200 ms    5.200 ms\n"
	if b.String() != want {
		t.Errorf("RedirectSummary:\n%s\nwant:\n%s", b.String(), want)
	}
	b.Reset()
	if err := RedirectSummary(&b, runs[1:2]); err != nil || b.Len() != 0 {
		t.Errorf("RedirectSummary without redirects = %q, %v; want nothing", b.String(), err)
	}
}

// TestWriteOutFailedRedirectTarget: when the hop a redirect led to
// failed, the response variables keep the redirect's response, as curl
// 7.88 prints them (http_code 302 for a redirect to a server whose
// certificate did not verify), while url_effective is the failed URL.
func TestWriteOutFailedRedirectTarget(t *testing.T) {
	hops := redirectHops()
	hops[1].Status, hops[1].Proto, hops[1].Header = 0, "", nil
	hops[1].Err = "tls: failed to verify certificate"
	got, _, _ := execute(t, "%{http_code} %{response_code} %{http_version} %{content_type} %header{location} %{num_headers} %{url_effective} %{exitcode}",
		WriteOutInput{Hops: hops})
	if want := "301 301 1.1 text/html https://localhost:8443/final 2 https://localhost:8443/final 1"; got != want {
		t.Errorf("failed redirect target:\n got %q\nwant %q", got, want)
	}
}

// TestWriteOutEffectiveURL: url_effective shows an empty path as "/",
// as curl does; url is the URL as given.
func TestWriteOutEffectiveURL(t *testing.T) {
	tl := h2Fresh()
	tl.URL = "https://localhost:8443"
	got, _, _ := execute(t, "%{url} %{url_effective}", WriteOutInput{Hops: []probe.Timeline{tl}})
	if want := "https://localhost:8443 https://localhost:8443/"; got != want {
		t.Errorf("url url_effective = %q; want %q", got, want)
	}
}
