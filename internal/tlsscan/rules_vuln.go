package tlsscan

// vulnRules turns the vulnerability checks into findings.
var vulnRules = []rule{ruleVulns}

// vulnFinding is the fixed part of a vulnerability's finding: its
// severity, title, who is hurt and how, the fix and the reference.
type vulnFinding struct {
	attack    string // the attack's published name
	severity  Severity
	title     string
	cost      string
	fix       string
	reason    string
	reference string
}

// vulnFindings are the findings of the checks, by check id. Where the
// flaw is in the TLS library or the device that terminates TLS, not in a
// setting, the fix is the upgrade.
var vulnFindings = map[string]vulnFinding{
	idHeartbleed: {"Heartbleed", High, "Heartbleed: heartbeat responses carry server memory",
		"every client and the server itself: anyone who can connect reads up to 64 KiB of server memory per request, unlogged: private keys, session keys, cookies, passwords",
		"# upgrade OpenSSL to 1.0.1g or later (nginx links it; restart nginx),\n# then replace the private key, reissue and revoke the certificate",
		"OpenSSL 1.0.1 to 1.0.1f copies as many bytes as the heartbeat claims, not as many as it carries",
		"CVE-2014-0160, RFC 6520, https://heartbleed.com"},
	idCCSInjection: {"CCS injection", High, "CCS injection: a ChangeCipherSpec is accepted before the key exchange",
		"clients of this server whose own OpenSSL is also affected (1.0.1 to 1.0.1g): an attacker on the path forces keys it knows and reads or changes their traffic",
		"# upgrade OpenSSL to 1.0.1h, 1.0.0m or 0.9.8za or later; restart nginx",
		"the server switches keys on a ChangeCipherSpec that arrives before the master secret exists, so the keys come from an empty secret",
		"CVE-2014-0224, https://www.openssl.org/news/secadv/20140605.txt"},
	idTicketbleed: {"Ticketbleed", High, "Ticketbleed: a resumed session's ID comes back padded with server memory",
		"every client: anyone can read 31 bytes of memory per connection, which can hold other clients' session IDs and keys",
		"# upgrade the TLS terminator (F5 BIG-IP: see F5 article K05121675);\n# until then turn off session tickets in its client SSL profile",
		"the server echoes a 32-byte session ID whatever the length the client sent, copying memory past the client's ID",
		"CVE-2016-9244, https://filippo.io/Ticketbleed/"},
	idROBOT: {"ROBOT", High, "ROBOT: the RSA key exchange is a padding oracle",
		"every client that used an RSA key-exchange suite: an attacker who recorded a session decrypts it with some ten thousand to a million connections; anyone can sign with the server's key the same way",
		"# upgrade the TLS library or device (see https://robotattack.org for the fixed versions);\n# until then, no RSA key exchange:\n" + mozillaCiphers,
		"the server's answer to a ClientKeyExchange tells a well-formed PKCS #1 v1.5 padding from a malformed one (Bleichenbacher, 1998)",
		"CVE-2017-13099, https://robotattack.org"},
	idRenegotiation: {"insecure renegotiation", High, "secure renegotiation (RFC 5746) is not supported",
		"every client of TLS 1.2 and older: an attacker on the path can prefix its own request to a client's, which the server runs with the client's credentials",
		"# upgrade OpenSSL to 0.9.8m or later (every current release supports RFC 5746); restart nginx",
		"without the renegotiation_info extension, a renegotiated handshake is not bound to the one before it",
		"CVE-2009-3555, RFC 5746"},
	idClientRenegotiation: {"client-initiated renegotiation", Medium, "the server renegotiates when a client asks",
		"the server's CPU: one connection can ask for a new handshake, a private-key operation, as often as it likes, without the connection limits that count new connections seeing it",
		"# nginx has refused renegotiation since 0.8.23: upgrade it, or the server or TLS terminator\n# that answers here in its place",
		"a client never needs to start a renegotiation of an HTTPS connection; a server that allows it multiplies the cost of a handshake flood",
		"CVE-2011-1473, RFC 5746"},
	idCompression: {"CRIME", High, "TLS compression is on (CRIME)",
		"every client: an attacker who can make the browser send requests and watch their sizes recovers cookies byte by byte",
		"# upgrade nginx (1.1.6 or later turns TLS compression off) and OpenSSL (1.1.0 or later has none); restart nginx",
		"compressed records leak, through their length, how much of an attacker's text matches the secret next to it",
		"CVE-2012-4929, RFC 7457 section 2.6"},
	idFallbackSCSV: {"protocol downgrade", Medium, "TLS_FALLBACK_SCSV is ignored: a downgrade is not refused",
		"clients that retry with an older version after a failure (older browsers, some libraries): an attacker on the path can push them to the older version and its weaknesses",
		"# upgrade OpenSSL to 1.0.1j or later, which refuses the fallback; restart nginx",
		"a ClientHello that signals a fallback, at a version below the server's newest, must be refused with inappropriate_fallback",
		"RFC 7507"},
	idSSLv2: {"DROWN", High, "SSLv2 is spoken (DROWN)",
		"every client of every server that uses the same RSA key: an attacker decrypts their recorded TLS sessions with SSLv2 connections to this server",
		"ssl_protocols TLSv1.2 TLSv1.3;\n# and upgrade OpenSSL (1.0.2g or later has no SSLv2); turn SSLv2 off on every server that shares this key",
		"SSLv2's export ciphers and its padding oracle make it a decryption service for the RSA key",
		"CVE-2016-0800, RFC 6176, https://drownattack.com"},
	idSSLv3: {"POODLE", High, "SSLv3 with CBC suites (POODLE)",
		"clients that fall back to SSLv3 (or are pushed there by an attacker): cookies are recovered a byte per 256 requests",
		"ssl_protocols TLSv1.2 TLSv1.3;",
		"SSLv3's CBC padding is not covered by the MAC and not checked, a padding oracle",
		"CVE-2014-3566, RFC 7568"},
}

// ruleVulns makes a finding of each check that found the server
// vulnerable; checks that could not be made are listed as not checked.
func ruleVulns(r *Report) []Finding {
	var out []Finding
	for _, c := range r.Vulnerabilities {
		vf, ok := vulnFindings[c.ID]
		if !ok || c.Status != Vulnerable {
			continue
		}
		out = append(out, Finding{ID: c.ID, Severity: vf.severity, Category: Safety, Title: vf.title, Evidence: c.Seen, Attacks: []string{vf.attack},
			Cost: Cost{Note: vf.cost}, Fix: vf.fix, Reason: vf.reason, Reference: vf.reference})
	}
	return out
}
