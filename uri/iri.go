package uri

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"golang.org/x/net/idna"
)

// This file holds what the package knows of IRIs (RFC 3987): the
// characters beyond ASCII that Parse lets stand unencoded, host names in
// Unicode (IDNA, RFC 5891, by the UTS #46 processing of x/net/idna's
// Lookup profile), and the mapping of an IRI to the URI a protocol sends
// (RFC 3987 section 3.1).

// iriChar reports whether r may stand unencoded in an IRI: ucschar of RFC
// 3987 section 2.2, and the iprivate characters, which RFC 3987 allows in
// the query only and Parse anywhere but the host. The bidirectional
// formatting characters are refused (RFC 3987 section 4.1), and so is
// utf8.RuneError, which stands for a byte that is not UTF-8.
func iriChar(r rune) bool {
	switch {
	case r < 0xA0:
		return false
	case r <= 0xD7FF:
		// RFC 3987 section 4.1: LRM, RLM, LRE, RLE, PDF, LRO and RLO
		// MUST NOT be used; the later isolates (LRI ... PDI) alike.
		return r != 0x200E && r != 0x200F && (r < 0x202A || r > 0x202E) && (r < 0x2066 || r > 0x2069)
	case r <= 0xF8FF:
		return r >= 0xE000 // iprivate; surrogates are not UTF-8
	case r <= 0xFDCF:
		return true
	case r < 0xFDF0:
		return false // noncharacters
	case r <= 0xFFEF:
		return true
	case r < 0x10000:
		return false // specials, U+FFFD among them
	case r >= 0xE0000 && r < 0xE1000:
		return false // tags and variation selectors (not ucschar)
	}
	return r&0xFFFF < 0xFFFE && r <= utf8.MaxRune // not a plane's last two
}

// describeBadRune says why the bytes at the start of s, which begin with
// a byte of 0x80 or above, may not stand unencoded in a URL.
func describeBadRune(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	if r == utf8.RuneError && n <= 1 {
		return "unencoded non-ASCII byte " + quoteByte(s[0]) + " that is not UTF-8 (encode it as " + percent(s[:1]) + ")"
	}
	what := "character"
	switch {
	case r < 0xA0:
		what = "control character"
	case r == 0x200E || r == 0x200F || r >= 0x202A && r <= 0x202E || r >= 0x2066 && r <= 0x2069:
		what = "bidirectional formatting character" // RFC 3987 section 4.1
	}
	return "unencoded " + what + " " + strconv.QuoteRuneToASCII(r) + " (encode it as " + percent(s[:n]) + ")"
}

// percent returns every byte of s as %XX.
func percent(s string) string {
	b := make([]byte, 0, 3*len(s))
	for i := 0; i < len(s); i++ {
		b = append(b, '%', upperhex[s[i]>>4], upperhex[s[i]&15])
	}
	return string(b)
}

// plainHost reports whether h is all ASCII and holds no escape: a host
// name that goes on the wire as it is.
func plainHost(h string) bool {
	for i := 0; i < len(h); i++ {
		if h[i] >= 0x80 || h[i] == '%' {
			return false
		}
	}
	return true
}

// ASCIIHost returns host, a host as URL.Host holds it, in the form that
// goes on the wire: DNS, a Host header, TLS's server name. Each label
// written in Unicode, or in percent-encoded UTF-8, becomes its A-label
// ("bücher" is "xn--bcher-kva"); the other labels stay as they are. A host
// that is all ASCII, an IPv6 address among them, comes back unchanged and
// without an allocation.
//
// The labels in Unicode are mapped and checked by IDNA (UTS #46
// processing for lookup, golang.org/x/net/idna's Lookup profile: case
// folded, width mapped, disallowed code points and invalid labels
// refused); the ASCII labels are held to Parse's rules only. A host IDNA
// refuses is an *Error whose Offset is that of the refused label in host.
func ASCIIHost(host string) (string, error) {
	if plainHost(host) {
		return host, nil
	}
	ascii, off, reason := toASCIIHost(host)
	if off >= 0 {
		return "", &Error{Input: host, Offset: off, Reason: reason}
	}
	return ascii, nil
}

// SameHost reports whether a and b, hosts as URL.Host holds them, name
// the same host: compared without regard to case, each in its A-labels
// (ASCIIHost), so that a name written in Unicode and in its A-labels is
// one host ("bücher.example" and "xn--bcher-kva.example"). A host IDNA
// refuses is compared as written. Every decision that depends on "the
// same host" (where credentials may go, the same server of a hop,
// netrc's machine, no_proxy) compares by it.
func SameHost(a, b string) bool {
	return strings.EqualFold(hostKey(a), hostKey(b))
}

// hostKey is host in A-labels, or as written when IDNA refuses it.
func hostKey(host string) string {
	if a, err := ASCIIHost(host); err == nil {
		return a
	}
	return host
}

// HostKey returns host as SameHost compares it: its A-labels, in lower
// case (as written, in lower case, when IDNA refuses it). For matching
// a host against names by suffix (no_proxy).
func HostKey(host string) string {
	return strings.ToLower(hostKey(host))
}

