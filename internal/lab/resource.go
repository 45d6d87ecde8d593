package lab

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"io"
	"sync"
)

// The generated resources of the test pages are what their type says, so
// that a real browser loads them as it loads a site's: a PNG or a JPEG
// that decodes (a one-pixel image, its size made up by a private PNG
// chunk or JPEG comments), a script or a stylesheet that is one comment.
// A browser stops reading an image it cannot decode: over HTTP/1.1 that
// abandons the connection with the rest of the body unread, and every
// later image then waits for a new connection, which is not how a site
// with real images loads. Fonts and icons are filler: a browser reads
// them to the end before it looks at them.

// tinyImages are the one-pixel PNG and JPEG the images are built on.
var tinyImages = sync.OnceValue(func() map[string][]byte {
	img := image.NewGray(image.Rect(0, 0, 1, 1))
	img.Set(0, 0, color.Gray{Y: 0x80})
	var p, j bytes.Buffer
	if err := png.Encode(&p, img); err != nil {
		panic("encoding a one-pixel PNG: " + err.Error())
	}
	if err := jpeg.Encode(&j, img, nil); err != nil {
		panic("encoding a one-pixel JPEG: " + err.Error())
	}
	return map[string][]byte{"png": p.Bytes(), "jpg": j.Bytes()}
})

// pngIHDREnd is where a PNG's first chunk (IHDR, 13 bytes of data) ends:
// the signature, then length, type, data and CRC.
const pngIHDREnd = 8 + 4 + 4 + 13 + 4

// writeResource writes exactly size bytes of a resource of type ext
// (png, jpg, js, css, or another: filler).
func writeResource(w io.Writer, ext string, size int64) error {
	switch {
	case ext == "png" && size >= int64(len(tinyImages()["png"]))+12:
		return writePNG(w, size)
	case ext == "jpg" && size >= int64(len(tinyImages()["jpg"]))+4:
		return writeJPEG(w, size)
	case (ext == "js" || ext == "css") && size >= 5:
		return writeParts(w, []byte("/*"), size-5, []byte("*/\n"))
	}
	return writeParts(w, nil, size, nil)
}

// writeParts writes head, n bytes of filler and tail.
func writeParts(w io.Writer, head []byte, n int64, tail []byte) error {
	if _, err := w.Write(head); err != nil {
		return err
	}
	for n > 0 {
		chunk := filler[:min(int64(len(filler)), n)]
		if _, err := w.Write(chunk); err != nil {
			return err
		}
		n -= int64(len(chunk))
	}
	_, err := w.Write(tail)
	return err
}

// writePNG writes the one-pixel PNG with a private ancillary chunk
// ("htLb": ancillary, private, safe to copy) of filler after its header,
// so that it decodes only once it has arrived in full.
func writePNG(w io.Writer, size int64) error {
	tiny := tinyImages()["png"]
	n := size - int64(len(tiny)) - 12
	var head [8]byte
	binary.BigEndian.PutUint32(head[:4], uint32(n))
	copy(head[4:], "htLb")
	crc := crc32.NewIEEE()
	crc.Write(head[4:])
	if _, err := w.Write(tiny[:pngIHDREnd]); err != nil {
		return err
	}
	if _, err := w.Write(head[:]); err != nil {
		return err
	}
	// The CRC covers the chunk's type (written to it above) and data.
	if err := writeParts(io.MultiWriter(w, crc), nil, n, nil); err != nil {
		return err
	}
	var tail [4]byte
	binary.BigEndian.PutUint32(tail[:], crc.Sum32())
	if _, err := w.Write(tail[:]); err != nil {
		return err
	}
	_, err := w.Write(tiny[pngIHDREnd:])
	return err
}

// maxCOM is the most bytes of one JPEG comment segment: its marker, its
// length field and 65,533 bytes of text.
const maxCOM = 2 + 65535

// writeJPEG writes the one-pixel JPEG with comment segments of filler
// after its start marker.
func writeJPEG(w io.Writer, size int64) error {
	tiny := tinyImages()["jpg"]
	if _, err := w.Write(tiny[:2]); err != nil {
		return err
	}
	for pad := size - int64(len(tiny)); pad > 0; {
		seg := min(pad, maxCOM)
		if rest := pad - seg; rest > 0 && rest < 4 {
			seg -= 4 // leave room for a last segment of at least its header
		}
		hdr := []byte{0xFF, 0xFE, 0, 0}
		binary.BigEndian.PutUint16(hdr[2:], uint16(seg-2))
		if err := writeParts(w, hdr, seg-4, nil); err != nil {
			return err
		}
		pad -= seg
	}
	_, err := w.Write(tiny[2:])
	return err
}
