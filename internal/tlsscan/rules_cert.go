package tlsscan

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"strings"
	"time"
)

// handshakeNote states the measured handshake times, the CPU evidence.
func handshakeNote(r *Report) string {
	res := r.Resumption
	if res.FullHandshake == 0 {
		return ""
	}
	s := "full handshake " + ms(res.FullHandshake)
	if res.ResumedHandshake > 0 {
		s += ", resumed " + ms(res.ResumedHandshake)
	}
	return s + " (medians measured here, mostly server CPU on loopback)"
}

func sessionFix(nginx string) string {
	return versionFix(nginx, "1.23.2",
		"ssl_session_cache shared:SSL:10m;\nssl_session_timeout 1d;\nssl_session_tickets on;  # ticket keys rotate with the shared cache",
		"ssl_session_cache shared:SSL:10m;\nssl_session_timeout 1d;\nssl_session_tickets off;  # ticket keys never rotate before nginx 1.23.2")
}

func ruleResumption(r *Report) []Finding {
	res := r.Resumption
	var out []Finding
	if res.TLS12SessionID != nil && res.TLS12Ticket != nil && !*res.TLS12SessionID && !*res.TLS12Ticket {
		sev := Medium
		if supports(r, VersionTLS13) {
			sev = Low // only clients without TLS 1.3 pay
		}
		c := r.rtts(1, "per reconnection of a TLS 1.2 client")
		c.Note = handshakeNote(r)
		if res.TLS12Rounds > 1 {
			// A resumed TLS 1.2 handshake takes 1 round trip (RFC 5246, 7.3).
			c = r.rtts(float64(res.TLS12Rounds-1), c.Per)
			c.Note = fmt.Sprintf("a full TLS 1.2 handshake took %d round trips here; %s", res.TLS12Rounds, handshakeNote(r))
		}
		out = append(out, Finding{ID: "tls12-resumption-off", Severity: sev, Category: Speed,
			Title:    "TLS 1.2 sessions are never resumed",
			Evidence: "a reconnection offering the session ID and one offering the session ticket both got a full handshake",
			Cost:     c, Fix: sessionFix(r.HTTP.NginxVersion),
			Reason:    "a resumed TLS 1.2 handshake takes 1 round trip instead of 2 and skips the certificate and its signature",
			Reference: refRFC5077 + "; " + refMozilla})
	}
	if res.TLS13PSK != nil && !*res.TLS13PSK {
		c := Cost{Bytes: int64(r.Chain.Bytes), Per: "per reconnection", Note: handshakeNote(r)}
		if rec := r.Records; rec.Certificate > 0 && rec.CertificateVerify > 0 {
			// Measured on the first connection: what a resumed handshake leaves out.
			c.Bytes = int64(rec.Certificate + rec.CertificateVerify)
			c.Per = fmt.Sprintf("per reconnection (certificate %d and signature %d bytes, as sent)", rec.Certificate, rec.CertificateVerify)
		}
		out = append(out, Finding{ID: "tls13-resumption-off", Severity: Medium, Category: Speed,
			Title:    "TLS 1.3 sessions are never resumed",
			Evidence: fmt.Sprintf("resumed %d of %d reconnections with a PSK ticket", res.Resumed, res.Attempts),
			Cost:     c, Fix: sessionFix(r.HTTP.NginxVersion),
			Reason:    "a resumed TLS 1.3 handshake skips the certificate chain and its signature, and makes 0-RTT possible",
			Reference: refRFC8446 + " section 2.2"})
	}
	return out
}

