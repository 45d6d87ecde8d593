package main

import (
	"context"
	"fmt"
	"io"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
)

// opensslSuiteNames maps IANA code points to OpenSSL's suite names, from
// `openssl ciphers -V`.
func opensslSuiteNames(ctx context.Context) (map[uint16]string, error) {
	out, err := exec.CommandContext(ctx, "openssl", "ciphers", "-V", "ALL:COMPLEMENTOFALL:@SECLEVEL=0").Output()
	if err != nil {
		return nil, fmt.Errorf("openssl ciphers -V: %w", err)
	}
	names := map[uint16]string{}
	line := regexp.MustCompile(`0x([0-9A-Fa-f]{2}),0x([0-9A-Fa-f]{2}) - (\S+)`)
	for _, m := range line.FindAllStringSubmatch(string(out), -1) {
		id, _ := strconv.ParseUint(m[1]+m[2], 16, 16)
		names[uint16(id)] = m[3]
	}
	return names, nil
}

var negotiated = regexp.MustCompile(`Cipher is (\S+)`)

// checkOrder asks openssl s_client whose order picks the TLS 1.2 suite:
// two suites the server accepts, offered in one order and in the other.
// The same pick both times is the server's order. It prints what audit
// says beside it and returns 1 when openssl contradicts audit.
func checkOrder(ctx context.Context, w io.Writer, o *outcome, names map[uint16]string) int {
	var env struct {
		Result struct {
			Enumeration struct {
				Versions []struct {
					Name        string
					Supported   bool
					ServerOrder bool `json:"server_order"`
					Suites      []struct{ ID uint16 }
				}
			}
		}
	}
	if err := readJSON(o.file("audit.json"), &env); err != nil {
		fmt.Fprintf(w, "%-22s %v\n", o.tg.Name, err)
		return 1
	}
	for _, v := range env.Result.Enumeration.Versions {
		if v.Name != "TLS 1.2" || !v.Supported || len(v.Suites) < 2 {
			continue
		}
		a, b := names[v.Suites[0].ID], names[v.Suites[1].ID]
		if a == "" || b == "" {
			return 0
		}
		var picks []string
		var cmds []string
		for _, list := range []string{a + ":" + b, b + ":" + a} {
			cmd, out := sClient(ctx, o.run.HostPort, "-tls1_2", "-cipher", list+":@SECLEVEL=0")
			m := negotiated.FindStringSubmatch(out)
			if m == nil {
				fmt.Fprintf(w, "%-22s `%s` negotiated nothing\n", o.tg.Name, cmd)
				return 1
			}
			picks, cmds = append(picks, m[1]), append(cmds, fmt.Sprintf("`%s` gets %s", cmd, m[1]))
		}
		serverOrder := picks[0] == picks[1]
		audit, verdict := "the client's order (cipher-order-client)", "agrees"
		if v.ServerOrder {
			audit = "the server's order"
		}
		if serverOrder != v.ServerOrder {
			verdict = "CONTRADICTS audit"
		}
		fmt.Fprintf(w, "%-22s audit: %s; %s: %s\n", o.tg.Name, audit, strings.Join(cmds, "; "), verdict)
		if serverOrder != v.ServerOrder {
			return 1
		}
	}
	return 0
}
