package main

import (
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strconv"
	"strings"
)

// inventory is what one tool reports: versions, suites per version (by
// IANA code point) and key-exchange groups (union over versions).
type inventory struct {
	Versions []string
	Suites   map[string][]uint16
	Groups   []uint16
}

func newInventory() inventory { return inventory{Suites: map[string][]uint16{}} }

func (inv *inventory) addGroup(id uint16) {
	if !slices.Contains(inv.Groups, id) {
		inv.Groups = append(inv.Groups, id)
	}
}

func (inv *inventory) sort() {
	slices.Sort(inv.Versions)
	for _, s := range inv.Suites {
		slices.Sort(s)
	}
	slices.Sort(inv.Groups)
}

// fromAudit reads "httpslab audit --json" output.
func fromAudit(path string) (inventory, error) {
	var env struct {
		Result struct {
			Enumeration struct {
				Versions []struct {
					Name      string
					Supported bool
					Suites    []struct{ ID uint16 }
				}
				Groups []struct{ ID uint16 }
			}
		}
	}
	inv := newInventory()
	if err := readJSON(path, &env); err != nil {
		return inv, err
	}
	for _, v := range env.Result.Enumeration.Versions {
		if !v.Supported {
			continue
		}
		inv.Versions = append(inv.Versions, v.Name)
		for _, s := range v.Suites {
			inv.Suites[v.Name] = append(inv.Suites[v.Name], s.ID)
		}
	}
	for _, g := range env.Result.Enumeration.Groups {
		inv.addGroup(g.ID)
	}
	inv.sort()
	return inv, nil
}

// fromSSLScan reads "sslscan --xml=FILE" output.
func fromSSLScan(path string) (inventory, error) {
	var x struct {
		Protocols []struct {
			Type    string `xml:"type,attr"`
			Version string `xml:"version,attr"`
			Enabled string `xml:"enabled,attr"`
		} `xml:"ssltest>protocol"`
		Ciphers []struct {
			Version string `xml:"sslversion,attr"`
			ID      string `xml:"id,attr"`
		} `xml:"ssltest>cipher"`
		Groups []struct {
			ID string `xml:"id,attr"`
		} `xml:"ssltest>group"`
	}
	inv := newInventory()
	data, err := os.ReadFile(path)
	if err != nil {
		return inv, err
	}
	if err := xml.Unmarshal(data, &x); err != nil {
		return inv, fmt.Errorf("parsing %s: %w", path, err)
	}
	for _, p := range x.Protocols {
		if p.Enabled == "1" {
			inv.Versions = append(inv.Versions, versionName(p.Type+p.Version))
		}
	}
	for _, c := range x.Ciphers {
		id, err := strconv.ParseUint(c.ID, 0, 16)
		if err != nil {
			return inv, fmt.Errorf("parsing %s: cipher id %q: %w", path, c.ID, err)
		}
		v := versionName(c.Version)
		inv.Suites[v] = append(inv.Suites[v], uint16(id))
	}
	for _, g := range x.Groups {
		id, err := strconv.ParseUint(g.ID, 0, 16)
		if err != nil {
			return inv, fmt.Errorf("parsing %s: group id %q: %w", path, g.ID, err)
		}
		inv.addGroup(uint16(id))
	}
	inv.sort()
	return inv, nil
}

// testsslGroups maps testssl's curve and group names to code points.
var testsslGroups = map[string]uint16{"prime256v1": 23, "secp384r1": 24, "secp521r1": 25, "X25519": 29, "X448": 30,
	"ffdhe2048": 256, "ffdhe3072": 257, "ffdhe4096": 258, "ffdhe6144": 259, "ffdhe8192": 260}

// fromTestssl reads "testssl --jsonfile FILE" output: protocol ids,
// "cipher-tls1_2_xc02f" style suite ids and the curve lists.
func fromTestssl(path string) (inventory, error) {
	var items []struct{ ID, Finding string }
	inv := newInventory()
	if err := readJSON(path, &items); err != nil {
		return inv, err
	}
	protos := map[string]string{"SSLv2": "SSLv2", "SSLv3": "SSLv3", "TLS1": "TLS 1.0", "TLS1_1": "TLS 1.1", "TLS1_2": "TLS 1.2", "TLS1_3": "TLS 1.3"}
	for _, it := range items {
		switch {
		case protos[it.ID] != "":
			if strings.HasPrefix(it.Finding, "offered") {
				inv.Versions = append(inv.Versions, protos[it.ID])
			}
		case strings.HasPrefix(it.ID, "cipher_x"):
			// A default run lists suites without their version: put them in
			// TLS 1.3 or, for all older versions together, "TLS <1.3".
			id, err := strconv.ParseUint(strings.TrimPrefix(it.ID, "cipher_x"), 16, 16)
			if err == nil {
				b := bucket(uint16(id))
				inv.Suites[b] = append(inv.Suites[b], uint16(id))
			}
		case strings.HasPrefix(it.ID, "cipher-tls1"):
			rest := strings.TrimPrefix(it.ID, "cipher-")
			v, hex, ok := strings.Cut(rest, "_x")
			if !ok {
				continue
			}
			id, err := strconv.ParseUint(hex, 16, 16)
			if err == nil {
				name := versionName(strings.ReplaceAll(v, "_", "."))
				inv.Suites[name] = append(inv.Suites[name], uint16(id))
			}
		case strings.HasSuffix(it.ID, "ECDHE_curves") || it.ID == "DH_groups":
			for _, n := range strings.Fields(it.Finding) {
				if id, ok := testsslGroups[n]; ok {
					inv.addGroup(id)
				}
			}
		}
	}
	inv.sort()
	return inv, nil
}