// toASCIIHost is ASCIIHost for a host that is not plain. On failure it
// returns the offset of the problem in h and the reason; else off is -1.
func toASCIIHost(h string) (ascii string, off int, reason string) {
	b := make([]byte, 0, len(h)+16)
	for start := 0; ; {
		end := strings.IndexByte(h[start:], '.')
		if end < 0 {
			end = len(h)
		} else {
			end += start
		}
		label := h[start:end]
		if plainHost(label) {
			b = append(b, label...)
		} else {
			a, loff, reason := labelToASCII(label)
			if loff >= 0 {
				return "", start + loff, reason
			}
			b = append(b, a...)
		}
		if end == len(h) {
			// Labels that map to digits ("１" is "1") must still make
			// a valid IPv4 address.
			if off, why := checkHost(string(b)); off >= 0 {
				return "", 0, "host name " + strconv.Quote(h) + " maps to " + strconv.Quote(string(b)) + ": " + why
			}
			return string(b), -1, ""
		}
		b = append(b, '.')
		start = end + 1
	}
}

// labelToASCII converts one label that holds non-ASCII bytes or escapes
// to its A-label. On failure it returns the offset in label and why.
func labelToASCII(label string) (string, int, string) {
	u := label
	if i := strings.IndexByte(label, '%'); i >= 0 {
		// RFC 3987 section 3.1 and RFC 3986 section 3.2.2: an escape in
		// a host name is a UTF-8 byte of a character beyond ASCII.
		for j := i; j < len(label); j++ {
			if label[j] == '%' && (j+2 >= len(label) || !is(label[j+1], cHex) || !is(label[j+2], cHex)) {
				return "", j, `"%" not followed by two hex digits`
			}
			if label[j] == '%' && unhex(label[j+1]) < 8 {
				c := unhex(label[j+1])<<4 | unhex(label[j+2])
				return "", j, "encoded bytes are not allowed in a host name but for UTF-8 beyond ASCII (write " + quoteByte(c) + " as itself)"
			}
		}
		u = unescape(label, i)
	}
	if !utf8.ValidString(u) {
		return "", 0, "host name label " + strconv.Quote(u) + " is not UTF-8"
	}
	a, err := idna.Lookup.ToASCII(u)
	if err != nil {
		return "", 0, "host name label " + strconv.Quote(u) + " is not a valid international domain name (IDNA: " + strings.TrimPrefix(err.Error(), "idna: ") + ")"
	}
	// The mapping may turn a label into what Parse would refuse in
	// ASCII ("a。。b" holds an empty label): hold the result to its
	// rules; toASCIIHost checks the whole for an IPv4 address.
	if a == "" {
		return "", 0, "host name label " + strconv.Quote(u) + " maps to nothing (IDNA)"
	}
	for i := 0; i < len(a); i++ {
		if c := a[i]; !is(c, cHost) || c == '.' && (i == 0 || a[i-1] == '.') {
			return "", 0, "host name label " + strconv.Quote(u) + " maps to " + strconv.Quote(a) + ", not a host name"
		}
	}
	return a, -1, ""
}

// UnicodeHost returns host for a person to read: labels in A-labels
// ("xn--...") or in percent-encoded UTF-8 as the Unicode they stand for,
// as IDNA converts them back. A label IDNA does not accept stays as it
// is, so what UnicodeHost shows is never more than a valid domain name's
// characters or host itself. Messages and traces name hosts with it.
func UnicodeHost(host string) string {
	if !strings.Contains(host, "%") && !hasACEPrefix(host) {
		return host
	}
	var b strings.Builder
	for i, label := range strings.Split(host, ".") {
		if i > 0 {
			b.WriteByte('.')
		}
		b.WriteString(unicodeLabel(label))
	}
	return b.String()
}

// hasACEPrefix reports whether some label of h begins with "xn--", the
// ACE prefix of an A-label, in any case.
func hasACEPrefix(h string) bool {
	for i := 0; i+4 <= len(h); i++ {
		if (i == 0 || h[i-1] == '.') && strings.EqualFold(h[i:i+4], "xn--") {
			return true
		}
	}
	return false
}

func unicodeLabel(label string) string {
	a := label
	if !plainHost(label) {
		var off int
		if a, off, _ = labelToASCII(label); off >= 0 {
			return label
		}
	}
	if !hasACEPrefix(a) {
		return label
	}
	u, err := idna.Lookup.ToUnicode(a)
	if err != nil {
		return label
	}
	return u
}

// URI returns the URI that u maps to (RFC 3987 section 3.1): u with its
// host converted by ASCIIHost and every other character beyond ASCII
// percent-encoded as UTF-8. It is what a protocol sends where a whole URL
// goes on the wire (a gateway's request line, an HTTP request); u, as
// written, is what a person reads. For a URL that is all ASCII the result
// equals u. The error, for a URL whose Host was set to one IDNA refuses,
// is an *Error.
func (u *URL) URI() (*URL, error) {
	v := *u
	host, err := ASCIIHost(u.Host)
	if err != nil {
		e := err.(*Error)
		return nil, &Error{Input: u.String(), Offset: -1, Reason: "host " + strconv.Quote(u.Host) + ": " + e.Reason}
	}
	v.Host = host
	v.User = encodeNonASCII(u.User)
	v.Password = encodeNonASCII(u.Password)
	v.Path = encodeNonASCII(u.Path)
	v.RawQuery = encodeNonASCII(u.RawQuery)
	v.Fragment = encodeNonASCII(u.Fragment)
	return &v, nil
}

// encodeNonASCII percent-encodes every byte of s of 0x80 and above (RFC
// 3987 section 3.1, step 2); an all-ASCII s comes back as it is.
func encodeNonASCII(s string) string {
	n := 0
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			n++
		}
	}
	if n == 0 {
		return s
	}
	b := make([]byte, 0, len(s)+2*n)
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= 0x80 {
			b = append(b, '%', upperhex[c>>4], upperhex[c&15])
		} else {
			b = append(b, c)
		}
	}
	return string(b)
}
