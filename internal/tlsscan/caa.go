package tlsscan

import (
	"cmp"
	"context"
	"crypto/x509"
	"fmt"
	"net"
	"slices"
	"strings"
	"time"

	"github.com/miekg/dns"
)

// CAA is what the DNS says of the CA Authorization records of the audited
// name (RFC 8659): which CAs may issue certificates for it. A CA looks at
// the name itself, then climbs to its parents until one has a record set.
//
// CAA records belong to DNS names, so for a target given as an IP address
// the names looked up are the DNS names of the leaf's subjectAltName, as
// a CA looks up each name it issues a certificate for: the result is the
// first of them without a record set (the one a finding is about), or
// else the first one's.
type CAA struct {
	// Name is the name whose record set applies, the host or its closest
	// parent with one; empty when none has any.
	Name string `json:"name,omitempty"`
	// Records are Name's CAA records as a zone file writes them.
	Records []string `json:"records,omitempty"`
	// Asked lists the names looked up, the host first.
	Asked []string `json:"asked,omitempty"`
	// Resolver is the DNS server asked.
	Resolver string `json:"resolver,omitempty"`
	// NotMeasured says why there is no answer: an IP address whose
	// certificate names no DNS name, a name outside the public DNS, a
	// resolver that did not answer.
	NotMeasured string `json:"not_measured,omitempty"`
	// OfCertificate is true when the target is an IP address and Asked[0]
	// is a DNS name of the leaf's subjectAltName.
	OfCertificate bool `json:"of_certificate,omitempty"`
	// Skipped are the leaf's DNS names not looked up, for a target given
	// as an IP address: special-use names, not in the public DNS.
	Skipped []string `json:"skipped,omitempty"`
}

// caaTimeout bounds each lookup: CAA is no part of a client's connection,
// so a slow resolver must not hold the audit.
const caaTimeout = 2 * time.Second

// specialNames are the special-use domains (RFC 6761, RFC 6762, RFC 8375)
// that are not in the public DNS, or whose names no public CA issues for.
var specialNames = []string{"localhost", "invalid", "test", "example", "example.com", "example.net", "example.org", "local", "home.arpa"}

// specialUse reports whether name (lower case, no final dot) is in a
// special-use domain.
func specialUse(name string) bool {
	return slices.ContainsFunc(specialNames, func(s string) bool { return name == s || strings.HasSuffix(name, "."+s) })
}

// isIPAddress reports whether host is an IP address, bracketed or not.
func isIPAddress(host string) bool { return net.ParseIP(strings.Trim(host, "[]")) != nil }

// maxCAANames bounds the certificate's names looked up for an IP target.
const maxCAANames = 8

// checkCAA looks up the CAA record set that applies to host, asking
// resolver (host:port; empty means the first nameserver of
// /etc/resolv.conf). For an IP address it looks up the DNS names of leaf
// instead (see CAA). The error says why it could not be measured.
func checkCAA(ctx context.Context, host string, leaf *x509.Certificate, resolver string) (*CAA, error) {
	if isIPAddress(host) {
		return checkCAAOfCertificate(ctx, host, leaf, resolver)
	}
	name := strings.ToLower(strings.TrimSuffix(host, "."))
	if specialUse(name) {
		return nil, fmt.Errorf("%s is a special-use name, not in the public DNS: no public CA issues for it", host)
	}
	return lookupCAATree(ctx, name, resolver)
}

// checkCAAOfCertificate looks up the CAA record sets of leaf's DNS names
// (a wildcard's at the name below it, RFC 8659, 4.3), for the target ip:
// the first without a record set, or else the first one's.
func checkCAAOfCertificate(ctx context.Context, ip string, leaf *x509.Certificate, resolver string) (*CAA, error) {
	var names, skipped []string
	if leaf != nil {
		for _, n := range leaf.DNSNames {
			n = strings.ToLower(strings.TrimSuffix(strings.TrimPrefix(n, "*."), "."))
			switch {
			case n == "" || slices.Contains(names, n) || slices.Contains(skipped, n):
			case specialUse(n):
				skipped = append(skipped, n)
			default:
				names = append(names, n)
			}
		}
	}
	switch {
	case len(names) == 0 && len(skipped) > 0:
		return nil, fmt.Errorf("%s is an IP address, and its certificate's DNS names (%s) are special-use names, not in the public DNS: no public CA issues for them",
			ip, strings.Join(skipped, ", "))
	case len(names) == 0:
		return nil, fmt.Errorf("%s is an IP address, and its certificate names no DNS name: CAA records belong to DNS names", ip)
	}
	var first *CAA
	for _, n := range names[:min(len(names), maxCAANames)] {
		res, err := lookupCAATree(ctx, n, resolver)
		if err != nil {
			return nil, fmt.Errorf("%s is an IP address; for its certificate's name %s: %w", ip, n, err)
		}
		res.OfCertificate, res.Skipped = true, skipped
		if res.Name == "" {
			return res, nil
		}
		first = cmp.Or(first, res)
	}
	return first, nil
}

