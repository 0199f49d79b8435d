package mid

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/textproto"
	"regexp"
	"strconv"
	"strings"

	"github.com/urlfetch/urlfetch/fetch"
	"github.com/urlfetch/urlfetch/uri"
)

// IMAP ports (RFC 3501 section 2.1, RFC 8314 section 7).
const (
	DefaultIMAPPort  = 143
	DefaultIMAPSPort = 993
)

// maxIMAPLine bounds one line of an IMAP response, literals apart.
const maxIMAPLine = 64 << 10

// maxCandidates bounds the messages whose headers the driver fetches to
// find the one a SEARCH matched: SEARCH HEADER matches a substring, so a
// few more than one may come back, never many.
const maxCandidates = 16

// An imapBox is a mailbox on an IMAP server (RFC 3501), named by an imap:
// or imaps: URL, imaps://user@host:port/MAILBOX (RFC 5092's server and
// mailbox; INBOX when the URL names none). The driver logs in with LOGIN,
// opens the mailbox read-only (EXAMINE: nothing is marked seen, no flag
// changes), asks for the message with UID SEARCH HEADER Message-ID, checks
// each hit's Message-ID itself (SEARCH HEADER matches a substring), and
// fetches the message with UID FETCH BODY.PEEK[], which streams.
//
// imaps: speaks TLS from the first byte (port 993). imap: (port 143) turns
// to TLS with STARTTLS whenever the server offers it, as mail clients do,
// before any password is sent; one that does not offer it is used in
// cleartext, unless the Client's TLSUpgrade is fetch.UpgradeRequire
// (--ssl-reqd), which fails instead. The password comes from the URL,
// netrc (machine host login user) or the Client's prompt.
type imapBox struct {
	url     *uri.URL
	secure  bool
	host    string
	addr    string
	user    string
	pass    string
	hasPass bool
	mailbox string
}

func (b *imapBox) String() string { return "IMAP mailbox " + b.url.Redacted() }

// parseIMAP reads the IMAP mailbox URL u.
func parseIMAP(u *uri.URL) (*imapBox, error) {
	b := &imapBox{url: u, secure: u.Scheme == "imaps"}
	if !u.Authority || u.Host == "" {
		return nil, fmt.Errorf("%s: an IMAP mailbox URL needs //host", u.Redacted())
	}
	port := u.Port
	if port == 0 {
		port = DefaultIMAPPort
		if b.secure {
			port = DefaultIMAPSPort
		}
	}
	b.host, b.addr = u.Host, net.JoinHostPort(u.Host, strconv.Itoa(port))
	if u.HasUser {
		b.user = u.Username()
		b.pass, b.hasPass = u.PasswordValue()
	}
	b.mailbox = "INBOX"
	if p := strings.TrimPrefix(u.Path, "/"); p != "" {
		v, err := uri.Unescape(p)
		if err != nil {
			return nil, fmt.Errorf("%s: %v", u.Redacted(), err)
		}
		b.mailbox = v
	}
	for what, v := range map[string]string{"IMAP user": b.user, "IMAP password": b.pass, "IMAP mailbox": b.mailbox} {
		if err := fetch.CheckLine(what, v); err != nil {
			return nil, err
		}
	}
	for _, r := range b.mailbox {
		if r >= 0x80 {
			return nil, fmt.Errorf("%s: a mailbox name outside ASCII (which IMAP writes in modified UTF-7) is not supported", u.Redacted())
		}
	}
	return b, nil
}

// find logs in, opens the mailbox and fetches the message whose
// Message-ID is id. The message's Body reads the FETCH response's
// literal; closing it ends the session.
func (b *imapBox) find(ctx context.Context, req *fetch.Request, id string, body bool) (*message, error) {
	c, err := b.open(ctx, req)
	if err != nil {
		return nil, err
	}
	msg, err := c.find(b, id, body)
	if err != nil {
		c.nc.Close()
		return nil, err
	}
	return msg, nil
}

