package load

import (
	"bufio"
	"crypto/tls"
	"errors"
	"fmt"
	"time"

	"golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"
)

// connect dials, checks ALPN and writes the client preface with settings
// that open the flow-control windows wide.
func (w *h2Worker) connect() error {
	r := w.run
	var ev event
	nc, err := r.ep.dial(r.ctx, time.Now().Add(r.cfg.Timeout), r.now, &ev)
	ev.err = err
	w.rec.add(ev)
	if err != nil {
		return err
	}
	tc := nc.(*tls.Conn)
	if p := tc.ConnectionState().NegotiatedProtocol; p != "h2" {
		nc.Close()
		return fmt.Errorf("the server did not negotiate HTTP/2 (ALPN %q)", p)
	}
	if !r.conns.add(nc) {
		return errors.New("run stopped")
	}
	w.tc = tc
	if w.bw == nil {
		w.bw = bufio.NewWriterSize(tc, 16<<10)
	} else {
		w.bw.Reset(tc)
	}
	w.br = bufio.NewReaderSize(tc, 16<<10)
	w.fr = http2.NewFramer(w.bw, w.br)
	w.fr.SetReuseFrames()
	w.nextID, w.used, w.draining, w.connRecv = 1, 0, false, 0
	w.limit = r.cfg.Streams
	w.enc = hpack.NewEncoder(&w.encBuf) // a fresh table per connection
	if _, err := w.bw.WriteString(http2.ClientPreface); err != nil {
		return w.fail(err)
	}
	// A header table size of 0 lets the client skim response headers
	// for the status without keeping HPACK state (hpack.go).
	err = w.fr.WriteSettings(http2.Setting{ID: http2.SettingHeaderTableSize, Val: 0},
		http2.Setting{ID: http2.SettingEnablePush, Val: 0},
		http2.Setting{ID: http2.SettingInitialWindowSize, Val: h2Window})
	if err == nil {
		err = w.fr.WriteWindowUpdate(0, h2Window)
	}
	if err != nil {
		return w.fail(err)
	}
	return nil
}

func (w *h2Worker) fail(err error) error {
	w.closeConn(nil)
	return fmt.Errorf("starting HTTP/2: %w", err)
}

// closeConn fails the streams still in flight with err (unless the run
// was interrupted) and closes the connection.
func (w *h2Worker) closeConn(err error) {
	if err == nil {
		err = errors.New("connection closed with the stream in flight")
	}
	stopped := w.run.src.stopped.Load()
	for id, s := range w.streams {
		delete(w.streams, id)
		if !stopped {
			s.ev.end, s.ev.err = w.run.now(), err
			w.rec.add(s.ev)
		}
	}
	if w.tc != nil {
		w.run.conns.remove(w.tc)
		w.tc = nil
	}
}
