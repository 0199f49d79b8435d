package ftp

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/textproto"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/jlaffaye/ftp"
	"github.com/urlfetch/urlfetch/fetch"
	"github.com/urlfetch/urlfetch/uri"
)

// poolKey is what a control connection can be reused for: the same
// server and the same login.
type poolKey struct {
	host     string
	port     int
	user     string
	password string
	ask      bool
}

// session is one control connection, logged in, with what the driver
// knows of its state.
type session struct {
	d   *Driver
	key poolKey
	sc  *ftp.ServerConn

	ctrl     *fetch.Conn
	dataHost string // where data connections go: the control connection's peer

	// The fetch the session serves now; nil while it is idle.
	mu  sync.Mutex
	ctx context.Context
	req *fetch.Request

	reused   bool
	entryDir string   // PWD after login; "" if unknown
	at       []string // CWD arguments run since the entry directory
	typ      ftp.TransferType

	ask func() (string, error) // the password, asked for when 331 comes

	// What went over the control connection last.
	inbuf      []byte
	inReply    bool   // a multi-line reply has begun and not yet ended
	replyLen   int    // the bytes of the reply in progress
	inErr      error  // the reply refused: every later read fails with it
	lastCmd    string // masked
	lastCode   int
	lastReply  string // the last complete reply line
	lastPrelim string // the last preliminary (1xx) reply line
	// refusal is the first negative reply (4xx, 5xx) since commands were
	// last written ahead: why jlaffaye/ftp may leave the planned sequence.
	refusal string
	// replyCode is the code of the reply being read: the one its last
	// line begins with.
	replyCode string

	listCmd string // the listing command that listMarker stands for

	// Pipelining: ahead are the commands to send together when
	// jlaffaye/ftp sends the first of them; sent are those of them on the
	// wire that it has yet to send itself.
	ahead   []string
	sent    []string
	pret    bool // FEAT offers PRET: jlaffaye/ftp sends it before EPSV
	usePASV bool // jlaffaye/ftp has gone over to PASV
	dataOK  bool // a data connection was set up (a 229 or 227 reply)

	// sizeIn150 says this server's 150 reply to a binary RETR ends with
	// the file's size, "(N bytes).", as vsftpd's, wu-ftpd's and ProFTPD's
	// do: seen to equal what SIZE said, it spares later files the SIZE.
	sizeIn150 bool
}

// listMarker is the name of the RETR that stands for a listing command
// (LIST, MLSD, NLST): the control connection sends session.listCmd in its
// place. A URL cannot carry it: a NUL in a name is refused.
const listMarker = "\x00urlfetch: list\x00"

// askPassword stands for the password of a login whose URL has none: the
// control connection replaces it when it is sent, that is only after the
// server asked for one with 331.
const askPassword = "\x00urlfetch: ask for the password\x00"

// session returns a logged-in control connection for f: an idle one, or
// a new one.
func (d *Driver) session(ctx context.Context, req *fetch.Request, f *uri.FTP, lg login) (*session, error) {
	key := poolKey{host: strings.ToLower(f.Host), port: req.URL.PortNumber(), user: lg.user, password: lg.password, ask: lg.ask}
	if s := d.get(key); s != nil {
		s.bind(ctx, req)
		req.Tracef(fetch.Note, "reusing the connection to %s as %s (entry directory %q)", s.ctrl.RemoteAddr(), lg.user, s.entryDir)
		return s, nil
	}
	s := &session{d: d, key: key, dataHost: f.Host}
	s.bind(ctx, req)
	opts := []ftp.DialOption{ftp.DialWithDialFunc(s.dial), ftp.DialWithDisabledEPSV(d.DisableEPSV)}
	sc, err := ftp.Dial(req.URL.Hostport(), opts...)
	if err != nil {
		if s.ctrl == nil {
			return nil, err // the dial path's own error: ErrConnect, ErrUnsafe, ...
		}
		s.close()
		return nil, s.fail("connect", err)
	}
	s.sc = sc
	password := lg.password
	if lg.ask {
		password = askPassword
		host, user := f.Host, lg.user
		s.ask = func() (string, error) {
			s.mu.Lock()
			ctx, req := s.ctx, s.req
			s.mu.Unlock()
			return req.Password(ctx, host, user)
		}
	}
	if err := sc.Login(lg.user, password); err != nil {
		s.close()
		return nil, s.loginError(lg.user, err)
	}
	s.ask = nil
	// The entry directory, to come back to when the connection is reused
	// for a URL in other directories.
	if dir, err := sc.CurrentDir(); err == nil {
		s.entryDir = dir
	} else if !refused(err) {
		s.close()
		return nil, s.fail("PWD", err)
	}
	// Login switched to TYPE I; forget it so that the first transfer sends
	// its TYPE after the CWDs, as RFC 1738 orders them.
	s.typ = ""
	return s, nil
}

