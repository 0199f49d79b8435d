package nntp

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/textproto"
	"strconv"
	"strings"
	"time"

	"github.com/urlfetch/urlfetch/fetch"
)

const (
	// maxReply bounds a reply's status line; RFC 3977 section 3.1 allows
	// 512 bytes.
	maxReply = 16 << 10
	// maxLine bounds a line of a multi-line block the driver parses
	// (capabilities, overview): a longer one is cut there.
	maxLine = 64 << 10
	// maxCaps bounds the lines of a capability list: servers list a
	// dozen or two; a longer list is refused.
	maxCaps = 256
	// maxBlock bounds the bytes of a multi-line block that streams or
	// is passed over: a list of groups (the active file of a full
	// Usenet feed, some 100,000 groups, is about 5 MB), the lines of an
	// overview beyond the articles asked for.
	maxBlock = 16 << 20
	// quitTimeout bounds the write of QUIT.
	quitTimeout = 2 * time.Second
)

// conn is one connection to a news server, ready for commands: greeted,
// over TLS when it was asked for; its capabilities and reader mode are
// learned when a command needs them, and kept while it is pooled.
type conn struct {
	nc  *fetch.Conn // the dial path's connection, under TLS if any
	br  *bufio.Reader
	r   *textproto.Reader
	w   *textproto.Writer
	key poolKey
	lr  *bufio.Reader  // the lines of multi-line blocks, made once
	req *fetch.Request // the fetch it serves now, whose Client's limits keep it idle

	greeting string // the server's greeting line, "200 ... ready"
	// caps is the capability list, learned only when a step needs it
	// (learnCaps): nil when not asked yet (asked false) or when the
	// server knows no CAPABILITIES (asked true). A pooled connection
	// keeps it for the next fetch.
	caps     map[string][]string
	asked    bool
	over     string // the overview command that works: OVER or XOVER
	tried    bool   // the other overview command was tried
	switched bool   // MODE READER was sent, or a switch tried
	served   bool   // a reader command was answered: the mode serves readers
	authed   bool
	tls      bool // the commands go over TLS

	reused bool // taken from the idle connections
	cmds   int  // commands sent since it was taken or made
	stale  bool // its first command after reuse found it closed
	broken bool // out of step with the server: never reuse it
}

// get returns an idle connection for t, bound to ctx, or a new one.
func (d *Driver) get(ctx context.Context, req *fetch.Request, t *target) (*conn, error) {
	if c := d.take(t.key); c != nil {
		c.nc.Bind(ctx)
		c.req = req
		req.Tracef(fetch.Note, "reusing the connection to %s", t.addr)
		return c, nil
	}
	var nc *fetch.Conn
	var err error
	switch t.scheme {
	case "news":
		// RFC 1738 section 6: the configured server's port is held to
		// the policy an nntp URL's port is, and an snews one's to
		// nntps's.
		nc, err = req.DialAddr(ctx, "nntp", t.addr) // the configured server
	case "snews":
		nc, err = req.DialAddr(ctx, "nntps", t.addr)
	default:
		nc, err = req.Dial(ctx) // the URL's host and port
	}
	if err != nil {
		return nil, err
	}
	c := &conn{nc: nc, key: t.key, req: req}
	c.use(nc)
	if t.secure {
		// nntps, snews: TLS from the first byte, before the greeting.
		tc, err := req.StartTLS(ctx, nc, t.host, nil)
		if err != nil {
			nc.Close()
			return nil, err
		}
		c.use(tc)
		c.tls = true
	}
	if err := c.hello(ctx, req, t); err != nil {
		nc.Close()
		return nil, err
	}
	return c, nil
}

// use makes rw the connection's transport: the dial path's connection,
// or the TLS connection over it. What was read and not yet used is
// dropped: at a switch to TLS, startTLS has made sure there was nothing.
func (c *conn) use(rw io.ReadWriter) {
	c.br = bufio.NewReaderSize(rw, maxReply)
	c.r = textproto.NewReader(c.br)
	c.w = textproto.NewWriter(bufio.NewWriter(rw))
}

// take removes an idle connection for key from the pool, or returns nil.
func (d *Driver) take(key poolKey) *conn {
	c, ok := d.idle.Get(key)
	if !ok {
		return nil
	}
	c.reused, c.cmds, c.stale = true, 0, false
	return c
}

