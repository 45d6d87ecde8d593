package lab

import (
	"context"
	"testing"
)

// StartTestServer starts the embedded server for a test and closes it
// when the test ends.
func StartTestServer(t testing.TB, cfg Config) *Server {
	t.Helper()
	s, err := Start(context.Background(), cfg)
	if err != nil {
		t.Fatalf("starting the embedded server: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// StartTestNginx starts a lab nginx for a test and stops it when the test
// ends. nginx is a required test dependency, installed by the README's
// test command; a missing nginx fails the test.
func StartTestNginx(t testing.TB, cfg NginxConfig) *Nginx {
	t.Helper()
	n, err := StartNginx(context.Background(), cfg)
	if err != nil {
		t.Fatalf("starting nginx: %v", err)
	}
	t.Cleanup(func() { n.Close() })
	return n
}