// loginError classifies a failed login: a refusal is ErrAuth.
func (s *session) loginError(user string, err error) error {
	if kind := fetch.Class(err); kind != nil {
		return err // the prompt's ErrAuth, a timeout, a cancellation
	}
	var te *textproto.Error
	code, msg := s.lastCode, s.lastMsg()
	if errors.As(err, &te) {
		code, msg = te.Code, te.Msg
	} else if fetch.ConnBroken(err) || code == 0 {
		return s.fail("login", err)
	}
	re := replyError(s.lastCmd, code, msg)
	if sessionDied(code, msg) {
		return fetch.Errorf(fetch.ErrConnect, "ftp: login as %s: %w", user, re)
	}
	return fetch.Errorf(fetch.ErrAuth, "ftp: login as %s: %w", user, re)
}

// lastMsg is the text of the last reply line, without its code.
func (s *session) lastMsg() string {
	if len(s.lastReply) > 4 {
		return s.lastReply[4:]
	}
	return s.lastReply
}

// bind makes the session serve the fetch of req under ctx.
func (s *session) bind(ctx context.Context, req *fetch.Request) {
	s.mu.Lock()
	s.ctx, s.req = ctx, req
	s.mu.Unlock()
	if s.ctrl != nil {
		s.ctrl.Bind(ctx)
	}
}

// unbind leaves the session idle: it keeps no request and no context.
func (s *session) unbind() {
	s.mu.Lock()
	s.ctx, s.req = nil, nil
	s.mu.Unlock()
	if s.ctrl != nil {
		s.ctrl.Bind(context.Background())
	}
}

func (s *session) current() (context.Context, *fetch.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.ctx, s.req
}

// dial is jlaffaye/ftp's dial function: the control connection goes
// through the request's dial path (with the URL's port policy), every
// data connection through DialAddr to the control connection's peer and
// the port that EPSV or PASV gave (whatever address PASV names), a port
// the same policy allows.
func (s *session) dial(network, addr string) (net.Conn, error) {
	ctx, req := s.current()
	if req == nil {
		return nil, errors.New("ftp: dial on an idle connection")
	}
	if s.ctrl == nil {
		c, err := req.Dial(ctx)
		if err != nil {
			return nil, err
		}
		s.ctrl = c
		if ta, ok := c.RemoteAddr().(*net.TCPAddr); ok {
			s.dataHost = ta.IP.String()
		}
		return &lineConn{Conn: c, s: s}, nil
	}
	_, port, err := net.SplitHostPort(addr)
	if n, perr := strconv.Atoi(port); err != nil || perr != nil || n < 1 || n > 65535 {
		// jlaffaye/ftp computes the port from the reply without a check:
		// "(999,999,999,999,999,999)" gives 256743.
		return nil, fetch.Errorf(fetch.ErrProtocol, "ftp: the server's reply %q names a data port no TCP port is (%s)", clipReply(s.lastReply), port)
	}
	// RFC 1738 section 6: the port a reply names is held to the policy
	// an ftp URL's port is, or a server could aim the client at another
	// protocol's port.
	c, err := req.DialAddr(ctx, "ftp", net.JoinHostPort(s.dataHost, port))
	if errors.Is(err, fetch.ErrUnsafe) {
		return nil, fmt.Errorf("ftp: the data connection the server names: %w", err)
	}
	if err != nil {
		if len(s.sent) > 0 && strings.HasPrefix(s.sent[len(s.sent)-1], "RETR ") {
			// RETR went out with EPSV, and the server may have answered
			// it (550) and closed the port before this dial: let
			// jlaffaye/ftp read that reply, and the dial's error come
			// from the data connection should there be none.
			return failedConn{err}, nil
		}
		return nil, err
	}
	return c, nil
}

