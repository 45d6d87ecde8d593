package labtest

import (
	"context"
	"crypto/tls"
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestH2ModesAgainstNetHTTP runs net/http's HTTP/2 client against each HTTP/2
// mode: each fails the way it means to, within a few seconds.
func TestH2ModesAgainstNetHTTP(t *testing.T) {
	for _, tt := range []struct {
		mode Mode
		want string
	}{
		{H2HeadersForever, "PROTOCOL_ERROR"},
		{H2InformationalForever, "header list too large"}, // net/http bounds the 1xx headers by size
	} {
		t.Run(tt.mode.String(), func(t *testing.T) {
			t.Parallel() // each waits on its own server
			s := NewMisbehaving(t, tt.mode)
			tr := &http.Transport{TLSClientConfig: &tls.Config{RootCAs: s.CA.Pool()}, MaxResponseHeaderBytes: 64 << 10,
				Protocols: new(http.Protocols)}
			tr.Protocols.SetHTTP2(true)
			defer tr.CloseIdleConnections()
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.URL(), nil)
			if err != nil {
				t.Fatal(err)
			}
			resp, err := tr.RoundTrip(req)
			if err == nil {
				resp.Body.Close()
			}
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("GET %s = %v; want an error with %q", s.URL(), err, tt.want)
			}
		})
	}
}
