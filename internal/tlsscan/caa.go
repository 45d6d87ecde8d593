package tlsscan

import (
	"cmp"
	"context"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/miekg/dns"
)

// CAA is what the DNS says of the CA Authorization records of the audited
// name (RFC 8659): which CAs may issue certificates for it. A CA looks at
// the name itself, then climbs to its parents until one has a record set.
//
// CAA records belong to DNS names, so for a target given as an IP address
// the names looked up are the DNS names of the leaf's subjectAltName (up
// to maxCAANames), as a CA looks up each name it issues a certificate
// for: Names holds each one's result, and the fields above it are those
// of the first name without a record set (a finding names every such
// name), or else of the first name with one.
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
	// Names is the result of each of the leaf's DNS names looked up, in
	// the certificate's order, for a target given as an IP address.
	Names []CAAName `json:"names,omitempty"`
	// rrs are Name's CAA records, for the issuers they allow.
	rrs []*dns.CAA
}

// CAAName is what the DNS says of one DNS name of the certificate.
type CAAName struct {
	// Name is the name looked up: the certificate's name, a wildcard's
	// without its "*." (RFC 8659, 4.3).
	Name string `json:"name"`
	// Wildcard is true when the certificate names *.Name: the issuers are
	// then those of issuewild, where the record set has that tag.
	Wildcard bool `json:"wildcard,omitempty"`
	// At is the name whose record set applies, Name or its closest parent
	// with one; empty when none has any (or when the name was not answered).
	At string `json:"at,omitempty"`
	// Records are At's CAA records as a zone file writes them.
	Records []string `json:"records,omitempty"`
	// Issuers are the issuer domain names the records allow to issue for
	// the name; none, with records, means that no CA may.
	Issuers []string `json:"issuers,omitempty"`
	// Asked lists the names looked up, Name first.
	Asked []string `json:"asked,omitempty"`
	// NXDomain is true when the resolver does not know Name: it is not in
	// the DNS the resolver serves.
	NXDomain bool `json:"nxdomain,omitempty"`
	// Error says why Name's records are not known otherwise: a resolver
	// that did not answer, or answered with an error.
	Error string `json:"error,omitempty"`
}

// missing reports a name answered without a record set at it or above.
func (n CAAName) missing() bool { return n.At == "" && !n.NXDomain && n.Error == "" }

// errNXDomain is wrapped by the error of a lookup whose name the resolver
// does not know.
var errNXDomain = errors.New("NXDOMAIN")

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
// (a wildcard's at the name below it, RFC 8659, 4.3) for the target ip,
// each name in parallel: one result per name, and the overall one of the
// first name without a record set, or else of the first name with one.
// It is not measured when no name could be looked up or none answered.
func checkCAAOfCertificate(ctx context.Context, ip string, leaf *x509.Certificate, resolver string) (*CAA, error) {
	names, skipped := caaNames(leaf)
	switch {
	case len(names) == 0 && len(skipped) > 0:
		return nil, fmt.Errorf("%s is an IP address, and its certificate's DNS names (%s) are special-use names, not in the public DNS: no public CA issues for them",
			ip, strings.Join(skipped, ", "))
	case len(names) == 0:
		return nil, fmt.Errorf("%s is an IP address, and its certificate names no DNS name: CAA records belong to DNS names", ip)
	}
	names = names[:min(len(names), maxCAANames)]
	trees := make([]*CAA, len(names))
	errs := make([]error, len(names))
	var wg sync.WaitGroup
	for i, n := range names {
		wg.Go(func() { trees[i], errs[i] = lookupCAATree(ctx, n.Name, resolver) })
	}
	wg.Wait()
	var first, firstMissing *CAA
	var failed []string
	for i := range names {
		names[i].fill(trees[i], errs[i])
		if errs[i] != nil {
			failed = append(failed, fmt.Sprintf("for its certificate's name %s: %v", names[i].Name, errs[i]))
			continue
		}
		first = cmp.Or(first, trees[i])
		if names[i].missing() {
			firstMissing = cmp.Or(firstMissing, trees[i])
		}
	}
	if first == nil {
		return nil, fmt.Errorf("%s is an IP address; %s", ip, strings.Join(failed, "; "))
	}
	res := *cmp.Or(firstMissing, first)
	res.OfCertificate, res.Skipped, res.Names = true, skipped, names
	return &res, nil
}

// caaNames returns the DNS names of leaf to look up, each once, and the
// special-use ones, which are not.
func caaNames(leaf *x509.Certificate) (names []CAAName, skipped []string) {
	if leaf == nil {
		return nil, nil
	}
	for _, dn := range leaf.DNSNames {
		dn = strings.ToLower(strings.TrimSuffix(dn, "."))
		n := CAAName{Name: strings.TrimPrefix(dn, "*."), Wildcard: strings.HasPrefix(dn, "*.")}
		switch {
		case n.Name == "" || slices.ContainsFunc(names, func(m CAAName) bool { return m.Name == n.Name && m.Wildcard == n.Wildcard }) ||
			slices.Contains(skipped, n.Name):
		case specialUse(n.Name):
			skipped = append(skipped, n.Name)
		default:
			names = append(names, n)
		}
	}
	return names, skipped
}