func ruleResumptionRate(r *Report) []Finding {
	res := r.Resumption
	if res.Resumed == 0 || res.Resumed >= res.Attempts {
		return nil
	}
	c := Cost{Per: fmt.Sprintf("on %d of %d reconnections", res.Attempts-res.Resumed, res.Attempts), Note: handshakeNote(r)}
	if res.Version == tls.VersionName(VersionTLS12) {
		rounds := 1.0
		if res.TLS12Rounds > res.TLS12ResumedRounds && res.TLS12ResumedRounds > 0 {
			rounds = float64(res.TLS12Rounds - res.TLS12ResumedRounds) // as counted here
		}
		c = r.rtts(rounds, c.Per)
		c.Note = handshakeNote(r)
	}
	return one(Finding{ID: "resumption-unreliable", Severity: Medium, Category: Speed,
		Title:    "session resumption fails some of the time",
		Evidence: fmt.Sprintf("%s: resumed %d of %d reconnections", res.Version, res.Resumed, res.Attempts),
		Cost:     c, Fix: "ssl_session_cache shared:SSL:10m;  # one cache shared by all workers\nssl_session_timeout 1d;",
		Reason:    "a per-worker or too small cache, or several servers without shared ticket keys, make resumption a lottery",
		Reference: refNginxSSL})
}

func ruleEarlyData(r *Report) []Finding {
	tcp := r.Resumption.MaxEarlyData > 0
	if !tcp && !r.HTTP3.EarlyData {
		return nil
	}
	var ev []string
	if tcp {
		ev = append(ev, fmt.Sprintf("TLS 1.3 tickets over TCP allow %d bytes of early data", r.Resumption.MaxEarlyData))
	}
	if r.HTTP3.EarlyData {
		ev = append(ev, "a resumed QUIC connection had its 0-RTT request accepted")
	}
	// Accepted only when a request sent as early data was; a ticket's
	// max_early_data is an offer (Go cannot send early data over TCP).
	title := "TLS 1.3 tickets offer 0-RTT early data (max_early_data seen, none sent)"
	if r.HTTP3.EarlyData {
		title = "0-RTT early data is accepted"
	}
	return one(Finding{ID: "early-data", Severity: Info, Category: About, Title: title,
		Evidence: strings.Join(ev, "; "), Cost: Cost{Note: "saves 1 round trip per resumed connection"},
		Fix:       "proxy_set_header Early-Data $ssl_early_data;  # let the application refuse replayable requests (425)",
		Reason:    "0-RTT saves a round trip, but early data can be replayed: only idempotent requests should be served from it",
		Reference: refRFC8446 + " section 8; RFC 8470"})
}

func ruleChainSize(r *Report) []Finding {
	if r.Records.FirstFlight <= initialWindow {
		return nil
	}
	return one(Finding{ID: "chain-large", Severity: Medium, Category: Speed,
		Title: "the server's first flight overflows the initial congestion window",
		Evidence: fmt.Sprintf("first flight %d bytes (certificate message %d bytes), over the %d-byte initial window",
			r.Records.FirstFlight, r.Records.Certificate, initialWindow),
		Cost:   r.rtts(1, "per full handshake"),
		Fix:    "# send leaf and intermediates only, prefer an ECDSA certificate:\nssl_certificate /etc/nginx/ecdsa-fullchain.pem;",
		Reason: "the server must wait for the client's ACK before sending the rest of its flight", Reference: refRFC6928})
}

// certEntryOverhead is what a certificate adds to the Certificate message
// besides its own bytes: a 3-byte length, and in TLS 1.3 its (empty)
// extensions' 2-byte length (RFC 8446, 4.4.2).
func certEntryOverhead(version string) int {
	if version == tls.VersionName(VersionTLS13) {
		return 5
	}
	return 3
}

func ruleNeedlessRoot(r *Report) []Finding {
	if !r.Chain.NeedlessRoot {
		return nil
	}
	root := r.Chain.Certs[len(r.Chain.Certs)-1]
	return one(Finding{ID: "chain-root-sent", Severity: Low, Category: Speed, Title: "the chain includes the root certificate",
		Evidence: fmt.Sprintf("the last certificate (%s, %d bytes) is self-signed", root.Subject, root.Bytes),
		Cost:     Cost{Bytes: int64(root.Bytes + certEntryOverhead(r.Negotiated.Version)), Per: "per full handshake"},
		Fix:      "# remove the root (the last, self-signed block) from the file named by ssl_certificate",
		Reason:   "clients already hold the root; sending it only costs bytes", Reference: "RFC 8446 section 4.4.2"})
}

