package load

import (
	"crypto"
	"crypto/ecdh"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/mlkem"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"errors"
	"runtime"
	"testing"

	"golang.org/x/sys/unix"
)

// BenchmarkCryptoFloor measures the public-key operations a full TLS 1.3
// handshake cannot do without, on the client, one op each: the key share
// and the shared secret of a group, and the verification of the server's
// CertificateVerify signature. The sum for the negotiated group and the
// leaf's key is the floor that bench/handshake-cost.sh holds a full
// handshake's client CPU against (the chain's own verification is cached
// per run, so it adds nothing per handshake after the first).
//
// Each reports cpu-µs/op, the thread's CPU time per op, which a busy
// machine changes far less than the wall time of ns/op.
func BenchmarkCryptoFloor(b *testing.B) {
	b.Run("group=x25519", func(b *testing.B) { cpuLoop(b, exchange(ecdh.X25519())) })
	b.Run("group=secp256r1", func(b *testing.B) { cpuLoop(b, exchange(ecdh.P256())) })
	b.Run("group=X25519MLKEM768", func(b *testing.B) {
		x25519 := exchange(ecdh.X25519())
		// The client decapsulates the server's ciphertext with its own
		// new key; a ciphertext for another key costs the same.
		_, ct := must(mlkem.GenerateKey768()).EncapsulationKey().Encapsulate()
		cpuLoop(b, func() error {
			dk, err := mlkem.GenerateKey768()
			if err != nil {
				return err
			}
			_ = dk.EncapsulationKey().Bytes()
			if _, err := dk.Decapsulate(ct); err != nil {
				return err
			}
			return x25519()
		})
	})
	// What crypto/tls verifies: a SHA-256 of 64 spaces, the context string
	// and the transcript hash.
	signed := make([]byte, 64+34+32)
	digest := sha256.Sum256(signed)
	b.Run("verify=ecdsa-p256", func(b *testing.B) {
		key := must(ecdsa.GenerateKey(elliptic.P256(), rand.Reader))
		sig := must(ecdsa.SignASN1(rand.Reader, key, digest[:]))
		cpuLoop(b, func() error {
			h := sha256.Sum256(signed)
			if !ecdsa.VerifyASN1(&key.PublicKey, h[:], sig) {
				return errors.New("signature does not verify")
			}
			return nil
		})
	})
	b.Run("verify=rsa-2048-pss", func(b *testing.B) {
		key := must(rsa.GenerateKey(rand.Reader, 2048))
		opts := &rsa.PSSOptions{SaltLength: rsa.PSSSaltLengthEqualsHash, Hash: crypto.SHA256}
		sig := must(rsa.SignPSS(rand.Reader, key, crypto.SHA256, digest[:], opts))
		cpuLoop(b, func() error {
			h := sha256.Sum256(signed)
			return rsa.VerifyPSS(&key.PublicKey, crypto.SHA256, h[:], sig, opts)
		})
	})
}

// exchange returns one client's side of a key exchange in curve: a new
// key pair, its public key encoded, and the shared secret with a peer.
func exchange(curve ecdh.Curve) func() error {
	peer := must(curve.GenerateKey(rand.Reader)).PublicKey()
	return func() error {
		k, err := curve.GenerateKey(rand.Reader)
		if err != nil {
			return err
		}
		_ = k.PublicKey().Bytes()
		_, err = k.ECDH(peer)
		return err
	}
}

// cpuLoop runs op b.N times on one thread and reports the thread's CPU
// time per op.
func cpuLoop(b *testing.B, op func() error) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	start, n := threadCPU(b), 0
	for b.Loop() {
		if err := op(); err != nil {
			b.Fatal(err)
		}
		n++
	}
	b.ReportMetric(float64(threadCPU(b)-start)/1e3/float64(n), "cpu-µs/op")
}

func threadCPU(b *testing.B) int64 {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts); err != nil {
		b.Fatal(err)
	}
	return ts.Nano()
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}
