package gateway

import (
	"bufio"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/urlfetch/urlfetch/fetch"
	"github.com/urlfetch/urlfetch/internal/records"
	"github.com/urlfetch/urlfetch/internal/termsafe"
	"github.com/urlfetch/urlfetch/uri"
)

// A client that cannot send a gopher URL whole to an HTTP proxy asks for
// a tunnel to the gopher server instead (curl does: "CONNECT host:70"),
// and speaks Gopher through it. The gateway opens no tunnel: it answers
// the CONNECT, reads the one request line a Gopher client sends through
// it (RFC 1436: the selector, perhaps a TAB and a search), and fetches
// that request from host:port as the URL gopher://host:port/9<line> (a
// type that takes the reply's bytes as they come), through the Client
// and its policy like any URL a web client names; what the server sends
// goes back through the tunnel. Anything else (a TLS handshake, a line
// that is no Gopher request) is refused and the connection closed.

// maxTunnelLine bounds the request line read through a tunnel.
const maxTunnelLine = 16 << 10

// tunnelWait bounds the wait for the request line, and for each write
// back to the client.
const tunnelWait = 30 * time.Second

// tunnel answers a CONNECT by speaking Gopher inside it.
func (x *exchange) tunnel() {
	x.input = x.r.Host
	host, portText, err := net.SplitHostPort(x.r.Host)
	port, perr := strconv.Atoi(portText)
	if err != nil || perr != nil || port < 1 || port > 65535 || host == "" {
		x.fail(http.StatusBadRequest, fetch.Errorf(fetch.ErrURL, "CONNECT %q: want HOST:PORT", termsafe.Escape(x.r.Host)))
		return
	}
	hj, ok := x.w.ResponseWriter.(http.Hijacker)
	if !ok {
		x.fail(http.StatusNotImplemented, fetch.Errorf(fetch.ErrUnsupported, "CONNECT: this connection cannot carry a tunnel"))
		return
	}
	conn, brw, err := hj.Hijack()
	if err != nil {
		return
	}
	defer conn.Close()
	x.w.code = http.StatusOK
	conn.SetDeadline(time.Now().Add(tunnelWait))
	if _, err := io.WriteString(conn, "HTTP/1.1 200 Connection established\r\n\r\n"); err != nil {
		return
	}
	line, err := readTunnelLine(brw.Reader)
	if err != nil {
		x.w.broke = err
		return
	}
	g := &uri.Gopher{Host: host, Type: '9'}
	if port != uri.DefaultPort("gopher") {
		g.Port = port
	}
	g.Selector, g.Search, g.HasSearch = strings.Cut(line, "\t")
	u, err := uri.Parse(g.String())
	if err != nil {
		x.tunnelError(conn, err)
		return
	}
	x.input = u.Redacted()
	req, err := x.s.request(u)
	if err != nil {
		x.tunnelError(conn, err)
		return
	}
	resp, err := x.s.client.Do(x.r.Context(), req)
	if err != nil {
		x.tunnelError(conn, err)
		return
	}
	defer resp.Body.Close()
	w := &deadlineWriter{conn: conn}
	buf := x.s.buffers.Get().(*[]byte)
	defer x.s.buffers.Put(buf)
	n, err := io.CopyBuffer(w, resp.Body, *buf)
	x.w.bytes += n
	if err != nil {
		x.w.broke = err
	}
}

// readTunnelLine reads the Gopher request line a client sends through a
// tunnel, without its CR LF. A TLS handshake, a line longer than
// maxTunnelLine and one that holds a NUL are refused.
func readTunnelLine(br *bufio.Reader) (string, error) {
	first, err := br.Peek(1)
	if err != nil {
		return "", err
	}
	if first[0] == 0x16 {
		return "", fetch.Errorf(fetch.ErrUnsupported, "a TLS handshake through CONNECT: this gateway opens no tunnels, it speaks Gopher in them")
	}
	var b []byte
	for {
		frag, err := br.ReadSlice('\n')
		b = append(b, frag...)
		if len(b) > maxTunnelLine {
			return "", fetch.Errorf(fetch.ErrProtocol, "a request line of more than %d bytes through CONNECT", maxTunnelLine)
		}
		if err == nil {
			break
		}
		if err != bufio.ErrBufferFull {
			return "", err
		}
	}
	line := strings.TrimSuffix(strings.TrimSuffix(string(b), "\n"), "\r")
	if err := fetch.CheckLine("gopher request line", line); err != nil {
		return "", err
	}
	return line, nil
}

// tunnelError ends a tunnel with the one thing Gopher has to say what
// went wrong: an error item (RFC 1436 type 3).
func (x *exchange) tunnelError(conn net.Conn, err error) {
	x.w.broke = err
	_, msg := records.ErrorParts(err)
	msg = strings.NewReplacer("\t", " ", "\r", " ", "\n", " ").Replace(msg)
	io.WriteString(&deadlineWriter{conn: conn}, "3"+msg+"\terror.host\t1\r\n.\r\n")
}

// deadlineWriter gives each write to a tunnel's client tunnelWait.
type deadlineWriter struct{ conn net.Conn }

func (w *deadlineWriter) Write(p []byte) (int, error) {
	w.conn.SetWriteDeadline(time.Now().Add(tunnelWait))
	return w.conn.Write(p)
}