// put keeps c for a later fetch, or ends it: when it is out of step with
// the server, or when enough connections to its server are idle.
func (d *Driver) put(c *conn) {
	if c.broken {
		c.nc.Close()
		return
	}
	c.nc.Bind(context.Background())
	req := c.req
	c.req = nil
	d.idle.Put(req, c.key, c, (*conn).quit)
}

// quit ends the session with QUIT (RFC 3977 section 5.4) and closes the
// connection, without waiting for the 205: the server ends the session
// at QUIT whatever the client does next, and a command that is about to
// exit would wait a round trip for the reply (issue 24; the FTP driver's
// QUIT does not wait either).
func (c *conn) quit() {
	c.nc.SetIdleTimeout(quitTimeout)
	c.w.PrintfLine("QUIT")
	c.nc.Close()
}

// hello reads the greeting and, when the Client asks for TLS, turns to it
// with STARTTLS. Nothing else is asked up front: the capabilities and the
// reader mode are learned when a step needs them (cmd, switchMode), so
// that news:<message-id> costs the greeting and one ARTICLE, as it costs
// lynx.
func (c *conn) hello(ctx context.Context, req *fetch.Request, t *target) error {
	code, msg, err := c.readReply(req, "greeting")
	if err != nil {
		return err
	}
	c.greeting = strconv.Itoa(code) + " " + msg
	switch code {
	case StatusPostingAllowed, StatusPostingProhibited:
	case StatusUnavailable:
		return fetch.Errorf(fetch.ErrConnect, "nntp: %s is not available: %w", t.addr, replyError("", code, msg))
	case StatusPermissionDenied:
		return fetch.Errorf(fetch.ErrAuth, "nntp: %s refuses this client: %w", t.addr, replyError("", code, msg))
	default:
		return fetch.Errorf(fetch.ErrProtocol, "nntp: %s greets with an unexpected reply: %w", t.addr, replyError("", code, msg))
	}
	if t.key.tls != startTLSTry && t.key.tls != startTLSRequire {
		return nil
	}
	// STARTTLS is sent only when the capabilities offer it.
	if err := c.learnCaps(req); err != nil {
		return err
	}
	if err := c.startTLS(ctx, req, t); err != nil {
		return err
	}
	if c.asked && c.caps != nil && c.modeSwitching() {
		// Known already: switch now rather than after a refusal.
		_, err := c.modeReader(ctx, req, t)
		return err
	}
	return nil
}

// modeSwitching reports whether the server is a mode-switching one not
// yet in reader mode (RFC 3977 section 5.3): it lists MODE-READER and
// not READER.
func (c *conn) modeSwitching() bool { return c.has("MODE-READER") && !c.has("READER") }

// switchMode turns a mode-switching server to reader mode after it
// refused a reader command with code and msg, and reports whether it did:
// the command is then worth sending again. RFC 3977 section 3.2.1 names
// the way in its reply, "401 MODE-READER"; servers older than it answer a
// reader command in transit mode with 500 or 502, and only the first
// reader command of a connection is read so (a server that has served
// one is in reader mode): then the capabilities decide, asked now, as a
// server that lists MODE-READER and not READER is one to switch, and so
// is one that knows no CAPABILITIES (RFC 2980's servers want MODE
// READER). Tried once a connection.
func (c *conn) switchMode(ctx context.Context, req *fetch.Request, t *target, code int, msg string) (bool, error) {
	if c.switched {
		return false, nil
	}
	switch code {
	case StatusWrongMode:
		if f := strings.Fields(msg); len(f) == 0 || !strings.EqualFold(f[0], "MODE-READER") {
			return false, nil
		}
	case StatusUnknownCommand, StatusPermissionDenied:
		if c.served {
			return false, nil
		}
		if err := c.learnCaps(req); err != nil {
			return false, err
		}
		if c.caps != nil && !c.modeSwitching() {
			return false, nil
		}
	default:
		return false, nil
	}
	return c.modeReader(ctx, req, t)
}

