package http

import (
	"bytes"
	"crypto/tls"
	"maps"
	"net"
	"net/http"
	"net/http/httptrace"
	"net/textproto"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/urlfetch/urlfetch/fetch"
	"github.com/urlfetch/urlfetch/uri"
)

// The trace (-v) shows an exchange as it went over the wire:
//
//   - The request as net/http writes it: the request line (rebuilt, the
//     one thing net/http does not report), then each header field as
//     httptrace's WroteHeaderField reports it, in the order written. Over
//     HTTP/2 that is the pseudo-header fields (:authority, :method,
//     :path, :scheme) and then the fields, lower-case, as HPACK encodes
//     them.
//   - An HTTP/1 reply's head as read off the connection, line by line,
//     by headConn: the status line and the header lines in the order the
//     server sent them, 1xx replies included.
//   - An HTTP/2 reply's header from net/http's Header map, in name order,
//     for no order is to be had: net/http's HTTP/2 client (the copy of
//     golang.org/x/net/http2 bundled in net/http, and x/net/http2's own
//     Transport alike) decodes the HPACK block into an ordered field list
//     and copies it into the map; neither it nor net/http/httptrace has a
//     hook that sees the list (Got1xxResponse gets a map too), and the
//     frames cannot be read beside it, since HTTP/2 is used only over a
//     connection that is a *tls.Conn, which nothing can wrap above TLS.
//     The trace says so when it shows such a reply.
//
// The lines come from net/http's goroutines (its writer, its reader)
// besides the fetch's own; exchange serializes them.

// exchange traces one HTTP request and its reply.
type exchange struct {
	req    *fetch.Request
	method string // GET, or HEAD
	target string // the request target of an HTTP/1.1 request line

	mu   sync.Mutex
	head bool // headConn traced the reply's head
	h2   bool // the request went over HTTP/2
}

// newExchange starts the trace of the request hr (a GET or a HEAD) for
// u, through the gateway via if not nil. A gateway's request target is
// traced redacted: it carries the URL's password.
func newExchange(req *fetch.Request, hr *http.Request, u *uri.URL, via *url.URL) *exchange {
	x := &exchange{req: req, method: hr.Method, target: hr.URL.RequestURI()}
	if via != nil {
		req.Tracef(fetch.Note, "via gateway %s", via.Redacted())
		if !isHTTP(u) {
			x.target = u.WithoutFragment().Redacted()
		}
	}
	return x
}

// line traces one line.
func (x *exchange) line(dir fetch.Direction, s string) {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.req.Trace(dir, s)
}

// clientTrace returns the net/http hooks that trace the exchange.
func (x *exchange) clientTrace() *httptrace.ClientTrace {
	return &httptrace.ClientTrace{
		GotConn:          x.gotConn,
		WroteHeaderField: x.wroteHeaderField,
		Got1xxResponse:   x.got1xxResponse,
	}
}

// gotConn traces the connection the request goes over and, for HTTP/1,
// the request line, and arms the connection to trace the reply's head.
func (x *exchange) gotConn(info httptrace.GotConnInfo) {
	if info.Reused {
		x.line(fetch.Note, "reusing the connection to "+info.Conn.RemoteAddr().String())
	}
	switch c := info.Conn.(type) {
	case *headConn:
		x.line(fetch.Out, x.method+" "+x.target+" HTTP/1.1")
		c.expect(x)
	case *tls.Conn: // HTTP/2: see dialTLS
		x.mu.Lock()
		x.h2 = true
		x.mu.Unlock()
	}
}

// wroteHeaderField traces a header field net/http wrote.
func (x *exchange) wroteHeaderField(key string, values []string) {
	for _, v := range values {
		x.line(fetch.Out, maskCredentials(key+": "+v))
	}
}

// got1xxResponse traces an HTTP/2 1xx reply; headConn traces HTTP/1's.
func (x *exchange) got1xxResponse(code int, header textproto.MIMEHeader) error {
	x.mu.Lock()
	h2 := x.h2
	x.mu.Unlock()
	if h2 {
		x.fields(strconv.Itoa(code), http.Header(header))
	}
	return nil
}

// reply traces the head of the final reply, unless headConn did: that of
// an HTTP/2 reply, or of an HTTP/1 reply whose head came before the
// request was sent (the connection was not yet armed).
func (x *exchange) reply(resp *http.Response) {
	x.mu.Lock()
	done := x.head
	x.head = false
	x.mu.Unlock()
	if !done {
		x.fields(resp.Status, resp.Header)
	}
}

