package probe

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/httpslab/httpslab/internal/transport"
	"github.com/httpslab/httpslab/internal/usage"
)

func TestFlagsPlan(t *testing.T) {
	for _, tt := range []struct {
		f       Flags
		want    Plan
		wantErr string
	}{
		{Flags{Runs: 1}, Plan{First: transport.Fresh, Rest: transport.Fresh, Runs: 1}, ""},
		{Flags{Runs: 1, Resume: true}, Plan{First: transport.Resumed, Rest: transport.Resumed, Runs: 2}, ""},
		{Flags{Runs: 5, ZeroRTT: true}, Plan{First: transport.ZeroRTT, Rest: transport.ZeroRTT, Runs: 5}, ""},
		{Flags{Runs: 1, Reuse: true}, Plan{First: transport.Fresh, Rest: transport.KeepAlive, Runs: 2}, ""},
		{Flags{Runs: 1, Reuse: true, Resume: true}, Plan{}, "choose one of --resume, --reuse and --0rtt"},
		{Flags{Runs: 0}, Plan{}, "-n 0: want 1 to 100000"},
		{Flags{Runs: 1, Output: "body.html"}, Plan{}, "-o body.html: probe does not keep response bodies"},
	} {
		got, err := tt.f.Plan()
		switch {
		case tt.wantErr == "" && (err != nil || got != tt.want):
			t.Errorf("%+v.Plan() = %+v, %v; want %+v", tt.f, got, err, tt.want)
		case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr) || !errors.As(err, new(*usage.Error))):
			t.Errorf("%+v.Plan() error %v; want a usage error containing %q", tt.f, err, tt.wantErr)
		}
	}
}

func TestFlagsConfig(t *testing.T) {
	const url = "https://127.0.0.1:8443/"
	for _, tt := range []struct {
		f       Flags
		c       transport.Curl
		url     string
		check   func(Config) bool
		wantErr string
	}{
		{Flags{ZeroRTT: true}, transport.Curl{}, url, func(c Config) bool { return c.Protocol == transport.HTTP3 }, ""},
		{Flags{H2Prior: true}, transport.Curl{}, "http://127.0.0.1:8080/", func(c Config) bool { return c.Protocol == transport.HTTP2 }, ""},
		{Flags{Head: true}, transport.Curl{}, url, func(c Config) bool { return c.Method == "HEAD" }, ""},
		{Flags{UserAgent: "ua", Location: true, FailOnError: true}, transport.Curl{}, url,
			func(c Config) bool {
				return c.Header.Get("User-Agent") == "ua" && c.FollowRedirects && c.FailOnHTTPError
			}, ""},
		{Flags{Resume: true}, transport.Curl{}, "http://127.0.0.1:8080/", nil, "--resume resumes TLS sessions"},
		{Flags{ZeroRTT: true}, transport.Curl{HTTP2: true}, url, nil, "--0rtt needs HTTP/3"},
		{Flags{Head: true}, transport.Curl{Method: "POST"}, url, nil, "-I sends HEAD, -X POST another method"},
		{Flags{Head: true}, transport.Curl{Data: []string{"a=1"}}, url, nil, "leave out -d and --data-binary"},
		{Flags{MaxRedirs: -2}, transport.Curl{}, url, nil, "--max-redirs -2"},
	} {
		cfg, err := tt.f.Config(tt.url, tt.c, strings.NewReader(""), time.Minute)
		switch {
		case tt.wantErr == "" && (err != nil || !tt.check(cfg)):
			t.Errorf("%+v.Config(%s) = %+v, %v", tt.f, tt.url, cfg, err)
		case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr) || !errors.As(err, new(*usage.Error))):
			t.Errorf("%+v.Config(%s) error %v; want a usage error containing %q", tt.f, tt.url, err, tt.wantErr)
		}
	}
}