func ruleBigRSA(r *Report) []Finding {
	if len(r.Chain.Certs) == 0 || !strings.HasPrefix(r.Chain.Certs[0].KeyType, "RSA") {
		return nil
	}
	leaf := r.Chain.Certs[0]
	if leaf.KeyBits < 2048 {
		return one(Finding{ID: "cert-key-weak", Severity: High, Category: Safety, Title: "RSA key under 2048 bits",
			Evidence: leaf.KeyType, Fix: "# reissue the certificate with an ECDSA P-256 or RSA 2048 key",
			Reason: "RSA keys under 2048 bits are refused by browsers", Reference: refMozilla})
	}
	if leaf.KeyBits <= 2048 {
		return nil
	}
	c := Cost{Per: "per full handshake", Note: "an RSA " + fmt.Sprint(leaf.KeyBits) + " signature costs the server several times an RSA 2048 or ECDSA P-256 one; " + handshakeNote(r)}
	return one(Finding{ID: "cert-key-large", Severity: Low, Category: Speed, Title: "the leaf key is " + leaf.KeyType,
		Evidence: fmt.Sprintf("leaf %s, %d bytes", leaf.KeyType, leaf.Bytes), Cost: c,
		Fix:    "# add an ECDSA P-256 certificate next to the RSA one (nginx picks per client):\nssl_certificate ecdsa.crt;\nssl_certificate_key ecdsa.key;",
		Reason: "ECDSA P-256 gives more security per CPU cycle and per byte; RSA 2048 is enough until 2030", Reference: refMozilla})
}

func ruleCertTrust(r *Report) []Finding {
	c := r.Chain
	var out []Finding
	add := func(id string, sev Severity, title, ev, fix string) {
		out = append(out, Finding{ID: id, Severity: sev, Category: Safety, Title: title, Evidence: ev, Fix: fix,
			Reason: "clients refuse or warn about such a certificate", Reference: "RFC 5280; " + refMozilla})
	}
	var weakAlg x509.InsecureAlgorithmError
	if !c.Trusted && c.MissingIssuer == "" && c.anchorErr != nil && !errors.As(c.anchorErr, &weakAlg) {
		// Only when the chain itself fails: an expired or wrongly named
		// leaf, or a SHA-1 signature, has its own finding and fix.
		add("cert-untrusted", High, "the chain does not lead to a trusted root", c.anchorErr.Error(),
			"# a certificate from a CA the clients trust, with its chain:\nssl_certificate /etc/nginx/fullchain.pem;")
	}
	if len(c.Certs) > 0 && !c.NameMatch {
		add("cert-name-mismatch", High, "the certificate does not name the host", c.Certs[0].Subject, "# reissue for this host name")
	}
	if len(c.Certs) > 0 && c.ExpiresIn <= 0 {
		add("cert-expired", High, "the certificate has expired", c.Certs[0].NotAfter.String(), "# renew the certificate")
	} else if days := time.Duration(c.ExpiresIn).Hours() / 24; len(c.Certs) > 0 && days < expiryWarnDays {
		// As Let's Encrypt's reminders: a warning at 30 days, urgent at 7.
		sev := Medium
		if days < expiryUrgentDays {
			sev = High
		}
		add("cert-expiring", sev, fmt.Sprintf("the certificate expires in %.1f days", days), c.Certs[0].NotAfter.String(),
			"# renew the certificate (certbot renew), and check that renewal runs on its own")
	}
	if !c.Ordered {
		add("chain-order", Medium, "the chain is out of order", "a certificate is not followed by its issuer", "# list leaf first, then each issuer")
	}
	var weak []string
	for i, ci := range c.Certs {
		// A root's own signature is never checked: it is trusted as held.
		if !ci.SelfSigned && (strings.Contains(ci.SigAlg, "SHA1") || strings.Contains(ci.SigAlg, "MD5") || strings.Contains(ci.SigAlg, "MD2")) {
			weak = append(weak, fmt.Sprintf("certificate %d (%s) signed with %s", i, ci.Subject, ci.SigAlg))
		}
	}
	if len(weak) > 0 {
		add("cert-weak-signature", High, "the chain has a certificate signed with a broken hash", strings.Join(weak, "; "),
			"# reissue with a SHA-256 signature (the CA's current intermediate)")
	}
	return out
}

