package uri

import (
	"strconv"
	"strings"
)

// Error reports a URL that does not follow the syntax of RFC 1738, with the
// byte offset of the first offending byte.
//
// Error's message never shows a password: the password of a URL written
// with the common Internet syntax is replaced by "***".
type Error struct {
	Input  string // the URL as given
	Offset int    // byte offset into Input of the problem, or -1
	Reason string // what is wrong, for a person
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString("uri: ")
	b.WriteString(strconv.Quote(maskInput(e.Input)))
	if e.Offset >= 0 {
		b.WriteString(": at offset ")
		b.WriteString(strconv.Itoa(e.Offset))
	}
	b.WriteString(": ")
	b.WriteString(e.Reason)
	return b.String()
}

// MaskedInput returns Input with its password, if any, replaced by "***".
func (e *Error) MaskedInput() string { return maskInput(e.Input) }

// maskInput hides the password of a URL that may not have parsed, so that a
// syntax error never echoes a secret. It looks only at the first
// "//user:password@" of the string, and masks generously: a password may
// hold a "?", "#" or "/" its writer forgot to encode, so the userinfo runs
// to the last "@" before the first "/", or, when a ":" before that "/" is
// no port (not all digits), to the last "@" of all.
func maskInput(s string) string {
	i := strings.Index(s, "//")
	if i < 0 {
		return s
	}
	rest := s[i+2:]
	slash := strings.IndexByte(rest, '/')
	if slash < 0 {
		slash = len(rest)
	}
	at := strings.LastIndexByte(rest[:slash], '@')
	if at < 0 {
		colon := strings.IndexByte(rest[:slash], ':')
		if colon < 0 || isDigits(rest[colon+1:slash]) {
			return s
		}
		at = strings.LastIndexByte(rest, '@')
		if at < colon {
			return s
		}
	}
	colon := strings.IndexByte(rest[:at], ':')
	if colon < 0 {
		return s
	}
	start := i + 2 + colon + 1
	return s[:start] + "***" + s[i+2+at:]
}

func isDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}