// imapConn is one IMAP session: the one reader and writer of its
// connection, which traces every line.
type imapConn struct {
	req  *fetch.Request
	raw  *fetch.Conn // the connection under TLS, for its context binding
	nc   net.Conn    // raw, or TLS over it
	br   *bufio.Reader
	tag  int
	caps map[string]bool
}

// open connects, turns to TLS, logs in and opens the mailbox.
func (b *imapBox) open(ctx context.Context, req *fetch.Request) (*imapConn, error) {
	scheme := "imap"
	if b.secure {
		scheme = "imaps"
	}
	raw, err := req.DialAddr(ctx, scheme, b.addr)
	if err != nil {
		return nil, err
	}
	c := &imapConn{req: req, raw: raw, nc: raw}
	ok := false
	defer func() {
		if !ok {
			raw.Close()
		}
	}()
	if b.secure {
		tc, err := req.StartTLS(ctx, raw, b.host, nil)
		if err != nil {
			return nil, err
		}
		c.nc = tc
	}
	c.br = bufio.NewReaderSize(c.nc, 32<<10)
	greeting, err := c.readLine()
	if err != nil {
		return nil, c.broken("reading the greeting", err)
	}
	preauth := false
	switch status, text := untaggedStatus(greeting); status {
	case "OK":
	case "PREAUTH":
		preauth = true
	case "BYE":
		return nil, fetch.Errorf(fetch.ErrConnect, "mid: %s: the server refused the session: %s", b, text)
	default:
		return nil, fetch.Errorf(fetch.ErrProtocol, "mid: %s: not an IMAP greeting: %q", b, greeting)
	}
	if err := c.capability(); err != nil {
		return nil, err
	}
	if !b.secure && !preauth {
		if err := c.startTLS(ctx, b); err != nil {
			return nil, err
		}
	}
	if !preauth {
		if err := c.login(ctx, b); err != nil {
			return nil, err
		}
	}
	if _, err := c.run(nil, "EXAMINE ", astring(b.mailbox)); err != nil {
		var no *imapNo
		if errors.As(err, &no) {
			return nil, fetch.Errorf(fetch.ErrNotFound, "mid: %s: no such mailbox: %w", b, err)
		}
		return nil, err
	}
	ok = true
	return c, nil
}

// startTLS turns a cleartext session to TLS (RFC 3501 section 6.2.1)
// when the server offers it, or as the Client's TLSUpgrade requires.
func (c *imapConn) startTLS(ctx context.Context, b *imapBox) error {
	if !c.caps["STARTTLS"] {
		if c.req.TLSUpgrade() == fetch.UpgradeRequire {
			return fetch.Errorf(fetch.ErrTLS, "mid: %s: the server offers no STARTTLS, and TLS is required (--ssl-reqd)", b)
		}
		c.req.Tracef(fetch.Note, "the server offers no STARTTLS: going on in cleartext")
		return nil
	}
	if _, err := c.run(nil, "STARTTLS"); err != nil {
		return fetch.Errorf(fetch.ErrTLS, "mid: %s: STARTTLS: %w", b, err)
	}
	// Bytes after the OK were sent in cleartext before the handshake: a
	// man in the middle's, to be taken as the TLS session's (RFC 3207
	// section 6's STARTTLS injection). Refuse them.
	if c.br.Buffered() > 0 {
		return fetch.Errorf(fetch.ErrProtocol, "mid: %s: the server sent data after its STARTTLS reply, before TLS", b)
	}
	tc, err := c.req.StartTLS(ctx, c.raw, b.host, nil)
	if err != nil {
		return err
	}
	c.nc = tc
	c.br.Reset(tc)
	// What the server said before TLS is forgotten (RFC 3501 6.2.1).
	return c.capability()
}