// chdir brings the session to the directory the CWD arguments cwds lead
// to from the entry directory. When the session is there already (the
// last URL had the same directories) it sends nothing; when it is
// elsewhere it first returns to the entry directory.
func (s *session) chdir(cwds []string) error {
	if slices.Equal(s.at, cwds) {
		if len(cwds) > 0 {
			s.note("in the directories of the last URL already: no CWD")
		}
		return nil
	}
	if len(s.at) > 0 {
		if s.entryDir == "" {
			return fmt.Errorf("%w: PWD gave none", errStale)
		}
		if err := s.sc.ChangeDir(s.entryDir); err != nil {
			return fmt.Errorf("%w %q: %v", errStale, s.entryDir, err)
		}
		s.at = nil
	}
	for _, dir := range cwds {
		if err := s.sc.ChangeDir(dir); err != nil {
			return s.fail("CWD "+dir, err)
		}
		s.at = append(s.at, dir)
	}
	return nil
}

// setType sends TYPE unless the connection is in that type already.
func (s *session) setType(t ftp.TransferType) error {
	if s.typ == t {
		return nil
	}
	if err := s.sc.Type(t); err != nil {
		return s.fail("TYPE "+string(t), err)
	}
	s.typ = t
	return nil
}

// fail turns an error of the command cmd into the driver's error: a
// reply into a *ReplyError of its fetch kind, a broken connection into
// ErrConnect (a retry may help).
func (s *session) fail(cmd string, err error) error {
	if err == nil {
		return nil
	}
	var te *textproto.Error
	switch {
	case errors.As(err, &te):
		re := replyError(cmd, te.Code, te.Msg)
		if kind := replyKind(te.Code, te.Msg); kind != nil {
			return fetch.Errorf(kind, "ftp: %s: %w", cmd, re)
		}
		if te.Code < 400 {
			// A positive reply, but not the one the command wants (229
			// to PASV): the server broke its protocol.
			return fetch.Errorf(fetch.ErrProtocol, "ftp: %s: an unexpected reply: %w", cmd, re)
		}
		return fmt.Errorf("ftp: %s: %w", cmd, re)
	case fetch.Class(err) != nil:
		return fmt.Errorf("ftp: %s: %w", cmd, err)
	case errors.As(err, new(textproto.ProtocolError)):
		// A line that is no reply: "short response", "invalid response code".
		return fetch.Errorf(fetch.ErrProtocol, "ftp: %s: %w", cmd, err)
	case fetch.ConnBroken(err):
		return fetch.Errorf(fetch.ErrConnect, "ftp: %s: the connection broke: %w", cmd, err)
	case errors.As(err, new(*strconv.NumError)), errors.As(err, new(*time.ParseError)):
		// A number or time in a positive reply that jlaffaye/ftp could
		// not read: the server broke its protocol.
		return fetch.Errorf(fetch.ErrProtocol, "ftp: %s: a reply that cannot be read: %w", cmd, err)
	}
	return fmt.Errorf("ftp: %s: %w", cmd, err)
}

func (s *session) note(format string, args ...any) {
	if _, req := s.current(); req != nil {
		req.Tracef(fetch.Note, format, args...)
	}
}

// close ends the session: QUIT, without waiting for the reply.
func (s *session) close() {
	s.unbind()
	if s.sc != nil {
		s.sc.Quit()
	} else if s.ctrl != nil {
		s.ctrl.Close()
	}
}

// release gives a session back after a fetch: kept for reuse when the
// fetch ended well or with a plain refusal, closed otherwise.
func (d *Driver) release(s *session, err error) {
	var re *ReplyError
	if len(s.sent) > 0 || err != nil && (!errors.As(err, &re) || sessionDied(re.Code, re.Msg)) {
		s.close()
		return
	}
	d.put(s)
}

// get takes an idle session for key from the pool, or returns nil.
func (d *Driver) get(key poolKey) *session {
	s, ok := d.idle.Get(key)
	if !ok {
		return nil
	}
	s.reused = true
	return s
}

// put keeps s as an idle session under the limits of its fetch's Client,
// or closes it.
func (d *Driver) put(s *session) {
	_, req := s.current()
	s.unbind()
	if req == nil {
		s.close()
		return
	}
	d.idle.Put(req, s.key, s, (*session).close)
}

// Close closes the idle connections.
func (d *Driver) Close() error {
	d.idle.CloseIdle()
	return nil
}

// lineConn is the control connection as jlaffaye/ftp sees it. It traces
// every line each way, remembers the last command and reply, and puts
// the password asked for in place of askPassword.
type lineConn struct {
	*fetch.Conn
	s *session
}

