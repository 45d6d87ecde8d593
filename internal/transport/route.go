package transport

import (
	"fmt"
	"net"
	"net/netip"
	"strconv"
	"strings"
)

// Routes are where a measurement's connections go instead of where DNS
// would send them: curl's --resolve and --connect-to entries and its -4 or
// -6. The command line parses them once (ParseRoutes) and every runner
// (probe, load, compare) takes the parsed value.
type Routes struct {
	Resolve   []Resolve   // --resolve entries, the first match wins
	ConnectTo []ConnectTo // --connect-to entries, the first match wins
	IPVersion int         // 0: any, 4 or 6
}

// ParseRoutes reads --resolve and --connect-to entries and an IP version
// (0, 4 or 6) into Routes.
func ParseRoutes(resolve, connectTo []string, ipVersion int) (Routes, error) {
	if ipVersion != 0 && ipVersion != 4 && ipVersion != 6 {
		return Routes{}, fmt.Errorf("parsing routes: IP version %d (want 4 or 6)", ipVersion)
	}
	r := Routes{IPVersion: ipVersion}
	for _, s := range resolve {
		e, err := ParseResolve(s)
		if err != nil {
			return Routes{}, err
		}
		r.Resolve = append(r.Resolve, e)
	}
	for _, s := range connectTo {
		e, err := ParseConnectTo(s)
		if err != nil {
			return Routes{}, err
		}
		r.ConnectTo = append(r.ConnectTo, e)
	}
	return r, nil
}

// Resolve is one curl --resolve entry, HOST:PORT:ADDR[,ADDR]...: connections
// to HOST on PORT go to the given addresses without a DNS lookup. HOST "*"
// matches every host.
type Resolve struct {
	Host  string
	Port  int
	Addrs []netip.Addr
}

// ParseResolve reads a --resolve entry. IPv6 addresses may be bracketed.
func ParseResolve(s string) (Resolve, error) {
	parts, err := splitHostParts(strings.TrimPrefix(s, "+"))
	if err != nil || len(parts) != 3 {
		return Resolve{}, fmt.Errorf("parsing --resolve %q: want HOST:PORT:ADDR[,ADDR]", s)
	}
	port, err := parsePort(parts[1])
	if err != nil || port == 0 {
		return Resolve{}, fmt.Errorf("parsing --resolve %q: bad port %q", s, parts[1])
	}
	host, err := ASCIIHost(parts[0])
	if err != nil {
		return Resolve{}, fmt.Errorf("parsing --resolve %q: %w", s, err)
	}
	r := Resolve{Host: host, Port: port}
	for _, a := range strings.Split(parts[2], ",") {
		ip, err := netip.ParseAddr(strings.Trim(a, "[]"))
		if err != nil {
			return Resolve{}, fmt.Errorf("parsing --resolve %q: %q is not an IP address", s, a)
		}
		r.Addrs = append(r.Addrs, ip)
	}
	return r, nil
}

// ConnectTo is one curl --connect-to entry, HOST1:PORT1:HOST2:PORT2:
// a connection meant for HOST1:PORT1 goes to HOST2:PORT2 instead, while
// the request (Host header, SNI, certificate check) still names HOST1. An
// empty HOST1 or PORT1 matches any; an empty HOST2 or PORT2 keeps the
// original.
type ConnectTo struct {
	FromHost string
	FromPort int
	ToHost   string
	ToPort   int
}

// ParseConnectTo reads a --connect-to entry.
func ParseConnectTo(s string) (ConnectTo, error) {
	parts, err := splitHostParts(s)
	if err != nil || len(parts) != 4 {
		return ConnectTo{}, fmt.Errorf("parsing --connect-to %q: want HOST1:PORT1:HOST2:PORT2", s)
	}
	from, err := ASCIIHost(strings.Trim(parts[0], "[]"))
	if err != nil {
		return ConnectTo{}, fmt.Errorf("parsing --connect-to %q: %w", s, err)
	}
	to, err := ASCIIHost(strings.Trim(parts[2], "[]"))
	if err != nil {
		return ConnectTo{}, fmt.Errorf("parsing --connect-to %q: %w", s, err)
	}
	c := ConnectTo{FromHost: from, ToHost: to}
	if c.FromPort, err = parsePort(parts[1]); err != nil {
		return ConnectTo{}, fmt.Errorf("parsing --connect-to %q: %w", s, err)
	}
	if c.ToPort, err = parsePort(parts[3]); err != nil {
		return ConnectTo{}, fmt.Errorf("parsing --connect-to %q: %w", s, err)
	}
	return c, nil
}

// splitHostParts splits s at colons that are not inside brackets.
func splitHostParts(s string) ([]string, error) {
	var parts []string
	depth, start := 0, 0
	for i, r := range s {
		switch r {
		case '[':
			depth++
		case ']':
			depth--
			if depth < 0 {
				return nil, fmt.Errorf("unbalanced brackets in %q", s)
			}
		case ':':
			if depth == 0 {
				parts = append(parts, s[start:i])
				start = i + 1
			}
		}
	}
	if depth != 0 {
		return nil, fmt.Errorf("unbalanced brackets in %q", s)
	}
	return append(parts, s[start:]), nil
}

// parsePort reads a port number; empty means 0 (any or unchanged).
func parsePort(s string) (int, error) {
	if s == "" {
		return 0, nil
	}
	p, err := strconv.Atoi(s)
	if err != nil || p < 0 || p > 65535 {
		return 0, fmt.Errorf("bad port %q", s)
	}
	return p, nil
}

// route is where a connection for a URL's host:port really goes.
type route struct {
	host, port string       // after --connect-to
	addrs      []netip.Addr // from --resolve; nil: resolve host
}

// Route applies --connect-to and then --resolve to addr, the host:port of
// the URL, as curl does.
func (d *Dialer) route(addr string) (route, error) {
	host, portStr, err := net.SplitHostPort(addr)
	if err != nil {
		return route{}, fmt.Errorf("dialing %q: %w", addr, err)
	}
	port, err := parsePort(portStr)
	if err != nil {
		return route{}, fmt.Errorf("dialing %q: %w", addr, err)
	}
	host = strings.ToLower(host)
	for _, c := range d.ConnectTo {
		if (c.FromHost == "" || c.FromHost == host) && (c.FromPort == 0 || c.FromPort == port) {
			if c.ToHost != "" {
				host = strings.ToLower(c.ToHost)
			}
			if c.ToPort != 0 {
				port = c.ToPort
			}
			break
		}
	}
	r := route{host: host, port: strconv.Itoa(port)}
	for _, res := range d.Resolve {
		if (res.Host == "*" || res.Host == host) && res.Port == port {
			r.addrs = d.filter(res.Addrs)
			if len(r.addrs) == 0 {
				return route{}, fmt.Errorf("no IPv%d address in --resolve", d.IPVersion)
			}
			break
		}
	}
	return r, nil
}

// filter keeps the addresses of the chosen IP version.
func (d *Dialer) filter(addrs []netip.Addr) []netip.Addr {
	var out []netip.Addr
	for _, a := range addrs {
		a = a.Unmap()
		if d.IPVersion == 0 || (d.IPVersion == 4) == a.Is4() {
			out = append(out, a)
		}
	}
	return out
}

// network returns "tcp4", "tcp6" or "tcp" (or the udp ones) for the IP version.
func (d *Dialer) network(base string) string {
	switch d.IPVersion {
	case 4:
		return base + "4"
	case 6:
		return base + "6"
	}
	return base
}
