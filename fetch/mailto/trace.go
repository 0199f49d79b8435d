package mailto

import (
	"bytes"
	"fmt"
	"net"
	"net/textproto"

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

// maxReply bounds a reply, all its lines: an EHLO reply is a few hundred
// bytes. go-smtp reads replies with net/textproto, which keeps a
// multi-line reply of any length (go-smtp's own limit holds each line to
// 2000 bytes).
const maxReply = 64 << 10

// traceConn is the connection as go-smtp sees it. It sits above TLS, so
// it sees the protocol in the clear, and feeds every line read and
// written to the Request's trace. It refuses what no SMTP server sends:
// a reply that does not begin with a reply code, one longer than
// maxReply.
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

	head    []byte  // the first bytes of the reply line being read, for messages
	col     int     // the bytes of that line so far
	inReply bool    // a multi-line reply has begun and not yet ended
	code    [3]byte // the code of the reply being read
	size    int     // the bytes of the reply so far
	readErr error   // the reply refused: every later read fails with it
}

func newTraceConn(c net.Conn, req *fetch.Request) *traceConn {
	return &traceConn{Conn: c, req: req, on: req.Tracing()}
}

func (c *traceConn) setMode(m traceMode) {
	c.mode, c.auths, c.data = m, 0, 0
}

func (c *traceConn) Read(p []byte) (int, error) {
	if c.readErr != nil {
		return 0, c.readErr
	}
	n, err := c.Conn.Read(p)
	if n > 0 {
		if c.readErr = c.check(p[:n]); c.readErr != nil {
			return 0, c.readErr
		}
	}
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

// maxHead is how much of a line check keeps for its message.
const maxHead = 64

// check follows the replies in p (RFC 5321 section 4.2): each begins with
// a code of three digits and a space, a hyphen or nothing, and a
// multi-line reply, its lines joined by hyphens, may not pass maxReply.
// Its errors are textproto.ProtocolErrors, as go-smtp's own are for a
// reply that does not parse.
func (c *traceConn) check(p []byte) error {
	for _, b := range p {
		if c.col < maxHead {
			c.head = append(c.head[:c.col], b)
		}
		c.col++
		c.size++
		if b != '\n' {
			continue
		}
		head := bytes.TrimRight(c.head, "\r\n")
		c.col = 0
		if !c.inReply {
			if !replyStart(head) {
				return textproto.ProtocolError(fmt.Sprintf("%q is not an SMTP reply: it begins with no reply code", head))
			}
			c.code = [3]byte(head[:3])
		}
		// A reply ends at a line of its own code and a space, as
		// net/textproto reads it: "221 x" inside a "220-" reply is text
		// of that reply, and counts towards maxReply.
		c.inReply = !(len(head) >= 4 && head[3] == ' ' && [3]byte(head[:3]) == c.code || len(head) == 3 && [3]byte(head) == c.code)
		if !c.inReply {
			c.size = 0
		} else if c.size > maxReply {
			return textproto.ProtocolError(fmt.Sprintf("a multi-line reply of more than %d bytes", maxReply))
		}
	}
	return nil
}

// replyStart reports whether b, the first bytes of a line, can begin a
// reply: three digits, the first 2 to 5, then a space, a hyphen or
// nothing.
func replyStart(b []byte) bool {
	if len(b) < 3 || b[0] < '2' || b[0] > '5' || b[1] < '0' || b[1] > '9' || b[2] < '0' || b[2] > '9' {
		return false
	}
	return len(b) == 3 || b[3] == ' ' || b[3] == '-'
}
