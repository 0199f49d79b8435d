package uri

import "strings"

// Equal reports whether a and b are the same URL once brought to the same
// encoding level (RFC 1630, "Encoding reserved characters"): scheme and
// host case-folded, hex digits upper-cased, escapes of unreserved
// characters decoded and the default port dropped. A reserved character
// is never decoded or encoded, because that changes the meaning:
// ".../marie%2Dclaude" equals ".../marie-claude" but ".../bertram%2Fmarie"
// does not equal ".../bertram/marie". An invalid URL equals nothing.
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

// Normalize returns a copy of u at the encoding level Equal compares:
// host in lower case, the scheme's default port and an empty port
// dropped, an empty http path written "/", every escape in upper-case hex
// and escapes of letters, digits, "-", ".", "_" and "~" decoded.
func (u *URL) Normalize() *URL {
	v := *u
	v.Host = strings.ToLower(v.Host)
	v.emptyPort, v.portWidth = false, 0
	if v.Port == DefaultPort(v.Scheme) {
		v.Port = 0
	}
	if v.Authority && v.Path == "" && (v.Scheme == "http" || v.Scheme == "https") {
		v.Path = "/"
	}
	v.User = normalizeEscapes(v.User)
	v.Password = normalizeEscapes(v.Password)
	v.Path = normalizeEscapes(v.Path)
	v.RawQuery = normalizeEscapes(v.RawQuery)
	v.Fragment = normalizeEscapes(v.Fragment)
	return &v
}

// normalizeEscapes upper-cases the hex of every escape in s and decodes
// those of unreserved characters. s has been validated by Parse.
func normalizeEscapes(s string) string {
	i := strings.IndexByte(s, '%')
	if i < 0 {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	b.WriteString(s[:i])
	for ; i < len(s); i++ {
		if s[i] != '%' {
			b.WriteByte(s[i])
			continue
		}
		c := unhex(s[i+1])<<4 | unhex(s[i+2])
		i += 2
		if is(c, cAlnum) || c == '-' || c == '.' || c == '_' || c == '~' {
			b.WriteByte(c)
			continue
		}
		b.WriteByte('%')
		b.WriteByte(upperhex[c>>4])
		b.WriteByte(upperhex[c&15])
	}
	return b.String()
}
