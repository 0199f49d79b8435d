package mailto

import (
	"fmt"
	"net/mail"
	"strings"
	"unicode/utf8"
)

// RFC 5321 section 4.5.3.1: the longest local part and path a server must
// accept. An address beyond them would be refused anyway, and later.
const (
	maxLocalPart = 64
	maxAddress   = 254
)

// AddressError is an address that is not an RFC 5322 addr-spec. For an
// address taken from the URL, Fetch returns it wrapped with fetch.ErrURL.
type AddressError struct {
	Addr   string // the address, decoded
	Reason string // what is wrong with it
}

func (e *AddressError) Error() string {
	return fmt.Sprintf("mailto: bad address %q: %s", e.Addr, e.Reason)
}

// CheckAddrSpec reports whether addr is an addr-spec of RFC 5322 section
// 3.4.1, the form RFC 1738 section 3.5 gives a mailto URL: a dot-atom or a
// quoted string, "@", then a dot-atom or a domain literal. The obsolete
// forms, comments and folding white space are not accepted; UTF-8 is, as
// RFC 6532 allows (sending to such an address needs SMTPUTF8). The lengths
// are those of RFC 5321 section 4.5.3.1. The error is an *AddressError.
func CheckAddrSpec(addr string) error {
	if reason := addrSpecProblem(addr); reason != "" {
		return &AddressError{Addr: addr, Reason: reason}
	}
	return nil
}

// ParseFrom parses a sender as Driver.From takes it: an addr-spec, or a
// display name and an addr-spec in angle brackets ("Ann <ann@example.org>").
func ParseFrom(s string) (*mail.Address, error) {
	if !strings.ContainsAny(s, "<\"(") {
		if err := CheckAddrSpec(s); err != nil {
			return nil, err
		}
		return &mail.Address{Address: s}, nil
	}
	a, err := mail.ParseAddress(s)
	if err != nil {
		return nil, &AddressError{Addr: s, Reason: strings.TrimPrefix(err.Error(), "mail: ")}
	}
	if err := CheckAddrSpec(a.Address); err != nil {
		return nil, err
	}
	return a, nil
}

// addrSpecProblem returns what makes addr no addr-spec, or "".
func addrSpecProblem(addr string) string {
	if !utf8.ValidString(addr) {
		return "not valid UTF-8"
	}
	at := strings.LastIndexByte(addr, '@')
	if at < 0 {
		return `no "@"`
	}
	local, domain := addr[:at], addr[at+1:]
	switch {
	case local == "":
		return `nothing before the "@"`
	case domain == "":
		return `nothing after the "@"`
	}
	if local[0] == '"' {
		if r := quotedProblem(local); r != "" {
			return r
		}
	} else if r := dotAtomProblem(local, "local part"); r != "" {
		return r
	}
	if domain[0] == '[' {
		if r := literalProblem(domain); r != "" {
			return r
		}
	} else if r := dotAtomProblem(domain, "domain"); r != "" {
		return r
	}
	switch {
	case len(local) > maxLocalPart:
		return fmt.Sprintf("local part longer than %d bytes (RFC 5321 section 4.5.3.1.1)", maxLocalPart)
	case len(addr) > maxAddress:
		return fmt.Sprintf("longer than %d bytes (RFC 5321 section 4.5.3.1.3)", maxAddress)
	}
	return ""
}

// isAtext reports whether r is atext (RFC 5322 section 3.2.3), with the
// non-ASCII characters of RFC 6532 section 3.2.
func isAtext(r rune) bool {
	switch {
	case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9':
		return true
	case r > 127:
		return r != utf8.RuneError
	}
	return strings.ContainsRune("!#$%&'*+-/=?^_`{|}~", r)
}

// dotAtomProblem checks a dot-atom-text: atoms of atext joined by single
// dots.
func dotAtomProblem(s, what string) string {
	for i, atom := range strings.Split(s, ".") {
		if atom == "" {
			switch {
			case i == 0:
				return what + ` starts with "."`
			case i == strings.Count(s, "."):
				return what + ` ends with "."`
			}
			return what + ` has ".." (quote the local part to use it)`
		}
		for _, r := range atom {
			if !isAtext(r) {
				return fmt.Sprintf("%s has %q, which needs quoting or is not allowed", what, r)
			}
		}
	}
	return ""
}

// quotedProblem checks a quoted-string local part: qtext, quoted pairs and
// spaces between double quotes.
func quotedProblem(s string) string {
	if len(s) < 2 || s[len(s)-1] != '"' {
		return "unterminated quoted local part"
	}
	body := s[1 : len(s)-1]
	for i := 0; i < len(body); i++ {
		switch c := body[i]; {
		case c == '\\':
			i++
			if i == len(body) || (body[i] < ' ' && body[i] != '\t') || body[i] == 127 {
				return `bad "\" in the quoted local part`
			}
		case c == '"':
			return `unescaped '"' in the quoted local part`
		case c == ' ', c == '\t', c > ' ' && c < 127, c >= 128:
		default:
			return fmt.Sprintf("control character %q in the quoted local part", c)
		}
	}
	return ""
}

// literalProblem checks a domain literal: dtext between brackets.
func literalProblem(s string) string {
	if len(s) < 3 || s[len(s)-1] != ']' {
		return "bad domain literal"
	}
	for _, c := range []byte(s[1 : len(s)-1]) {
		if c <= ' ' || c == '[' || c == ']' || c == '\\' || c >= 127 {
			return fmt.Sprintf("domain literal has %q", c)
		}
	}
	return ""
}

// isASCII reports whether s is all ASCII.
func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 128 {
			return false
		}
	}
	return true
}
