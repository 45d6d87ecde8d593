// Package lab holds the targets httpslab measures against: the embedded
// HTTP/HTTPS/HTTP3 server with its generated certificates, and a manager
// for private nginx instances used by tests and experiments.
package lab

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/quic-go/quic-go"
	"github.com/quic-go/quic-go/http3"
)

// Config sets up the embedded server. The zero value serves HTTP, HTTPS
// (HTTP/1.1 and HTTP/2) and HTTP/3 on 127.0.0.1 with free ports, an ECDSA
// P-256 certificate, TLS 1.2 and 1.3, session tickets, 0-RTT and HSTS.
type Config struct {
	// Host is the address to listen on; empty means 127.0.0.1.
	Host string
	// HTTPPort and HTTPSPort are the ports; 0 picks a free one. HTTP/3
	// uses the HTTPS port number over UDP.
	HTTPPort, HTTPSPort int
	// Cert is the leaf (and CA) key kind; empty means ECDSA P-256.
	Cert KeyKind
	// Certificate, when set, is served instead of a generated one, and
	// the server has no CA of its own (Server.CA is nil): a certificate
	// kept across starts, so that clients trusting its issuer verify
	// every start alike.
	Certificate *tls.Certificate
	// Hosts are the names the leaf certificate is valid for; nil means DefaultHosts.
	Hosts []string
	// MinVersion and MaxVersion bound the TLS versions; 0 means 1.2 and 1.3.
	MinVersion, MaxVersion uint16
	// NoTickets turns session tickets, and so all resumption, off.
	NoTickets bool
	// No0RTT refuses 0-RTT early data on HTTP/3.
	No0RTT bool
	// NoHTTP3 turns the QUIC listener off. QUIC runs on TLS 1.3 only, so
	// a MaxVersion below TLS 1.3 turns it off too.
	NoHTTP3 bool
	// NoHSTS leaves the Strict-Transport-Security header out.
	NoHSTS bool
	// Handler serves requests; nil means Handler().
	Handler http.Handler
	// Listen and ListenPacket open the sockets; nil means the host's
	// network stack. The network lab passes functions that listen inside
	// its namespace.
	Listen       func(ctx context.Context, network, addr string) (net.Listener, error)
	ListenPacket func(ctx context.Context, network, addr string) (net.PacketConn, error)
}

// Stats counts what the server saw, for tests and reports that check
// the client's claims from the server side.
type Stats struct {
	Requests   int64 // HTTP requests on all listeners
	Handshakes int64 // completed TLS handshakes over TCP and QUIC
	Resumed    int64 // of which resumed a session
	// TCPConns counts the TCP connections accepted on the HTTP and HTTPS
	// ports (QUIC connections are counted by their handshakes).
	TCPConns int64
}

// Server is a running embedded server.
type Server struct {
	// CA issued Leaf; nil when Config.Certificate was given.
	CA      *CA
	Leaf    *Leaf
	HTTPURL string // http://host:port
	// HTTPSURL serves HTTPS over TCP and, unless disabled, HTTP/3 over UDP
	// on the same port number.
	HTTPSURL string
	HTTP3    bool

	requests, handshakes, resumed, tcpConns atomic.Int64

	plain, secure *http.Server
	h3            *http3.Server
	wg            sync.WaitGroup
	errs          chan error
}

// Start generates the certificates, opens the listeners and serves in the
// background until Close.
func Start(ctx context.Context, cfg Config) (*Server, error) {
	cfg = cfg.withDefaults()
	ca, leaf, err := certificates(cfg)
	if err != nil {
		return nil, err
	}
	s := &Server{CA: ca, Leaf: leaf, HTTP3: !cfg.NoHTTP3, errs: make(chan error, 3)}
	tcp, udp, err := listenPair(ctx, cfg)
	if err != nil {
		return nil, err
	}
	plainLn, err := cfg.Listen(ctx, "tcp", net.JoinHostPort(cfg.Host, strconv.Itoa(cfg.HTTPPort)))
	if err != nil {
		tcp.Close()
		if udp != nil {
			udp.Close()
		}
		return nil, fmt.Errorf("listening for HTTP: %w", err)
	}
	s.HTTPURL = "http://" + plainLn.Addr().String()
	s.HTTPSURL = "https://" + tcp.Addr().String()
	s.serve(cfg, plainLn, tcp, udp)
	return s, nil
}

