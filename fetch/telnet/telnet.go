// Package telnet implements the telnet scheme of RFC 1738 section 3.8:
// telnet://user:password@host:port/ designates an interactive service
// reached with the Telnet protocol (RFC 854), not a data object. Fetch
// connects (port 23 by default) and returns a Session, the connection
// with the protocol's commands taken out of what is read and option
// negotiation (RFC 855) answered: ECHO and SUPPRESS-GO-AHEAD from the
// server, and on the client's side TERMINAL-TYPE (RFC 1091) and NAWS
// (RFC 1073) when the Driver knows the terminal. Every other option is
// refused.
//
// The user and password in the URL are advisory (section 3.8). With
// Driver.Login the driver logs in for the user: it waits for the
// server's login prompt, sends the user, then the password at the
// password prompt. The password is never traced, and its echo by a
// careless server is left out of the session's text.
//
// The rlogin and tn3270 URLs of RFC 1630 designate sessions too, over
// protocols this package does not speak: Fetch returns a *HandoffError
// that names the program that does (rlogin; c3270 or x3270) and its
// arguments.
package telnet

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"regexp"
	"strconv"
	"strings"

	"github.com/urlfetch/urlfetch/fetch"
	"github.com/urlfetch/urlfetch/uri"
)

// Default prompt patterns, matched against the last line the server has
// sent so far (the text after its last line feed): the "login: ",
// "host login: ", "Username: " and "Password: " of common systems.
const (
	DefaultLoginPrompt    = `(?i)(?:^|\s)(?:login|user ?name|user)\s*:\s*$`
	DefaultPasswordPrompt = `(?i)(?:^|\s)pass(?:word|code|phrase)?\b[^:]*:\s*$`
)

var (
	defaultLoginPrompt    = regexp.MustCompile(DefaultLoginPrompt)
	defaultPasswordPrompt = regexp.MustCompile(DefaultPasswordPrompt)
)

// maxLoginOutput bounds what the login reads while it waits for a
// prompt, output and commands: a server that talks or negotiates on
// without asking fails the login.
const maxLoginOutput = 1 << 20

// Driver opens telnet sessions. Its zero value is ready to use: it opens
// the session and logs in to nothing. The same Driver answers rlogin and
// tn3270 URLs with a *HandoffError.
type Driver struct {
	// Login makes Fetch log in with the URL's user and password before
	// it returns the session. A URL without a user is opened as it is.
	// Without a password in the URL or in netrc, Fetch returns the
	// session once the user is sent: the server's password prompt is the
	// caller's to answer.
	Login bool
	// LoginPrompt and PasswordPrompt recognise the server's prompts;
	// nil means DefaultLoginPrompt and DefaultPasswordPrompt.
	LoginPrompt    *regexp.Regexp
	PasswordPrompt *regexp.Regexp
	// Term is the terminal type sent when the server asks (RFC 1091);
	// "" refuses the option.
	Term string
	// WindowSize reports the terminal's size in characters, sent when the
	// server asks (RFC 1073); nil, or ok false, refuses the option.
	WindowSize func() (width, height int, ok bool)
}

var _ fetch.Driver = (*Driver)(nil)

// Fetch opens the session that req.URL designates and returns it as a
// Response of Kind Session whose Body and Conn are the *Session. The
// caller must close the Body, which closes the session. Fetch does not
// read req.Input: what the session is to receive, the caller writes to
// the Conn.
//
// If the server never shows a prompt the login waits for, Fetch fails
// when the Client's idle timeout expires. A server that closes before its
// login prompt is not an error: the session, with what the server said,
// is returned as it is.
func (d *Driver) Fetch(ctx context.Context, req *fetch.Request) (*fetch.Response, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if req.Head {
		// A Head request (fetch.Request.Head) asks for metadata: a
		// session has none to ask for, and no connection is made.
		return nil, fetch.Errorf(fetch.ErrUnsupported, "telnet: a %s URL has no metadata to ask for: it opens an interactive session", req.URL.Scheme)
	}
	t, err := req.URL.Telnet()
	if err != nil {
		return nil, fetch.Errorf(fetch.ErrURL, "telnet: %w", err)
	}
	if t.Scheme != "telnet" {
		return nil, handoff(t)
	}
	if t.Host == "" {
		return nil, fetch.Errorf(fetch.ErrURL, "telnet: the URL names no host")
	}
	var user, password string
	var hasPassword bool
	if d.Login && t.HasUser && t.User != "" {
		user = t.User
		if err := fetch.CheckLine("telnet user", user); err != nil {
			return nil, err
		}
		password, hasPassword = t.Password, t.HasPassword
		if !hasPassword {
			login, pw, ok, err := req.NetrcLogin(t.Host, user)
			if err != nil {
				return nil, fetch.Errorf(fetch.ErrAuth, "telnet: reading netrc: %w", err)
			}
			if ok && pw != "" && (login == "" || login == user) {
				password, hasPassword = pw, true
			}
		}
		req.AddSecret(password)
		if hasPassword {
			if err := fetch.CheckLine("telnet password", password); err != nil {
				return nil, err
			}
		}
	}
	size := d.WindowSize
	if d.Term != "" && !validTerm(d.Term) {
		req.Tracef(fetch.Note, "terminal type %q is not printable ASCII of at most 40 characters; not offered", d.Term)
	}
	conn, err := req.Dial(ctx)
	if err != nil {
		return nil, err
	}
	inlineUrgent(conn.Conn)
	term := d.Term
	if !validTerm(term) {
		term = ""
	}
	s := newSession(conn, req, term, size)
	if user != "" {
		if err := d.login(ctx, req, s, user, password, hasPassword); err != nil {
			s.Close()
			return nil, err
		}
	}
	return &fetch.Response{
		URL:    req.URL,
		Kind:   fetch.Session,
		Length: -1,
		Body:   fetch.NewBody(ctx, s, fetch.BodyFuncs{Close: func(bool) error { return s.Close() }}),
		Conn:   s,
	}, nil
}

