package load

import (
	"fmt"

	"golang.org/x/net/http/httpguts"
)

// checkRequest refuses a method or header that would not survive on the
// wire as one field: the HTTP/1.1 client writes them verbatim, so a CR or
// LF in a value would end the field early and smuggle another one in, and
// a space in a method would shift the request line.
func checkRequest(t Target) error {
	if t.Method != "" && !httpguts.ValidHeaderFieldName(t.Method) {
		return fmt.Errorf("request method %q: want a token such as GET or POST, with no spaces or control characters", t.Method)
	}
	for name, values := range t.Header {
		if !httpguts.ValidHeaderFieldName(name) {
			return fmt.Errorf("header name %q: want a token, with no spaces, colons or control characters", name)
		}
		for _, v := range values {
			if !httpguts.ValidHeaderFieldValue(v) {
				return fmt.Errorf("header %s value %q: control characters (CR, LF) are not allowed", name, v)
			}
		}
	}
	return nil
}
