package load

import (
	"errors"
	"fmt"

	"golang.org/x/net/http2/hpack"
)

// The fast HTTP/2 client announces a header table size of 0, so a server
// may not make it keep any HPACK dynamic table state. It then needs one
// thing of a response header block, the status, and skims the rest
// without decoding: no Huffman decoding of dates and ETags per request.

var errHPACK = errors.New("malformed HPACK header block")

// staticStatus maps the HPACK static table entries 8-14 to their status.
var staticStatus = [...]int{8: 200, 9: 204, 10: 206, 11: 304, 12: 400, 13: 404, 14: 500}

// The static table entries 8 to 14 all have the name ":status".
const statusFirst, statusLast = 8, 14

// skimStatus returns the :status of an HPACK header block, 0 if it has
// none. A reference to the dynamic table is an error: the client allowed
// none.
func skimStatus(block []byte) (int, error) {
	status := 0
	for len(block) > 0 {
		b := block[0]
		var idx uint64
		var err error
		switch {
		case b&0x80 != 0: // indexed field
			if idx, block, err = readInt(block, 7); err != nil {
				return 0, err
			}
			if idx == 0 || idx > 61 {
				return 0, fmt.Errorf("%w: index %d outside the static table", errHPACK, idx)
			}
			if idx >= statusFirst && idx <= statusLast {
				status = staticStatus[idx]
			}
			continue
		case b&0xe0 == 0x20: // dynamic table size update
			if idx, block, err = readInt(block, 5); err != nil {
				return 0, err
			}
			if idx != 0 {
				return 0, fmt.Errorf("%w: table size %d over the announced 0", errHPACK, idx)
			}
			continue
		case b&0xc0 == 0x40: // literal with incremental indexing
			idx, block, err = readInt(block, 6)
		default: // literal without indexing or never indexed
			idx, block, err = readInt(block, 4)
		}
		if err != nil {
			return 0, err
		}
		if status, block, err = skimLiteral(block, idx, status); err != nil {
			return 0, err
		}
	}
	return status, nil
}

// skimLiteral reads a literal field's name (when not indexed) and value,
// decoding the value only when the field is :status.
func skimLiteral(block []byte, nameIdx uint64, status int) (int, []byte, error) {
	isStatus := nameIdx >= statusFirst && nameIdx <= statusLast
	if nameIdx > 61 {
		return 0, nil, fmt.Errorf("%w: name index %d outside the static table", errHPACK, nameIdx)
	}
	if nameIdx == 0 {
		name, rest, err := readString(block)
		if err != nil {
			return 0, nil, err
		}
		block = rest
		// ":status" takes 7 bytes plain and 5 Huffman coded.
		isStatus = len(name.raw) <= 7 && name.String() == ":status"
	}
	value, rest, err := readString(block)
	if err != nil {
		return 0, nil, err
	}
	if isStatus {
		if status, err = parseStatus(value); err != nil {
			return 0, nil, err
		}
	}
	return status, rest, nil
}

// hpackString is a string as it sits in the block: raw bytes, Huffman
// coded or not.
type hpackString struct {
	raw     []byte
	huffman bool
}

func readString(block []byte) (hpackString, []byte, error) {
	if len(block) == 0 {
		return hpackString{}, nil, fmt.Errorf("%w: truncated", errHPACK)
	}
	huffman := block[0]&0x80 != 0
	n, rest, err := readInt(block, 7)
	if err != nil {
		return hpackString{}, nil, err
	}
	if uint64(len(rest)) < n {
		return hpackString{}, nil, fmt.Errorf("%w: string past the end", errHPACK)
	}
	return hpackString{raw: rest[:n], huffman: huffman}, rest[n:], nil
}

// String decodes the string (Huffman if needed).
func (s hpackString) String() string {
	if !s.huffman {
		return string(s.raw)
	}
	v, err := hpack.HuffmanDecodeToString(s.raw)
	if err != nil {
		return ""
	}
	return v
}

func parseStatus(s hpackString) (int, error) {
	v := s.String()
	if len(v) != 3 {
		return 0, fmt.Errorf("%w: bad :status %q", errHPACK, v)
	}
	code := 0
	for _, c := range []byte(v) {
		if c < '0' || c > '9' {
			return 0, fmt.Errorf("%w: bad :status %q", errHPACK, v)
		}
		code = code*10 + int(c-'0')
	}
	return code, nil
}

// readInt reads an HPACK integer with an n-bit prefix (RFC 7541 5.1).
func readInt(block []byte, n uint) (uint64, []byte, error) {
	if len(block) == 0 {
		return 0, nil, fmt.Errorf("%w: truncated", errHPACK)
	}
	limit := uint64(1)<<n - 1
	v := uint64(block[0]) & limit
	block = block[1:]
	if v < limit {
		return v, block, nil
	}
	var shift uint
	for i, b := range block {
		if shift > 56 {
			return 0, nil, fmt.Errorf("%w: integer too large", errHPACK)
		}
		v += uint64(b&0x7f) << shift
		if b&0x80 == 0 {
			return v, block[i+1:], nil
		}
		shift += 7
	}
	return 0, nil, fmt.Errorf("%w: truncated", errHPACK)
}