// bucket is where a testssl default run's suite belongs.
func bucket(id uint16) string {
	if id>>8 == 0x13 {
		return "TLS 1.3"
	}
	return "TLS <1.3"
}

// bucketed merges the suites of all versions before TLS 1.3.
func (inv inventory) bucketed() inventory {
	out := newInventory()
	out.Versions, out.Groups = inv.Versions, inv.Groups
	for _, ids := range inv.Suites {
		for _, id := range ids {
			if b := bucket(id); !slices.Contains(out.Suites[b], id) {
				out.Suites[b] = append(out.Suites[b], id)
			}
		}
	}
	out.sort()
	return out
}

// versionName turns the version spellings of sslscan and testssl ("ssl3",
// "SSLv3", "tls1.2", "TLSv1.2", "tls1") into audit's ("SSLv3", "TLS 1.2").
func versionName(s string) string {
	v := strings.ToLower(s)
	if rest, ok := strings.CutPrefix(v, "ssl"); ok {
		return "SSLv" + strings.TrimPrefix(rest, "v")
	}
	v = strings.TrimPrefix(strings.TrimPrefix(v, "tls"), "v")
	if v == "1" {
		v = "1.0"
	}
	return "TLS " + v
}

func readJSON(path string, v any) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(data, v); err != nil {
		return fmt.Errorf("parsing %s: %w", path, err)
	}
	return nil
}

// compare prints each peer's inventory against audit's and returns the
// number of differences. confirm, if set, asks a third party (openssl
// s_client) whether the server accepts groups audit found and a peer did
// not: a difference it confirms is printed as explained.
func compare(w io.Writer, audit inventory, peers map[string]inventory, confirm func([]uint16) (string, bool)) int {
	diffs := 0
	fmt.Fprintf(w, "%-9s %s\n", "audit", describe(audit))
	for _, name := range []string{"sslscan", "testssl"} {
		inv, ok := peers[name]
		if !ok {
			continue
		}
		verdict := "agrees"
		a := audit
		if _, ok := inv.Suites["TLS <1.3"]; ok {
			a, inv = audit.bucketed(), inv.bucketed()
		}
		d := differences(a, inv, name)
		if missing := without(audit.Groups, inv.Groups); confirm != nil && len(missing) > 0 && isSubset(inv.Groups, audit.Groups) {
			if seen, ok := confirm(missing); ok {
				d = slices.DeleteFunc(d, func(s string) bool { return strings.HasPrefix(s, "groups ") })
				verdict = fmt.Sprintf("agrees; explained: %s did not list groups %v, which the server accepts: %s", name, missing, seen)
			}
		}
		if len(d) > 0 {
			verdict = "DIFFERS: " + strings.Join(d, "; ")
			diffs += len(d)
		}
		fmt.Fprintf(w, "%-9s %s\n          %s\n", name, describe(inv), verdict)
	}
	return diffs
}

func describe(inv inventory) string {
	var parts []string
	for _, v := range slices.Sorted(maps.Keys(inv.Suites)) {
		parts = append(parts, fmt.Sprintf("%s: %d suites", v, len(inv.Suites[v])))
	}
	return fmt.Sprintf("versions %s; %s; %d groups %v", strings.Join(inv.Versions, ", "), strings.Join(parts, ", "), len(inv.Groups), inv.Groups)
}

func differences(a, b inventory, name string) []string {
	var d []string
	if !slices.Equal(a.Versions, b.Versions) {
		d = append(d, fmt.Sprintf("versions %v vs %v", a.Versions, b.Versions))
	}
	// Versions either side lists suites for: one side's missing key is a
	// difference too.
	keys := slices.Sorted(maps.Keys(a.Suites))
	for v := range b.Suites {
		if _, ok := a.Suites[v]; !ok {
			keys = append(keys, v)
		}
	}
	slices.Sort(keys)
	for _, v := range keys {
		if !slices.Equal(a.Suites[v], b.Suites[v]) {
			d = append(d, fmt.Sprintf("%s suites %04x vs %04x", v, a.Suites[v], b.Suites[v]))
		}
	}
	// An empty list from the peer is not agreement: it found no groups.
	if !slices.Equal(a.Groups, b.Groups) {
		d = append(d, fmt.Sprintf("groups %v vs %s %v", a.Groups, name, b.Groups))
	}
	return d
}

// isSubset reports whether every element of a is in b.
func isSubset(a, b []uint16) bool {
	for _, x := range a {
		if !slices.Contains(b, x) {
			return false
		}
	}
	return true
}

// without returns the elements of a that are not in b.
func without(a, b []uint16) []uint16 {
	var out []uint16
	for _, x := range a {
		if !slices.Contains(b, x) {
			out = append(out, x)
		}
	}
	return out
}
