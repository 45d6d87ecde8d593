package tlsscan

import (
	"crypto/tls"
	"slices"
	"testing"
)

func TestCandidateSuitesOrder(t *testing.T) {
	for _, tls13 := range []bool{false, true} {
		first := buildCandidates(tls13)
		// Map iteration order changes from one range to the next: several
		// builds catch an order that leaks from it.
		for range 20 {
			if got := buildCandidates(tls13); !slices.Equal(got, first) {
				t.Fatalf("buildCandidates(%v) = %04x; an earlier build gave %04x", tls13, got, first)
			}
		}
		var goIDs []uint16
		for _, s := range append(tls.CipherSuites(), tls.InsecureCipherSuites()...) {
			if isTLS13Suite(s.ID) == tls13 {
				goIDs = append(goIDs, s.ID)
			}
		}
		if !slices.Equal(first[:len(goIDs)], goIDs) {
			t.Errorf("buildCandidates(%v) starts %04x; want Go's suites %04x", tls13, first[:len(goIDs)], goIDs)
		}
		if rest := first[len(goIDs):]; !slices.IsSorted(rest) || len(rest) == 0 {
			t.Errorf("buildCandidates(%v) ends %04x; want the other suites, sorted", tls13, rest)
		}
		for i, id := range first {
			if isTLS13Suite(id) != tls13 || slices.Index(first, id) != i {
				t.Errorf("buildCandidates(%v) holds %04x wrongly or twice", tls13, id)
			}
		}
		if got := candidateSuites(tls13); !slices.Equal(got, first) {
			t.Errorf("candidateSuites(%v) = %04x; want %04x", tls13, got, first)
		}
	}
}

func TestSuiteAttacks(t *testing.T) {
	tests := []struct {
		suites []string
		want   []string
	}{
		{[]string{"TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256"}, nil},
		{[]string{"TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA", "TLS_RSA_WITH_3DES_EDE_CBC_SHA"}, []string{"LUCKY13", "SWEET32"}},
		{[]string{"TLS_RSA_WITH_RC4_128_SHA"}, []string{"RC4"}},
		{[]string{"TLS_RSA_EXPORT_WITH_RC4_40_MD5", "TLS_DHE_RSA_EXPORT_WITH_DES40_CBC_SHA"}, []string{"LUCKY13", "SWEET32", "RC4", "FREAK", "LOGJAM"}},
	}
	for _, tt := range tests {
		var suites []Suite
		for _, n := range tt.suites {
			suites = append(suites, Suite{Name: n})
		}
		if got := suiteAttacks(suites); !slices.Equal(got, tt.want) {
			t.Errorf("suiteAttacks(%v) = %v; want %v", tt.suites, got, tt.want)
		}
	}
}
