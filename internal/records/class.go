package records

import (
	"context"
	"errors"
	"strings"

	"github.com/urlfetch/urlfetch/fetch"
)

// Exit codes, one per class of failure: a script can tell a missing file
// from a refused password without reading the message. A record's
// exit_code is one of them, its class the class's name.
const (
	ExitOK          = 0
	ExitFailure     = 1 // any other failure
	ExitURL         = 3 // the URL is not valid RFC 1738 syntax
	ExitNotFound    = 4
	ExitAuth        = 5
	ExitUnsupported = 6
	ExitUnsafe      = 7
	ExitProtocol    = 8
	ExitTimeout     = 9
	ExitConnect     = 10
	ExitTLS         = 11
	ExitInterrupted = 130
)

// classes are the classes of failure: the exit code, the kind of error
// (fetch.Class) and the name records give it.
var classes = []struct {
	code int
	kind error
	name string
}{
	{ExitURL, fetch.ErrURL, "url"},
	{ExitNotFound, fetch.ErrNotFound, "not_found"},
	{ExitAuth, fetch.ErrAuth, "auth"},
	{ExitUnsupported, fetch.ErrUnsupported, "unsupported"},
	{ExitUnsafe, fetch.ErrUnsafe, "unsafe"},
	{ExitProtocol, fetch.ErrProtocol, "protocol"},
	{ExitTimeout, fetch.ErrTimeout, "timeout"},
	{ExitConnect, fetch.ErrConnect, "connect"},
	{ExitTLS, fetch.ErrTLS, "tls"},
	{ExitInterrupted, context.Canceled, "interrupted"},
}

// ExitCode maps an error to its exit code: ExitOK for nil, ExitFailure
// for an error of no class.
func ExitCode(err error) int {
	if err == nil {
		return ExitOK
	}
	kind := fetch.Class(err)
	for _, c := range classes {
		if errors.Is(kind, c.kind) {
			return c.code
		}
	}
	return ExitFailure
}

// Class is the name of an error's class in records: "not_found",
// "unsafe", ...; "other" for an error of no class.
func Class(err error) string {
	code := ExitCode(err)
	for _, c := range classes {
		if c.code == code {
			return c.name
		}
	}
	return "other"
}

// ErrorParts are the URL an error names (its password masked) and what
// went wrong, in one line: the name of the driver that a library error
// starts with ("ftp: ...") goes, for the URL names its scheme already; a
// URL that does not parse says so; an interrupted fetch says so rather
// than "context canceled". The text is the server's where it quotes a
// reply: escape it for where it is shown.
func ErrorParts(err error) (url, msg string) {
	msg = err.Error()
	var fe *fetch.Error
	if errors.As(err, &fe) {
		url, msg = fe.URL, fe.Err.Error()
		if fe.Op == "parse" {
			msg = "not a URL: " + msg
		}
	}
	msg = OneLine(msg)
	if url != "" {
		msg = dropDriverName(msg)
	}
	if errors.Is(err, context.Canceled) {
		msg = "interrupted"
	}
	return url, msg
}

// driverNames are the prefixes the drivers' errors start with.
var driverNames = []string{"ftp", "http", "gopher", "nntp", "wais", "file", "mailto", "telnet"}

// dropDriverName takes the driver's name off the front of msg.
func dropDriverName(msg string) string {
	for _, d := range driverNames {
		if rest, ok := strings.CutPrefix(msg, d+": "); ok && rest != "" {
			return rest
		}
	}
	return msg
}

// OneLine folds a multi-line server reply into one line.
func OneLine(s string) string {
	return strings.Join(strings.Fields(strings.ReplaceAll(s, "\r", "")), " ")
}
