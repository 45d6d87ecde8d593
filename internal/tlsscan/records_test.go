package tlsscan

import (
	"bytes"
	"io"
	"net"
	"testing"
)

// TestRecordingConnStopsForGood checks that recording stops at the first
// read that would pass the limit and stays stopped, so that the copy is a
// prefix of the stream without gaps.
func TestRecordingConnStopsForGood(t *testing.T) {
	client, server := net.Pipe()
	defer client.Close()
	chunks := [][]byte{[]byte("first"), bytes.Repeat([]byte("x"), 20), []byte("late")}
	go func() {
		for _, c := range chunks {
			_, _ = server.Write(c)
		}
		server.Close()
	}()
	rc := &recordingConn{Conn: client, limit: 16}
	got, err := io.ReadAll(rc)
	if err != nil {
		t.Fatal(err)
	}
	if want := bytes.Join(chunks, nil); !bytes.Equal(got, want) {
		t.Fatalf("read %q; want %q", got, want)
	}
	if rec, want := rc.bytesRead(), []byte("first"); !bytes.Equal(rec, want) {
		t.Errorf("recorded %q; want %q (the bytes before the overflow only)", rec, want)
	}
	var none *recordingConn
	if rec := none.bytesRead(); rec != nil {
		t.Errorf("bytesRead of an unrecorded connection = %q; want nil", rec)
	}
}
