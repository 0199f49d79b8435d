package mailto

import (
	"bytes"
	"net"

	"github.com/urlfetch/urlfetch/fetch"
)

// traceMode says how the trace shows what the client writes.
type traceMode int

const (
	modeCommands traceMode = iota // each line as it is
	modeAuth                      // the AUTH line masked, the SASL responses after it hidden
	modeData                      // the message counted, not shown
)

// maxTraceLine bounds a traced line that has no end yet.
const maxTraceLine = 4096

// traceConn is the connection as go-smtp sees it. It sits above TLS, so
// it sees the protocol in the clear, and feeds every line read and
// written to the Request's trace.
type traceConn struct {
	net.Conn
	req   *fetch.Request
	on    bool
	mode  traceMode
	in    []byte // a reply line not yet complete
	out   []byte // a command line not yet complete
	auths int    // lines written since AUTH began
	data  int64  // message bytes written in DATA
	wrote bool   // whether the client has written anything
}

func newTraceConn(c net.Conn, req *fetch.Request) *traceConn {
	return &traceConn{Conn: c, req: req, on: req.Tracing()}
}

func (c *traceConn) setMode(m traceMode) {
	c.mode, c.auths, c.data = m, 0, 0
}

func (c *traceConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	if c.on && n > 0 {
		if c.mode == modeData {
			// The server speaks after the final "." only.
			c.req.Tracef(fetch.Note, "message data: %d bytes, ending with the \".\" line (not shown)", c.data)
			c.setMode(modeCommands)
		}
		c.in = c.lines(fetch.In, append(c.in, p[:n]...))
	}
	return n, err
}

func (c *traceConn) Write(p []byte) (int, error) {
	c.wrote = true
	n, err := c.Conn.Write(p)
	if c.on && n > 0 {
		if c.mode == modeData {
			c.data += int64(n)
		} else {
			c.out = c.lines(fetch.Out, append(c.out, p[:n]...))
		}
	}
	return n, err
}

// lines traces the complete lines in buf and returns the rest.
func (c *traceConn) lines(dir fetch.Direction, buf []byte) []byte {
	for {
		i := bytes.IndexByte(buf, '\n')
		if i < 0 {
			break
		}
		c.trace(dir, string(buf[:i]))
		buf = buf[i+1:]
	}
	if len(buf) > maxTraceLine {
		c.trace(dir, string(buf)+"...")
		buf = buf[:0]
	}
	return append([]byte(nil), buf...)
}

func (c *traceConn) trace(dir fetch.Direction, line string) {
	if dir == fetch.Out && c.mode == modeAuth {
		// fetch.MaskLine hides the argument of "AUTH PLAIN": the SASL
		// responses that follow carry the password too, in base64.
		c.auths++
		if c.auths > 1 {
			line = "***"
		}
	}
	c.req.Trace(dir, line)
}

// flush traces what is left of lines that never ended.
func (c *traceConn) flush() {
	if !c.on {
		return
	}
	if len(c.in) > 0 {
		c.trace(fetch.In, string(c.in))
	}
	if len(c.out) > 0 {
		c.trace(fetch.Out, string(c.out))
	}
	c.in, c.out = nil, nil
}
