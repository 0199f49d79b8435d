// Package uri is the URL model of RFC 1738 (Uniform Resource Locators) and
// RFC 1630 (Universal Resource Identifiers in WWW).
//
// Parse splits a URL into the parts that the retrieval algorithms of RFC
// 1738 section 3 need, keeping every part still encoded, so that String
// gives the input back exactly. The scheme-specific views (FTP, HTTP,
// Gopher, Mailto, News, NNTP, Telnet, WAIS, File, Prospero) decode exactly
// what each section of the specification says, and their String methods
// build a correctly encoded URL again. Escape and Unescape work per
// component, Normalize and Equal bring URLs to one encoding level by the
// rules of their scheme, Strict reports every departure from RFC 1738,
// Resolve expands the partial forms of RFC 1630 and Extract finds URLs in
// text.
//
// # IRIs
//
// People write URLs in their own script: http://bücher.example/straße.
// Parse takes such an IRI (RFC 3987) as it takes a URL, and keeps it as
// written, for people to read:
//
//   - A host name may have labels in Unicode, or in percent-encoded UTF-8
//     (b%C3%BCcher); each must pass IDNA (RFC 5891, by the UTS #46
//     processing of golang.org/x/net/idna's Lookup profile), or Parse
//     fails with the offset of the label. Host holds the name as written;
//     ASCIIHost gives its A-labels ("xn--bcher-kva.example"), what DNS,
//     a Host header and TLS are given, and UnicodeHost the form to show.
//   - Elsewhere (user, password, path, search, fragment) the characters
//     of RFC 3987 beyond ASCII (ucschar, and iprivate) may stand
//     unencoded, in UTF-8; a byte that is not UTF-8, a C1 control and
//     the bidirectional formatting characters (RFC 3987 section 4.1)
//     must still be percent-encoded. The views decode an IRI's
//     characters to the same bytes as their UTF-8 escapes, so an FTP
//     CWD or a gopher selector is the same either way.
//   - URI maps an IRI to its URI (RFC 3987 section 3.1): A-labels, and
//     every other character beyond ASCII percent-encoded as UTF-8. It is
//     what goes on the wire wherever a URL is sent whole or as written
//     (an HTTP request line, a gateway's request).
//
// Extract finds URLs, IRIs among them, that Parse accepts and their
// scheme's view describes: what it returns can be fetched.
//
// The package does no I/O.
package uri

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// A URL is a parsed URL. Every string field holds the text as written in
// the URL, still encoded; the views decode them.
//
// URLs of the common Internet scheme syntax (RFC 1738 section 3.1) have
// Authority set and fill User, Password, Host, Port and Path. Other URLs
// (mailto:, news:) keep their whole scheme-specific part in Path.
type URL struct {
	Scheme string // lower case

	// User and Password are raw (encoded). An empty user differs from no
	// user (ftp://@host/), and an empty password from none (ftp://foo:@host/):
	// see HasUser and HasPassword.
	User     string
	Password string

	// Host is a domain name, a dotted IPv4 address or an IPv6 address
	// (written in brackets in the URL, kept without them here). A domain
	// name of an IRI is as written, in Unicode or percent-encoded UTF-8:
	// ASCIIHost gives the name to dial.
	Host string
	// Path is the raw path from the "/" that ends the host and port on,
	// so the url-path of RFC 1738 is Path without its first byte. In a
	// URL without "//" it is the whole scheme-specific part up to the
	// fragment: "user@host" in "mailto:user@host".
	Path string

	// RawQuery is the search part after "?", for schemes where "?" is
	// reserved for it (http, https, wais and unknown schemes).
	RawQuery string

	// Fragment is the raw fragment identifier after "#" (RFC 1630). It is
	// not part of the URL proper and is never sent to a server.
	Fragment string

	// Port is the port the URL names, 0 when it names none.
	Port int

	// Authority reports whether the URL has the "//" of the common
	// Internet scheme syntax.
	Authority   bool
	HasUser     bool
	HasPassword bool
	ForceQuery  bool // a "?" with an empty search after it
	HasFragment bool // a "#", perhaps with an empty fragment after it

	emptyPort bool  // "host:" with an empty port, which means the default
	portWidth uint8 // digits the port was written with ("080" is 3)
}

