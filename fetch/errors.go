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
)

// The kinds of failure. Every error a Client returns wraps at most one of
// them; errors.Is finds it, and KindOf returns it. The fetch command maps
// each to its own exit code.
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
	// parsed, an early close, a length that does not add up.
	ErrProtocol = errors.New("fetch: protocol error")
	// ErrTimeout: a connect, idle or overall timeout expired.
	ErrTimeout = errors.New("fetch: timeout")
	// ErrConnect: the server could not be reached (refused, unreachable,
	// no such host). A retry may help.
	ErrConnect = errors.New("fetch: cannot connect")
	// ErrURL: the URL does not follow the syntax of RFC 1738, or a part
	// of it is not what its scheme needs (an addr-spec). The error may
	// also wrap a *uri.Error with the offset of the problem.
	ErrURL = errors.New("fetch: invalid URL")
)

var kinds = []error{ErrURL, ErrNotFound, ErrAuth, ErrUnsupported, ErrUnsafe, ErrProtocol, ErrTimeout, ErrConnect}

// KindOf returns the kind sentinel err wraps, context.Canceled when the
// fetch was cancelled, or nil.
func KindOf(err error) error {
	for _, k := range kinds {
		if errors.Is(err, k) {
			return k
		}
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return ErrTimeout
	}
	if errors.Is(err, context.Canceled) {
		return context.Canceled
	}
	return nil
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
	if err == nil || KindOf(err) != nil {
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

// maskSecrets replaces every occurrence of a secret in s by "***".
func maskSecrets(s string, secrets []string) string {
	for _, p := range secrets {
		if p != "" {
			s = strings.ReplaceAll(s, p, "***")
		}
	}
	return s
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
