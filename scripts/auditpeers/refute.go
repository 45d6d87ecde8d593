package main

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"
)

// A refutation is the openssl s_client command that shows a testssl
// finding wrong on a target, and what its output says when it does.
type refutation struct {
	// ID is testssl's id; Target the target it is wrong on.
	ID, Target string
	// Args are s_client's arguments after -connect HOST:PORT.
	Args []string
	// Shows matches the line of s_client's output that refutes testssl.
	Shows *regexp.Regexp
}

// refutations are testssl's known wrong findings on these targets.
var refutations = []refutation{}

// check runs the command against addr and describes what refutes
// testssl, or returns "" when the output does not show it.
func (r refutation) check(ctx context.Context, addr string) string {
	cmd, out := sClient(ctx, addr, r.Args...)
	line := r.Shows.FindString(out)
	if line == "" {
		return ""
	}
	return fmt.Sprintf("`%s` prints %q", cmd, strings.TrimSpace(line))
}

// targetVerdicts reads one target's audit and testssl JSON and lists
// testssl's findings with audit's; one audit does not make is checked
// against a known refutation, or audit's reason for not measuring it.
func targetVerdicts(ctx context.Context, o *outcome) ([]verdict, error) {
	var env struct {
		Result struct {
			Findings []auditFinding
			CAA      struct {
				Name        string
				Records     []string
				NotMeasured string `json:"not_measured"`
			}
		}
	}
	if err := readJSON(o.file("audit.json"), &env); err != nil {
		return nil, err
	}
	var items []testsslItem
	if err := readJSON(o.file("testssl.json"), &items); err != nil {
		return nil, err
	}
	vs := verdicts(env.Result.Findings, items)
	for i := range vs {
		v := &vs[i]
		if len(v.Audit) > 0 {
			continue
		}
		if v.ID == "DNS_CAArecord" {
			v.NotMeasured = env.Result.CAA.NotMeasured
			if c := env.Result.CAA; c.Name != "" {
				v.Seen = fmt.Sprintf("%s at %s", strings.Join(c.Records, ", "), c.Name)
			}
		}
		for _, r := range refutations {
			if r.ID == v.ID && r.Target == o.tg.Name {
				v.Refuted = r.check(ctx, o.run.HostPort)
			}
		}
	}
	return vs, nil
}

// sClient runs openssl s_client against addr with args, its standard
// input empty, and returns the command as typed and its output.
func sClient(ctx context.Context, addr string, args ...string) (string, string) {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	argv := append([]string{"s_client", "-connect", addr}, args...)
	cmd := exec.CommandContext(ctx, "openssl", argv...)
	cmd.Stdin = strings.NewReader("")
	out, _ := cmd.CombinedOutput()
	return "openssl " + strings.Join(argv, " "), string(out)
}

// opensslGroups are OpenSSL's names of the groups audit finds, and how
// its "Temp Key" line names them.
var opensslGroups = map[uint16]struct{ name, key string }{23: {"P-256", "prime256v1"}, 24: {"P-384", "secp384r1"},
	25: {"P-521", "secp521r1"}, 29: {"X25519", "X25519"}, 30: {"X448", "X448"},
	256: {"ffdhe2048", ""}, 257: {"ffdhe3072", ""}, 258: {"ffdhe4096", ""}, 259: {"ffdhe6144", ""}, 260: {"ffdhe8192", ""}}

var tempKey = regexp.MustCompile(`(Server|Peer) Temp Key: [^\n]*`)

// confirmGroups asks openssl s_client, once per group and offering only
// it, whether the server accepts each group a peer did not list; version
// is "-tls1_3" when the server speaks TLS 1.3, else "-tls1_2". Before TLS
// 1.3 a server with an ECDSA P-256 certificate needs P-256 among the
// client's groups to sign with it, as every real client offers it: a
// group refused alone is asked again with P-256 after it, and counts
// when the server still picks it. It returns the commands with what they
// printed, and whether every group was accepted.
func confirmGroups(ctx context.Context, addr, version string, ids []uint16) (string, bool) {
	var seen []string
	for _, id := range ids {
		g, ok := opensslGroups[id]
		if !ok {
			return "", false
		}
		cmd, out := sClient(ctx, addr, version, "-groups", g.name)
		line := tempKey.FindString(out)
		if line == "" && version == "-tls1_2" && id != 23 && g.key != "" {
			cmd, out = sClient(ctx, addr, version, "-groups", g.name+":P-256")
			if line = tempKey.FindString(out); !strings.Contains(line, g.key) {
				line = ""
			}
		}
		if line == "" {
			return "", false
		}
		seen = append(seen, fmt.Sprintf("`%s` prints %q", cmd, line))
	}
	return strings.Join(seen, "; "), true
}

// confirmResumption asks openssl s_client whether a TLS 1.2 session is
// resumed: by session ID (-no_ticket) or by ticket. It returns the
// commands with what the second printed, and the answer.
func confirmResumption(ctx context.Context, addr, dir string, ticket bool) (string, bool) {
	sess := filepath.Join(dir, "session.pem")
	// Security level 0: a server whose preferred suite has a DH prime
	// under 2048 bits is still asked (OpenSSL 3 refuses it by default).
	args := []string{"-tls1_2", "-cipher", "ALL:@SECLEVEL=0"}
	if !ticket {
		args = append(args, "-no_ticket")
	}
	first, out1 := sClient(ctx, addr, append(slices.Clone(args), "-sess_out", sess)...)
	second, out2 := sClient(ctx, addr, append(slices.Clone(args), "-sess_in", sess)...)
	reused := regexp.MustCompile(`(?m)^Reused, [^\n]*`).FindString(out2)
	if ticket && !strings.Contains(out1, "TLS session ticket:") {
		reused = ""
	}
	what := reused
	if what == "" {
		what = regexp.MustCompile(`(?m)^New, [^\n]*`).FindString(out2)
	}
	return fmt.Sprintf("`%s; %s` prints %q", first, second, what), reused != ""
}