func (c *lineConn) Read(p []byte) (int, error) {
	if c.s.inErr != nil {
		return 0, c.s.inErr
	}
	n, err := c.Conn.Read(p)
	if n > 0 {
		if err := c.s.sawIn(p[:n]); err != nil {
			// jlaffaye/ftp reads replies with net/textproto, which would
			// keep a line or a multi-line reply of any length: the reply
			// is refused here, and every later read fails the same way.
			c.s.inErr = err
			return 0, err
		}
	}
	return n, err
}

func (c *lineConn) Write(p []byte) (int, error) {
	s := c.s
	if s.ask != nil && bytes.HasPrefix(p, []byte("PASS "+askPassword)) {
		// The server asked for a password (331): only now is it needed.
		pw, err := s.ask()
		if err != nil {
			return 0, err
		}
		if err := fetch.CheckLine("ftp password", pw); err != nil {
			return 0, err
		}
		s.sawOut([]byte("PASS ***\r\n"))
		if _, err := io.WriteString(c.Conn, "PASS "+pw+"\r\n"); err != nil {
			return 0, err
		}
		return len(p), nil
	}
	line := strings.TrimSuffix(string(p), "\r\n")
	if s.listCmd != "" {
		switch line {
		case "RETR " + listMarker:
			return c.rewrite(len(p), s.listCmd)
		case "PRET RETR " + listMarker:
			return c.rewrite(len(p), "PRET "+s.listCmd)
		}
	}
	if len(s.sent) > 0 {
		// A command pipelined earlier: on the wire already.
		if line != s.sent[0] {
			// jlaffaye/ftp leaves the planned sequence only when the
			// server refused a command sent ahead (vsftpd's "500 OOPS:
			// vsf_sysutil_bind" to EPSV, after which it ends the
			// session): with commands already on the wire the
			// conversation's state is unknown, so the connection is
			// given up as broken, in the server's own words, and a
			// retry runs on a new one.
			why := s.refusal
			if why == "" {
				why = s.lastReply
			}
			return 0, fetch.Errorf(fetch.ErrConnect, "the server answered %q to commands sent ahead of %q; giving up the connection", clipReply(why), s.sent[0])
		}
		s.sent = s.sent[1:]
		return len(p), nil
	}
	if line == "PASV" {
		s.usePASV = true
	}
	if len(s.ahead) > 0 && line == s.ahead[0] {
		batch := s.ahead
		s.ahead = nil
		s.sent = batch[1:]
		s.refusal = ""
		var b strings.Builder
		for _, l := range batch {
			b.WriteString(l)
			b.WriteString("\r\n")
		}
		s.sawOut([]byte(b.String()))
		if _, err := io.WriteString(c.Conn, b.String()); err != nil {
			return 0, err
		}
		return len(p), nil
	}
	s.ahead = nil
	s.sawOut(p)
	return c.Conn.Write(p)
}

// rewrite sends line in place of the n bytes jlaffaye/ftp wrote.
func (c *lineConn) rewrite(n int, line string) (int, error) {
	c.s.sawOut([]byte(line + "\r\n"))
	if _, err := io.WriteString(c.Conn, line+"\r\n"); err != nil {
		return 0, err
	}
	return n, nil
}

// RemoteAddr is the peer's address; jlaffaye/ftp needs a *net.TCPAddr,
// which a Client's own DialContext may not give.
func (c *lineConn) RemoteAddr() net.Addr {
	if a, ok := c.Conn.RemoteAddr().(*net.TCPAddr); ok {
		return a
	}
	return &net.TCPAddr{}
}

// sawOut traces the command lines in p.
func (s *session) sawOut(p []byte) {
	_, req := s.current()
	for _, line := range strings.SplitAfter(string(p), "\n") {
		line = strings.TrimRight(line, "\r\n")
		if line == "" {
			continue
		}
		s.lastCmd = fetch.MaskLine(line, nil)
		if req != nil {
			req.Trace(fetch.Out, line)
		}
	}
}

// Limits on what the control connection reads.
const (
	// maxLine bounds a reply line (and a listing line).
	maxLine = 64 << 10
	// maxReply bounds a multi-line reply, from its first line to its
	// last: FEAT and HELP replies are a few KiB.
	maxReply = 1 << 20
)