// login sends LOGIN with the user and password of the mailbox URL, or of
// netrc, or the prompt's.
func (c *imapConn) login(ctx context.Context, b *imapBox) error {
	if c.caps["LOGINDISABLED"] {
		return fetch.Errorf(fetch.ErrAuth, "mid: %s: the server refuses LOGIN on a connection without TLS (LOGINDISABLED): use imaps:// or a server that offers STARTTLS", b)
	}
	user, pass := b.user, b.pass
	if !b.hasPass {
		if user == "" {
			login, pw, ok, err := c.req.NetrcLogin(b.host, "")
			if err != nil {
				return fetch.Errorf(fetch.ErrAuth, "mid: reading netrc: %w", err)
			}
			if !ok || login == "" {
				return fetch.Errorf(fetch.ErrAuth, "mid: %s names no user: write imaps://USER@%s/..., or give a login for %s in ~/.netrc", b, b.host, b.host)
			}
			user, pass = login, pw
		}
		if pass == "" {
			pw, err := c.req.Password(ctx, b.host, user)
			if err != nil {
				return err
			}
			pass = pw
		}
	}
	c.req.AddSecret(pass)
	if err := fetch.CheckLine("IMAP user", user); err != nil {
		return err
	}
	if err := fetch.CheckLine("IMAP password", pass); err != nil {
		return err
	}
	if _, err := c.run(nil, "LOGIN ", astring(user), " ", astring(pass)); err != nil {
		var no *imapNo
		if errors.As(err, &no) {
			return fetch.Errorf(fetch.ErrAuth, "mid: %s: the server refused the login of %s: %w", b, user, err)
		}
		return err
	}
	return nil
}

// capability asks for the server's capabilities.
func (c *imapConn) capability() error {
	c.caps = map[string]bool{}
	_, err := c.run(func(line string) {
		if rest, ok := cutFold(line, "* CAPABILITY "); ok {
			for _, f := range strings.Fields(rest) {
				c.caps[strings.ToUpper(f)] = true
			}
		}
	}, "CAPABILITY")
	return err
}

// uidPattern finds the UID of a FETCH response.
var uidPattern = regexp.MustCompile(`(?i)\bUID (\d+)`)

// find searches the open mailbox for id and opens the message; without
// body, it asks only the message's size (RFC822.SIZE), and the message's
// body is empty.
func (c *imapConn) find(b *imapBox, id string, body bool) (*message, error) {
	var uids []string
	search := []any{"UID SEARCH "}
	if isASCII(id) {
		search = append(search, "HEADER Message-ID ", astring("<"+id+">"))
	} else {
		search = append(search, "CHARSET UTF-8 HEADER Message-ID ", astring("<"+id+">"))
	}
	if _, err := c.run(func(line string) {
		if rest, ok := cutFold(line, "* SEARCH"); ok {
			for _, f := range strings.Fields(rest) {
				if _, err := strconv.ParseUint(f, 10, 32); err == nil && len(uids) < maxCandidates {
					uids = append(uids, f)
				}
			}
		}
	}, search...); err != nil {
		return nil, err
	}
	if len(uids) == 0 {
		return nil, notFound(b, id)
	}
	uid, h, err := c.pick(uids, id)
	if err != nil {
		return nil, err
	}
	if uid == "" {
		return nil, notFound(b, id)
	}
	if !body {
		return c.fetchSize(b, uid, id, h)
	}
	return c.fetchMessage(b, uid, id, h)
}

// sizePattern finds the size of a FETCH response's RFC822.SIZE.
var sizePattern = regexp.MustCompile(`(?i)\bRFC822\.SIZE (\d+)`)

// fetchSize asks for the message's size (RFC 3501 section 6.4.5,
// RFC822.SIZE) and returns it with an empty body, logged out: what a Head
// request needs, without a transfer.
func (c *imapConn) fetchSize(b *imapBox, uid, id string, h textproto.MIMEHeader) (*message, error) {
	size := int64(-1)
	_, err := c.run(func(line string) {
		if m := sizePattern.FindStringSubmatch(line); m != nil {
			if n, err := strconv.ParseInt(m[1], 10, 64); err == nil {
				size = n
			}
		}
	}, "UID FETCH "+uid+" (UID RFC822.SIZE)")
	if err != nil {
		c.nc.Close()
		return nil, err
	}
	c.logout()
	c.nc.Close()
	return &message{header: h, body: io.NopCloser(strings.NewReader("")), length: size, where: "UID " + uid}, nil
}

