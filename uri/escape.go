package uri

import "strings"

// Character classes of RFC 1738 section 5, as bits of one table so that
// validation and escaping are a lookup per byte.
const (
	cAlnum    = 1 << iota // a-z A-Z 0-9
	cSafe                 // $ - _ . +
	cExtra                // ! * ' ( ) ,
	cNational             // { } | \ ^ ~ [ ]
	cReserved             // ; / ? : @ & =
	cHost                 // what a domain name or IPv4 address is made of
	cHex                  // 0-9 A-F a-f
	cSchemeCh             // what a scheme name is made of
	cLabel                // what a host name label is made of: cHost less "."

	// cXchar is every byte that may stand unencoded in a URL: xchar of the
	// BNF, less "%", which must begin an escape.
	cXchar = cAlnum | cSafe | cExtra | cNational | cReserved
)

var class = func() (t [256]uint16) {
	set := func(chars string, bits uint16) {
		for i := 0; i < len(chars); i++ {
			t[chars[i]] |= bits
		}
	}
	for c := 'a'; c <= 'z'; c++ {
		t[c] |= cAlnum | cHost | cSchemeCh
		t[c-'a'+'A'] |= cAlnum | cHost | cSchemeCh
	}
	for c := '0'; c <= '9'; c++ {
		t[c] |= cAlnum | cHost | cHex | cSchemeCh
	}
	set("abcdefABCDEF", cHex)
	set("$-_.+", cSafe)
	set("!*'(),", cExtra)
	set("{}|\\^~[]", cNational)
	set(";/?:@&=", cReserved)
	set("-._", cHost)
	for c := range t {
		if t[c]&cHost != 0 && c != '.' {
			t[c] |= cLabel
		}
	}
	set("+-.", cSchemeCh)
	return t
}()

func is(c byte, bits uint16) bool { return class[c]&bits != 0 }

// xchar is is(c, cXchar) as a table of its own, for Parse's scan of every
// byte: one load a byte, no mask.
var xchar = func() (t [256]bool) {
	for c := range t {
		t[c] = is(byte(c), cXchar)
	}
	return t
}()

// Component names a part of a URL for Escape: each part has its own set of
// bytes that must be encoded.
type Component int

const (
	// ComponentUser and ComponentPassword: any ":", "@" or "/" must be
	// encoded (RFC 1738 section 3.1).
	ComponentUser Component = iota
	ComponentPassword
	// ComponentFTPSegment is a CWD argument or the name of an ftp URL:
	// "/" and ";" are reserved (section 3.2.2).
	ComponentFTPSegment
	// ComponentFileSegment is one directory or name of a file URL.
	ComponentFileSegment
	// ComponentHTTPSegment and ComponentHTTPSearch: "/", ";" and "?" are
	// reserved (section 3.3).
	ComponentHTTPSegment
	ComponentHTTPSearch
	// ComponentGopher is a selector, search or Gopher+ string: no character
	// is reserved, but TAB, CR and LF must be encoded (section 3.4.1).
	ComponentGopher
	// ComponentMailto is one addr-spec of a mailto URL; "?", "&", "," and
	// "=" are encoded so that RFC 6068's header fields stay unambiguous.
	ComponentMailto
	// ComponentNewsGroup and ComponentMessageID: the parts of news URLs.
	// Escape a message-id's unique part and its host separately: an "@"
	// in the unique part is encoded.
	ComponentNewsGroup
	ComponentMessageID
	// ComponentWAIS is a database, wtype or wpath: uchar only (section 5).
	ComponentWAIS
	// ComponentWAISSearch is the search of a wais URL: like a query, a
	// space becomes "+" and a "+" is encoded.
	ComponentWAISSearch
	// ComponentProsperoName is a Prospero hsoname: "/" needs no encoding,
	// ";" does (section 3.11).
	ComponentProsperoName
	// ComponentProsperoField is a field name or value after the hsoname.
	ComponentProsperoField
	// ComponentFragment is a fragment identifier (RFC 1630).
	ComponentFragment
)