// Parse parses an absolute URL. It accepts <scheme>:<scheme-specific-part>
// for any scheme and, after "//", the common Internet scheme syntax
// //user:password@host:port/url-path. A "#fragment" is split off.
//
// An IRI (RFC 3987) is a URL too: see the package documentation.
//
// An invalid URL yields an *Error with the offset of the offending byte:
// a "%" not followed by two hex digits, an unencoded space, control byte,
// byte that is not UTF-8 or character an IRI may not hold, a host name
// IDNA refuses, a port out of range, a user or password where the scheme
// allows none (http, https, prospero, file), an unknown ftp typecode, or a
// news article without a host after its "@".
func Parse(s string) (*URL, error) {
	// Parse into a stack value and copy once: cheaper than a write
	// barrier per field of a heap object while the collector runs.
	var v URL
	if err := v.parse(s); err != nil {
		return nil, err
	}
	u := new(URL)
	*u = v
	return u, nil
}

// MustParse is Parse for URLs known to be valid, such as constants in
// tests and examples. It panics on an error.
func MustParse(s string) *URL {
	u, err := Parse(s)
	if err != nil {
		panic(err)
	}
	return u
}

func (u *URL) parse(s string) error {
	fail := func(off int, reason string) error {
		return &Error{Input: s, Offset: off, Reason: reason}
	}

	// RFC 1738 section 2.1: scheme ":" scheme-specific-part.
	colon := -1
	lower := true
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == ':' {
			colon = i
			break
		}
		if !is(c, cSchemeCh) {
			if c == '/' || c == '?' || c == '#' {
				break
			}
			return fail(i, "invalid character "+quoteByte(c)+" in scheme")
		}
		if 'A' <= c && c <= 'Z' {
			lower = false
		}
	}
	switch {
	case colon < 0:
		return fail(-1, `missing scheme (a URL begins with a name such as "http:")`)
	case colon == 0:
		return fail(0, "empty scheme before \":\"")
	}
	u.Scheme = s[:colon]
	if !lower {
		u.Scheme = strings.ToLower(u.Scheme)
	}
	scheme := &unknownScheme
	if i := schemeIndex(u.Scheme); i >= 0 {
		scheme = &schemes[i]
	}

	// Every byte after the scheme must be an xchar or an escape. The
	// inner loops skip runs of xchars, four bytes a step: this scan is
	// most of what Parse costs.
	rest := s[colon+1:]
	hash := -1
	for i := 0; i < len(rest); i++ {
		for ; i+8 <= len(rest); i += 8 {
			b := rest[i : i+8]
			if !(xchar[b[0]] && xchar[b[1]] && xchar[b[2]] && xchar[b[3]] &&
				xchar[b[4]] && xchar[b[5]] && xchar[b[6]] && xchar[b[7]]) {
				break
			}
		}
		for i < len(rest) && xchar[rest[i]] {
			i++
		}
		if i == len(rest) {
			break
		}
		c := rest[i]
		off := colon + 1 + i
		switch {
		case c == '#':
			if hash >= 0 {
				return fail(off, `second "#" (encode "#" as %23)`)
			}
			hash = i
		case c == '%':
			if i+2 >= len(rest) || !is(rest[i+1], cHex) || !is(rest[i+2], cHex) {
				return fail(off, `"%" not followed by two hex digits (encode "%" as %25)`)
			}
			i += 2
		case c >= 0x80:
			// RFC 3987: an IRI's characters beyond ASCII, in UTF-8.
			// In the host, IDNA checks them below.
			r, n := utf8.DecodeRuneInString(rest[i:])
			if !iriChar(r) {
				return fail(off, describeBadRune(rest[i:]))
			}
			i += n - 1
		default:
			return fail(off, describeBad(c))
		}
	}
	if hash >= 0 {
		u.HasFragment = true
		u.Fragment = rest[hash+1:]
		rest = rest[:hash]
	}

	if !strings.HasPrefix(rest, "//") {
		u.Path = rest
		return u.checkScheme(s, colon+1)
	}

	// RFC 1738 section 3.1: the authority runs to the next "/" (or "?"
	// where "?" starts a search).
	u.Authority = true
	base := colon + 3
	rest = rest[2:]
	end := strings.IndexByte(rest, '/')
	if end < 0 {
		end = len(rest)
	}
	if scheme.Query {
		if q := strings.IndexByte(rest[:end], '?'); q >= 0 {
			end = q
		}
	}
	auth := rest[:end]
	// Most URLs have no "@": IndexByte says so faster than LastIndexByte.
	if at := strings.IndexByte(auth, '@'); at >= 0 {
		at = strings.LastIndexByte(auth, '@')
		if !scheme.Login && u.Scheme != "http" && u.Scheme != "https" {
			return fail(base, u.Scheme+" URLs may not carry a user or password")
		}
		login := auth[:at]
		u.HasUser = true
		u.User = login
		if c := strings.IndexByte(login, ':'); c >= 0 {
			u.User, u.Password, u.HasPassword = login[:c], login[c+1:], true
		}
		for i := 0; i < len(login); i++ {
			if c := login[i]; c == '@' || c == '/' || (c == ':' && i != len(u.User)) {
				return fail(base+i, quoteByte(c)+" in user or password (encode it as %"+string(upperhex[c>>4])+string(upperhex[c&15])+")")
			}
		}
		base += at + 1
		auth = auth[at+1:]
	}
	if err := u.parseHostPort(s, auth, base, scheme); err != nil {
		return err
	}
	rest = rest[end:]
	base += len(auth)

	if scheme.Query {
		if q := strings.IndexByte(rest, '?'); q >= 0 {
			u.RawQuery = rest[q+1:]
			u.ForceQuery = u.RawQuery == ""
			rest = rest[:q]
		}
	}
	u.Path = rest
	return u.checkScheme(s, base)
}

