// Package mailto implements the mailto scheme of RFC 1738 section 3.5. A
// mailto URL names an Internet mail address; it designates no object to
// retrieve, so dereferencing it sends a message there. Beyond the 1994
// form, mailto:addr-spec, the RFC 6068 form is understood: several
// addresses and header fields, as in
//
//	mailto:ann@example.org,bob@example.org?subject=Hello&cc=cy@example.org&body=Hi%20all
//
// The message goes through the SMTP server (RFC 5321) of the Driver's
// settings, over github.com/emersion/go-smtp on the fetch Client's dial
// path, with STARTTLS when the server offers it (RFC 3207), checked with
// the Client's TLS settings, and AUTH (RFC 4954) when the Driver has
// credentials. A message that comes without a header block gets one as
// RFC 5322 describes it.
package mailto

import (
	"bufio"
	"bytes"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/mail"
	"net/textproto"
	"os"
	"os/user"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/emersion/go-sasl"
	"github.com/emersion/go-smtp"
	"github.com/urlfetch/urlfetch/fetch"
	"github.com/urlfetch/urlfetch/uri"
)

// DefaultServer is the SMTP server of a Driver whose Server is "".
const DefaultServer = "localhost:25"

// SMTP reply codes the driver acts on (RFC 5321 section 4.2.3, RFC 4954
// section 6).
const (
	StatusReady                 = 220 // Service ready (also: go ahead with TLS, RFC 3207)
	StatusOK                    = 250 // Requested mail action okay, completed
	StatusAuthRequired          = 530 // Authentication required
	StatusAuthTooWeak           = 534 // Authentication mechanism is too weak
	StatusAuthInvalid           = 535 // Authentication credentials invalid
	StatusEncryptionRequired    = 538 // Encryption required for requested authentication mechanism
	StatusMailboxUnavailable    = 550 // Requested action not taken: mailbox unavailable
	StatusUserNotLocal          = 551 // User not local
	StatusMailboxNameNotAllowed = 553 // Requested action not taken: mailbox name not allowed
)

// Driver sends messages to mailto URLs. Its zero value sends through
// localhost:25 as the current user at this host.
//
// The message comes from, in this order: the URL's body field (RFC 6068
// section 2; the driver then writes the header block), the file BodyFile,
// the Request's Input, or else nothing (an empty body). A message read
// from a file or the Input that starts with a header block (see below) is
// sent as it is, with only the Date and Message-ID fields it lacks added;
// any other message gets a header block written by the driver: From, To,
// Cc, Subject, the URL's In-Reply-To, References, Keywords and Comments
// fields, Date, Message-ID, MIME-Version and a text/plain; charset=utf-8
// Content-Type. Other fields of the URL are ignored, with a note in the
// trace (RFC 6068 section 6: they may not be safe to send).
//
// A message has its own header block when every line before its first
// empty line is a header field "Name: value" or the continuation of one.
// The block is read into memory up to MaxHeader bytes; the body is
// streamed. Lines go to the server with CRLF ends and dot-stuffed (RFC
// 5321 section 4.5.2).
//
// The envelope's recipients are the URL's addresses, those of its to, cc
// and bcc fields (bcc goes into no header). The server's replies come back
// with the server's own words: a refused command as a *ReplyError,
// refused recipients as a *RecipientError. When some recipients are
// refused and others accepted, the message is sent to those accepted and
// Fetch returns the *RecipientError that says so.
type Driver struct {
	// Server is the SMTP server, host:port (default DefaultServer; the
	// port defaults to 25).
	Server string
	// From is the sender, in the envelope and the From field: an
	// addr-spec, or a name and one ("Ann <ann@example.org>"). The default
	// is the current user at this host.
	From string
	// Subject, if set, is the Subject of a message whose header the
	// driver writes, in place of the URL's.
	Subject string
	// BodyFile, if set, is a file holding the message, read in place of
	// the Request's Input (for the fetch command's --body).
	BodyFile string
	// Username and Password log in with AUTH PLAIN (or LOGIN) when set. An
	// empty Password is looked up in netrc for the server's host, then
	// asked for with the Client's Prompt. The password is sent only over
	// TLS or to a server on a loopback address.
	Username string
	Password string
	// LocalName is the name the client gives in EHLO (default: this
	// host's name).
	LocalName string
}

var _ fetch.Driver = (*Driver)(nil)

