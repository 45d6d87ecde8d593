package probe

import (
	"crypto/tls"
	"fmt"
	"net/http"
	"strings"

	"github.com/httpslab/httpslab/internal/transport"
)

// tlsFacts describes a handshake's outcome. earlyData is whether the
// server accepted 0-RTT data (QUIC only; Go's TLS over TCP never sends it).
func tlsFacts(cs *tls.ConnectionState, earlyData bool) *TLS {
	t := &TLS{
		Version:     tls.VersionName(cs.Version),
		VersionID:   cs.Version,
		CipherSuite: tls.CipherSuiteName(cs.CipherSuite),
		ALPN:        cs.NegotiatedProtocol,
		Resumed:     cs.DidResume,
		HelloRetry:  cs.HelloRetryRequest,
		EarlyData:   earlyData,
		ServerName:  cs.ServerName,
		OCSPStapled: len(cs.OCSPResponse) > 0,
		Verified:    len(cs.VerifiedChains) > 0,
	}
	if cs.CurveID != 0 {
		t.Group = transport.GroupName(cs.CurveID)
		t.PostQuantum = transport.IsPostQuantum(cs.CurveID)
	}
	for _, c := range cs.PeerCertificates {
		t.Chain = append(t.Chain, transport.CertFacts(c))
		t.ChainBytes += len(c.Raw)
	}
	return t
}

// headerSize is the size of the response header h as HTTP/1.1 text
// (status line, fields, blank line). For HTTP/2 and HTTP/3 it is the
// decoded size, not the compressed bytes on the wire, with the status
// line as curl writes it for them ("HTTP/2 200 \r\n"): they carry no
// reason phrase.
func headerSize(resp *http.Response, h http.Header) int64 {
	n := len(resp.Proto) + 1 + len(resp.Status) + 2
	if resp.ProtoMajor >= 2 {
		n = len(fmt.Sprintf("HTTP/%d %03d \r\n", resp.ProtoMajor, resp.StatusCode))
	}
	for k, vs := range h {
		for _, v := range vs {
			n += len(k) + 2 + len(v) + 2
		}
	}
	return int64(n + 2)
}

// wireHeader is the response header as it came: net/http moves an
// HTTP/1.1 Transfer-Encoding field out of the Header into
// TransferEncoding, and it is put back.
func wireHeader(resp *http.Response) http.Header {
	if resp.ProtoMajor != 1 || len(resp.TransferEncoding) == 0 || resp.Header.Get("Transfer-Encoding") != "" {
		return resp.Header
	}
	h := resp.Header.Clone()
	h["Transfer-Encoding"] = []string{strings.Join(resp.TransferEncoding, ", ")}
	return h
}