// parseHostPort fills Host and Port from hostport, which begins at byte
// offset base of the input s.
func (u *URL) parseHostPort(s, hostport string, base int, scheme *Scheme) error {
	fail := func(off int, reason string) error {
		return &Error{Input: s, Offset: off, Reason: reason}
	}
	host := hostport
	port, hasPort := "", false
	if strings.HasPrefix(hostport, "[") {
		// Beyond RFC 1738: an IPv6 literal in brackets (RFC 3986).
		end := strings.IndexByte(hostport, ']')
		if end < 0 {
			return fail(base, `"[" without "]" around an IPv6 address`)
		}
		host = hostport[1:end]
		if !validIPv6(host) {
			return fail(base+1, "invalid IPv6 address "+strconv.Quote(host))
		}
		switch after := hostport[end+1:]; {
		case after == "":
		case after[0] == ':':
			port, hasPort = after[1:], true
		default:
			return fail(base+end+1, `unexpected `+quoteByte(after[0])+` after "]"`)
		}
	} else {
		if c := strings.IndexByte(hostport, ':'); c >= 0 {
			host, port, hasPort = hostport[:c], hostport[c+1:], true
		}
		if off, reason := checkHost(host); off >= 0 {
			return fail(base+off, reason)
		}
	}
	if host == "" && scheme.DefaultPort != 0 {
		return fail(base, "missing host")
	}
	u.Host = host
	if hasPort {
		off := base + len(hostport) - len(port)
		if port == "" {
			u.emptyPort = true
			return nil
		}
		n := 0
		for i := 0; i < len(port); i++ {
			c := port[i]
			if c < '0' || c > '9' {
				// Not quoted: what follows a ":" here may be a password
				// whose "?", "#" or "/" was not encoded.
				return fail(off+i, "the port is not a decimal number (a \"/\", \"?\" or \"#\" in a password must be %-encoded)")
			}
			if i == 5 {
				return fail(off, "port "+strconv.Quote(port)+" has more than 5 digits")
			}
			if n = n*10 + int(c-'0'); n > 65535 {
				return fail(off, "port "+port+" out of range 1-65535")
			}
		}
		if n == 0 {
			return fail(off, "port 0 out of range 1-65535")
		}
		u.Port = n
		if port[0] == '0' {
			u.portWidth = uint8(len(port)) // keep "080" as written
		}
	}
	return nil
}

