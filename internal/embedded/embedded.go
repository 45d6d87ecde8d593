// Package embedded starts the embedded server (internal/lab) on loopback
// or behind an emulated link (internal/netem), and hands out what a client
// of it needs: its URLs, a line that says where it runs, and the CA to
// trust. serve, compare and demo all start their server here, so that the
// link is always built before the server listens inside it and removed
// after the server has stopped.
package embedded

import (
	"context"
	"fmt"

	"github.com/httpslab/httpslab/internal/lab"
	"github.com/httpslab/httpslab/internal/netem"
	"github.com/httpslab/httpslab/internal/transport"
)

// Config sets up the embedded server and its link.
type Config struct {
	// Server is the embedded server's setup. Behind a link its Host,
	// Listen and ListenPacket are the link's: the server listens on its
	// address inside the link's namespace.
	Server lab.Config
	// Link, when not nil, puts the server behind an emulated link with
	// this setting; nil serves on loopback.
	Link *netem.Config
}

// Server is a running embedded server, with its link when it has one.
type Server struct {
	*lab.Server
	// Link is the emulated link in front of the server; nil on loopback.
	Link *netem.Link
}

// LinkError is a failure to build the emulated link, told apart from a
// failure of the server itself (a port in use), which needs other advice.
type LinkError struct{ Err error }

func (e *LinkError) Error() string { return e.Err.Error() }
func (e *LinkError) Unwrap() error { return e.Err }

// Start builds the link, when cfg asks for one, and starts the server
// behind it. Close stops both.
func Start(ctx context.Context, cfg Config) (*Server, error) {
	s := &Server{}
	if cfg.Link != nil {
		link, err := netem.Start(ctx, *cfg.Link)
		if err != nil {
			return nil, &LinkError{Err: err}
		}
		s.Link = link
		cfg.Server.Host, cfg.Server.Listen, cfg.Server.ListenPacket = link.ServerIP.String(), link.Listen, link.ListenPacket
	}
	srv, err := lab.Start(ctx, cfg.Server)
	if err != nil {
		s.Close()
		return nil, err
	}
	s.Server = srv
	return s, nil
}

// Close stops the server, then removes the link.
func (s *Server) Close() error {
	var err error
	if s.Server != nil {
		err = s.Server.Close()
	}
	if s.Link != nil {
		if lerr := s.Link.Close(); err == nil {
			err = lerr
		}
	}
	return err
}

// Trust is the trust of a client that accepts the server's CA alone,
// held in memory: no CA file to write, read back and remove.
func (s *Server) Trust() transport.Trust {
	return transport.Trust{RootCAs: s.CA.Pool()}
}

// TrustUnless is the trust of a client of the server: given, when it
// names a CA file (--cacert replaces the server's own CA), else the
// server's CA with given's Insecure (-k).
func (s *Server) TrustUnless(given transport.Trust) transport.Trust {
	if given.CAFile != "" {
		return given
	}
	return transport.Trust{RootCAs: s.CA.Pool(), Insecure: given.Insecure}
}

// Describe says where the server runs, for a report's first line: "the
// embedded server on loopback" or "the embedded server behind an emulated
// link (rtt 50ms)".
func (s *Server) Describe() string {
	if s.Link == nil {
		return "the embedded server on loopback"
	}
	return fmt.Sprintf("the embedded server behind an emulated link (%s)", s.Link.Config)
}

// Notes says what a user of the running server should know beyond its
// URLs: that HTTP/3 shares the HTTPS port, or why it is off when it was
// not turned off (noHTTP3), and the link it runs behind.
func (s *Server) Notes(noHTTP3 bool) []string {
	var notes []string
	if s.HTTP3 {
		notes = append(notes, "HTTP/3 on the same port over UDP")
	} else if !noHTTP3 {
		notes = append(notes, "no HTTP/3: QUIC needs TLS 1.3, above --tls-max")
	}
	if s.Link != nil {
		notes = append(notes, fmt.Sprintf("behind an emulated link: %s, namespace %s", s.Link.Config, s.Link.Namespace))
	}
	return notes
}
