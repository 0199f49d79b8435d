package uri

import (
	"net/netip"
	"strings"
)

// Equal reports whether a and b name the same resource: whether their
// Normalize forms are the same. It brings both to the same encoding level
// (RFC 1630, "Encoding reserved characters") by the rules of their scheme
// (RFC 1738 section 2.2 and the scheme's section): a character the scheme
// does not reserve means the same encoded or not, one it reserves never
// does, so ".../marie%2Dclaude" equals ".../marie-claude" but
// ".../bertram%2Fmarie" does not equal ".../bertram/marie". An invalid
// URL equals nothing.
func Equal(a, b string) bool {
	if a == b {
		_, err := Parse(a)
		return err == nil
	}
	ua, err := Parse(a)
	if err != nil {
		return false
	}
	ub, err := Parse(b)
	if err != nil {
		return false
	}
	return ua.Normalize().String() == ub.Normalize().String()
}

// Normalize returns a copy of u in the one form that every URL naming
// the same resource has, so that Equal compares two URLs by their
// Normalize forms. The result parses, and normalizing it again changes
// nothing.
//
// For every scheme: the host in lower case, in A-labels if it is an IRI's
// (ASCIIHost), an IPv6 address in its RFC 5952 form; the scheme's
// default port, an empty port and a port's leading zeros dropped; every
// escape in upper-case hex; every character beyond ASCII percent-encoded
// as UTF-8 (the URI of an IRI, RFC 3987 sections 3.1 and 5.3); the
// national characters but "~", which RFC 1738 section 2.2 calls unsafe,
// encoded; the fragment with only the escapes of letters, digits, "-",
// ".", "_" and "~" decoded.
//
// What each scheme reserves, by RFC 1738 and RFC 1630:
//
//   - ftp, ftps (section 3.2): "/" and ";" in the path; the form the FTP
//     view writes: the typecode in lower case, an empty path as "/".
//   - http, https (section 3.3): "/", ";" and "?" in the path; in the
//     search those and "+" (a space, RFC 1630), "&" and "=" (the fields
//     of a form); an empty path as "/".
//   - gopher (section 3.4): nothing but the %09 separators, so "%2F" is
//     "/"; the form the Gopher view writes: gopher://host,
//     gopher://host/ and gopher://host/1 (type 1, the empty selector)
//     are all gopher://host/.
//   - mailto (section 3.5): nothing in the address, but what RFC 6068's
//     lists and header fields reserve ("," "?" "&" "="): "%40" is "@".
//     The form the Mailto view writes; "to" fields join the addresses.
//   - news, snews (section 3.6): nothing; a message-id without the "<"
//     ">" a pasted header brings.
//   - nntp, nntps (section 3.7): "/" between group and article; the
//     article number without leading zeros, an empty one dropped.
//   - telnet, rlogin, tn3270 (section 3.8): telnet://host is
//     telnet://host/.
//   - wais (section 3.9): "/" between database, wtype and wpath, "?"
//     before the search, "+" (a space) in the search: the form the WAIS
//     view writes.
//   - file (section 3.10): "/" and ";" in the path; "localhost" is the
//     empty host, file:/path is file:///path, an empty path "/".
//   - prospero (section 3.11): ";" and "=" in the fields, ";" in the
//     hsoname: the form the Prospero view writes.
//   - any other scheme: only the escapes of letters, digits, "-", ".",
//     "_" and "~" are decoded (RFC 3986 section 6.2.2.2), the user and
//     password as section 3.1 reserves ":", "@" and "/".
//
// A URL its scheme's view refuses ("nntp://host/" without a group) is
// normalized as a URL of another scheme.
func (u *URL) Normalize() *URL {
	v := u.normalizeScheme()
	v.Host = normalizeHost(v.Host)
	v.emptyPort, v.portWidth = false, 0
	if v.Port == DefaultPort(v.Scheme) {
		v.Port = 0
	}
	v.Fragment = normalizeEscapes(u.Fragment, unreserved)
	v.HasFragment = u.HasFragment
	return v
}

