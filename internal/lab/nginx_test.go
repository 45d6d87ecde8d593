package lab_test

import (
	"context"
	"crypto/tls"
	"net/http"
	"testing"
	"time"

	"github.com/httpslab/httpslab/internal/lab"
	"github.com/httpslab/httpslab/internal/labtest"
)

func TestNginxAccessLog(t *testing.T) {
	n := labtest.StartNginx(t, lab.NginxConfig{HTTP2: true})
	tlsConf := &tls.Config{RootCAs: n.CA.Pool(), ClientSessionCache: tls.NewLRUClientSessionCache(4), MaxVersion: tls.VersionTLS12}
	for i := 0; i < 2; i++ {
		tr := &http.Transport{TLSClientConfig: tlsConf, ForceAttemptHTTP2: true}
		c := &http.Client{Transport: tr, Timeout: 10 * time.Second}
		for j := 0; j < 2; j++ {
			resp, body := get(t, c, n.HTTPSURL+"/1k.bin")
			if resp.StatusCode != 200 || len(body) != 1024 || resp.ProtoMajor != 2 {
				t.Fatalf("GET 1k.bin: %s %d, %d bytes; want HTTP/2 200 and 1024", resp.Proto, resp.StatusCode, len(body))
			}
		}
		tr.CloseIdleConnections()
	}
	if resp, _ := get(t, http.DefaultClient, n.HTTPURL+"/index.html"); resp.StatusCode != 200 {
		t.Errorf("plain GET status = %d; want 200", resp.StatusCode)
	}
	log, err := labtest.WaitAccessLog(context.Background(), n, 5)
	if err != nil {
		t.Fatal(err)
	}
	if len(log) != 5 {
		t.Fatalf("access log has %d lines; want 5: %+v", len(log), log)
	}
	if log[0].Reused || !log[2].Reused || log[1].ConnRequest != 2 || log[0].Conn == log[2].Conn {
		t.Errorf("access log = %+v; want connection 1 full with 2 requests, connection 2 resumed", log)
	}
	if log[0].TLSProtocol != "TLSv1.2" || log[0].HTTPProtocol != "HTTP/2.0" {
		t.Errorf("access log protocols = %s %s; want TLSv1.2 HTTP/2.0", log[0].TLSProtocol, log[0].HTTPProtocol)
	}
}
