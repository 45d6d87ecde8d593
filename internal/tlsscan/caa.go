package tlsscan

import (
	"cmp"
	"context"
	"crypto/x509"
	"fmt"
	"net"
	"strings"
	"time"

	"github.com/miekg/dns"
)

// CAA is what the DNS says of the CA Authorization records of the audited
// name (RFC 8659): which CAs may issue certificates for it. A CA looks at
// the name itself, then climbs to its parents until one has a record set.
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
	// NotMeasured says why there is no answer: an IP address, a name
	// outside the public DNS, a resolver that did not answer.
	NotMeasured string `json:"not_measured,omitempty"`
}

// caaTimeout bounds each lookup: CAA is no part of a client's connection,
// so a slow resolver must not hold the audit.
const caaTimeout = 2 * time.Second

// specialNames are the special-use domains (RFC 6761, RFC 6762, RFC 8375)
// that are not in the public DNS: no public CA issues for them.
var specialNames = []string{"localhost", "invalid", "test", "example", "local", "home.arpa"}

// checkCAA looks up the CAA record set that applies to host, asking
// resolver (host:port; empty means the first nameserver of
// /etc/resolv.conf). The error says why it could not be measured.
func checkCAA(ctx context.Context, host, resolver string) (*CAA, error) {
	if net.ParseIP(strings.Trim(host, "[]")) != nil {
		return nil, fmt.Errorf("%s is an IP address: CAA records belong to DNS names", host)
	}
	name := strings.ToLower(strings.TrimSuffix(host, "."))
	for _, s := range specialNames {
		if name == s || strings.HasSuffix(name, "."+s) {
			return nil, fmt.Errorf("%s is a special-use name, not in the public DNS: no public CA issues for it", host)
		}
	}
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
	return one(Finding{ID: "caa-missing", Severity: Low, Category: Safety,
		Title:    "no DNS CAA record: any CA may issue certificates for " + r.CAA.Asked[0],
		Evidence: fmt.Sprintf("no CAA record at %s (asked %s)", strings.Join(r.CAA.Asked, ", "), r.CAA.Resolver),
		Cost:     Cost{Note: "none for clients: CAs read CAA when they issue, browsers never do"},
		Fix:      caaFix(r.CAA.Asked[0], r.Chain.leaf),
		Reason: "a CAA record limits issuance to the CAs it names, so a mistake or an attack at another CA " +
			"cannot get a certificate for the name",
		Reference: "RFC 8659 (DNS CAA)"})
}