// modeReader sends MODE READER (RFC 3977 section 5.3) and reports
// whether the server is a reader now. What it knew of the capabilities
// is forgotten: they change with the mode.
func (c *conn) modeReader(ctx context.Context, req *fetch.Request, t *target) (bool, error) {
	c.switched = true
	code, msg, err := c.authed480(ctx, req, t, "MODE READER")
	if err != nil {
		return false, err
	}
	switch code {
	case StatusPostingAllowed, StatusPostingProhibited:
		if c.caps != nil {
			c.forgetCaps() // a server without CAPABILITIES stays one
		}
		return true, nil
	case StatusPermissionDenied, StatusUnavailable:
		return false, commandError("MODE READER", code, msg)
	}
	return false, nil // 500: no mode to switch; the refusal stands
}

// startTLS turns the connection to TLS with STARTTLS (RFC 4642), which
// the Client's TLSUpgrade asked for: it is sent when the capabilities
// offer it, before any AUTHINFO. When the server does not offer it or
// refuses it, the connection stays in cleartext (fetch.UpgradeTry) or
// the fetch fails with fetch.ErrTLS (fetch.UpgradeRequire).
func (c *conn) startTLS(ctx context.Context, req *fetch.Request, t *target) error {
	if !c.has("STARTTLS") && c.modeSwitching() {
		// A mode-switching server may offer STARTTLS in reader mode
		// only (RFC 3977 section 5.3.3, the example of errata 1523).
		// Sent without AUTHINFO: a 480 waits until TLS is settled.
		c.switched = true
		code, _, err := c.send(req, "MODE READER")
		if err != nil {
			return err
		}
		if code == StatusPostingAllowed || code == StatusPostingProhibited {
			c.forgetCaps()
			if err := c.learnCaps(req); err != nil {
				return err
			}
		}
	}
	if !c.has("STARTTLS") {
		why := "its capabilities do not list STARTTLS"
		if c.caps == nil {
			why = "it knows no CAPABILITIES, so no STARTTLS"
		}
		return c.noTLS(req, t, why)
	}
	code, msg, err := c.send(req, "STARTTLS")
	if err != nil {
		return err
	}
	if code != StatusContinueWithTLS {
		// 580: TLS cannot start; 502: not here, or already on; 500 and
		// 501 from a server that lists what it does not do.
		return c.noTLS(req, t, "it refuses STARTTLS: "+replyError("STARTTLS", code, msg).Error())
	}
	// RFC 4642 section 2.2.2: the handshake starts right after the 382
	// line. A byte the server sent after it, before the handshake, is
	// no reply of its: one injected by a man in the middle is the
	// classic STARTTLS attack (CVE-2011-0411), and would be read as the
	// reply to the first command sent over TLS.
	if n := c.br.Buffered(); n > 0 {
		c.broken = true
		return fetch.Errorf(fetch.ErrTLS, "nntp: %s sent %d bytes after its 382 reply to STARTTLS, before the TLS handshake: refusing them", t.addr, n)
	}
	tc, err := req.StartTLS(ctx, c.nc, t.host, nil)
	if err != nil {
		c.broken = true
		return err
	}
	c.use(tc)
	c.tls = true
	// RFC 4642 section 2.2.2: the client MUST discard what it learned
	// before TLS, and asks for the capabilities again.
	c.forgetCaps()
	return c.learnCaps(req)
}

// noTLS goes on in cleartext after a STARTTLS the server did not give,
// for fetch.UpgradeTry, or fails, for fetch.UpgradeRequire.
func (c *conn) noTLS(req *fetch.Request, t *target, why string) error {
	if t.key.tls == startTLSRequire {
		return fetch.Errorf(fetch.ErrTLS, "nntp: %s cannot turn to TLS: %s; not going on in cleartext (--ssl-reqd; or an nntps: URL, TLS on port %d)", t.addr, why, DefaultTLSPort)
	}
	req.Tracef(fetch.Note, "%s cannot turn to TLS (%s): going on in cleartext", t.addr, why)
	return nil
}