// pick fetches the headers of the SEARCH's hits and returns the UID and
// header of the one whose Message-ID is id, or "".
func (c *imapConn) pick(uids []string, id string) (string, textproto.MIMEHeader, error) {
	tag, err := c.send("UID FETCH " + strings.Join(uids, ",") + " (UID BODY.PEEK[HEADER])")
	if err != nil {
		return "", nil, err
	}
	var found string
	var header textproto.MIMEHeader
	for {
		line, err := c.readLine()
		if err != nil {
			return "", nil, c.broken("reading the FETCH response", err)
		}
		if done, err := c.tagged(tag, line); done {
			return found, header, err
		}
		text := line
		for {
			n, ok := literalAtEnd(text)
			if !ok {
				break
			}
			if n > maxHeader {
				if err := c.discard(n); err != nil {
					return "", nil, err
				}
			} else {
				h, err := c.readHeaderLiteral(n)
				if err != nil {
					return "", nil, err
				}
				if found == "" && sameID(msgID(h.Get("Message-Id")), id) {
					header = h
					found = "?" // the UID may follow the literal
				}
			}
			more, err := c.readLine()
			if err != nil {
				return "", nil, c.broken("reading the FETCH response", err)
			}
			line += more
			text = more
		}
		if found == "?" {
			if m := uidPattern.FindStringSubmatch(line); m != nil {
				found = m[1]
			} else {
				return "", nil, fetch.Errorf(fetch.ErrProtocol, "mid: a FETCH response without the UID asked for: %q", line)
			}
		}
	}
}

// readHeaderLiteral reads a literal of n bytes that holds a header.
func (c *imapConn) readHeaderLiteral(n int64) (textproto.MIMEHeader, error) {
	c.req.Tracef(fetch.Note, "(a literal of %d bytes: a header)", n)
	lr := &io.LimitedReader{R: c.br, N: n}
	h, _, err := readHeader(bufio.NewReader(lr))
	if err != nil {
		return nil, c.broken("reading a header", err)
	}
	if _, err := io.Copy(io.Discard, lr); err != nil {
		return nil, c.broken("reading a header", err)
	}
	if lr.N > 0 {
		return nil, c.broken("reading a header", io.ErrUnexpectedEOF)
	}
	return h, nil
}

// discard reads and drops a literal of n bytes.
func (c *imapConn) discard(n int64) error {
	c.req.Tracef(fetch.Note, "(a literal of %d bytes, passed over)", n)
	if m, err := io.CopyN(io.Discard, c.br, n); err != nil {
		return c.broken(fmt.Sprintf("reading a literal (%d of %d bytes)", m, n), err)
	}
	return nil
}

// fetchMessage sends UID FETCH for the whole message and returns it with
// a Body that reads the literal as it comes.
func (c *imapConn) fetchMessage(b *imapBox, uid, id string, h textproto.MIMEHeader) (*message, error) {
	tag, err := c.send("UID FETCH " + uid + " (UID BODY.PEEK[])")
	if err != nil {
		return nil, err
	}
	for {
		line, err := c.readLine()
		if err != nil {
			return nil, c.broken("reading the FETCH response", err)
		}
		if done, err := c.tagged(tag, line); done {
			if err == nil {
				// Expunged between the SEARCH and the FETCH.
				err = notFound(b, id)
			}
			return nil, err
		}
		n, ok := literalAtEnd(line)
		if !ok {
			continue // an untagged response of something else
		}
		if !strings.Contains(strings.ToUpper(line), "BODY[]") {
			if err := c.discard(n); err != nil {
				return nil, err
			}
			continue
		}
		c.req.Tracef(fetch.Note, "(a literal of %d bytes: the message, UID %s)", n, uid)
		body := &imapBody{c: c, tag: tag, lr: &io.LimitedReader{R: c.br, N: n}, n: n}
		return &message{header: h, body: body, length: n, where: "UID " + uid}, nil
	}
}

// imapBody reads the literal of a FETCH; at its end it reads the rest of
// the response and logs out.
type imapBody struct {
	c   *imapConn
	tag string
	lr  *io.LimitedReader
	n   int64
}