// keep reports whether b may stay unencoded in component c. Beyond the
// alphanumerics, the safe and extra characters and "~" stay as they are;
// the national characters other than "~" are unsafe (gateways change them)
// and are encoded, as RFC 1738 section 2.2 advises.
func keep(b byte, c Component) bool {
	if is(b, cAlnum|cSafe|cExtra) || b == '~' {
		switch {
		case b == ',' && c == ComponentMailto:
			return false
		case b == '+' && c == ComponentWAISSearch:
			return false
		}
		return true
	}
	var extra string
	switch c {
	case ComponentUser, ComponentPassword:
		// "?" may stand in a password (RFC 1738 section 3.1), but a
		// parser after RFC 3986 ends the authority there: encoded, it
		// reads the same to both.
		extra = ";&="
	case ComponentFTPSegment, ComponentFileSegment:
		extra = "?:@&="
	case ComponentHTTPSegment:
		extra = ";:@&="
	case ComponentHTTPSearch:
		extra = ";:@&=/?"
	case ComponentGopher, ComponentFragment:
		extra = ";/?:@&="
	case ComponentMailto:
		extra = ";/:@"
	case ComponentNewsGroup:
		extra = ""
	case ComponentMessageID:
		extra = ";/?:&="
	case ComponentWAIS, ComponentWAISSearch:
		extra = ""
	case ComponentProsperoName:
		extra = "/?:@&="
	case ComponentProsperoField:
		extra = "?:@&"
	}
	return strings.IndexByte(extra, b) >= 0
}

const upperhex = "0123456789ABCDEF"

// Escape encodes s for use as component c: every byte that must not stand
// as itself in that component (reserved characters used as data, unsafe
// and non-printable bytes, "%") becomes %XX with upper-case hex digits.
// For ComponentWAISSearch a space becomes "+".
func Escape(s string, c Component) string {
	n := 0
	for i := 0; i < len(s); i++ {
		if !keep(s[i], c) {
			n++
		}
	}
	if n == 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 2*n)
	for i := 0; i < len(s); i++ {
		switch ch := s[i]; {
		case keep(ch, c):
			b.WriteByte(ch)
		case ch == ' ' && c == ComponentWAISSearch:
			b.WriteByte('+')
		default:
			b.WriteByte('%')
			b.WriteByte(upperhex[ch>>4])
			b.WriteByte(upperhex[ch&15])
		}
	}
	return b.String()
}

// Unescape decodes every %XX of s. A "%" not followed by two hex digits is
// an *Error naming its offset (RFC 1630: such sequences decode to nothing).
func Unescape(s string) (string, error) {
	i := strings.IndexByte(s, '%')
	if i < 0 {
		return s, nil
	}
	if off := badEscape(s); off >= 0 {
		return "", &Error{Input: s, Offset: off, Reason: `"%" not followed by two hex digits`}
	}
	return unescape(s, i), nil
}

// unescape decodes s, already checked by badEscape, from its first "%" at i.
func unescape(s string, i int) string {
	var b strings.Builder
	b.Grow(len(s))
	b.WriteString(s[:i])
	for ; i < len(s); i++ {
		if s[i] == '%' {
			b.WriteByte(unhex(s[i+1])<<4 | unhex(s[i+2]))
			i += 2
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// mustUnescape decodes a component that Parse has already validated.
func mustUnescape(s string) string {
	if i := strings.IndexByte(s, '%'); i >= 0 {
		return unescape(s, i)
	}
	return s
}

// unescapePlus is mustUnescape for a query, where "+" stands for a space
// (RFC 1630, "Reserved characters").
func unescapePlus(s string) string {
	return mustUnescape(strings.ReplaceAll(s, "+", "%20"))
}

// badEscape returns the offset of the first "%" in s that is not followed
// by two hex digits, or -1.
func badEscape(s string) int {
	for i := 0; i < len(s); i++ {
		if s[i] == '%' && (i+2 >= len(s) || !is(s[i+1], cHex) || !is(s[i+2], cHex)) {
			return i
		}
	}
	return -1
}

func unhex(c byte) byte {
	switch {
	case c >= '0' && c <= '9':
		return c - '0'
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10
	default:
		return c - 'A' + 10
	}
}
