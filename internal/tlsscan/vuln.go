package tlsscan

import (
	"context"
	"sync"
	"time"
)

// VulnStatus is the outcome of one vulnerability check.
type VulnStatus string

// Outcomes of a vulnerability check.
const (
	// Vulnerable: the server answered as a vulnerable server does.
	Vulnerable VulnStatus = "vulnerable"
	// NotVulnerable: the server answered as a server without the flaw does.
	NotVulnerable VulnStatus = "ok"
	// NotApplicable: the server lacks what the attack needs (a protocol
	// version, session tickets, RSA key exchange), so it cannot be attacked.
	NotApplicable VulnStatus = "not-applicable"
	// NotMeasured: the check could not be made; Seen says why.
	NotMeasured VulnStatus = "not-measured"
)

// VulnCheck is one active vulnerability check: a handshake written by
// hand as far as the attack needs, and what the server answered.
type VulnCheck struct {
	// ID names the check and, when the server is vulnerable, its finding:
	// heartbleed, ccs-injection, ticketbleed, robot, renegotiation-insecure,
	// client-renegotiation,
	// tls-compression, fallback-scsv-missing, sslv2-drown, sslv3-poodle.
	ID     string     `json:"id"`
	Status VulnStatus `json:"status"`
	// Seen is what was seen on the wire.
	Seen string `json:"seen"`
	// Elapsed is the check's wall time, connections included (0 for a
	// check read from the enumeration).
	Elapsed Duration `json:"elapsed_ns"`
}

// Identifiers of the vulnerability checks, which their findings share.
const (
	idHeartbleed    = "heartbleed"
	idCCSInjection  = "ccs-injection"
	idTicketbleed   = "ticketbleed"
	idRenegotiation = "renegotiation-insecure"
	idCompression   = "tls-compression"
	idFallbackSCSV  = "fallback-scsv-missing"
	idSSLv2         = "sslv2-drown"
	idSSLv3         = "sslv3-poodle"
)

// vulnCheck is one check: it returns its outcome and what it saw.
type vulnCheck struct {
	id  string
	run func(ctx context.Context, p *prober) (VulnStatus, string, error)
}

// vulnChecks are the checks that need connections of their own; they run
// in parallel, each connection within its own deadline.
var vulnChecks = []vulnCheck{
	{idHeartbleed, checkHeartbleed},
	{idCCSInjection, checkCCSInjection},
	{idTicketbleed, checkTicketbleed},
	{idROBOT, checkROBOT},
	{idRenegotiation, checkRenegotiationInfo},
	{idClientRenegotiation, checkClientRenegotiation},
	{idCompression, checkCompression},
	{idSSLv2, checkSSLv2},
}

// vulnScan is the checks' results before the enumeration is known.
type vulnScan struct {
	checks   []VulnCheck
	fallback fallbackReplies
}

// scanVulns runs every vulnerability check in parallel, each connection
// of each bounded by the prober's per-connection timeout from the moment
// it has its slot.
func scanVulns(ctx context.Context, p *prober) *vulnScan {
	s := &vulnScan{checks: make([]VulnCheck, len(vulnChecks))}
	var wg sync.WaitGroup
	for i, c := range vulnChecks {
		wg.Go(func() { s.checks[i] = runVulnCheck(ctx, p, c) })
	}
	wg.Go(func() { s.fallback = probeFallback(ctx, p) })
	wg.Wait()
	return s
}

func runVulnCheck(ctx context.Context, p *prober, c vulnCheck) VulnCheck {
	start := time.Now()
	status, seen, err := c.run(ctx, p)
	if err != nil {
		status, seen = NotMeasured, err.Error()
	}
	return VulnCheck{ID: c.id, Status: status, Seen: seen, Elapsed: Duration(time.Since(start))}
}

// results completes the checks with those the enumeration answers (SSLv3)
// or decides (the fallback SCSV, which depends on the newest version),
// and corrects the renegotiation check with it.
func (s *vulnScan) results(e *Enumeration) []VulnCheck {
	out := append([]VulnCheck(nil), s.checks...)
	for i := range out {
		out[i] = renegotiationUnspoken(out[i], e)
	}
	out = append(out, s.fallback.verdict(e), poodle(e))
	return out
}

// addVulns puts the checks' results into the report; those that could
// not be made are also listed as not checked.
func (rep *Report) addVulns(s *vulnScan) {
	rep.Vulnerabilities = s.results(rep.Enumeration)
	for _, c := range rep.Vulnerabilities {
		if c.Status == NotMeasured {
			rep.NotChecked = append(rep.NotChecked, "vulnerability "+c.ID+": "+c.Seen)
		}
	}
}
