package page

import "time"

// assign puts r on connection c. It must be called with l.mu held.
func (l *loader) assign(r *request, c *connRec) {
	r.conn = c
	c.requests++
	if c.first == 0 {
		c.first = r.id
	}
}

// requestOf returns the Request of the result for r.
func (l *loader) requestOf(r *request) Request {
	out := Request{
		ID: r.id, URL: r.u.Redacted(), Kind: r.ref.Kind, Initiator: r.initiator, Proto: r.proto, Status: r.status,
		BodyBytes: r.bytes, Start: r.discovered.Sub(l.start), End: r.done.Sub(l.start), Phases: l.phases(r),
	}
	if r.conn != nil {
		out.Conn = r.conn.id
	}
	if r.err != nil {
		out.Error = r.err.Error()
	}
	return out
}

// phases derives r's phases from its events, in order, each starting
// where the one before ended (a phase whose end event came earlier, as
// a connection's handshake that began before r was discovered, is cut to
// what r waited for). The request that a connection's first use went to
// carries the connection's connect and TLS phases, as in a browser's
// waterfall; the others queue until their connection or stream is free.
func (l *loader) phases(r *request) []Phase {
	out := []Phase{}
	cur := r.discovered
	add := func(name string, to time.Time) {
		if to.IsZero() {
			return
		}
		if to.Before(cur) {
			to = cur
		}
		out = append(out, Phase{Name: name, Start: cur.Sub(l.start), Duration: to.Sub(cur)})
		cur = to
	}
	c := r.conn
	switch {
	case c == nil || r.assigned.IsZero():
		add(PhaseQueued, r.done) // it never got a connection
		return out
	case c.first == r.id:
		add(PhaseQueued, c.start)
		if c.quic == nil {
			add(PhaseConnect, c.connected)
		}
		if c.tlsVersion != "" {
			add(PhaseTLS, c.ready)
		}
	default:
		add(PhaseQueued, r.assigned)
	}
	wrote, firstByte := r.st.get()
	add(PhaseSend, wrote)
	add(PhaseWait, firstByte)
	if r.received.IsZero() {
		add(PhaseDownload, r.done)
		return out
	}
	add(PhaseDownload, r.received)
	add(PhaseProcess, r.done)
	return out
}