// learnCaps asks for the capability list (RFC 3977 section 5.2) unless
// the connection knows it: once a connection, again only after a change
// of mode, TLS or login made the server's answer another.
func (c *conn) learnCaps(req *fetch.Request) error {
	if c.asked {
		return nil
	}
	code, _, err := c.send(req, "CAPABILITIES")
	if err != nil {
		return err
	}
	c.asked = true
	if code != StatusCapabilities {
		c.caps = nil
		return nil
	}
	caps := make(map[string][]string)
	n := 0
	err = c.dotLines("capability list", func(line []byte) error {
		if n++; n > maxCaps {
			return fetch.Errorf(fetch.ErrProtocol, "nntp: the capability list goes on past %d lines", maxCaps)
		}
		req.Trace(fetch.In, string(line))
		if f := strings.Fields(string(line)); len(f) > 0 {
			caps[strings.ToUpper(f[0])] = f[1:]
		}
		return nil
	})
	if err != nil {
		return err
	}
	c.caps = caps
	return nil
}

// forgetCaps drops the capability list after a change that makes it
// stale (RFC 3977 section 5.3 for MODE READER, RFC 4642 section 2.2.2
// for TLS; after AUTHINFO, RFC 4643 has the server list its commands
// anew), and the overview command chosen from it, unless a reply chose
// that.
func (c *conn) forgetCaps() {
	c.caps, c.asked = nil, false
	if !c.tried {
		c.over = ""
	}
}

// has reports whether the server lists the capability.
func (c *conn) has(capability string) bool {
	_, ok := c.caps[capability]
	return ok
}

// overCommand is the overview command to send: OVER, or XOVER (RFC 2980
// section 2.8) when the capabilities, if known, do not list OVER. Unknown
// capabilities are not asked for: a 500 to OVER tries XOVER (overview).
func (c *conn) overCommand() string {
	if c.over == "" {
		c.over = "OVER"
		if c.asked && !c.has("OVER") {
			c.over = "XOVER"
		}
	}
	return c.over
}

// cmd sends one reader command and reads the status line of its reply.
// When the server asks for authentication (480), it authenticates and
// sends the command again; when it says it is not in reader mode, it
// switches (switchMode) and sends the command again.
func (c *conn) cmd(ctx context.Context, req *fetch.Request, t *target, line string) (int, string, error) {
	code, msg, err := c.authed480(ctx, req, t, line)
	if err != nil {
		return 0, "", err
	}
	if code < 400 {
		c.served = true
		return code, msg, nil
	}
	again, err := c.switchMode(ctx, req, t, code, msg)
	if err != nil || !again {
		return code, msg, err
	}
	return c.cmd(ctx, req, t, line) // once: switchMode tries once
}

// authed480 sends one command and reads the status line of its reply.
// When the server asks for authentication (480), it authenticates and
// sends the command again.
func (c *conn) authed480(ctx context.Context, req *fetch.Request, t *target, line string) (int, string, error) {
	code, msg, err := c.send(req, line)
	if err != nil || code != StatusAuthRequired || c.authed {
		return code, msg, err
	}
	if err := c.auth(ctx, req, t, msg); err != nil {
		return 0, "", err
	}
	return c.send(req, line)
}

// send writes one command line and reads the status line of the reply.
func (c *conn) send(req *fetch.Request, line string) (int, string, error) {
	c.cmds++
	req.Trace(fetch.Out, line) // masks the argument of AUTHINFO PASS
	name := line
	if strings.HasPrefix(line, "AUTHINFO PASS") {
		name = "AUTHINFO PASS"
	}
	if err := c.w.PrintfLine("%s", line); err != nil {
		return 0, "", c.ioError(err, "sending "+name)
	}
	return c.readReply(req, "reply to "+name)
}

// readReply reads a status line: a three-digit code and its text.
func (c *conn) readReply(req *fetch.Request, what string) (int, string, error) {
	raw, err := c.br.ReadSlice('\n')
	if err == bufio.ErrBufferFull {
		c.broken = true
		return 0, "", fetch.Errorf(fetch.ErrProtocol, "nntp: the %s is longer than %d bytes", what, maxReply)
	}
	if err != nil {
		return 0, "", c.ioError(err, "reading the "+what)
	}
	line := strings.TrimRight(string(raw), "\r\n")
	req.Trace(fetch.In, line)
	code, msg, ok := parseReply(line)
	if !ok {
		c.broken = true
		return 0, "", fetch.Errorf(fetch.ErrProtocol, "nntp: the %s is not an NNTP reply: %q", what, clip(line))
	}
	if code == StatusUnavailable && c.reused && c.cmds == 1 {
		c.stale = true // the server is ending the idle session
	}
	return code, msg, nil
}

