package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"time"

	"github.com/miekg/dns"
)

// labZone is the DNS zone of the targets reached by name. It is in no
// public DNS: only the server serveZone starts in the script's network
// namespace answers for it, so that audit and testssl look up the same
// records.
const labZone = "httpslab-lab.net."

// Names of the zone: one with a CAA record, one without (nor has any of
// its parents one).
const (
	caaName   = "caa." + labZone
	noCAAName = "no-caa." + labZone
)

// caaValue is the CAA record of caaName: "0 issue" for this domain.
const caaValue = "ca.httpslab-lab.net"

// zoneAnswer is the server's answer to one question: A records give
// 127.0.0.1 for the zone's names, caaName has a CAA record, other names
// of the zone do not exist, and every name outside it (the parents a CAA
// lookup climbs to, reverse lookups) exists with no records.
func zoneAnswer(q dns.Question) (rcode int, answer []dns.RR) {
	name := strings.ToLower(q.Name)
	hdr := dns.RR_Header{Name: q.Name, Class: dns.ClassINET, Ttl: 60}
	switch {
	case name == caaName || name == noCAAName:
	case name == labZone || !dns.IsSubDomain(labZone, name):
		return dns.RcodeSuccess, nil
	default:
		return dns.RcodeNameError, nil
	}
	switch q.Qtype {
	case dns.TypeA:
		hdr.Rrtype = dns.TypeA
		return dns.RcodeSuccess, []dns.RR{&dns.A{Hdr: hdr, A: net.IPv4(127, 0, 0, 1)}}
	case dns.TypeCAA:
		if name == caaName {
			hdr.Rrtype = dns.TypeCAA
			return dns.RcodeSuccess, []dns.RR{&dns.CAA{Hdr: hdr, Flag: 0, Tag: "issue", Value: caaValue}}
		}
	}
	return dns.RcodeSuccess, nil
}

// serveZone answers for labZone on addr (UDP and TCP) until ctx ends; it
// returns once both listeners are up.
func serveZone(ctx context.Context, addr string) error {
	handler := dns.HandlerFunc(func(w dns.ResponseWriter, r *dns.Msg) {
		m := new(dns.Msg)
		m.SetReply(r)
		m.Authoritative = true
		if len(r.Question) == 1 {
			m.Rcode, m.Answer = zoneAnswer(r.Question[0])
		} else {
			m.Rcode = dns.RcodeFormatError
		}
		_ = w.WriteMsg(m)
	})
	var servers []*dns.Server
	for _, network := range []string{"udp", "tcp"} {
		up := make(chan struct{})
		s := &dns.Server{Addr: addr, Net: network, Handler: handler, NotifyStartedFunc: func() { close(up) }}
		failed := make(chan error, 1)
		go func() { failed <- s.ListenAndServe() }()
		select {
		case <-up:
		case err := <-failed:
			for _, s := range servers {
				_ = s.Shutdown()
			}
			return fmt.Errorf("serving the lab zone on %s/%s: %w", addr, network, err)
		case <-time.After(5 * time.Second):
			return errors.New("serving the lab zone: no listener after 5 s")
		}
		servers = append(servers, s)
	}
	go func() {
		<-ctx.Done()
		for _, s := range servers {
			_ = s.Shutdown()
		}
	}()
	return nil
}