// checkHost validates a domain name or dotted IPv4 address (RFC 1738
// section 3.1), or a host name of an IRI (RFC 3987): one with labels in
// Unicode or percent-encoded UTF-8, which must pass IDNA (see ASCIIHost).
// It returns the offset of the problem and a reason, or -1.
func checkHost(h string) (int, string) {
	intl := false // a label beyond ASCII
	for i := 0; i < len(h); i++ {
		c := h[i]
		switch {
		case is(c, cLabel):
		case c == '.':
			if i == 0 || h[i-1] == '.' {
				return i, "empty label in host name"
			}
		case c == '%' || c >= 0x80:
			intl = true
		default:
			return i, "invalid character " + quoteByte(c) + " in host name"
		}
	}
	if intl {
		if _, off, reason := toASCIIHost(h); off >= 0 {
			return off, reason
		}
		return -1, ""
	}
	// Digits and dots only: an IPv4 address, which must be valid. A
	// name ends with a letter more often than not.
	if n := len(h); n > 0 && h[n-1] >= '0' && h[n-1] <= '9' && strings.Trim(h, "0123456789.") == "" && !validIPv4(h) {
		return 0, "invalid IPv4 address " + strconv.Quote(h)
	}
	return -1, ""
}

func validIPv4(h string) bool {
	parts, n, digits := 0, 0, 0
	for i := 0; i <= len(h); i++ {
		if i == len(h) || h[i] == '.' {
			if digits == 0 || n > 255 {
				return false
			}
			parts++
			n, digits = 0, 0
			continue
		}
		n = n*10 + int(h[i]-'0')
		digits++
	}
	return parts == 4
}

// validIPv6 checks the shape of an IPv6 address: hex groups and colons, at
// most one "::", an optional dotted IPv4 tail.
func validIPv6(h string) bool {
	if h == "" || strings.Count(h, "::") > 1 {
		return false
	}
	groups := strings.Split(h, ":")
	if len(groups) < 3 || len(groups) > 8 {
		return false
	}
	for i, g := range groups {
		if g == "" {
			continue
		}
		if i == len(groups)-1 && strings.IndexByte(g, '.') >= 0 {
			if !validIPv4(g) {
				return false
			}
			continue
		}
		if len(g) > 4 {
			return false
		}
		for j := 0; j < len(g); j++ {
			if !is(g[j], cHex) {
				return false
			}
		}
	}
	return strings.Contains(h, "::") || len(groups) == 8 ||
		(len(groups) == 7 && strings.IndexByte(groups[6], '.') >= 0)
}

// checkScheme applies the rules particular to one scheme that Parse
// enforces; the views check the rest. base is the offset in s where the
// scheme-specific part (after "//host:port" when present) begins.
func (u *URL) checkScheme(s string, base int) error {
	fail := func(off int, reason string) error {
		return &Error{Input: s, Offset: off, Reason: reason}
	}
	switch u.Scheme {
	case "ftp", "ftps":
		// RFC 1738 section 3.2.2: ;type= a, i or d. Most paths have
		// no ";" at all, found faster than no ";type=".
		if strings.IndexByte(u.Path, ';') < 0 {
			return nil
		}
		if i := strings.LastIndex(u.Path, ";type="); i >= 0 && strings.IndexByte(u.Path[i:], '/') < 0 {
			code := u.Path[i+len(";type="):]
			if len(code) != 1 || strings.IndexByte("aidAID", code[0]) < 0 {
				return fail(base+i+len(";type="), "unknown ftp typecode "+strconv.Quote(code)+" (want a, i or d)")
			}
		}
	case "news", "snews":
		// RFC 1738 section 3.6: article = 1*[...] "@" host.
		if u.Authority {
			return nil
		}
		// The part after "@" is taken as RFC 5536 writes message-ids
		// (x@[127.0.0.1] and x@a/b occur), not checked as a host name.
		// The News view splits at the last "@", so that is the one a
		// host must follow (issue 12: "news:@@").
		if at := strings.LastIndexByte(u.Path, '@'); at >= 0 && at == len(u.Path)-1 {
			return fail(base+at+1, "news article without a host after \"@\"")
		}
	}
	return nil
}

