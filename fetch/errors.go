package fetch

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strings"
	"syscall"
	"time"
)

// The classes of failure. Every error a Client returns (and every error a
// Body's Read returns) wraps at most one of them, or context.Canceled;
// errors.Is finds it, and Class returns it. The fetch command maps each
// to its own exit code.
var (
	// ErrNotFound: the resource does not exist (FTP 550, NNTP 430 and
	// 411, a Gopher error item, HTTP 404 and 410, a missing file).
	ErrNotFound = errors.New("fetch: not found")
	// ErrAuth: the server refused the credentials, or needs some that
	// could not be had (FTP 530, HTTP 401 and 403, no permission).
	ErrAuth = errors.New("fetch: not authorized")
	// ErrUnsupported: the URL asks for something this client cannot do:
	// an unknown scheme, a file on another host.
	ErrUnsupported = errors.New("fetch: unsupported")
	// ErrUnsafe: the URL was refused before any byte was sent: a port of
	// another protocol, a decoded CR, LF or NUL bound for a protocol line.
	ErrUnsafe = errors.New("fetch: unsafe")
	// ErrProtocol: the server broke its protocol: a reply that cannot be
	// parsed, more bytes than it announced, a reply that never ends.
	ErrProtocol = errors.New("fetch: protocol error")
	// ErrTimeout: a connect, idle or overall timeout expired; a
	// context's deadline too (the error also wraps
	// context.DeadlineExceeded).
	ErrTimeout = errors.New("fetch: timeout")
	// ErrConnect: the server could not be reached (refused, unreachable,
	// no such host), or the connection to it broke before the exchange
	// ended: closed or reset where more was due (ConnBroken), fewer
	// bytes than announced. A retry may help, and resumes what came in.
	ErrConnect = errors.New("fetch: cannot connect")
	// ErrURL: the URL does not follow the syntax of RFC 1738, or a part
	// of it is not what its scheme needs (an addr-spec). The error may
	// also wrap a *uri.Error with the offset of the problem.
	ErrURL = errors.New("fetch: invalid URL")
	// ErrTLS: TLS could not be set up: the server's certificate did not
	// verify (its issuer is not trusted, it names another host, it
	// expired; the error is then also a *CertificateError), the handshake
	// failed, or the server refused TLS that was required.
	ErrTLS = errors.New("fetch: TLS failed")
)

// classes are the classes of failure, in the order Class tries them.
var classes = []error{ErrURL, ErrNotFound, ErrAuth, ErrUnsupported, ErrUnsafe, ErrTLS, ErrProtocol, ErrTimeout, ErrConnect, context.Canceled}

// Class returns the class of failure err is: the first of ErrURL,
// ErrNotFound, ErrAuth, ErrUnsupported, ErrUnsafe, ErrTLS, ErrProtocol,
// ErrTimeout, ErrConnect and context.Canceled that errors.Is finds in it,
// or nil. It is exactly that: an error of a deadline is ErrTimeout because
// it wraps ErrTimeout (ContextError).
func Class(err error) error {
	for _, k := range classes {
		if errors.Is(err, k) {
			return k
		}
	}
	return nil
}

// ContextError returns the error of a fetch whose context is done, or
// nil: context.Canceled as it is, a passed deadline as an ErrTimeout that
// wraps context.DeadlineExceeded.
func ContextError(ctx context.Context) error {
	return contextError(ctx.Err())
}

func contextError(err error) error {
	if errors.Is(err, context.DeadlineExceeded) && !errors.Is(err, ErrTimeout) {
		return &kindError{kind: ErrTimeout, msg: "timed out", err: err}
	}
	return err
}

// ConnBroken reports whether err says the connection itself broke: the
// peer closed it where more was due (io.EOF, io.ErrUnexpectedEOF), reset
// it, or was gone when written to. This is the one rule of a broken
// connection; a driver that meets one returns an ErrConnect error that
// says what was under way.
func ConnBroken(err error) bool {
	return errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE) ||
		errors.Is(err, syscall.ECONNABORTED) || errors.Is(err, net.ErrClosed)
}

