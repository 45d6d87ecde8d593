package transport

// MaxHeaderBytes is the default limit on the response header bytes that
// every command reads per response (--max-header-size): the status line
// and the fields of HTTP/1.1, and the header block of HTTP/2 and HTTP/3,
// both as sent and as decoded. A server that sends header fields without
// end then fails its request with a clear error instead of growing the
// client's memory until it is killed. 1 MiB is far above what real
// servers send (a few KiB) and the size net/http's server allows for
// request headers (http.DefaultMaxHeaderBytes).
const MaxHeaderBytes = 1 << 20
