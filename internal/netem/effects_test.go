package netem

import (
	"context"
	"io"
	"math"
	"net"
	"slices"
	"testing"
	"time"
)

// TestLossOnTheLink sends datagrams through a link that loses 20% of them:
// the server must receive what the link counts as forwarded, and the loss
// must be near 20%.
func TestLossOnTheLink(t *testing.T) {
	const n, loss = 2000, 0.2
	l := startTestLink(t, Config{RTT: 2 * time.Millisecond, Loss: loss})
	pc, err := l.ListenPacket(context.Background(), "udp", net.JoinHostPort(l.ServerIP.String(), "0"))
	if err != nil {
		t.Fatal(err)
	}
	defer pc.Close()
	// Room for bursts, so that only the link drops datagrams.
	if err := pc.(*net.UDPConn).SetReadBuffer(4 << 20); err != nil {
		t.Fatal(err)
	}
	got := make(chan int)
	go func() {
		buf, count := make([]byte, 64), 0
		for {
			pc.SetReadDeadline(time.Now().Add(500 * time.Millisecond))
			if _, _, err := pc.ReadFrom(buf); err != nil {
				got <- count
				return
			}
			count++
		}
	}()
	c, err := net.Dial("udp", pc.LocalAddr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for i := range n {
		c.Write([]byte{byte(i)})
		if i%50 == 49 {
			time.Sleep(time.Millisecond) // stay below the socket buffers
		}
	}
	received := <-got
	st := l.Stats().ToServer
	if int64(received) != st.Packets || st.Packets+st.Lost != n || st.Dropped != 0 {
		t.Errorf("server received %d; link stats %+v; want received = forwarded and forwarded + lost = %d", received, st, n)
	}
	if sd := math.Sqrt(n * loss * (1 - loss)); math.Abs(float64(st.Lost)-n*loss) > 5*sd {
		t.Errorf("link lost %d of %d; want about %d", st.Lost, n, int(n*loss))
	}
}

// TestJitterOnTheLink times TCP connects through a link with 40 ms RTT
// and 10 ms of jitter (±5 ms each way): none may take less than 30 ms, the
// median must stay within 30 to 50 ms (scheduling on a busy machine only
// adds), and they must not all take the same time.
func TestJitterOnTheLink(t *testing.T) {
	l := startTestLink(t, Config{RTT: 40 * time.Millisecond, Jitter: 10 * time.Millisecond})
	ln, err := l.Listen(context.Background(), "tcp", net.JoinHostPort(l.ServerIP.String(), "0"))
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	var ds []time.Duration
	for range 11 {
		c, d := dialTCP(t, ln.Addr().String())
		c.Close()
		ds = append(ds, d)
	}
	slices.Sort(ds)
	lo, med, hi := ds[0], ds[len(ds)/2], ds[len(ds)-1]
	if lo < 30*time.Millisecond || med > 50*time.Millisecond || hi-lo < time.Millisecond {
		t.Errorf("connects took %v (min %v, median %v); want all at least 30ms, the median at most 50ms, and a spread", ds, lo, med)
	}
}

// TestUploadBandwidth sends 1 MB to a sink behind a link whose upload is
// limited to 16 Mbit/s (download unlimited): the link must carry it at
// that rate within 5%.
func TestUploadBandwidth(t *testing.T) {
	const rate, size = 16_000_000, 1 << 20
	l := startTestLink(t, Config{RTT: 10 * time.Millisecond, Upload: rate})
	ln, err := l.Listen(context.Background(), "tcp", net.JoinHostPort(l.ServerIP.String(), "0"))
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		if n, _ := io.CopyN(io.Discard, c, size); n == size {
			c.Write([]byte{1})
		}
	}()
	c, _ := dialTCP(t, ln.Addr().String())
	defer c.Close()
	c.SetDeadline(time.Now().Add(10 * time.Second))
	start, wire0 := time.Now(), l.Stats().ToServer.Bytes
	if _, err := c.Write(make([]byte, size)); err != nil {
		t.Fatalf("uploading: %v", err)
	}
	if _, err := c.Read(make([]byte, 1)); err != nil {
		t.Fatalf("waiting for the sink: %v", err)
	}
	// The reply took half an RTT on the way back.
	elapsed := time.Since(start) - 5*time.Millisecond
	wire := float64(l.Stats().ToServer.Bytes-wire0) * 8 / elapsed.Seconds()
	if wire < rate*0.95 || wire > rate*1.05 {
		t.Errorf("link carried %.2f Mbit/s upstream; want %.2f ± 5%%", wire/1e6, float64(rate)/1e6)
	}
	t.Logf("upload on the wire %.3f Mbit/s", wire/1e6)
}
