package transport

import (
	"context"
	"errors"
	"net"
	"sync"
)

// ErrHandedOver is what a HandOver dial function returns after its one
// connection.
var ErrHandedOver = errors.New("connection already handed over")

// HandOver returns a dial function for an http.Transport that hands it
// conn, already open (and measured by its caller), the first time and
// fails after: net/http's Transport.NewClientConn then speaks HTTP/2 on a
// connection it did not dial.
func HandOver(conn net.Conn) func(context.Context, string, string) (net.Conn, error) {
	var once sync.Once
	return func(context.Context, string, string) (net.Conn, error) {
		var out net.Conn
		once.Do(func() { out = conn })
		if out == nil {
			return nil, ErrHandedOver
		}
		return out, nil
	}
}