// Error is the error a Client returns: what it was doing, the URL (its
// password masked) and the cause.
type Error struct {
	Op  string // "fetch", "dial", ...
	URL string // masked: ftp://user:***@host/
	Err error
}

func (e *Error) Error() string {
	return e.Op + " " + e.URL + ": " + e.Err.Error()
}

func (e *Error) Unwrap() error { return e.Err }

// Timeout reports whether the error is a timeout, as net.Error does.
func (e *Error) Timeout() bool { return errors.Is(e.Err, ErrTimeout) }

// A TimeoutError is a wait on one connection that passed one of the
// Client's timeouts: connecting (ConnectTimeout) or a read or write that
// saw no progress (IdleTimeout). It is an ErrTimeout.
type TimeoutError struct {
	Wait  string // "connect" or "idle"
	Addr  string // host:port
	After time.Duration
	Err   error // the network's error
}

func (e *TimeoutError) Error() string {
	if e.Wait == "connect" {
		return fmt.Sprintf("could not connect to %s within %s", e.Addr, e.After)
	}
	return fmt.Sprintf("no data from %s for %s", e.Addr, e.After)
}

func (e *TimeoutError) Unwrap() []error { return []error{ErrTimeout, e.Err} }

// Timeout reports true, as net.Error does.
func (e *TimeoutError) Timeout() bool { return true }

// kindError is an error of a kind with a message of its own, so the kind's
// text ("fetch: not found") does not clutter what a person reads.
type kindError struct {
	kind error
	msg  string
	err  error // the cause, if any
}

func (e *kindError) Error() string   { return e.msg }
func (e *kindError) Unwrap() []error { return []error{e.kind, e.err} }

// Errorf returns an error of the given kind (ErrNotFound, ...) whose
// message is the formatted text. A %w verb wraps a cause as fmt.Errorf
// does; the kind is found by errors.Is but not printed.
func Errorf(kind error, format string, args ...any) error {
	err := fmt.Errorf(format, args...)
	return &kindError{kind: kind, msg: err.Error(), err: errors.Unwrap(err)}
}

// classify gives a kind to the errors of the standard library that have
// an obvious one, keeping the original reachable.
func classify(err error) error {
	if errors.Is(err, context.DeadlineExceeded) {
		return contextError(err)
	}
	if err == nil || Class(err) != nil {
		return err
	}
	var ne net.Error
	switch {
	case errors.As(err, &ne) && ne.Timeout():
		return &kindError{kind: ErrTimeout, msg: err.Error(), err: err}
	case errors.Is(err, os.ErrNotExist):
		return &kindError{kind: ErrNotFound, msg: err.Error(), err: err}
	case errors.Is(err, os.ErrPermission):
		return &kindError{kind: ErrAuth, msg: err.Error(), err: err}
	}
	var oe *net.OpError
	var de *net.DNSError
	if (errors.As(err, &oe) && oe.Op == "dial") || errors.As(err, &de) {
		return &kindError{kind: ErrConnect, msg: err.Error(), err: err}
	}
	return err
}

// scrubbed hides secrets in an error's message while keeping the error
// itself reachable through Unwrap.
type scrubbed struct {
	msg string
	err error
}

func (e *scrubbed) Error() string { return e.msg }
func (e *scrubbed) Unwrap() error { return e.err }

func scrub(err error, secrets []string) error {
	msg := err.Error()
	masked := maskSecrets(msg, secrets)
	if masked == msg {
		return err
	}
	return &scrubbed{msg: masked, err: err}
}