// certificates returns the CA and the leaf of a start: the given
// certificate with no CA, or a new CA and a leaf it issued.
func certificates(cfg Config) (*CA, *Leaf, error) {
	if cfg.Certificate != nil {
		return nil, &Leaf{TLS: *cfg.Certificate}, nil
	}
	ca, err := NewCA(cfg.Cert)
	if err != nil {
		return nil, nil, err
	}
	leaf, err := ca.Issue(cfg.Cert, cfg.Hosts...)
	return ca, leaf, err
}

func (cfg Config) withDefaults() Config {
	if cfg.Host == "" {
		cfg.Host = "127.0.0.1"
	}
	if cfg.Cert == "" {
		cfg.Cert = ECDSAP256
	}
	if cfg.Hosts == nil {
		cfg.Hosts = DefaultHosts
	}
	if !slices.Contains(cfg.Hosts, cfg.Host) {
		cfg.Hosts = append(slices.Clip(cfg.Hosts), cfg.Host)
	}
	if cfg.MinVersion == 0 {
		cfg.MinVersion = tls.VersionTLS12
	}
	if cfg.MaxVersion == 0 {
		cfg.MaxVersion = tls.VersionTLS13
	}
	if cfg.MaxVersion < tls.VersionTLS13 {
		// Every QUIC handshake would fail with "protocol version not
		// supported" while Alt-Svc invited clients to try HTTP/3.
		cfg.NoHTTP3 = true
	}
	if cfg.Handler == nil {
		cfg.Handler = Handler()
	}
	if cfg.Listen == nil {
		var lc net.ListenConfig
		cfg.Listen = lc.Listen
	}
	if cfg.ListenPacket == nil {
		var lc net.ListenConfig
		cfg.ListenPacket = lc.ListenPacket
	}
	return cfg
}

// ErrHTTP3Port is wrapped by Start's error when the HTTPS port number is
// free over TCP but taken over UDP, where HTTP/3 listens.
var ErrHTTP3Port = errors.New("listening for HTTP/3")

// listenPair opens the HTTPS TCP listener and, for HTTP/3, a UDP socket on
// the same port number, retrying with other free ports when the UDP port
// is taken.
func listenPair(ctx context.Context, cfg Config) (net.Listener, net.PacketConn, error) {
	for attempt := 0; ; attempt++ {
		addr := net.JoinHostPort(cfg.Host, strconv.Itoa(cfg.HTTPSPort))
		tcp, err := cfg.Listen(ctx, "tcp", addr)
		if err != nil {
			return nil, nil, fmt.Errorf("listening for HTTPS on %s: %w", addr, err)
		}
		if cfg.NoHTTP3 {
			return tcp, nil, nil
		}
		port := tcp.Addr().(*net.TCPAddr).Port
		udp, err := cfg.ListenPacket(ctx, "udp", net.JoinHostPort(cfg.Host, strconv.Itoa(port)))
		if err == nil {
			return tcp, udp, nil
		}
		tcp.Close()
		if cfg.HTTPSPort != 0 || attempt >= 20 {
			return nil, nil, fmt.Errorf("%w on UDP port %d: %w", ErrHTTP3Port, port, err)
		}
	}
}

