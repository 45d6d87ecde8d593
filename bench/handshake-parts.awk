# handshake-parts.awk reads `go tool pprof -traces` of BenchmarkFullHandshake
# and prints, per part of a full handshake, "part<TAB>seconds", then
# "total<TAB>seconds". A sample goes to the first part, in the order below,
# that a function on its stack belongs to; samples of BenchmarkCryptoFloor
# are left out. Used by handshake-cost.sh.
function flush(   c) {
	if (val == "" || stack ~ /BenchmarkCryptoFloor/) { val = ""; stack = ""; return }
	c = "rest: other"
	if (stack ~ /KeyExchange\)\.keyShares/) c = "key share generation"
	else if (stack ~ /clientSharedSecret/) c = "shared secret"
	else if (stack ~ /verifyCache\)\.verifyChain|x509\.\(\*Certificate\)\.Verify\n/) c = "chain verification (cached)"
	else if (stack ~ /verifyHandshakeSignature/) c = "signature verification"
	else if (stack ~ /x509\.ParseCertificate|verifyServerCertificate|weakCertCache/) c = "rest: certificate parsing"
	else if (stack ~ /halfConn\)\.(encrypt|decrypt)|setTrafficSecret|writeRecordLocked|readRecordOrCCS|\(\*Conn\)\.(Read|Write)\n/) c = "record layer"
	else if (stack ~ /deriveSecret|ExpandLabel|finishedHash|transcript|hkdf|tls13\.|sha256|hmac/) c = "key schedule, transcript hash"
	if (c ~ /^rest/ || c == "record layer") {
		# System calls count as the kernel's wherever they are made.
		if (stack ~ /Syscall|EpollWait|syscall\.|futex|usleep/) {
			if (stack ~ /netFD\)\.connect|sysDialer|sysSocket|syscall\.(Connect|Socket|Setsockopt)|load\.(openTCP|rawConnect)|socket\)\.established/) c = "rest: kernel, socket and connect"
			else if (stack ~ /rawConn\)\.write|FD\)\.Write/) c = "rest: kernel, writes"
			else if (stack ~ /rawConn\)\.read|FD\)\.Read/) c = "rest: kernel, reads"
			else if (stack ~ /\.Close\n|\.destroy|syscall\.Close/) c = "rest: kernel, close"
			else c = "rest: kernel, poller and wake-ups"
		}
		else if (c == "rest: other" && stack ~ /gcBgMarkWorker|gcDrain|bgsweep|bgscavenge|mallocgc|gcAssist|growslice|newobject|makeslice|memclr/) c = "rest: allocation and GC"
		else if (c == "rest: other" && stack ~ /crypto\/tls\./) c = "rest: handshake messages"
		else if (c == "rest: other" && stack ~ /runtime\.(schedule|findRunnable|mcall|park_m|gopark|goready|ready)/) c = "rest: scheduler"
	}
	t[c] += val; total += val
	val = ""; stack = ""
}
/^-----------\+/ { flush(); next }
/^ +[0-9.]+(ns|us|µs|ms|s) / {
	v = $1; u = v; sub(/[a-zµ]+$/, "", v); sub(/^[0-9.]+/, "", u)
	val = v * (u == "ms" ? 1e-3 : u == "s" ? 1 : (u == "us" || u == "µs") ? 1e-6 : 1e-9)
	$1 = ""; sub(/^ +/, ""); stack = $0 "\n"; next
}
val != "" { sub(/^ +/, ""); stack = stack $0 "\n" }
END { flush(); for (c in t) printf "%s\t%.6f\n", c, t[c]; printf "total\t%.6f\n", total }