// parseReply splits "211 4 1 4 misc.test" into 211 and "4 1 4 misc.test".
func parseReply(line string) (int, string, bool) {
	if len(line) < 3 || (len(line) > 3 && line[3] != ' ') || line[0] < '1' || line[0] > '5' {
		return 0, "", false
	}
	code, err := strconv.Atoi(line[:3])
	if err != nil {
		return 0, "", false
	}
	if len(line) == 3 {
		return code, "", true
	}
	return code, strings.TrimSpace(line[4:]), true
}

// clip shortens a line from the server for an error message.
func clip(s string) string {
	if len(s) > 80 {
		return s[:80] + "..."
	}
	return s
}

// ioError marks c out of step and describes a failed read or write. A
// cancelled context comes back as itself; a broken connection
// (fetch.ConnBroken) is an ErrConnect, or a stale connection when it was
// the first command after reuse; other errors (the idle timeout) keep
// their kind.
func (c *conn) ioError(err error, what string) error {
	c.broken = true
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return err
	}
	if fetch.ConnBroken(err) {
		if c.reused && c.cmds == 1 {
			c.stale = true
		}
		return fetch.Errorf(fetch.ErrConnect, "nntp: %s: the server closed the connection (%w)", what, err)
	}
	return fmt.Errorf("nntp: %s: %w", what, err)
}

// dotLines reads a multi-line block to its final dot, calling fn with
// each line but empty ones, without its line end and cut at maxLine
// bytes. fn must copy what it keeps. An error of fn ends the read, and
// leaves the connection out of step. A block of more than maxBlock bytes,
// empty lines and all, is an error: the bound rests on nothing the server
// chooses (an endless run of empty lines never reaches fn).
func (c *conn) dotLines(what string, fn func(line []byte) error) error {
	if c.lr == nil {
		c.lr = bufio.NewReaderSize(nil, maxLine)
	}
	c.lr.Reset(c.r.DotReader())
	n := 0
	for {
		var ferr error
		line, err := c.lr.ReadSlice('\n')
		if n += len(line); n > maxBlock {
			c.broken = true
			return fetch.Errorf(fetch.ErrProtocol, "nntp: the %s goes on past %d bytes", what, maxBlock)
		}
		if err == bufio.ErrBufferFull {
			ferr = fn(line)
			for err == bufio.ErrBufferFull {
				var more []byte
				more, err = c.lr.ReadSlice('\n')
				if n += len(more); n > maxBlock {
					c.broken = true
					return fetch.Errorf(fetch.ErrProtocol, "nntp: the %s goes on past %d bytes", what, maxBlock)
				}
			}
		} else if line = bytes.TrimSuffix(line, []byte("\n")); len(line) > 0 {
			ferr = fn(line)
		}
		if ferr != nil {
			c.broken = true
			return ferr
		}
		switch {
		case err == io.EOF:
			return nil
		case err != nil:
			return c.ioError(err, "reading the "+what)
		}
	}
}

// auth logs in with AUTHINFO USER and PASS (RFC 4643 section 2.3) after
// the server answered 480 (why is its text).
func (c *conn) auth(ctx context.Context, req *fetch.Request, t *target, why string) error {
	user, pass, err := credentials(ctx, req, t, why)
	if err != nil {
		return err
	}
	code, msg, err := c.send(req, "AUTHINFO USER "+user)
	if err != nil {
		return err
	}
	if code == StatusPasswordRequired {
		if code, msg, err = c.send(req, "AUTHINFO PASS "+pass); err != nil {
			return err
		}
	}
	re := replyError("AUTHINFO", code, msg)
	switch code {
	case StatusAuthAccepted:
		c.authed = true
		c.forgetCaps()
		return nil
	case StatusEncryptionRequired:
		if !c.tls {
			return fetch.Errorf(fetch.ErrAuth, "nntp: AUTHINFO USER %s: the server wants TLS first (--ssl-reqd for STARTTLS, or an nntps: URL): %w", user, re)
		}
	}
	return fetch.Errorf(fetch.ErrAuth, "nntp: AUTHINFO USER %s: %w", user, re)
}