// ReplyError is the SMTP server's refusal of one command, with its reply.
// Its Command is the command refused, without its parameters ("MAIL
// FROM:<a@x>", "RCPT TO:<b@y>", "DATA"), "end of data" for the reply to
// the message, or "" for the server's greeting; its Msg starts with the
// enhanced status code when there is one. errors.As finds it, and through
// it the *smtp.SMTPError of go-smtp.
type ReplyError = fetch.ReplyError

// newReplyError is the ReplyError of go-smtp's se in answer to command.
func newReplyError(command string, se *smtp.SMTPError) *ReplyError {
	msg := oneLine(se.Message)
	if c := se.EnhancedCode; c[0] > 0 {
		msg = strings.TrimSpace(fmt.Sprintf("%d.%d.%d %s", c[0], c[1], c[2], msg))
	}
	return &ReplyError{Command: command, Code: se.Code, Msg: msg, Transient: se.Temporary(), Err: se}
}

// commandName names the command of a reply in a message.
func commandName(e *ReplyError) string {
	if e.Command == "" {
		return "greeting"
	}
	return e.Command
}

// replyKind is the fetch error kind of a refusal: policy and
// authentication (X.7.X, 530, 535, ...) is ErrAuth; a recipient's mailbox
// that does not exist (5.1.X, or 550, 551, 553 without an enhanced code)
// ErrNotFound; a server that refuses to talk at all ErrConnect. Others
// have no kind.
func replyKind(e *ReplyError) error {
	var enhanced smtp.EnhancedCode
	if se, ok := e.Err.(*smtp.SMTPError); ok {
		enhanced = se.EnhancedCode
	}
	subject := enhanced[1]
	if enhanced[0] <= 0 {
		subject = -1
	}
	switch {
	case e.Command == "":
		return fetch.ErrConnect
	case e.Code/100 != 5:
		return nil
	case subject == 7, e.Code == StatusAuthRequired, e.Code == StatusAuthTooWeak, e.Code == StatusAuthInvalid, e.Code == StatusEncryptionRequired:
		return fetch.ErrAuth
	case strings.HasPrefix(e.Command, "RCPT") && (subject == 1 ||
		subject == -1 && (e.Code == StatusMailboxUnavailable || e.Code == StatusUserNotLocal || e.Code == StatusMailboxNameNotAllowed)):
		return fetch.ErrNotFound
	}
	return nil
}

// RecipientError reports the recipients the server refused. If it
// accepted others, the message went to them: Accepted lists them and
// Reply is the server's reply to the message.
type RecipientError struct {
	Refused  []*ReplyError
	Accepted []string
	Reply    string
}

func (e *RecipientError) Error() string {
	var b strings.Builder
	if len(e.Accepted) > 0 {
		fmt.Fprintf(&b, "mailto: sent to %s (%s), but refused ", strings.Join(e.Accepted, ", "), e.Reply)
	} else {
		b.WriteString("mailto: not sent, every recipient refused: ")
	}
	for i, r := range e.Refused {
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(commandName(r) + ": " + r.Error())
	}
	return b.String()
}

func (e *RecipientError) Unwrap() []error {
	errs := make([]error, len(e.Refused))
	for i, r := range e.Refused {
		errs[i] = r
	}
	return errs
}

// withKind gives err the kind of its first refusal.
func withKind(err error, first *ReplyError) error {
	if k := replyKind(first); k != nil {
		return fetch.Errorf(k, "%w", err)
	}
	return err
}

// urlFields are the header fields of a URL (RFC 6068 section 2) that the
// driver uses; "to" the uri package has merged into the addresses.
var urlFields = map[string]bool{
	"subject": true, "cc": true, "bcc": true, "body": true,
	"in-reply-to": true, "references": true, "keywords": true, "comments": true,
}

// envelope is what the URL and the settings say about the message to send.
type envelope struct {
	from   *mail.Address
	rcpts  []string     // envelope recipients: to, cc and bcc
	header headerFields // the header block for a message without one
	body   *string      // the URL's body field
	utf8   bool         // an address is not ASCII
	host   string       // this host, for the Message-ID
}