// fields traces a reply's head from net/http's view of it, status
// ("200 OK") and header, the names in sorted order (each name's values in
// the order they came): for HTTP/2 the :status pseudo-header field and
// the names in lower case, as on the wire.
func (x *exchange) fields(status string, h http.Header) {
	x.mu.Lock()
	h2 := x.h2
	x.mu.Unlock()
	if h2 {
		code, _, _ := strings.Cut(status, " ")
		x.line(fetch.Note, "HTTP/2 reply: its header fields in name order (net/http keeps no order)")
		x.line(fetch.In, ":status: "+code)
	} else {
		x.line(fetch.Note, "a reply read before its request was sent: its header fields in name order")
		x.line(fetch.In, "HTTP/1.1 "+status)
	}
	for _, k := range slices.Sorted(maps.Keys(h)) {
		name := k
		if h2 {
			name = strings.ToLower(k)
		}
		for _, v := range h[k] {
			x.line(fetch.In, name+": "+v)
		}
	}
}

// sawHead records that headConn traced a reply's head.
func (x *exchange) sawHead() {
	x.mu.Lock()
	x.head = true
	x.mu.Unlock()
}

// maskCredentials hides the credentials of an Authorization or
// Proxy-Authorization header line, keeping its scheme: "Basic ***".
func maskCredentials(line string) string {
	name, value, ok := strings.Cut(line, ":")
	if !ok || !strings.EqualFold(name, "Authorization") && !strings.EqualFold(name, "Proxy-Authorization") {
		return line
	}
	scheme, _, _ := strings.Cut(strings.TrimSpace(value), " ")
	return name + ": " + scheme + " ***"
}

// maxTraceLine bounds a traced line of a reply's head; the rest of a
// longer line is dropped (net/http refuses a head over maxHeaderBytes).
const maxTraceLine = 8 << 10

// headConn is an HTTP/1 connection that traces the head of each reply as
// it comes off the wire: the status line and header lines in the order
// and spelling the server sent them, which net/http's Header map loses.
// An exchange arms it (expect) when net/http gives the exchange the
// connection, before the request is written; the reply's head, and the
// heads of 1xx replies before it, are traced to that exchange, and
// nothing after the head: the body, and the next reply on a kept-alive
// connection until the next exchange arms it again. It keeps at most one
// line, of at most maxTraceLine bytes.
type headConn struct {
	net.Conn

	mu    sync.Mutex
	x     *exchange // the exchange whose reply comes next; nil: none
	line  []byte    // the line read so far
	cut   bool      // line was longer than maxTraceLine
	first bool      // the next line is a status line
	info  bool      // the head being read is a 1xx reply's
}

func newHeadConn(c net.Conn) *headConn { return &headConn{Conn: c} }

// expect arms c to trace the next reply's head to x.
func (c *headConn) expect(x *exchange) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.x, c.line, c.cut, c.first, c.info = x, c.line[:0], false, true, false
}

func (c *headConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	if n > 0 {
		c.scan(p[:n])
	}
	return n, err
}

// scan traces the complete head lines in b, keeping a partial one.
func (c *headConn) scan(b []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for c.x != nil && len(b) > 0 {
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			c.keep(b)
			return
		}
		c.keep(b[:i])
		b = b[i+1:]
		line := string(bytes.TrimSuffix(c.line, []byte("\r")))
		c.line = c.line[:0]
		if c.cut {
			line += " [...]"
			c.cut = false
		}
		switch {
		case line == "" && c.info:
			// A 1xx reply's head ended; the reply's own follows.
			c.first, c.info = true, false
			continue
		case line == "":
			// The head ended: the body follows, not traced.
			c.x = nil
			return
		case c.first:
			c.first = false
			code, _, _ := parseStatusLine(line)
			c.info = code >= 100 && code < 200
			c.x.sawHead()
		}
		c.x.line(fetch.In, line)
	}
}

// keep adds b to the line being read, up to maxTraceLine bytes.
func (c *headConn) keep(b []byte) {
	room := maxTraceLine - len(c.line)
	if len(b) > room {
		b, c.cut = b[:room], true
	}
	c.line = append(c.line, b...)
}