// credentials finds the user and password to log in with: those of an
// nntp URL (with the password from netrc or the prompt when the URL has
// none), else netrc's login for the server.
func credentials(ctx context.Context, req *fetch.Request, t *target, why string) (user, pass string, err error) {
	if t.cred {
		user, pass = t.user, t.pass
		if !t.hasPass {
			if pass, err = req.Password(ctx, t.host, user); err != nil {
				return "", "", err
			}
		}
	} else {
		login, pw, ok, err := req.NetrcLogin(t.host, "")
		if err != nil {
			return "", "", fetch.Errorf(fetch.ErrAuth, "nntp: reading netrc: %w", err)
		}
		if !ok || login == "" {
			hint := "a login and password for " + t.host + " in ~/.netrc"
			if t.scheme == "nntp" {
				hint = "a user in the URL (nntp://USER@" + t.host + "/...) or " + hint
			}
			return "", "", fetch.Errorf(fetch.ErrAuth, "nntp: %s asks for authentication (%d %s): give %s",
				t.addr, StatusAuthRequired, why, hint)
		}
		user, pass = login, pw
		if pass == "" {
			if pass, err = req.Password(ctx, t.host, user); err != nil {
				return "", "", err
			}
		}
	}
	req.AddSecret(pass)
	if err := fetch.CheckLine("nntp user", user); err != nil {
		return "", "", err
	}
	if err := fetch.CheckLine("nntp password", pass); err != nil {
		return "", "", err
	}
	return user, pass, nil
}

// group selects t.group (RFC 3977 section 6.1.1) and returns the
// estimated article count and the low and high article numbers.
func (c *conn) group(ctx context.Context, req *fetch.Request, t *target) (count, low, high int64, err error) {
	line := "GROUP " + t.group
	code, msg, err := c.cmd(ctx, req, t, line)
	if err != nil {
		return 0, 0, 0, err
	}
	if code != StatusGroupSelected {
		return 0, 0, 0, commandError(line, code, msg)
	}
	if count, low, high, err = parseGroup(msg); err != nil {
		return 0, 0, 0, fmt.Errorf("nntp: %s: %w", line, err)
	}
	return count, low, high, nil
}

// parseGroup reads the text of a 211 reply to GROUP: "count low high
// group". RFC 3977 section 6.1.1.2: article numbers are 1 to 2^63-1, and
// an empty group may say 0 for all three; a negative number (or one that
// does not fit) is the server breaking its protocol.
func parseGroup(msg string) (count, low, high int64, err error) {
	f := strings.Fields(msg)
	var n [3]int64
	for i := range n {
		if i >= len(f) {
			err = errors.New("missing field")
			break
		}
		if n[i], err = strconv.ParseInt(f[i], 10, 64); err != nil {
			break
		}
	}
	if err != nil {
		return 0, 0, 0, fetch.Errorf(fetch.ErrProtocol, "unreadable reply %q, want \"211 count low high group\"", clip(msg))
	}
	if n[0] < 0 || n[1] < 0 || n[2] < 0 {
		return 0, 0, 0, fetch.Errorf(fetch.ErrProtocol, "reply %q gives a negative count or article number", clip(msg))
	}
	return n[0], n[1], n[2], nil
}

// overview sends OVER (or XOVER) for the articles lo to hi and calls fn
// with each line of the reply; an error of fn ends the reply. No article
// in the range is no line.
func (c *conn) overview(ctx context.Context, req *fetch.Request, t *target, lo, hi int64, fn func([]byte) error) error {
	for {
		line := fmt.Sprintf("%s %d-%d", c.overCommand(), lo, hi)
		code, msg, err := c.cmd(ctx, req, t, line)
		if err != nil {
			return err
		}
		switch code {
		case StatusOverviewFollows:
			return c.dotLines("overview", fn)
		case StatusNoArticleNumber, StatusNoCurrentArticle:
			return nil // RFC 3977 section 8.3.2: no article in the range
		case StatusUnknownCommand:
			if !c.tried {
				// The capability list misled, or there was none.
				c.tried = true
				c.over = map[string]string{"OVER": "XOVER", "XOVER": "OVER"}[c.over]
				continue
			}
		}
		return commandError(line, code, msg)
	}
}