// Fetch sends the message to req.URL's addresses and returns a Response
// of Kind Sent whose Body is the server's final reply ("250 2.0.0 Ok:
// queued as 4Xy1"). Meta holds it as "Reply", with "Queue-Id" when the
// reply names one, "Message-Id", "Server", "Envelope-From", one
// "Recipient" per accepted address, and "Tls" (the version) when STARTTLS
// ran.
//
// Before connecting, every address and header value from the URL is
// checked: a decoded CR, LF or NUL is ErrUnsafe, an address that is no
// RFC 5322 addr-spec an *AddressError of kind ErrURL. If the server
// refuses a command, the error wraps a *ReplyError; if it refuses
// recipients, a *RecipientError (and the message went to the others).
// Their kinds: ErrNotFound for an unknown mailbox (5.1.x), ErrAuth for a
// policy or login refusal (5.7.x, 530, 535), ErrConnect for a greeting
// that refuses service.
func (d *Driver) Fetch(ctx context.Context, req *fetch.Request) (*fetch.Response, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if req.Head {
		// A Head request (fetch.Request.Head) asks for metadata: a
		// mailto URL names no resource to describe, only a message to
		// send, and nothing is sent for it.
		return nil, fetch.Errorf(fetch.ErrUnsupported, "mailto: a mailto URL has no metadata to ask for: it sends a message")
	}
	env, err := d.envelope(req)
	if err != nil {
		return nil, err
	}
	msg, err := d.message(ctx, req, env)
	if err != nil {
		return nil, err
	}
	defer msg.close()
	s, err := d.dial(ctx, req)
	if err != nil {
		return nil, err
	}
	defer s.close()
	return s.send(ctx, env, msg)
}

// envelope reads the URL and the settings, checking every value.
func (d *Driver) envelope(req *fetch.Request) (*envelope, error) {
	m, err := req.URL.Mailto()
	if err != nil {
		return nil, fetch.Errorf(fetch.ErrURL, "mailto: %w", err)
	}
	// RFC 1738 section 6: first the check that keeps line breaks out of
	// the protocol and the header, for every value, then the syntax.
	if err := checkLines(m, d); err != nil {
		return nil, fmt.Errorf("mailto: %w", err)
	}

	e := &envelope{host: hostname()}
	e.header.To = m.To
	var bcc []string
	for _, f := range m.Fields {
		name := strings.ToLower(f.Name)
		switch name {
		case "cc":
			e.header.Cc = append(e.header.Cc, splitAddrs(f.Value)...)
		case "bcc":
			bcc = append(bcc, splitAddrs(f.Value)...)
		case "subject":
			if e.header.Subject == "" {
				e.header.Subject = f.Value
			}
		case "body":
			if e.body == nil {
				e.body = &f.Value
			}
		case "in-reply-to", "references", "keywords", "comments":
			e.header.Extra = append(e.header.Extra, field{textproto.CanonicalMIMEHeaderKey(name), f.Value})
		}
	}
	for _, list := range [][]string{e.header.To, e.header.Cc, bcc} {
		for _, a := range list {
			if err := CheckAddrSpec(a); err != nil {
				return nil, fetch.Errorf(fetch.ErrURL, "%w", err)
			}
			if !contains(e.rcpts, a) {
				e.rcpts = append(e.rcpts, a)
			}
			e.utf8 = e.utf8 || !isASCII(a)
		}
	}
	if d.Subject != "" {
		e.header.Subject = d.Subject
	}
	if e.from, err = d.sender(e.host); err != nil {
		return nil, err
	}
	e.header.From = e.from
	e.utf8 = e.utf8 || !isASCII(e.from.Address)
	for _, f := range m.Fields {
		if !urlFields[strings.ToLower(f.Name)] {
			req.Tracef(fetch.Note, "ignoring the URL's %q field: only subject, cc, bcc, body, in-reply-to, references, keywords and comments are sent (RFC 6068 section 6)", f.Name)
		}
	}
	return e, nil
}

// checkLines refuses a decoded CR, LF or NUL in an address or a header
// field of the URL, and in the settings that go into the header.
func checkLines(m *uri.Mailto, d *Driver) error {
	for _, a := range m.To {
		if err := fetch.CheckLine("address", a); err != nil {
			return err
		}
	}
	for _, f := range m.Fields {
		if err := fetch.CheckLine("header field name", f.Name); err != nil {
			return err
		}
		// RFC 6068 section 2: the body's lines end in %0D%0A. A NUL has
		// no place in a message body (RFC 5322 section 3.5: its text is
		// %d1-127 less CR and LF).
		if strings.EqualFold(f.Name, "body") {
			if i := strings.IndexByte(f.Value, 0); i >= 0 {
				return fetch.Errorf(fetch.ErrUnsafe, "body field contains a decoded NUL at byte %d; refusing to send it in a message", i)
			}
		} else if err := fetch.CheckLine(strings.ToLower(f.Name)+" field", f.Value); err != nil {
			return err
		}
	}
	for _, s := range []struct{ what, v string }{{"From setting", d.From}, {"Subject setting", d.Subject}, {"LocalName setting", d.LocalName}} {
		if err := fetch.CheckLine(s.what, s.v); err != nil {
			return err
		}
	}
	return nil
}

