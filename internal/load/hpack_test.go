package load

import (
	"bytes"
	"errors"
	"strconv"
	"testing"

	"golang.org/x/net/http2/hpack"
)

// encodeBlock encodes fields as a server that honours a header table size
// of 0 does.
func encodeBlock(fields ...hpack.HeaderField) []byte {
	var buf bytes.Buffer
	enc := hpack.NewEncoder(&buf)
	enc.SetMaxDynamicTableSizeLimit(0)
	for _, f := range fields {
		_ = enc.WriteField(f)
	}
	return buf.Bytes()
}

func TestSkimStatus(t *testing.T) {
	hf := func(k, v string) hpack.HeaderField { return hpack.HeaderField{Name: k, Value: v} }
	tests := []struct {
		name  string
		block []byte
		want  int
		err   bool
	}{
		{"static 200", encodeBlock(hf(":status", "200"), hf("server", "nginx"), hf("date", "Sun, 22 Nov 2026 00:00:00 GMT")), 200, false},
		{"static 404", encodeBlock(hf(":status", "404")), 404, false},
		{"literal 418", encodeBlock(hf(":status", "418"), hf("x-custom", "yes")), 418, false},
		{"never indexed", encodeBlock(hpack.HeaderField{Name: ":status", Value: "503", Sensitive: true}), 503, false},
		// nginx: literals with incremental indexing that are never referenced.
		{"incremental", []byte{0x88, 0x40 | 54, 0x05, 'n', 'g', 'i', 'n', 'x'}, 200, false},
		{"literal name", []byte{0x00, 0x07, ':', 's', 't', 'a', 't', 'u', 's', 0x03, '2', '0', '6'}, 206, false},
		{"size update 0", []byte{0x20, 0x89}, 204, false},
		{"no status", encodeBlock(hf("server", "x")), 0, false},
		{"dynamic index", []byte{0x80 | 62}, 0, true},
		{"size update 4096", []byte{0x3f, 0xe1, 0x1f, 0x88}, 0, true},
		{"truncated string", []byte{0x08, 0x05, '2'}, 0, true},
		{"bad status", []byte{0x08, 0x02, '2', '0'}, 0, true},
		{"huge integer", []byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01}, 0, true},
	}
	for _, tt := range tests {
		got, _, err := skimStatus(tt.block)
		if (err != nil) != tt.err || got != tt.want {
			t.Errorf("%s: skimStatus(%x) = %d, %v; want %d, error %v", tt.name, tt.block, got, err, tt.want, tt.err)
		}
		if err != nil && !errors.Is(err, errHPACK) {
			t.Errorf("%s: error %v does not wrap errHPACK", tt.name, err)
		}
	}
}

// FuzzSkimStatus compares the skimmer with x/net's full decoder, limited
// to an empty dynamic table: whenever the decoder accepts a block, the
// skimmer must find the same status.
func FuzzSkimStatus(f *testing.F) {
	f.Add(encodeBlock(hpack.HeaderField{Name: ":status", Value: "200"}, hpack.HeaderField{Name: "etag", Value: `"abc"`}))
	f.Add(encodeBlock(hpack.HeaderField{Name: ":status", Value: "418"}))
	f.Add([]byte{0x88, 0x40 | 54, 0x05, 'n', 'g', 'i', 'n', 'x'})
	f.Add([]byte{0x20, 0x00, 0x07, ':', 's', 't', 'a', 't', 'u', 's', 0x03, '2', '0', '6'})
	f.Fuzz(func(t *testing.T, block []byte) {
		got, _, err := skimStatus(block)
		fields, derr := hpack.NewDecoder(0, nil).DecodeFull(block)
		if derr != nil || err != nil {
			return // the skimmer may reject what needs a table, and vice versa
		}
		// The last :status wins in both; a malformed value the decoder
		// accepts is one the skimmer rejects, so equal here.
		want := 0
		for _, hf := range fields {
			if hf.Name == ":status" {
				want, _ = strconv.Atoi(hf.Value)
			}
		}
		if got != want {
			t.Fatalf("skimStatus(%x) = %d; the decoder read status %d", block, got, want)
		}
	})
}