// maskSecrets replaces by "***" each occurrence of a secret in s that
// stands as a value: one whose ends are not glued to letters or digits of
// the text around it (the password in "u:e@host", "PASS e", "'e'"), so
// that a short password hides where it stands and not in every word that
// holds its letters ("connecting" for a password "e", which would show it
// to any reader and make noise of the trace). A secret of
// maskAnywhereLen bytes or more is masked wherever it is: glued into a
// longer token it is still the secret, and no word holds one by chance.
func maskSecrets(s string, secrets []string) string {
	for _, p := range secrets {
		if p != "" && strings.Contains(s, p) {
			s = maskSecret(s, p)
		}
	}
	return s
}

// maskAnywhereLen is the length from which a secret is masked wherever it
// occurs.
const maskAnywhereLen = 8

// maskSecret masks the occurrences of one secret p in s.
func maskSecret(s, p string) string {
	var b strings.Builder
	last := 0 // s[:last] is written
	for i := 0; i <= len(s)-len(p); {
		j := strings.Index(s[i:], p)
		if j < 0 {
			break
		}
		start, end := i+j, i+j+len(p)
		if len(p) >= maskAnywhereLen || standsAlone(s, start, end, p) {
			b.WriteString(s[last:start])
			b.WriteString("***")
			last, i = end, end
			continue
		}
		i = start + 1
	}
	if last == 0 {
		return s
	}
	b.WriteString(s[last:])
	return b.String()
}

// standsAlone reports whether s[start:end], an occurrence of p, is not
// glued to a letter or digit: at each end, either p's own byte there is no
// letter or digit (a boundary of its own) or s's byte beyond it is none.
func standsAlone(s string, start, end int, p string) bool {
	left := start == 0 || !wordByte(p[0]) || !wordByte(s[start-1])
	right := end == len(s) || !wordByte(p[len(p)-1]) || !wordByte(s[end])
	return left && right
}

// wordByte reports whether c is part of a word: a letter, a digit, or a
// byte of a UTF-8 sequence.
func wordByte(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
}

// Temporary reports whether trying err's fetch again may succeed: a
// timeout, a refused or broken connection, or a reply that says "later"
// (an error with a Temporary method that says so: FTP's 4xx replies such
// as 421, HTTP's 5xx). A missing resource, a refused login, an unsafe or
// invalid URL and a cancellation are never temporary.
func Temporary(err error) bool {
	if err == nil || errors.Is(err, context.Canceled) {
		return false
	}
	for _, never := range []error{ErrNotFound, ErrAuth, ErrUnsafe, ErrURL, ErrUnsupported} {
		if errors.Is(err, never) {
			return false
		}
	}
	if errors.Is(err, ErrTimeout) || errors.Is(err, ErrConnect) || errors.Is(err, context.DeadlineExceeded) ||
		errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE) ||
		errors.Is(err, syscall.ECONNREFUSED) {
		return true
	}
	var t interface{ Temporary() bool }
	return errors.As(err, &t) && t.Temporary()
}

// A ReplyError is the negative reply of a line protocol's server (FTP,
// NNTP, SMTP) to one command, in one shape for every driver, as go-smtp's
// SMTPError and net/textproto's Error carry it. Drivers return it wrapped
// with the class its code gives; errors.As finds it.
type ReplyError struct {
	// Command is the command refused, its password masked ("RETR motd",
	// "ARTICLE <id>", "MAIL FROM:<a@x>"); "" for the server's greeting.
	Command string
	Code    int
	// Msg is the text after the code, as the server wrote it (an SMTP
	// enhanced status code included).
	Msg string
	// Transient says the reply means "not now": a retry may help (FTP's
	// and SMTP's 4xx, NNTP's 400).
	Transient bool
	// Err is the protocol library's own error for the reply, if it has
	// one (go-smtp's *smtp.SMTPError).
	Err error
}

// Error is the reply as the server wrote it, on one line: "550 Failed to
// open file."
func (e *ReplyError) Error() string {
	return strings.TrimSpace(fmt.Sprintf("%03d %s", e.Code, strings.Join(strings.Fields(e.Msg), " ")))
}

// Temporary reports whether a retry may help.
func (e *ReplyError) Temporary() bool { return e.Transient }

func (e *ReplyError) Unwrap() error { return e.Err }
