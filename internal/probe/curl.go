package probe

import (
	"io"
	"time"

	"github.com/httpslab/httpslab/internal/transport"
)

// CurlConfig is the Config of a request to url given as curl's options;
// bodies named @- read stdin, and without --max-time the request gives
// up after def. Its errors are usage errors that name the option.
func CurlConfig(url string, c transport.Curl, stdin io.Reader, def time.Duration) (Config, error) {
	cfg := Config{URL: url, Method: c.Method, MaxHeaderBytes: c.MaxHeaderBytes}
	var err error
	if cfg.TLS, err = c.TLS(); err != nil {
		return cfg, err
	}
	if cfg.Protocol, err = c.Protocol(); err != nil {
		return cfg, err
	}
	if cfg.Timeout, err = c.Timeout(def); err != nil {
		return cfg, err
	}
	if cfg.Header, err = c.Header(); err != nil {
		return cfg, err
	}
	if cfg.Body, err = c.Body(stdin); err != nil {
		return cfg, err
	}
	cfg.Routes, err = c.Routes()
	return cfg, err
}