// sawIn traces the complete reply lines that p ends, keeping a partial
// one for the next read. It fails on a reply that no FTP server sends:
// one that does not begin with a reply code (RFC 959 section 4.2), a
// line longer than maxLine, a multi-line reply longer than maxReply.
func (s *session) sawIn(p []byte) error {
	_, req := s.current()
	s.inbuf = append(s.inbuf, p...)
	for {
		i := bytes.IndexByte(s.inbuf, '\n')
		if i < 0 {
			if len(s.inbuf) > maxLine {
				return fetch.Errorf(fetch.ErrProtocol, "ftp: the server sent a reply line longer than %d bytes", maxLine)
			}
			break
		}
		line := strings.TrimRight(string(s.inbuf[:i+1]), "\r\n")
		s.inbuf = s.inbuf[i+1:]
		if req != nil {
			req.Trace(fetch.In, line)
		}
		if !s.inReply {
			if !replyStart(line) {
				return fetch.Errorf(fetch.ErrProtocol, "ftp: the server sent %q, which is not an FTP reply: it begins with no reply code", clipReply(line))
			}
			s.inReply, s.replyLen, s.replyCode = true, 0, line[:3]
		}
		s.replyLen += i + 1
		if line == " PRET" || strings.HasPrefix(line, " PRET ") {
			s.pret = true
		}
		// RFC 959 section 4.2: a reply ends at a line that begins with
		// its own code and a space; "221 x" inside a 220- reply is text
		// of it, as net/textproto reads it (and counts to maxReply).
		if len(line) >= 4 && line[3] == ' ' && line[:3] == s.replyCode {
			if code, err := strconv.Atoi(line[:3]); err == nil {
				if err := checkReply(code, line); err != nil {
					return err
				}
				s.inReply = false
				s.lastCode, s.lastReply = code, line
				switch {
				case code < 200:
					s.lastPrelim = line
				case code >= 400 && s.refusal == "":
					s.refusal = line
				case code == 227, code == 229:
					s.dataOK = true
				}
			}
		}
		if s.inReply && s.replyLen > maxReply {
			return fetch.Errorf(fetch.ErrProtocol, "ftp: the server sent a multi-line reply of more than %d bytes without its last line", maxReply)
		}
	}
	if len(s.inbuf) == 0 {
		s.inbuf = s.inbuf[:0:0]
	}
	return nil
}

// checkReply refuses the replies that jlaffaye/ftp would read past the
// end of, and panic on: a 257 to PWD with one '"' (it slices between the
// first and the last), a 227 to PASV whose ")" comes before its "(" (it
// slices between them). A 227 must also give six numbers of 0 to 255, as
// RFC 959 section 4.1.2 writes the address and port.
func checkReply(code int, line string) error {
	switch code {
	case 257:
		if strings.Count(line, `"`) == 1 {
			return fetch.Errorf(fetch.ErrProtocol, "ftp: the server's reply %q quotes no directory", clipReply(line))
		}
	case StatusPassiveMode:
		start, end := strings.IndexByte(line, '('), strings.LastIndexByte(line, ')')
		if start < 0 || end < start {
			return fetch.Errorf(fetch.ErrProtocol, "ftp: the server's reply %q gives no (h1,h2,h3,h4,p1,p2)", clipReply(line))
		}
		f := strings.Split(line[start+1:end], ",")
		for _, n := range f {
			if v, err := strconv.Atoi(strings.TrimSpace(n)); err != nil || v < 0 || v > 255 || len(f) != 6 {
				return fetch.Errorf(fetch.ErrProtocol, "ftp: the server's reply %q gives no (h1,h2,h3,h4,p1,p2) of numbers 0 to 255", clipReply(line))
			}
		}
	}
	return nil
}

// replyStart reports whether line can begin a reply: a code of three
// digits, the first 1 to 5, then a space, a hyphen or nothing.
func replyStart(line string) bool {
	if len(line) < 3 || line[0] < '1' || line[0] > '5' || !isDigit(line[1]) || !isDigit(line[2]) {
		return false
	}
	return len(line) == 3 || line[3] == ' ' || line[3] == '-'
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// clipReply shortens a line from the server for an error message.
func clipReply(s string) string {
	if len(s) > 80 {
		return s[:80] + "..."
	}
	return s
}

// failedConn is a data connection whose dial failed.
type failedConn struct{ err error }

func (c failedConn) Read([]byte) (int, error)         { return 0, c.err }
func (c failedConn) Write([]byte) (int, error)        { return 0, c.err }
func (c failedConn) Close() error                     { return nil }
func (c failedConn) LocalAddr() net.Addr              { return &net.TCPAddr{} }
func (c failedConn) RemoteAddr() net.Addr             { return &net.TCPAddr{} }
func (c failedConn) SetDeadline(time.Time) error      { return nil }
func (c failedConn) SetReadDeadline(time.Time) error  { return nil }
func (c failedConn) SetWriteDeadline(time.Time) error { return nil }
