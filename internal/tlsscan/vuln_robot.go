package tlsscan

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"errors"
	"fmt"
	"math/big"
	"slices"
	"strings"
	"sync"
	"time"
)

// ROBOT (Return Of Bleichenbacher's Oracle Threat, CVE-2017-13099 and
// others): a server with RSA key exchange that answers a ClientKeyExchange
// whose premaster secret is well formed otherwise than one that is not is
// a PKCS #1 v1.5 padding oracle, and lets an attacker decrypt recorded
// sessions or sign with the server's key. The check sends five premaster
// secrets, each followed by a ChangeCipherSpec and a Finished that cannot
// be right, as robot-detect does, each twice, and compares the answers.

const idROBOT = "robot"

// rsaKeyExchangeSuites are the RSA key-exchange suites the check offers.
var rsaKeyExchangeSuites = []uint16{0x009c, 0x009d, 0x003c, 0x003d, 0x002f, 0x0035, 0x000a}

// robotVariants name the premaster secrets, the first well formed.
var robotVariants = []string{"well-formed", "wrong first bytes", "no 00 separator", "00 separator early", "wrong version"}

// robotMessage returns the padded premaster secret of a variant for a
// k-byte modulus (RFC 8017, 7.2; RFC 5246, 7.4.7.1).
func robotMessage(variant, k int) []byte {
	m := make([]byte, k)
	m[1] = 2
	for i := 2; i < k; i++ {
		for m[i] == 0 {
			_, _ = rand.Read(m[i : i+1])
		}
	}
	sep := k - 49 // 00, then 48 bytes: version and 46 random
	m[sep], m[sep+1], m[sep+2] = 0, 3, 3
	switch variant {
	case 1:
		m[0], m[1] = 0x41, 0x17
	case 2:
		m[sep] = 0x11
	case 3:
		m[sep], m[11] = 0x11, 0
	case 4:
		m[sep+1], m[sep+2] = 2, 2
	}
	return m
}

// checkROBOT runs the variants in parallel, two connections each, and
// reports an oracle when the answers differ between variants while each
// variant's two answers agree. Each connection reads the server's key
// from its own first flight, so that no connection goes before them.
func checkROBOT(ctx context.Context, p *prober) (VulnStatus, string, error) {
	h := clientHello{version: VersionTLS12, suites: rsaKeyExchangeSuites}
	n := len(robotVariants)
	tries := make([]robotAnswer, 2*n)
	var wg sync.WaitGroup
	for i := range tries {
		wg.Go(func() { tries[i] = p.robotTry(ctx, h, i%n) })
	}
	wg.Wait()
	for _, t := range tries {
		if t.notApplicable != "" {
			return NotApplicable, t.notApplicable, nil
		}
	}
	var errs []error
	for _, t := range tries {
		errs = append(errs, t.err)
	}
	if err := errors.Join(errs...); err != nil {
		return "", "", err
	}
	var seen []string
	for v := range n {
		if tries[v].answer != tries[v+n].answer {
			return NotMeasured, fmt.Sprintf("the %s premaster secret got two different answers (%s; %s): the server's answers are not stable enough to judge",
				robotVariants[v], tries[v].answer, tries[v+n].answer), nil
		}
		seen = append(seen, robotVariants[v]+": "+tries[v].answer)
	}
	suite := SuiteName(tries[0].suite)
	if slices.ContainsFunc(tries[:n], func(t robotAnswer) bool { return t.answer != tries[0].answer }) {
		return Vulnerable, fmt.Sprintf("%s (%s): the answers tell well-formed padding from malformed", suite, strings.Join(seen, "; ")), nil
	}
	return NotVulnerable, fmt.Sprintf("%s: every premaster secret, well formed or not, got %s", suite, tries[0].answer), nil
}

// robotAnswer is the outcome of one connection of the ROBOT check.
type robotAnswer struct {
	answer        string // what the server answered the ClientKeyExchange with
	suite         uint16
	notApplicable string // why the server cannot be attacked, if it cannot
	err           error
}

// robotTry sends one variant after a first flight and returns the answer.
func (p *prober) robotTry(ctx context.Context, h clientHello, variant int) robotAnswer {
	c, f, done, err := p.handshake(ctx, h)
	if err != nil {
		return robotAnswer{err: err}
	}
	defer done()
	if !f.older() {
		return robotAnswer{notApplicable: "a ClientHello offering only RSA key exchange got " + f.describe() + ": no RSA key exchange"}
	}
	cert, err := x509.ParseCertificate(f.leaf)
	if err != nil {
		return robotAnswer{err: fmt.Errorf("reading the certificate of the RSA key exchange: %w", err)}
	}
	pub, ok := cert.PublicKey.(*rsa.PublicKey)
	if !ok {
		return robotAnswer{notApplicable: "the certificate's key is not RSA"}
	}
	k := pub.Size()
	m := new(big.Int).SetBytes(robotMessage(variant, k))
	enc := new(big.Int).Exp(m, big.NewInt(int64(pub.E)), pub.N).FillBytes(make([]byte, k))
	cke := append([]byte{16, byte((k + 2) >> 16), byte((k + 2) >> 8), byte(k + 2), byte(k >> 8), byte(k)}, enc...)
	finished := make([]byte, 40)
	_, _ = rand.Read(finished)
	v := f.hello.version
	msg := append(marshalRecord(recordHandshake, v, cke), marshalRecord(recordChangeCipherSpec, v, []byte{1})...)
	if _, err := c.Write(append(msg, marshalRecord(recordHandshake, v, finished)...)); err != nil {
		return robotAnswer{answer: "closed", suite: f.hello.suite}
	}
	// Silence is an answer here (some oracles time out on one kind of
	// padding), so the wait is longer than other checks': a slow answer
	// taken for silence would look like an oracle.
	_ = c.SetReadDeadline(time.Now().Add(max(8*c.rtt, time.Second)))
	for range 4 {
		rec, err := readVulnRecord(c)
		switch {
		case timedOut(err):
			return robotAnswer{answer: "no answer", suite: f.hello.suite}
		case err != nil:
			return robotAnswer{answer: "closed", suite: f.hello.suite}
		case rec.typ == recordAlert:
			a := parseAlert(rec.payload)
			return robotAnswer{answer: fmt.Sprintf("alert %d (%s)", a.Description, alertName(a.Description)), suite: f.hello.suite}
		}
	}
	return robotAnswer{answer: "records but no alert", suite: f.hello.suite}
}