func (s *Server) tlsConfig(cfg Config) *tls.Config {
	return &tls.Config{
		Certificates:           []tls.Certificate{s.Leaf.TLS},
		MinVersion:             cfg.MinVersion,
		MaxVersion:             cfg.MaxVersion,
		SessionTicketsDisabled: cfg.NoTickets,
		VerifyConnection: func(cs tls.ConnectionState) error {
			s.handshakes.Add(1)
			if cs.DidResume {
				s.resumed.Add(1)
			}
			return nil
		},
	}
}

func (s *Server) serve(cfg Config, plainLn, tcp net.Listener, udp net.PacketConn) {
	count := func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			s.requests.Add(1)
			h.ServeHTTP(w, r)
		})
	}
	// Scanners and benchmarks abort handshakes on purpose; net/http would
	// log each one, so the embedded server's error log is discarded.
	quiet := log.New(io.Discard, "", 0)
	// The plain port speaks HTTP/1.1 and, to a client that starts with the
	// HTTP/2 preface (prior knowledge, as h2load and bench --http2 do),
	// HTTP/2 in cleartext.
	var plainProtos http.Protocols
	plainProtos.SetHTTP1(true)
	plainProtos.SetUnencryptedHTTP2(true)
	countConn := func(_ net.Conn, st http.ConnState) {
		if st == http.StateNew {
			s.tcpConns.Add(1)
		}
	}
	s.plain = &http.Server{Handler: count(cfg.Handler), ReadHeaderTimeout: 10 * time.Second, ErrorLog: quiet, Protocols: &plainProtos, ConnState: countConn}
	tlsConf := s.tlsConfig(cfg)
	secureHandler := count(s.secureHeaders(cfg, cfg.Handler, tcp.Addr().(*net.TCPAddr).Port))
	s.secure = &http.Server{Handler: secureHandler, TLSConfig: tlsConf, ReadHeaderTimeout: 10 * time.Second, ErrorLog: quiet, ConnState: countConn}
	s.secure.TLSConfig.NextProtos = []string{"h2", "http/1.1"}
	s.goServe(func() error { return s.plain.Serve(plainLn) })
	s.goServe(func() error { return s.secure.ServeTLS(tcp, "", "") })
	if udp != nil {
		s.h3 = &http3.Server{
			Handler:    secureHandler,
			TLSConfig:  http3.ConfigureTLSConfig(s.tlsConfig(cfg)),
			QUICConfig: &quic.Config{Allow0RTT: !cfg.No0RTT},
		}
		s.goServe(func() error { return s.h3.Serve(udp) })
	}
}

func (s *Server) goServe(f func() error) {
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		if err := f(); err != nil && !errors.Is(err, http.ErrServerClosed) && !errors.Is(err, quic.ErrServerClosed) {
			s.errs <- err
		}
	}()
}

// secureHeaders adds the headers that only HTTPS responses carry: HSTS and
// the Alt-Svc advertisement of HTTP/3.
func (s *Server) secureHeaders(cfg Config, h http.Handler, port int) http.Handler {
	altSvc := fmt.Sprintf(`h3=":%d"; ma=86400`, port)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !cfg.NoHSTS {
			w.Header().Set("Strict-Transport-Security", "max-age=31536000; includeSubDomains")
		}
		if !cfg.NoHTTP3 {
			w.Header().Set("Alt-Svc", altSvc)
		}
		h.ServeHTTP(w, r)
	})
}

// Stats returns the counters so far.
func (s *Server) Stats() Stats {
	return Stats{Requests: s.requests.Load(), Handshakes: s.handshakes.Load(), Resumed: s.resumed.Load(), TCPConns: s.tcpConns.Load()}
}

// Err returns a channel that yields an error if a listener fails while serving.
func (s *Server) Err() <-chan error { return s.errs }

// Close stops all listeners and waits for the serving goroutines.
func (s *Server) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	errs := []error{s.plain.Shutdown(ctx), s.secure.Shutdown(ctx)}
	if s.h3 != nil {
		errs = append(errs, s.h3.Close())
	}
	s.plain.Close()
	s.secure.Close()
	s.wg.Wait()
	return errors.Join(errs...)
}