// validTerm reports whether name can go in a TERMINAL-TYPE reply: RFC
// 1091 allows printable ASCII, at most 40 characters.
func validTerm(name string) bool {
	if name == "" || len(name) > 40 {
		return false
	}
	for i := 0; i < len(name); i++ {
		if name[i] <= ' ' || name[i] > '~' {
			return false
		}
	}
	return true
}

// login answers the server's login prompt with user and its password
// prompt with password.
func (d *Driver) login(ctx context.Context, req *fetch.Request, s *Session, user, password string, hasPassword bool) error {
	loginRE, passwordRE := d.LoginPrompt, d.PasswordPrompt
	if loginRE == nil {
		loginRE = defaultLoginPrompt
	}
	if passwordRE == nil {
		passwordRE = defaultPasswordPrompt
	}
	w := &promptWaiter{s: s, req: req}
	seen, err := w.wait(ctx, loginRE, "login")
	if err != nil || !seen {
		return err
	}
	req.Trace(fetch.Out, user)
	if _, err := s.Write([]byte(user + "\r\n")); err != nil {
		return err
	}
	if !hasPassword {
		req.Tracef(fetch.Note, "no password in the URL or in netrc: the session goes on at the server's password prompt")
		return nil
	}
	seen, err = w.wait(ctx, passwordRE, "password")
	if err != nil || !seen {
		return err
	}
	// The echo of a server that turns its echo off only after printing
	// the prompt is dropped from the session's text.
	s.expectEcho(password)
	req.Trace(fetch.Out, "***")
	_, err = s.Write([]byte(password + "\r\n"))
	return err
}

// promptWaiter reads the session's output during the login, keeping it
// for the session's reader, until a prompt shows.
type promptWaiter struct {
	s    *Session
	req  *fetch.Request
	line []byte // the output since the last line feed
	kept int
	buf  [4096]byte
}

// wait reads until the last line of output matches re. It reports false
// if the server closed first.
func (w *promptWaiter) wait(ctx context.Context, re *regexp.Regexp, what string) (bool, error) {
	for {
		if re.Match(w.line) {
			w.req.Tracef(fetch.In, "%s", printable(w.line))
			w.line = w.line[:0]
			return true, nil
		}
		got, err := w.s.readLogin(w.buf[:])
		if i := bytes.LastIndexByte(got, '\n'); i >= 0 {
			w.line = append(w.line[:0], got[i+1:]...)
		} else {
			w.line = append(w.line, got...)
		}
		if len(w.line) > 4096 {
			w.line = w.line[len(w.line)-4096:]
		}
		w.kept += len(got)
		switch {
		case err != nil && ctx.Err() != nil:
			return false, ctx.Err()
		case errors.Is(err, fetch.ErrTimeout):
			return false, fetch.Errorf(fetch.ErrTimeout, "telnet: no %s prompt matching %s came; the server's last line was %q: %w", what, re, printable(w.line), err)
		case errors.Is(err, io.EOF):
			w.req.Tracef(fetch.Note, "the server closed the session before a %s prompt", what)
			return false, nil
		case err != nil && !errors.Is(err, errLimit):
			return false, err
		case errors.Is(err, errLimit), w.kept > maxLoginOutput:
			return false, fetch.Errorf(fetch.ErrProtocol, "telnet: no %s prompt matching %s in the first %d bytes the server sent", what, re, maxLoginOutput)
		}
	}
}

