package experiment

import (
	"context"
	"net/url"
	"slices"
	"strconv"

	"github.com/httpslab/httpslab/internal/netem"
	"github.com/httpslab/httpslab/internal/transport"
)

// behindLink builds the emulated link of cfg.Link and returns cfg with
// every variant's server started inside its namespace and the
// measurement's and the observer's connections to the URL's port routed
// to the server's address there, while the URL (Host, SNI, the
// certificate's name) stays the user's. The caller closes the link.
func behindLink(ctx context.Context, cfg Config) (Config, *netem.Link, error) {
	u, err := url.Parse(cfg.Target.URL)
	if err != nil {
		return cfg, nil, err
	}
	port, err := strconv.Atoi(u.Port())
	if err != nil {
		port = map[string]int{"http": 80, "https": 443}[u.Scheme]
	}
	link, err := netem.Start(ctx, *cfg.Link)
	if err != nil {
		return cfg, nil, &LinkError{Err: err}
	}
	wrap := link.Command(nil)
	cfg.Nginx.Wrap = wrap
	cfg.netns = link.Namespace
	if cfg.Server != nil {
		server := *cfg.Server
		server.Wrap = wrap
		server.Env = append(slices.Clip(server.Env), "HTTPSLAB_SERVER_IP="+link.ServerIP.String(),
			"HTTPSLAB_CLIENT_IP="+link.ClientIP.String(), "HTTPSLAB_NAMESPACE="+link.Namespace)
		cfg.Server = &server
	}
	route := transport.ConnectTo{FromPort: port, ToHost: link.ServerIP.String()}
	cfg.Target.Routes = withRoute(cfg.Target.Routes, route)
	cfg.Measure = cfg.Measure.routed(route)
	return cfg, link, nil
}

// withRoute returns routes with c first, so that it wins over the user's.
func withRoute(r transport.Routes, c transport.ConnectTo) transport.Routes {
	r.ConnectTo = append([]transport.ConnectTo{c}, r.ConnectTo...)
	return r
}

// LinkError is a failure to build the emulated link, told apart from a
// failure of the servers, which needs other advice.
type LinkError struct{ Err error }

func (e *LinkError) Error() string { return "building the emulated link: " + e.Err.Error() }

func (e *LinkError) Unwrap() error { return e.Err }