func (r *imapBody) Read(p []byte) (int, error) {
	n, err := r.lr.Read(p)
	if err == io.EOF {
		if r.lr.N > 0 {
			return n, r.c.broken(fmt.Sprintf("reading the message (%d of %d bytes)", r.n-r.lr.N, r.n), io.ErrUnexpectedEOF)
		}
		if ferr := r.finish(); ferr != nil {
			return n, ferr
		}
	} else if err != nil {
		err = r.c.broken(fmt.Sprintf("reading the message (%d of %d bytes)", r.n-r.lr.N, r.n), err)
	}
	return n, err
}

// finish reads the rest of the FETCH response and its tagged reply, then
// logs out.
func (r *imapBody) finish() error {
	for {
		line, err := r.c.readLine()
		if err != nil {
			return r.c.broken("reading the end of the FETCH response", err)
		}
		if done, err := r.c.tagged(r.tag, line); done {
			if err != nil {
				return err
			}
			r.c.logout()
			return nil
		}
		if n, ok := literalAtEnd(line); ok {
			if err := r.c.discard(n); err != nil {
				return err
			}
		}
	}
}

// Close ends the session: after a whole message, by LOGOUT (sent by
// finish); before, by closing the connection.
func (r *imapBody) Close() error { return r.c.nc.Close() }

// logout says goodbye; its reply is not waited for long, nor needed.
func (c *imapConn) logout() {
	if _, err := c.send("LOGOUT"); err != nil {
		return
	}
	for i := 0; i < 4; i++ {
		line, err := c.readLine()
		if err != nil || !strings.HasPrefix(line, "*") {
			return
		}
	}
}

// astring is an argument of a command that is a string: sent quoted, or
// as a literal when it holds bytes a quoted string cannot (RFC 3501
// section 4.3). The CR, LF and NUL a literal could carry are refused
// before (fetch.CheckLine): no value of the driver's needs them.
type astring string

// isASCII reports whether s is printable ASCII, which a quoted string
// can carry.
func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < 0x20 || s[i] > 0x7e {
			return false
		}
	}
	return true
}

// quote writes s as a quoted string: a backslash before each " and \.
func quote(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		if s[i] == '"' || s[i] == '\\' {
			b.WriteByte('\\')
		}
		b.WriteByte(s[i])
	}
	b.WriteByte('"')
	return b.String()
}

// run sends a command made of parts (text as it is, astrings quoted or as
// literals) and reads its response: each untagged line goes to untagged,
// when set. It returns the tagged OK's text; a NO is an *imapNo.
func (c *imapConn) run(untagged func(line string), parts ...any) (string, error) {
	tag, err := c.send(parts...)
	if err != nil {
		return "", err
	}
	return c.wait(tag, untagged)
}

// send writes a command: its tag, then parts. A literal waits for the
// server's continuation ("+") before its bytes go.
func (c *imapConn) send(parts ...any) (string, error) {
	c.tag++
	tag := "a" + strconv.Itoa(c.tag)
	var line strings.Builder
	line.WriteString(tag + " ")
	for _, p := range parts {
		switch v := p.(type) {
		case astring:
			if isASCII(string(v)) {
				line.WriteString(quote(string(v)))
				continue
			}
			line.WriteString("{" + strconv.Itoa(len(v)) + "}")
			if err := c.write(line.String()); err != nil {
				return "", err
			}
			line.Reset()
			if err := c.await(tag); err != nil {
				return "", err
			}
			c.req.Tracef(fetch.Out, "(a literal of %d bytes)", len(v))
			if _, err := io.WriteString(c.nc, string(v)); err != nil {
				return "", c.broken("sending a literal", err)
			}
		case string:
			line.WriteString(v)
		}
	}
	return tag, c.write(line.String())
}

// write sends one line of a command.
func (c *imapConn) write(line string) error {
	c.req.Trace(fetch.Out, line)
	if _, err := io.WriteString(c.nc, line+"\r\n"); err != nil {
		return c.broken("sending a command", err)
	}
	return nil
}

