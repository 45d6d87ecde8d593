package transport

import (
	"context"
	"errors"
	"net"
	"testing"
)

func TestHandOver(t *testing.T) {
	a, b := net.Pipe()
	defer a.Close()
	defer b.Close()
	dial := HandOver(a)
	if c, err := dial(context.Background(), "tcp", "x:443"); c != a || err != nil {
		t.Fatalf("first dial = %v, %v; want the connection", c, err)
	}
	if c, err := dial(context.Background(), "tcp", "x:443"); c != nil || !errors.Is(err, ErrHandedOver) {
		t.Errorf("second dial = %v, %v; want ErrHandedOver", c, err)
	}
}