// splitAddrs splits a to, cc or bcc field's address list.
func splitAddrs(v string) []string {
	var out []string
	for _, a := range strings.Split(v, ",") {
		if a = strings.TrimSpace(a); a != "" {
			out = append(out, a)
		}
	}
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// sender returns the From setting or, without one, the user at this host.
func (d *Driver) sender(host string) (*mail.Address, error) {
	if d.From != "" {
		a, err := ParseFrom(d.From)
		if err != nil {
			return nil, fmt.Errorf("mailto: From setting: %w", err)
		}
		return a, nil
	}
	name := os.Getenv("USER")
	if u, err := user.Current(); err == nil {
		name = u.Username
	}
	a, err := ParseFrom(name + "@" + host)
	if err != nil {
		return nil, fmt.Errorf("mailto: no sender (set From, --from): the user at this host will not do: %w", err)
	}
	return a, nil
}

// hostname is this host's name, or "localhost" when it has none that
// can stand in an address.
func hostname() string {
	h, err := os.Hostname()
	if err != nil || dotAtomProblem(h, "host") != "" {
		return "localhost"
	}
	return h
}

func (d *Driver) localName() string {
	if d.LocalName != "" {
		return d.LocalName
	}
	return hostname()
}

// message is the message to send: its start, read and checked, and the
// rest, streamed.
type message struct {
	head   *head
	rest   io.Reader
	closer io.Closer
}

func (m *message) close() {
	if m.closer != nil {
		m.closer.Close()
	}
}

// message opens the message's source and reads its start.
func (d *Driver) message(ctx context.Context, req *fetch.Request, e *envelope) (*message, error) {
	if e.body != nil {
		if d.BodyFile != "" {
			req.Tracef(fetch.Note, "the URL has a body: not sending %s", d.BodyFile)
		}
		return &message{head: &head{raw: []byte(*e.body)}, rest: strings.NewReader("")}, nil
	}
	m := &message{}
	var src io.Reader = strings.NewReader("")
	switch {
	case d.BodyFile != "":
		f, err := os.Open(d.BodyFile)
		if err != nil {
			return nil, fmt.Errorf("mailto: the message: %w", err)
		}
		src, m.closer = f, f
	case req.Input != nil:
		src = req.Input
	}
	br := bufio.NewReader(&ctxReader{ctx: ctx, r: src})
	h, err := readHead(br)
	if err != nil {
		m.close()
		return nil, fmt.Errorf("mailto: reading the message: %w", err)
	}
	m.head, m.rest = h, br
	return m, nil
}

// stream returns the whole message as it goes to the server, and its
// Message-ID.
func (m *message) stream(e *envelope, now time.Time) (io.Reader, string) {
	id := newMessageID(now, e.host)
	var start []byte
	if m.head.hasHeader() {
		start = append(start, m.head.raw...)
		start = append(start, m.head.additions(now, id)...)
		start = append(start, m.head.blank...)
		if m.head.messageID != "" {
			id = m.head.messageID
		}
	} else {
		h := e.header
		h.Date, h.MessageID = now, id
		start = append(h.format(), m.head.raw...)
	}
	return io.MultiReader(bytes.NewReader(start), m.rest), id
}

// session is one SMTP connection.
type session struct {
	req  *fetch.Request
	addr string
	conn *traceConn
	c    *smtp.Client
	tls  *tls.ConnectionState
	// broken: the connection cannot take a QUIT (an I/O error, a message
	// cut off in DATA); done: it is closed.
	broken, done bool
}

// dial connects to the server through the Client's dial path, then greets
// it, starts TLS when offered (or fails when TLS is required and not to
// be had) and logs in when the Driver has a user.
func (d *Driver) dial(ctx context.Context, req *fetch.Request) (*session, error) {
	server := d.Server
	if server == "" {
		server = DefaultServer
	}
	host, port, err := fetch.SplitAddr(server, 25)
	if err != nil {
		return nil, fmt.Errorf("mailto: SMTP server: %w", err)
	}
	addr := net.JoinHostPort(host, strconv.Itoa(port))
	// RFC 1738 section 6: the server setting may not aim SMTP at another
	// protocol's port unless allowed (SMTP's own are fetch.BadPort's
	// exceptions for mailto).
	nc, err := req.DialAddr(ctx, "mailto", addr)
	if err != nil {
		return nil, fmt.Errorf("mailto: SMTP server: %w", err)
	}
	s := &session{req: req, addr: addr, conn: newTraceConn(nc, req)}
	s.c = smtp.NewClient(s.conn)
	name := d.localName()
	if err := s.c.Hello(name); err != nil {
		s.close()
		if !s.conn.wrote {
			return nil, s.fail("", err)
		}
		return nil, s.fail("EHLO "+name, err)
	}
	if err := s.startTLS(ctx, host, name); err != nil {
		s.close()
		return nil, err
	}
	if d.Username != "" {
		if err := s.auth(ctx, d, host); err != nil {
			s.close()
			return nil, err
		}
	}
	return s, nil
}

// startTLS runs STARTTLS (RFC 3207) when the server offers it, with the
// Client's TLS settings (Request.StartTLS: the certificate is checked
// against host, and a failure is the *fetch.CertificateError or ErrTLS it
// returns). go-smtp starts TLS only on a client it creates for the
// purpose, which first reads a greeting; here the server has greeted
// already and offered STARTTLS in its EHLO reply, so the command is sent
// on the connection, TLS started under the trace, and a new go-smtp client
// made on the TLS connection with the greeting it expects replayed to it
// (never sent, never traced), after which it says EHLO again as RFC 3207
// section 4.2 requires. A server that does not offer STARTTLS, or refuses
// it (454), is used without TLS, unless the Client's TLSUpgrade is
// fetch.UpgradeRequire: then it is an ErrTLS, before AUTH and before any
// part of the message is sent.
func (s *session) startTLS(ctx context.Context, host, name string) error {
	required := s.req.TLSUpgrade() == fetch.UpgradeRequire
	if ok, _ := s.c.Extension("STARTTLS"); !ok {
		if required {
			return fetch.Errorf(fetch.ErrTLS, "mailto: %s does not offer STARTTLS, and TLS is required", s.addr)
		}
		return nil
	}
	if _, err := io.WriteString(s.conn, "STARTTLS\r\n"); err != nil {
		return s.fail("STARTTLS", err)
	}
	// One byte at a time: the bytes after the reply belong to TLS.
	r := textproto.NewReader(bufio.NewReaderSize(oneByteReader{s.conn}, 16))
	code, msg, err := r.ReadResponse(StatusReady)
	if err != nil {
		var te *textproto.Error
		if !errors.As(err, &te) {
			return s.fail("STARTTLS", err)
		}
		if required {
			re := &ReplyError{Command: "STARTTLS", Code: code, Msg: oneLine(msg), Transient: code/100 == 4}
			return fetch.Errorf(fetch.ErrTLS, "mailto: %s refused STARTTLS, and TLS is required: %w", s.addr, re)
		}
		s.req.Tracef(fetch.Note, "STARTTLS refused (%d %s): going on without TLS", code, oneLine(msg))
		return nil
	}
	tc, err := s.req.StartTLS(ctx, s.conn.Conn, host, nil)
	if err != nil {
		s.broken = true
		if ctx.Err() != nil {
			return err // the context's own error, as StartTLS returns it
		}
		return fmt.Errorf("mailto: %s: STARTTLS: %w", s.addr, err)
	}
	st := tc.ConnectionState()
	s.tls = &st
	s.conn = newTraceConn(tc, s.req)
	s.c = smtp.NewClient(&greeted{Conn: s.conn, pending: []byte(strconv.Itoa(StatusReady) + " TLS started\r\n")})
	if err := s.c.Hello(name); err != nil {
		return s.fail("EHLO "+name, err)
	}
	return nil
}

// oneByteReader reads one byte at a time, so that a bufio.Reader on it
// never reads past the line it is asked for.
type oneByteReader struct{ r io.Reader }

func (o oneByteReader) Read(p []byte) (int, error) {
	if len(p) > 1 {
		p = p[:1]
	}
	return o.r.Read(p)
}

// greeted is a connection on which go-smtp reads, first, a greeting that
// was given earlier in the session.
type greeted struct {
	net.Conn
	pending []byte
}

func (g *greeted) Read(p []byte) (int, error) {
	if len(g.pending) > 0 {
		n := copy(p, g.pending)
		g.pending = g.pending[n:]
		return n, nil
	}
	return g.Conn.Read(p)
}

// auth logs in with AUTH (RFC 4954), PLAIN if offered, else LOGIN. The
// password is sent only over TLS or to a loopback address.
func (s *session) auth(ctx context.Context, d *Driver, host string) error {
	if s.tls == nil && !isLoopback(s.conn.RemoteAddr()) {
		return fetch.Errorf(fetch.ErrUnsafe, "mailto: %s offers no STARTTLS: refusing to send the password of %s in the clear", s.addr, d.Username)
	}
	ok, mechs := s.c.Extension("AUTH")
	if !ok {
		return fetch.Errorf(fetch.ErrAuth, "mailto: %s offers no AUTH, cannot log in as %s", s.addr, d.Username)
	}
	password := d.Password
	if password == "" {
		p, err := s.req.Password(ctx, host, d.Username)
		if err != nil {
			return err
		}
		password = p
	}
	s.req.AddSecret(password)
	var mech sasl.Client
	cmd := "AUTH PLAIN"
	switch {
	case s.c.SupportsAuth("PLAIN"):
		mech = sasl.NewPlainClient("", d.Username, password)
	case s.c.SupportsAuth("LOGIN"):
		mech, cmd = sasl.NewLoginClient(d.Username, password), "AUTH LOGIN"
	default:
		return fetch.Errorf(fetch.ErrAuth, "mailto: %s offers AUTH %s, and neither PLAIN nor LOGIN", s.addr, mechs)
	}
	s.conn.setMode(modeAuth)
	err := s.c.Auth(mech)
	s.conn.setMode(modeCommands)
	if err != nil {
		return s.fail(cmd, err)
	}
	return nil
}

func isLoopback(a net.Addr) bool {
	ta, ok := a.(*net.TCPAddr)
	return ok && ta.IP.IsLoopback()
}

// send runs one mail transaction: MAIL, RCPT for each recipient, DATA.
func (s *session) send(ctx context.Context, e *envelope, m *message) (*fetch.Response, error) {
	if err := s.mailFrom(e, m); err != nil {
		return nil, err
	}
	accepted, refused, err := s.rcptTo(e.rcpts)
	if err != nil {
		return nil, err
	}
	if len(accepted) == 0 {
		return nil, withKind(&RecipientError{Refused: refused}, refused[0])
	}
	reply, id, err := s.data(ctx, e, m)
	if err != nil {
		return nil, err
	}
	s.close()
	if len(refused) > 0 {
		return nil, withKind(&RecipientError{Refused: refused, Accepted: accepted, Reply: reply}, refused[0])
	}
	return s.response(ctx, e, accepted, reply, id), nil
}

// mailFrom starts the transaction with MAIL FROM, with SMTPUTF8 (RFC
// 6531) when an address or the header is not ASCII and the server offers
// it. A header goes without it to a server that lacks it; an address
// cannot.
func (s *session) mailFrom(e *envelope, m *message) error {
	opts := &smtp.MailOptions{}
	if e.utf8 || m.head.nonASCII {
		if ok, _ := s.c.Extension("SMTPUTF8"); ok {
			opts.UTF8 = true
		} else if e.utf8 {
			return fetch.Errorf(fetch.ErrUnsupported, "mailto: %s does not offer SMTPUTF8, which a non-ASCII address needs (RFC 6531)", s.addr)
		}
	}
	if err := s.c.Mail(e.from.Address, opts); err != nil {
		return s.fail("MAIL FROM:<"+e.from.Address+">", err)
	}
	return nil
}

// rcptTo sends RCPT TO for each recipient. A refusal does not end the
// transaction: the message goes to the recipients the server accepts, and
// the refusals are reported after it.
func (s *session) rcptTo(rcpts []string) (accepted []string, refused []*ReplyError, err error) {
	for _, rcpt := range rcpts {
		cmd := "RCPT TO:<" + rcpt + ">"
		if err := s.c.Rcpt(rcpt, nil); err != nil {
			var se *smtp.SMTPError
			if !errors.As(err, &se) {
				return nil, nil, s.fail(cmd, err)
			}
			refused = append(refused, newReplyError(cmd, se))
			continue
		}
		accepted = append(accepted, rcpt)
	}
	return accepted, refused, nil
}

// data sends DATA, then the message and its end, and returns the final
// reply and the message's Message-ID.
func (s *session) data(ctx context.Context, e *envelope, m *message) (reply, id string, err error) {
	w, err := s.c.Data()
	if err != nil {
		return "", "", s.fail("DATA", err)
	}
	body, id := m.stream(e, time.Now())
	s.conn.setMode(modeData)
	if _, err := io.Copy(w, newBareCRReader(body)); err != nil {
		// No final "." goes out: the server drops the connection and
		// the partial message with it.
		s.broken = true
		if ctx.Err() != nil {
			return "", "", ctx.Err()
		}
		return "", "", fmt.Errorf("mailto: sending the message: %w", err)
	}
	dr, err := w.CloseWithResponse()
	s.conn.setMode(modeCommands)
	if err != nil {
		return "", "", s.fail("end of data", err)
	}
	reply = strconv.Itoa(StatusOK) + " " + oneLine(dr.StatusText) // CloseWithResponse takes no other code
	return reply, id, nil
}

// response is the Response of a message sent to every recipient: the
// final reply as its Body, and in Meta what the transaction settled.
func (s *session) response(ctx context.Context, e *envelope, accepted []string, reply, id string) *fetch.Response {
	meta := fetch.Meta{}
	meta.Set("Reply", reply)
	if q := queueID(reply); q != "" {
		meta.Set("Queue-Id", q)
	}
	meta.Set("Message-Id", id)
	meta.Set("Server", s.addr)
	meta.Set("Envelope-From", e.from.Address)
	for _, a := range accepted {
		meta.Add("Recipient", a)
	}
	if s.tls != nil {
		meta.Set("Tls", tls.VersionName(s.tls.Version))
	}
	return &fetch.Response{
		URL:    s.req.URL,
		Kind:   fetch.Sent,
		Type:   "text/plain",
		Length: int64(len(reply)),
		Meta:   meta,
		Body:   fetch.NewBody(ctx, strings.NewReader(reply), fetch.BodyFuncs{}),
	}
}

// fail turns an error of command cmd into the error Fetch returns: a
// refusal into a *ReplyError with its kind; a malformed reply or an early
// close into ErrProtocol; timeouts and cancellation keep their kind.
func (s *session) fail(cmd string, err error) error {
	var se *smtp.SMTPError
	if errors.As(err, &se) {
		re := newReplyError(cmd, se)
		if k := replyKind(re); k != nil {
			return fetch.Errorf(k, "mailto: %s: %s: %w", s.addr, commandName(re), re)
		}
		return fmt.Errorf("mailto: %s: %s: %w", s.addr, commandName(re), re)
	}
	s.broken = true
	if cmd == "" {
		cmd = "greeting"
	}
	var pe textproto.ProtocolError
	switch {
	case fetch.Class(err) != nil:
		return fmt.Errorf("mailto: %s: %s: %w", s.addr, cmd, err)
	case errors.As(err, &pe), errors.Is(err, smtp.ErrTooLongLine):
		return fetch.Errorf(fetch.ErrProtocol, "mailto: %s: %s: bad reply: %w", s.addr, cmd, err)
	case fetch.ConnBroken(err):
		return fetch.Errorf(fetch.ErrConnect, "mailto: %s: %s: the server closed the connection (%w)", s.addr, cmd, err)
	}
	return fmt.Errorf("mailto: %s: %s: %w", s.addr, cmd, err)
}

// close ends the session: with QUIT while the connection is sound, else
// by closing it (which, in the middle of DATA, discards the message).
// Partial lines left in the trace are flushed. It may be called twice.
func (s *session) close() {
	if !s.done && !s.broken && s.c.Quit() == nil {
		s.done = true
	}
	if !s.done {
		s.c.Close()
		s.done = true
	}
	s.conn.flush()
}

// queuedAs finds the queue id in a final reply: postfix's "queued as ID",
// exim's "id=ID".
var queuedAs = regexp.MustCompile(`(?:queued as |\bid=)([0-9A-Za-z._-]+)`)

func queueID(reply string) string {
	if m := queuedAs.FindStringSubmatch(reply); m != nil {
		return m[1]
	}
	return ""
}

// oneLine joins the lines of a multi-line reply.
func oneLine(s string) string {
	return strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ").Replace(strings.TrimSpace(s))
}
