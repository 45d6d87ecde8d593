package netem

import (
	"context"
	"crypto/tls"
	"io"
	"math"
	"net"
	"net/http"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/httpslab/httpslab/internal/lab"
	"github.com/httpslab/httpslab/internal/labtest"
	"github.com/quic-go/quic-go/http3"
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

// TestUploadBandwidth fills the upload queue of a 16 Mbit/s link with a
// burst of datagrams and measures how fast the link drains it: while the
// queue is not empty the link must carry its rate within 5%, whatever the
// receiver does. (TestBandwidth checks a TCP download end to end.)
func TestUploadBandwidth(t *testing.T) {
	const rate = 16_000_000
	// The forwarder that drains the queue is a goroutine: on a machine
	// busy enough to stall it for a tenth of a second, it leaves late and
	// catches up on its schedule, and a window of 0.4 s sees the catching
	// up as extra rate. A link that keeps its rate passes on one of three
	// tries; one that does not keep it fails all three.
	var wire float64
	for try := 1; try <= 3; try++ {
		wire = uploadRate(t, rate)
		t.Logf("try %d: upload on the wire %.3f Mbit/s", try, wire/1e6)
		if wire >= rate*0.95 && wire <= rate*1.05 {
			return
		}
	}
	t.Errorf("link carried %.2f Mbit/s upstream; want %.2f ± 5%%", wire/1e6, float64(rate)/1e6)
}

// uploadRate sends a burst through a new link of the given upload rate and
// returns the rate at which the link drains it while its queue is full.
func uploadRate(t *testing.T, rate int64) float64 {
	t.Helper()
	l := startTestLink(t, Config{RTT: 10 * time.Millisecond, Upload: rate, Queue: 4 << 20})
	pc, err := l.ListenPacket(context.Background(), "udp", net.JoinHostPort(l.ServerIP.String(), "0"))
	if err != nil {
		t.Fatal(err)
	}
	defer pc.Close()
	c, err := net.Dial("udp", pc.LocalAddr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	// 2.9 MB: 1.47 s of work for the link, sent as fast as the forwarder
	// takes the datagrams in (at most 40 ahead of it, so the kernel drops
	// none): on a busy machine sleeps last far longer than asked, and a
	// sender paced by them would leave the link nothing to queue.
	payload := make([]byte, 1472)
	taken := func() int64 { st := l.Stats().ToServer; return st.Packets + st.Dropped + st.Queued }
	for i := range 2000 {
		c.Write(payload)
		for deadline := time.Now().Add(time.Second); taken()+40 < int64(i) && time.Now().Before(deadline); {
			time.Sleep(100 * time.Microsecond)
		}
	}
	// The measurement below needs 0.42 s of work left in the queue.
	if q := l.Stats().ToServer.Queued; q < 700 {
		t.Fatalf("%d datagrams queued once sent; want at least 700 (0.5 s of the link's work)", q)
	}
	time.Sleep(20 * time.Millisecond)
	start, b0 := time.Now(), l.Stats().ToServer.Bytes
	time.Sleep(400 * time.Millisecond)
	b1, elapsed := l.Stats().ToServer.Bytes, time.Since(start)
	st := l.Stats().ToServer
	if n := st.Packets + st.Dropped + st.Queued; n < 1800 || st.Queued == 0 {
		t.Fatalf("%d datagrams reached the link, %d still queued; want most of 2000, some queued", n, st.Queued)
	}
	return float64(b1-b0) * 8 / elapsed.Seconds()
}

// TestHTTP3ThroughTheLink downloads a body over HTTP/3 through a rate-
// limited link: QUIC's large (GSO) sends must cross the TUN devices whole.
func TestHTTP3ThroughTheLink(t *testing.T) {
	l := startTestLink(t, Config{RTT: 10 * time.Millisecond, Bandwidth: 50_000_000})
	srv := labtest.StartServer(t, lab.Config{Host: l.ServerIP.String(), Listen: l.Listen, ListenPacket: l.ListenPacket})
	tr := &http3.Transport{TLSClientConfig: &tls.Config{RootCAs: srv.CA.Pool()}}
	defer tr.Close()
	c := &http.Client{Transport: tr, Timeout: 10 * time.Second}
	const size = 1 << 20
	resp, err := c.Get(srv.HTTPSURL + "/bytes/" + strconv.Itoa(size))
	if err != nil {
		t.Fatalf("GET over HTTP/3 through the link: %v", err)
	}
	defer resp.Body.Close()
	n, err := io.Copy(io.Discard, resp.Body)
	if err != nil || n != size || resp.ProtoMajor != 3 {
		t.Errorf("read %d bytes over %s (%v); want %d over HTTP/3", n, resp.Proto, err, size)
	}
	if st := l.Stats().ToClient; st.Bytes < size {
		t.Errorf("link carried %d bytes to the client; want at least the body's %d", st.Bytes, size)
	}
}
