package lab

import (
	"bytes"
	"image/jpeg"
	"image/png"
	"strings"
	"testing"
)

// TestResourcesDecode: the generated images decode, the scripts and
// stylesheets are one comment, and each is exactly the size asked for,
// across the sizes where a JPEG needs one, two or more comment segments.
func TestResourcesDecode(t *testing.T) {
	for _, tt := range []struct {
		ext  string
		size int64
	}{
		{"png", 100}, {"png", 18300}, {"png", 300000},
		{"jpg", 1000}, {"jpg", 65700}, {"jpg", int64(len(tinyImages()["jpg"])) + maxCOM + 2}, {"jpg", 131280}, {"jpg", 300000},
		{"js", 5}, {"js", 33100}, {"css", 4000}, {"woff2", 24000}, {"png", 10},
	} {
		var b bytes.Buffer
		if err := writeResource(&b, tt.ext, tt.size); err != nil {
			t.Fatal(err)
		}
		if int64(b.Len()) != tt.size {
			t.Errorf("%s of %d: %d bytes", tt.ext, tt.size, b.Len())
		}
		var err error
		switch {
		case tt.ext == "png" && tt.size > 100:
			_, err = png.Decode(&b)
		case tt.ext == "jpg":
			_, err = jpeg.Decode(&b)
		case tt.ext == "js" || tt.ext == "css":
			s := b.String()
			if !strings.HasPrefix(s, "/*") || !strings.HasSuffix(s, "*/\n") || strings.Count(s, "*/") != 1 {
				t.Errorf("%s of %d: not one comment: %.20q...", tt.ext, tt.size, s)
			}
		}
		if err != nil {
			t.Errorf("%s of %d: %v", tt.ext, tt.size, err)
		}
	}
}