// describeBad says why byte c may not stand unencoded in a URL.
func describeBad(c byte) string {
	enc := "%" + string(upperhex[c>>4]) + string(upperhex[c&15])
	switch {
	case c == ' ':
		return "unencoded space (encode it as %20)"
	case c < 0x20 || c == 0x7f:
		return "unencoded control byte " + quoteByte(c) + " (encode it as " + enc + ")"
	case c >= 0x80:
		return "unencoded non-ASCII byte " + quoteByte(c) + " (encode it as " + enc + ")"
	}
	return "unsafe character " + quoteByte(c) + " (encode it as " + enc + ")"
}

func quoteByte(c byte) string {
	if c >= 0x20 && c < 0x7f {
		return strconv.QuoteRune(rune(c))
	}
	return "0x" + string(upperhex[c>>4]) + string(upperhex[c&15])
}

// String reassembles the URL. For a URL from Parse it is the input again,
// but for the scheme, which Parse lower-cases.
func (u *URL) String() string {
	return u.format(false)
}

// Redacted is String with the password replaced by "***", for every place
// a URL is shown to a person: errors, traces, logs.
func (u *URL) Redacted() string {
	return u.format(true)
}

func (u *URL) format(mask bool) string {
	var b strings.Builder
	n := len(u.Scheme) + len(u.User) + len(u.Password) + len(u.Host) +
		len(u.Path) + len(u.RawQuery) + len(u.Fragment) + 16
	b.Grow(n)
	b.WriteString(u.Scheme)
	b.WriteByte(':')
	if u.Authority {
		b.WriteString("//")
		if u.HasUser {
			b.WriteString(u.User)
			if u.HasPassword {
				b.WriteByte(':')
				if mask {
					b.WriteString("***")
				} else {
					b.WriteString(u.Password)
				}
			}
			b.WriteByte('@')
		}
		if strings.IndexByte(u.Host, ':') >= 0 {
			b.WriteByte('[')
			b.WriteString(u.Host)
			b.WriteByte(']')
		} else {
			b.WriteString(u.Host)
		}
		if u.Port != 0 || u.emptyPort {
			b.WriteByte(':')
		}
		if u.Port != 0 {
			var digits [20]byte
			d := strconv.AppendInt(digits[:0], int64(u.Port), 10)
			for i := len(d); i < int(u.portWidth); i++ {
				b.WriteByte('0')
			}
			b.Write(d)
		}
		b.WriteString(u.Path)
		if u.RawQuery != "" || u.ForceQuery {
			b.WriteByte('?')
			b.WriteString(u.RawQuery)
		}
	} else {
		b.WriteString(u.Path)
	}
	if u.HasFragment || u.Fragment != "" {
		b.WriteByte('#')
		b.WriteString(u.Fragment)
	}
	return b.String()
}

// Hostport returns host:port for dialing, with the scheme's default port
// when the URL names none, and brackets around an IPv6 address. The host
// is as written: a dial path gives it to ASCIIHost.
func (u *URL) Hostport() string {
	host := u.Host
	if strings.IndexByte(host, ':') >= 0 {
		host = "[" + host + "]"
	}
	return host + ":" + strconv.Itoa(u.PortNumber())
}

// PortNumber returns the port the URL designates: its own, else the
// scheme's default (0 for a scheme without one).
func (u *URL) PortNumber() int {
	if u.Port != 0 {
		return u.Port
	}
	return DefaultPort(u.Scheme)
}

// URLPath returns the url-path of RFC 1738 section 3.1: Path without the
// "/" that separates it from the host and port.
func (u *URL) URLPath() string {
	if !u.Authority {
		return u.Path
	}
	return strings.TrimPrefix(u.Path, "/")
}

// Username returns the decoded user name.
func (u *URL) Username() string { return mustUnescape(u.User) }

// PasswordValue returns the decoded password and whether the URL has one.
func (u *URL) PasswordValue() (string, bool) {
	return mustUnescape(u.Password), u.HasPassword
}

// WithoutFragment returns a copy of u without its fragment: the URL proper.
func (u *URL) WithoutFragment() *URL {
	v := *u
	v.Fragment, v.HasFragment = "", false
	return &v
}
