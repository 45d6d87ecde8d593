package transport

import "errors"

// CurlProtocol is the protocol curl's --http1.1, --http2 and --http3
// choose: ProtoAuto when none is given, an error when more than one is.
func CurlProtocol(http11, http2, http3 bool) (Protocol, error) {
	chosen := ProtoAuto
	for _, p := range []struct {
		on    bool
		proto Protocol
	}{{http11, HTTP1}, {http2, HTTP2}, {http3, HTTP3}} {
		if p.on && chosen != ProtoAuto {
			return ProtoAuto, errors.New("choose one of --http1.1, --http2 and --http3")
		}
		if p.on {
			chosen = p.proto
		}
	}
	return chosen, nil
}

// CurlRoutes are the routes as curl's options spell them: --resolve,
// --connect-to, -4 and -6, parsed once for every runner.
type CurlRoutes struct {
	Resolve, ConnectTo []string
	IPv4, IPv6         bool
}

// Routes reads the options; -4 with -6 is an error.
func (c CurlRoutes) Routes() (Routes, error) {
	ipVersion := 0
	switch {
	case c.IPv4 && c.IPv6:
		return Routes{}, errors.New("choose one of -4 and -6")
	case c.IPv4:
		ipVersion = 4
	case c.IPv6:
		ipVersion = 6
	}
	return ParseRoutes(c.Resolve, c.ConnectTo, ipVersion)
}
