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

// staticName and staticSize are the name length and the size (name,
// value and 32, RFC 7541 section 4.1) of each HPACK static table entry,
// taken from x/net's decoder rather than kept as a copy of the table.
var staticName, staticSize = func() (name, size [62]uint64) {
	d := hpack.NewDecoder(0, nil)
	for i := 1; i < len(size); i++ {
		if fs, err := d.DecodeFull([]byte{0x80 | byte(i)}); err == nil && len(fs) == 1 {
			name[i], size[i] = uint64(len(fs[0].Name)), uint64(fs[0].Size())
		}
	}
	return name, size
}()

// fieldOverhead is what RFC 9113 (section 6.5.2) adds to each field's
// name and value lengths in the header list size.
const fieldOverhead = 32

// skimStatus returns the :status of an HPACK header block, 0 if it has
// none, and a bound of the block's header list size: exact unless a
// string is Huffman coded, whose decoded length it bounds by 8/5 of its
// coded one (the shortest code has 5 bits). A reference to the dynamic
// table is an error: the client allowed none.
func skimStatus(block []byte) (status int, size uint64, err error) {
	for len(block) > 0 {
		b := block[0]
		var idx uint64
		var err error
		switch {
		case b&0x80 != 0: // indexed field
			if idx, block, err = readInt(block, 7); err != nil {
				return 0, 0, err
			}
			if idx == 0 || idx > 61 {
				return 0, 0, fmt.Errorf("%w: index %d outside the static table", errHPACK, idx)
			}
			if idx >= statusFirst && idx <= statusLast {
				status = staticStatus[idx]
			}
			size += staticSize[idx]
			continue
		case b&0xe0 == 0x20: // dynamic table size update
			if idx, block, err = readInt(block, 5); err != nil {
				return 0, 0, err
			}
			if idx != 0 {
				return 0, 0, fmt.Errorf("%w: table size %d over the announced 0", errHPACK, idx)
			}
			continue
		case b&0xc0 == 0x40: // literal with incremental indexing
			idx, block, err = readInt(block, 6)
		default: // literal without indexing or never indexed
			idx, block, err = readInt(block, 4)
		}
		if err != nil {
			return 0, 0, err
		}
		var n uint64
		if status, n, block, err = skimLiteral(block, idx, status); err != nil {
			return 0, 0, err
		}
		size += n
	}
	return status, size, nil
}

// skimLiteral reads a literal field's name (when not indexed) and value,
// decoding the value only when the field is :status. It returns the
// status so far, the field's size (bounded as skimStatus says) and the
// rest of the block.
func skimLiteral(block []byte, nameIdx uint64, status int) (int, uint64, []byte, error) {
	isStatus := nameIdx >= statusFirst && nameIdx <= statusLast
	if nameIdx > 61 {
		return 0, 0, nil, fmt.Errorf("%w: name index %d outside the static table", errHPACK, nameIdx)
	}
	size := fieldOverhead + staticName[nameIdx]
	if nameIdx == 0 {
		name, rest, err := readString(block)
		if err != nil {
			return 0, 0, nil, err
		}
		block = rest
		size += name.maxLen()
		// ":status" takes 7 bytes plain and 5 Huffman coded.
		isStatus = len(name.raw) <= 7 && name.String() == ":status"
	}
	value, rest, err := readString(block)
	if err != nil {
		return 0, 0, nil, err
	}
	size += value.maxLen()
	if isStatus {
		if status, err = parseStatus(value); err != nil {
			return 0, 0, nil, err
		}
	}
	return status, size, rest, nil
}

// maxLen is the string's decoded length, or a bound of it when it is
// Huffman coded.
func (s hpackString) maxLen() uint64 {
	if s.huffman {
		return uint64(len(s.raw)) * 8 / 5
	}
	return uint64(len(s.raw))
}

// headerListSize returns the exact header list size of a block that
// skimStatus accepted, decoding its Huffman coded strings: it is called
// only when skimStatus's bound is over limit. A string longer than limit
// makes it return more than limit without decoding further.
func headerListSize(block []byte, limit uint64) (uint64, error) {
	var size uint64
	d := hpack.NewDecoder(0, func(f hpack.HeaderField) { size += uint64(f.Size()) })
	d.SetMaxStringLength(int(min(limit, 1<<30)))
	_, err := d.Write(block)
	if errors.Is(err, hpack.ErrStringLength) {
		return limit + 1, nil
	}
	if err != nil {
		return 0, fmt.Errorf("%w: %v", errHPACK, err)
	}
	return size, nil
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