// printable shows a line of output in a trace or an error: control bytes
// escaped, at most 200 bytes.
func printable(b []byte) string {
	if len(b) > 200 {
		b = b[len(b)-200:]
	}
	var sb strings.Builder
	for _, c := range b {
		switch {
		case c == '\r', c == 0:
		case c < ' ' || c > '~':
			fmt.Fprintf(&sb, "\\x%02X", c)
		default:
			sb.WriteByte(c)
		}
	}
	return sb.String()
}

// A HandoffError is what Fetch returns for an rlogin or tn3270 URL (RFC
// 1630): a session over a protocol this package does not speak, which an
// installed program must run on the user's terminal. It wraps
// fetch.ErrUnsupported. The URL's password is not passed on: rlogin and
// tn3270 have no way to take one.
type HandoffError struct {
	Scheme string
	// Programs can run the session, in order of preference.
	Programs []string
	// Args are the arguments for any of the Programs: the user, the host
	// and the port of the URL.
	Args []string
}

func (e *HandoffError) Error() string {
	return fmt.Sprintf("%s: this client speaks no %s protocol; the session needs %s: %s %s",
		e.Scheme, e.Scheme, strings.Join(e.Programs, " or "), e.Programs[0], shellQuote(e.Args))
}

func (e *HandoffError) Unwrap() error { return fetch.ErrUnsupported }

// packages says where the Programs come from, for the error when none is
// installed.
var packages = map[string]string{
	"rlogin": "Debian: rsh-client or rsh-redone-client",
	"c3270":  "Debian: c3270",
	"x3270":  "Debian: x3270",
}

// Command returns the command that runs the session with the first of
// e.Programs found in $PATH. If none is installed, the error says which
// to install; it wraps fetch.ErrUnsupported.
func (e *HandoffError) Command(ctx context.Context) (*exec.Cmd, error) {
	var hints []string
	for _, p := range e.Programs {
		if path, err := exec.LookPath(p); err == nil {
			return exec.CommandContext(ctx, path, e.Args...), nil
		}
		hints = append(hints, p+" ("+packages[p]+")")
	}
	return nil, fetch.Errorf(fetch.ErrUnsupported, "%s: no %s client is installed: install %s, or run %s %s yourself",
		e.Scheme, e.Scheme, strings.Join(hints, " or "), e.Programs[0], shellQuote(e.Args))
}

// handoff builds the HandoffError of an rlogin or tn3270 URL, refusing
// values the program would read as options or send as more than one line.
func handoff(t *uri.Telnet) error {
	if t.Host == "" {
		return fetch.Errorf(fetch.ErrURL, "%s: the URL names no host", t.Scheme)
	}
	if strings.HasPrefix(t.Host, "-") {
		return fetch.Errorf(fetch.ErrUnsafe, "%s: host %q would be read as an option", t.Scheme, t.Host)
	}
	if t.HasUser && t.User != "" {
		if err := fetch.CheckLine(t.Scheme+" user", t.User); err != nil {
			return err
		}
		if strings.HasPrefix(t.User, "-") {
			return fetch.Errorf(fetch.ErrUnsafe, "%s: user %q would be read as an option", t.Scheme, t.User)
		}
	}
	user := ""
	if t.HasUser {
		user = t.User
	}
	// The program resolves the host itself: a name in Unicode goes to it
	// in A-labels (IDNA), as the dial path sends it.
	host, err := uri.ASCIIHost(t.Host)
	if err != nil {
		return fetch.Errorf(fetch.ErrURL, "%s: %w", t.Scheme, err)
	}
	if t.Scheme == "rlogin" {
		// rlogin [-l user] [-p port] host, in netkit's and rsh-redone's rlogin.
		var args []string
		if user != "" {
			args = append(args, "-l", user)
		}
		if t.Port != 0 && t.Port != uri.DefaultPort("rlogin") {
			args = append(args, "-p", strconv.Itoa(t.Port))
		}
		return &HandoffError{Scheme: t.Scheme, Programs: []string{"rlogin"}, Args: append(args, host)}
	}
	// c3270 and x3270: [-user name] host[:port], an IPv6 host in brackets.
	var args []string
	if user != "" {
		args = append(args, "-user", user)
	}
	if strings.IndexByte(host, ':') >= 0 {
		host = "[" + host + "]"
	}
	if t.Port != 0 && t.Port != uri.DefaultPort("tn3270") {
		host += ":" + strconv.Itoa(t.Port)
	}
	return &HandoffError{Scheme: t.Scheme, Programs: []string{"c3270", "x3270"}, Args: append(args, host)}
}

// shellQuote joins args as a shell would read them back.
func shellQuote(args []string) string {
	q := make([]string, len(args))
	for i, a := range args {
		if a != "" && strings.Trim(a, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_.:@/[]+,=") == "" {
			q[i] = a
		} else {
			q[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
	}
	return strings.Join(q, " ")
}