// Expiry thresholds, in days.
const (
	expiryWarnDays   = 30
	expiryUrgentDays = 7
)

// minSerialBits is the randomness a serial number must carry: 64 bits
// from a CSPRNG (CA/Browser Forum Baseline Requirements 7.1); a shorter
// serial cannot hold them.
const minSerialBits = 64

func ruleSerial(r *Report) []Finding {
	leaf := r.Chain.leaf
	if leaf == nil || leaf.SerialNumber == nil || leaf.SerialNumber.BitLen() >= minSerialBits {
		return nil
	}
	sev, cat := Low, Safety
	if r.privateCA {
		sev, cat = Info, About
	}
	return one(Finding{ID: "cert-serial-short", Severity: sev, Category: cat,
		Title:     fmt.Sprintf("the serial number has %d bits, under the %d random bits CAs must use", leaf.SerialNumber.BitLen(), minSerialBits),
		Evidence:  "serial " + leaf.SerialNumber.Text(16),
		Fix:       "# reissue from a CA that puts 64 or more random bits in serial numbers",
		Reason:    "random serials keep a CA's signatures from being steered into collisions (as the MD5 rogue CA of 2008 was)",
		Reference: "CA/Browser Forum Baseline Requirements section 7.1"})
}

func ruleRevocation(r *Report) []Finding {
	leaf := r.Chain.leaf
	if leaf == nil || len(leaf.OCSPServer) > 0 || len(leaf.CRLDistributionPoints) > 0 {
		return nil
	}
	sev, cat, why := Low, Safety, "a stolen key cannot be revoked in a way clients see"
	if r.privateCA {
		sev, cat, why = Info, About, "usual for a private CA; a stolen key can be revoked only by replacing the CA"
	}
	return one(Finding{ID: "cert-no-revocation", Severity: sev, Category: cat,
		Title:    "the certificate names neither an OCSP responder nor a CRL",
		Evidence: "no OCSP URL in Authority Information Access and no CRL Distribution Points in the leaf",
		Fix:      "# reissue from a CA that publishes revocation (a CRL Distribution Point or an OCSP responder)",
		Reason:   why, Reference: "RFC 5280 section 4.2.1.13; " + refRFC6066})
}

// clientsWithoutAIA are the clients that fail on an incomplete chain:
// they verify only what the server sends.
const clientsWithoutAIA = "curl, wget, Python, Go, Java, Node.js and other API clients, Android apps, " +
	"and Firefox for CAs outside its preloaded intermediates (desktop Chrome, Edge and Safari fetch the missing certificate " +
	"from the leaf's CA Issuers URL, at the cost of a request on the first visit)"

// ruleChainIncomplete names a chain that stops short of its issuer.
func ruleChainIncomplete(r *Report) []Finding {
	c := r.Chain
	if c.MissingIssuer == "" || len(c.Certs) == 0 {
		return nil
	}
	last := c.Certs[len(c.Certs)-1]
	// The missing certificate was not sent, so its size is not measured:
	// an intermediate is about the size of a leaf of the same CA.
	bytes := int64(last.Bytes + certEntryOverhead(r.Negotiated.Version))
	return one(Finding{ID: "chain-incomplete", Severity: High, Category: Safety,
		Title:    "the chain is incomplete: the server does not send the intermediate certificate",
		Evidence: c.incomplete,
		Cost: Cost{Fails: clientsWithoutAIA, Bytes: bytes,
			Per: "added per full handshake by the fix (estimated from the certificate sent: the missing one was not sent, so not measured)"},
		Fix: "# the leaf followed by its intermediate (" + c.MissingIssuer + "), as the CA delivers it (certbot: fullchain.pem):\n" +
			"ssl_certificate /etc/nginx/fullchain.pem;",
		Reason:    "clients verify the chain the server sends; only some browsers fetch a missing intermediate",
		Reference: "RFC 8446 section 4.4.2; RFC 5280 section 4.2.2.1 (CA Issuers)"})
}