// normalizeScheme returns a copy of u with its scheme-specific part in
// the normal form of its scheme (see Normalize).
func (u *URL) normalizeScheme() *URL {
	type stringer interface{ String() string }
	var view stringer
	var err error
	switch u.Scheme {
	case "ftp", "ftps":
		view, err = u.FTP()
	case "gopher":
		view, err = u.Gopher()
	case "mailto":
		view, err = u.Mailto()
	case "news", "snews":
		view, err = u.News()
	case "nntp", "nntps":
		view, err = u.NNTP()
	case "telnet", "rlogin", "tn3270":
		view, err = u.Telnet()
	case "wais":
		view, err = u.WAIS()
	case "prospero":
		view, err = u.Prospero()
	case "http", "https":
		v := *u
		v.User = normalizeEscapes(u.User, userChar)
		v.Password = normalizeEscapes(u.Password, userChar)
		v.Path = normalizeEscapes(u.Path, httpPathChar)
		v.RawQuery = normalizeEscapes(u.RawQuery, httpSearchChar)
		if v.Authority && v.Path == "" {
			v.Path = "/"
		}
		return &v
	case "file":
		v := *u
		if !v.Authority && strings.HasPrefix(v.Path, "/") {
			v.Authority = true // section 3.10: file://<host>/<path>
		}
		if strings.EqualFold(v.Host, "localhost") {
			v.Host = ""
		}
		v.Path = normalizeEscapes(u.Path, filePathChar)
		if v.Authority && v.Path == "" {
			v.Path = "/"
		}
		return &v
	}
	if err == nil && view != nil {
		// The views decode what their section says and build the URL
		// encoded as Escape does: the canonical form. What they build
		// parses (FuzzParse).
		if v, perr := Parse(view.String()); perr == nil {
			return v
		}
	}
	v := *u
	v.User = normalizeEscapes(u.User, userChar)
	v.Password = normalizeEscapes(u.Password, userChar)
	v.Path = normalizeEscapes(u.Path, unreserved)
	v.RawQuery = normalizeEscapes(u.RawQuery, unreserved)
	return &v
}

// normalizeHost is a host in lower case, in A-labels, an IPv6 address in
// its RFC 5952 text.
func normalizeHost(h string) string {
	if strings.IndexByte(h, ':') >= 0 {
		if a, err := netip.ParseAddr(h); err == nil {
			return a.String()
		}
	}
	if a, err := ASCIIHost(h); err == nil {
		h = a
	}
	return strings.ToLower(h)
}

// The bytes whose escapes Normalize decodes, per component: what may
// stand unencoded there and means the same as its escape.

// unreserved is RFC 3986's unreserved set, for a scheme of unknown rules.
func unreserved(c byte) bool { return is(c, cAlnum) || c == '-' || c == '.' || c == '_' || c == '~' }

// plain is what no scheme reserves and RFC 1738 calls safe to leave
// unencoded: alphanumerics, safe, extra and "~" (section 2.2).
func plain(c byte) bool { return is(c, cAlnum|cSafe|cExtra) || c == '~' }

// userChar: section 3.1 reserves ":", "@" and "/" in a user or password;
// "?" would end the authority of a scheme with a search.
func userChar(c byte) bool { return plain(c) || c == ';' || c == '&' || c == '=' }

// httpPathChar: section 3.3 reserves "/", ";" and "?".
func httpPathChar(c byte) bool { return plain(c) || c == ':' || c == '@' || c == '&' || c == '=' }

// httpSearchChar: those, and "+" (a space, RFC 1630), "&" and "=".
func httpSearchChar(c byte) bool { return plain(c) && c != '+' || c == ':' || c == '@' }

// filePathChar: section 3.10's fpath reserves "/" and ";".
func filePathChar(c byte) bool {
	return plain(c) || c == '?' || c == ':' || c == '@' || c == '&' || c == '='
}

// normalizeEscapes returns s, valid as Parse left it, with every escape in
// upper-case hex and those of the bytes decode accepts decoded, and the
// bytes that must be encoded encoded: beyond ASCII (an IRI's characters)
// and the unsafe national characters but "~".
func normalizeEscapes(s string, decode func(byte) bool) string {
	i := 0
	for ; i < len(s); i++ {
		if c := s[i]; c == '%' || c >= 0x80 || is(c, cNational) && c != '~' {
			break
		}
	}
	if i == len(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	b.WriteString(s[:i])
	for ; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '%':
			c = unhex(s[i+1])<<4 | unhex(s[i+2])
			i += 2
			if decode(c) {
				b.WriteByte(c)
				continue
			}
		case c >= 0x80 || is(c, cNational) && c != '~':
		default:
			b.WriteByte(c)
			continue
		}
		b.WriteByte('%')
		b.WriteByte(upperhex[c>>4])
		b.WriteByte(upperhex[c&15])
	}
	return b.String()
}