// fill sets n from its lookup: the record set found and the issuers it
// allows, NXDOMAIN, or the error.
func (n *CAAName) fill(tree *CAA, err error) {
	switch {
	case errors.Is(err, errNXDomain):
		n.NXDomain = true
	case err != nil:
		n.Error = err.Error()
	default:
		n.At, n.Records, n.Asked = tree.Name, tree.Records, tree.Asked
		n.Issuers = caaIssuers(tree.rrs, n.Wildcard)
	}
}

// caaIssuers returns the issuer domain names that records allow for a
// name (RFC 8659, 4.2 and 4.3): those of issuewild for a wildcard when
// the set has any, else those of issue; a value without a domain (";")
// allows none.
func caaIssuers(rrs []*dns.CAA, wildcard bool) []string {
	tag := "issue"
	if wildcard && slices.ContainsFunc(rrs, func(c *dns.CAA) bool { return strings.EqualFold(c.Tag, "issuewild") }) {
		tag = "issuewild"
	}
	var out []string
	for _, c := range rrs {
		domain, _, _ := strings.Cut(c.Value, ";")
		if domain = strings.TrimSpace(domain); strings.EqualFold(c.Tag, tag) && domain != "" && !slices.Contains(out, domain) {
			out = append(out, domain)
		}
	}
	return out
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
			return nil, fmt.Errorf("the resolver %s does not know %s (%w): the name is not in the DNS it serves", resolver, n, errNXDomain)
		case r.Rcode != dns.RcodeSuccess && r.Rcode != dns.RcodeNameError:
			return nil, fmt.Errorf("the resolver %s answered %s for the CAA records of %s", resolver, dns.RcodeToString[r.Rcode], n)
		}
		for _, rr := range r.Answer {
			if c, ok := rr.(*dns.CAA); ok {
				res.Records = append(res.Records, fmt.Sprintf("%d %s %q", c.Flag, c.Tag, c.Value))
				res.rrs = append(res.rrs, c)
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

// ruleCAAMissing reports a name without a CAA record at it or any parent;
// for a target given as an IP address, every name of its certificate
// that has none.
func ruleCAAMissing(r *Report) []Finding {
	if r.CAA == nil || r.CAA.Name != "" || r.CAA.NotMeasured != "" || len(r.CAA.Asked) == 0 {
		return nil
	}
	missing := []string{r.CAA.Asked[0]}
	title := "no DNS CAA record: any CA may issue certificates for " + missing[0]
	evidence := fmt.Sprintf("no CAA record at %s (asked %s)", strings.Join(r.CAA.Asked, ", "), r.CAA.Resolver)
	if r.CAA.OfCertificate {
		missing, evidence = caaOfCertificateEvidence(r.CAA)
		if len(missing) == 0 {
			return nil
		}
		title = fmt.Sprintf("no DNS CAA record: any CA may issue certificates for %s, a name in the certificate of %s", missing[0], r.Address)
		if len(missing) > 1 {
			title = fmt.Sprintf("no DNS CAA record: any CA may issue certificates for %s, names in the certificate of %s", strings.Join(missing, ", "), r.Address)
		}
	}
	fixes := make([]string, len(missing))
	for i, n := range missing {
		fixes[i] = caaFix(n, r.Chain.leaf)
	}
	return one(Finding{ID: "caa-missing", Severity: Low, Category: Safety,
		Title:    title,
		Evidence: evidence,
		Cost:     Cost{Note: "none for clients: CAs read CAA when they issue, browsers never do"},
		Fix:      strings.Join(fixes, "\n"),
		Reason: "a CAA record limits issuance to the CAs it names, so a mistake or an attack at another CA " +
			"cannot get a certificate for the name",
		Reference: "RFC 8659 (DNS CAA)"})
}

// caaOfCertificateEvidence returns the certificate's names without a
// record set, the first name of c first, and the evidence: each name's
// result. A CAA without Names (an older report's) has its first name's
// alone.
func caaOfCertificateEvidence(c *CAA) (missing []string, evidence string) {
	missing = []string{c.Asked[0]}
	results := []string{fmt.Sprintf("%s: no CAA record at %s", c.Asked[0], strings.Join(c.Asked, ", "))}
	if len(c.Names) > 0 {
		missing, results = nil, nil
	}
	for _, n := range c.Names {
		if n.missing() && !slices.Contains(missing, n.Name) {
			missing = append(missing, n.Name)
		}
		label := n.Name
		if n.Wildcard {
			label = "*." + label
		}
		results = append(results, label+": "+n.Outcome())
	}
	have := "has"
	if len(missing) > 1 {
		have = "have"
	}
	return missing, fmt.Sprintf("the target is an IP address, so the CAA of the certificate's DNS names was looked up (asked %s), and %s %s none: %s",
		c.Resolver, strings.Join(missing, " and "), have, strings.Join(results, "; "))
}

// Outcome says in words what the DNS says of the name: the records and
// where, the issuers they allow, none, NXDOMAIN, or the error.
func (n CAAName) Outcome() string {
	switch {
	case n.NXDomain:
		return "NXDOMAIN: the resolver does not know the name"
	case n.Error != "":
		return "not measured: " + n.Error
	case n.At == "":
		return "no CAA record at " + strings.Join(n.Asked, ", ")
	}
	allows := "no CA may issue"
	if len(n.Issuers) > 0 {
		allows = "allows " + strings.Join(n.Issuers, ", ")
	}
	return fmt.Sprintf("%s at %s: %s", strings.Join(n.Records, "; "), n.At, allows)
}