// stapleTries says which handshakes were looked at for a staple.
func stapleTries(c Chain) string {
	if c.StapleHandshakes <= 1 {
		return "the handshake"
	}
	return fmt.Sprintf("%d full handshakes over %s", c.StapleHandshakes, ms(c.StapleWait))
}

func ruleStapling(r *Report) []Finding {
	c := r.Chain
	if len(c.Certs) == 0 {
		return nil
	}
	if len(c.OCSPServers) == 0 {
		return one(Finding{ID: "ocsp-no-responder", Severity: Info, Category: About,
			Title: "the certificate names no OCSP responder", Evidence: "no OCSP URL in the leaf's Authority Information Access",
			Reason:    "there is nothing to staple and clients do not make OCSP requests for it (ssl_stapling would only log warnings)",
			Reference: refRFC6066})
	}
	if c.Stapled {
		return nil
	}
	return one(Finding{ID: "ocsp-not-stapled", Severity: Medium, Category: Speed, Title: "OCSP responses are not stapled",
		Evidence: fmt.Sprintf("the certificate names %s but %s carried no OCSP response", strings.Join(c.OCSPServers, ", "), stapleTries(c)),
		Cost: Cost{Per: "per first visit of a client that checks revocation",
			Note: "the client asks the CA's responder itself: a DNS lookup, a TCP connection and a request, seconds when the responder is slow or blocked"},
		Fix:    "ssl_stapling on;\nssl_stapling_verify on;\nssl_trusted_certificate /etc/nginx/chain.pem;\nresolver 127.0.0.53;",
		Reason: "with a stapled response the client needs no request to the CA", Reference: refRFC6066})
}

// largeRecord is the first-record size above which the first byte waits.
const largeRecord = 8 << 10

func ruleRecordSize(r *Report) []Finding {
	n := r.Records.FirstDataRecord
	if n < largeRecord {
		return nil
	}
	c := Cost{Bytes: int64(n), Per: "before the first response byte can be decrypted",
		Note: "the client decrypts nothing until the whole record has arrived"}
	if n > initialWindow {
		c = r.rtts(1, "on a new connection, before the first response byte")
		c.Bytes, c.Note = int64(n), "the record does not fit the initial congestion window"
	}
	return one(Finding{ID: "record-size-large", Severity: Low, Category: Speed, Title: "large first TLS record",
		Evidence: fmt.Sprintf("the first record of a %d-byte response carries %d bytes", r.RecordsBody, n), Cost: c,
		Fix:       "ssl_buffer_size 4k;",
		Reason:    "small records let the browser start parsing the HTML after the first packets",
		Reference: refNginxSSL + "#ssl_buffer_size"})
}

// smallRecord is the average record payload under which a response is cut
// into more records than TCP segments: each record costs its own header,
// tag and decryption for nothing.
const smallRecord = 1400

func ruleSmallRecords(r *Report) []Finding {
	rec := r.Records
	if rec.DataRecords < 4 || rec.DataPlainBytes == 0 || rec.DataPlainBytes/int64(rec.DataRecords) >= smallRecord {
		return nil
	}
	overhead := rec.DataWireBytes - rec.DataPlainBytes
	return one(Finding{ID: "record-size-small", Severity: Low, Category: Speed, Title: "the response is cut into small TLS records",
		Evidence: fmt.Sprintf("a %d-byte response came in %d records of %d bytes on average; %d bytes on the wire", rec.DataPlainBytes,
			rec.DataRecords, rec.DataPlainBytes/int64(rec.DataRecords), rec.DataWireBytes),
		Cost: Cost{Bytes: overhead, Per: fmt.Sprintf("per %d-byte response (%.1f%%, measured)", rec.DataPlainBytes,
			100*float64(overhead)/float64(rec.DataPlainBytes)),
			Note: "every record adds a header and an authentication tag, and one encryption and decryption"},
		Fix:       "ssl_buffer_size 4k;",
		Reason:    "records smaller than a TCP segment buy no earlier first byte, only overhead",
		Reference: refNginxSSL + "#ssl_buffer_size"})
}