// lookupCAATree looks up the CAA record set that applies to name: at the
// name, then at each parent.
func lookupCAATree(ctx context.Context, name, resolver string) (*CAA, error) {
	if resolver == "" {
		conf, err := dns.ClientConfigFromFile("/etc/resolv.conf")
		if err != nil || len(conf.Servers) == 0 {
			return nil, fmt.Errorf("no resolver to ask (/etc/resolv.conf: %v)", err)
		}
		resolver = net.JoinHostPort(conf.Servers[0], conf.Port)
	}
	res := &CAA{Resolver: resolver}
	labels := dns.SplitDomainName(name)
	// The host, then each parent up to the top-level domain: at most 127
	// names, as a name has at most 127 labels.
	for i := range labels {
		n := strings.Join(labels[i:], ".")
		res.Asked = append(res.Asked, n)
		r, err := lookupCAA(ctx, dns.Fqdn(n), resolver)
		if err != nil {
			return nil, err
		}
		switch {
		case r.Rcode == dns.RcodeNameError && i == 0:
			return nil, fmt.Errorf("the resolver %s does not know %s (NXDOMAIN): the name is not in the DNS it serves", resolver, n)
		case r.Rcode != dns.RcodeSuccess && r.Rcode != dns.RcodeNameError:
			return nil, fmt.Errorf("the resolver %s answered %s for the CAA records of %s", resolver, dns.RcodeToString[r.Rcode], n)
		}
		for _, rr := range r.Answer {
			if c, ok := rr.(*dns.CAA); ok {
				res.Records = append(res.Records, fmt.Sprintf("%d %s %q", c.Flag, c.Tag, c.Value))
			}
		}
		if len(res.Records) > 0 {
			res.Name = n
			return res, nil
		}
	}
	return res, nil
}

// lookupCAA asks resolver for name's CAA records, over UDP and, when the
// answer was cut short, again over TCP.
func lookupCAA(ctx context.Context, name, resolver string) (*dns.Msg, error) {
	m := new(dns.Msg)
	m.SetQuestion(name, dns.TypeCAA)
	m.SetEdns0(1232, false)
	var r *dns.Msg
	var err error
	for _, network := range []string{"udp", "tcp"} {
		c := &dns.Client{Net: network, Timeout: caaTimeout}
		r, _, err = c.ExchangeContext(ctx, m, resolver)
		if err != nil {
			return nil, fmt.Errorf("asking %s for the CAA records of %s: %w", resolver, name, err)
		}
		if !r.Truncated {
			break
		}
	}
	return r, nil
}

// caaDomains are the issuer domain names that well-known CAs document
// for CAA, by the organization in their certificates.
var caaDomains = map[string]string{
	"Let's Encrypt": "letsencrypt.org", "DigiCert Inc": "digicert.com", "Sectigo Limited": "sectigo.com",
	"GlobalSign nv-sa": "globalsign.com", "Google Trust Services": "pki.goog", "Google Trust Services LLC": "pki.goog",
	"Amazon": "amazon.com", "ZeroSSL": "sectigo.com", "Entrust, Inc.": "entrust.net", "IdenTrust": "identrust.com",
}

// caaFix is the zone line that lets the chain's CA, and only it, issue
// for name.
func caaFix(name string, leaf *x509.Certificate) string {
	domain, org := "", ""
	if leaf != nil && len(leaf.Issuer.Organization) > 0 {
		org = leaf.Issuer.Organization[0]
		domain = caaDomains[org]
	}
	comment := "# in the DNS zone of " + name + " (not nginx): only this CA may issue for it"
	if domain == "" {
		domain = "ca.example"
		comment = fmt.Sprintf("# in the DNS zone of %s (not nginx): put the issuer domain your CA (%s) documents for CAA in place of ca.example",
			name, cmp.Or(org, "the leaf's issuer"))
	}
	return fmt.Sprintf("%s\n%s. 3600 IN CAA 0 issue %q", comment, name, domain)
}

// dnsRules are the rules on what the DNS says of the name.
var dnsRules = []rule{ruleCAAMissing}

// ruleCAAMissing reports a name without a CAA record at it or any parent.
func ruleCAAMissing(r *Report) []Finding {
	if r.CAA == nil || r.CAA.Name != "" || r.CAA.NotMeasured != "" || len(r.CAA.Asked) == 0 {
		return nil
	}
	title, evidence := "no DNS CAA record: any CA may issue certificates for "+r.CAA.Asked[0], ""
	if r.CAA.OfCertificate {
		title += ", a name in the certificate of " + r.Address
		evidence = fmt.Sprintf("; the target is an IP address, so the CAA of the certificate's DNS names was looked up, and %s has none",
			r.CAA.Asked[0])
	}
	return one(Finding{ID: "caa-missing", Severity: Low, Category: Safety,
		Title:    title,
		Evidence: fmt.Sprintf("no CAA record at %s (asked %s)%s", strings.Join(r.CAA.Asked, ", "), r.CAA.Resolver, evidence),
		Cost:     Cost{Note: "none for clients: CAs read CAA when they issue, browsers never do"},
		Fix:      caaFix(r.CAA.Asked[0], r.Chain.leaf),
		Reason: "a CAA record limits issuance to the CAs it names, so a mistake or an attack at another CA " +
			"cannot get a certificate for the name",
		Reference: "RFC 8659 (DNS CAA)"})
}