// await reads the continuation request ("+ ...") that lets a literal go;
// a tagged reply in its place refuses the command.
func (c *imapConn) await(tag string) error {
	for {
		line, err := c.readLine()
		if err != nil {
			return c.broken("waiting for a continuation", err)
		}
		if strings.HasPrefix(line, "+") {
			return nil
		}
		if done, err := c.tagged(tag, line); done {
			if err == nil {
				err = fetch.Errorf(fetch.ErrProtocol, "mid: IMAP: a command ended before its literal was sent")
			}
			return err
		}
	}
}

// wait reads untagged lines up to tag's reply.
func (c *imapConn) wait(tag string, untagged func(line string)) (string, error) {
	for {
		line, err := c.readLine()
		if err != nil {
			return "", c.broken("reading a reply", err)
		}
		if done, err := c.tagged(tag, line); done {
			_, text := untaggedStatus(strings.TrimPrefix(line, tag+" "))
			return text, err
		}
		if status, text := untaggedStatus(line); status == "BYE" {
			return "", fetch.Errorf(fetch.ErrConnect, "mid: IMAP: the server ended the session: %s", text)
		}
		if untagged != nil {
			untagged(line)
		}
		if n, ok := literalAtEnd(line); ok {
			if err := c.discard(n); err != nil {
				return "", err
			}
			// The response goes on after the literal: its lines are
			// read (and passed over) by the loop.
		}
	}
}

// imapNo is a NO reply: the server refused the command.
type imapNo struct{ text string }

func (e *imapNo) Error() string { return "NO " + e.text }

// tagged reports whether line is tag's reply, and its error: nil for OK,
// an *imapNo for NO, ErrProtocol for BAD.
func (c *imapConn) tagged(tag, line string) (bool, error) {
	rest, ok := strings.CutPrefix(line, tag+" ")
	if !ok {
		return false, nil
	}
	status, text := untaggedStatus("* " + rest)
	switch status {
	case "OK":
		return true, nil
	case "NO":
		return true, &imapNo{text: text}
	}
	return true, fetch.Errorf(fetch.ErrProtocol, "mid: IMAP: the server did not understand a command: %s", rest)
}

// untaggedStatus splits "* OK text" into "OK" and "text".
func untaggedStatus(line string) (status, text string) {
	rest, ok := strings.CutPrefix(line, "* ")
	if !ok {
		return "", line
	}
	status, text, _ = strings.Cut(rest, " ")
	return strings.ToUpper(status), text
}

// literalAtEnd reports whether line ends with a literal's announcement,
// "{N}", and N.
func literalAtEnd(line string) (int64, bool) {
	if !strings.HasSuffix(line, "}") {
		return 0, false
	}
	i := strings.LastIndexByte(line, '{')
	if i < 0 {
		return 0, false
	}
	n, err := strconv.ParseInt(strings.TrimSuffix(line[i+1:len(line)-1], "+"), 10, 64)
	if err != nil || n < 0 {
		return 0, false
	}
	return n, true
}

// readLine reads one line of a response, without its CRLF, and traces it.
func (c *imapConn) readLine() (string, error) {
	var b []byte
	for {
		chunk, err := c.br.ReadSlice('\n')
		b = append(b, chunk...)
		if len(b) > maxIMAPLine {
			return "", fetch.Errorf(fetch.ErrProtocol, "mid: IMAP: a response line longer than %d bytes", maxIMAPLine)
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if err != nil {
			return "", err
		}
		line := string(bytes.TrimRight(b, "\r\n"))
		c.req.Trace(fetch.In, line)
		return line, nil
	}
}

// broken is the error of a read or write that failed while doing what.
func (c *imapConn) broken(doing string, err error) error {
	if fetch.Class(err) != nil {
		return err
	}
	if fetch.ConnBroken(err) {
		return fetch.Errorf(fetch.ErrConnect, "mid: IMAP: the connection broke %s: %w", doing, err)
	}
	return fmt.Errorf("mid: IMAP: %s: %w", doing, err)
}

// cutFold is strings.CutPrefix with the prefix's case ignored.
func cutFold(s, prefix string) (string, bool) {
	if len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix) {
		return s[len(prefix):], true
	}
	return "", false
}
