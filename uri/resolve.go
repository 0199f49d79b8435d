package uri

import (
	"bytes"
	"strings"
)

// Resolve resolves the reference ref, which may be a partial (relative)
// URL, against the absolute URL base and returns the target URL.
//
// It implements the partial forms of RFC 1630 ("Partial form") with the
// algorithm of RFC 3986 section 5.2, in strict mode: a ref that has a
// scheme is absolute, even when the scheme is the base's own, so "http:g"
// stays "http:g". The RFC 1630 examples, in the context of
// magic://a/b/c//d/e/f or of magic://a/b/c//d/e/, come out the same under
// RFC 3986. "." and ".." segments are removed (RFC 3986 section 5.2.4).
// The fragment of ref is kept; the fragment of base never is, so an empty
// ref gives base without its fragment.
//
// Both strings are split as RFC 3986 Appendix B does, whatever the
// scheme, and their characters are not checked: Parse the result to
// validate it. The only error is a base with no scheme.
func Resolve(base, ref string) (string, error) {
	// RFC 3986 §5.2.1: only the scheme is required in a base URI.
	b := splitReference(base)
	if b.scheme == "" {
		return "", &Error{Input: base, Offset: -1,
			Reason: `base is not an absolute URL: missing scheme (a URL begins with a name such as "http:")`}
	}
	// RFC 3986 §5.2.2: an empty reference is the base, path and query
	// unchanged, and no fragment.
	if ref == "" {
		return withoutFragment(base, b), nil
	}
	r := splitReference(ref)

	// RFC 3986 §5.2.2, strict: T starts as R, scheme, authority, path,
	// query and fragment; the fragment always stays R's. What R lacks is
	// taken from the base below.
	t := r
	dir := ""    // RFC 3986 §5.2.3: the base path the ref's path is merged into
	dots := true // whether remove_dot_segments applies to the path
	if r.scheme != "" {
		// RFC 3986 §5.2.2: a reference with a scheme is absolute, and
		// comes back unchanged unless its path has dot-segments.
		if !hasDotSegment(r.path) {
			return ref, nil
		}
	} else {
		t.scheme = b.scheme
		if !r.hasAuthority {
			// RFC 3986 §5.2.2: no authority in R, so the base's.
			t.authority, t.hasAuthority = b.authority, b.hasAuthority
			switch {
			case r.path == "":
				// RFC 3986 §5.2.2: the base path as is, and the base
				// query unless R has one.
				t.path, dots = b.path, false
				if !r.hasQuery {
					t.query, t.hasQuery = b.query, b.hasQuery
				}
			case r.path[0] != '/':
				// RFC 3986 §5.2.2: a relative path is merged with the
				// base path; an absolute one ("/g") is taken as is.
				dir = mergeDir(b)
			}
		}
	}
	return recompose(t, dir, dots), nil
}

// components are the five components of a URI reference (RFC 3986 §3).
// The scheme is defined when it is not empty; the others may be defined
// and empty ("http://a/b?" has an empty query), which RFC 3986 §5.3
// keeps apart from undefined.
type components struct {
	scheme, authority, path, query, fragment string
	hasAuthority, hasQuery, hasFragment      bool
}

// splitReference splits s into its components by scanning its bytes the
// way the regular expression of RFC 3986 Appendix B matches:
//
//	^(([^:/?#]+):)?(//([^/?#]*))?([^?#]*)(\?([^#]*))?(#(.*))?
func splitReference(s string) (c components) {
	// RFC 3986 Appendix B: the scheme is a non-empty run of bytes other
	// than ":/?#", followed by ":".
	for i := 0; i < len(s); i++ {
		if s[i] == '/' || s[i] == '?' || s[i] == '#' {
			break
		}
		if s[i] == ':' {
			if i > 0 {
				c.scheme, s = s[:i], s[i+1:]
			}
			break
		}
	}
	// RFC 3986 Appendix B: the authority follows "//" and runs to the
	// next "/", "?" or "#".
	if len(s) >= 2 && s[0] == '/' && s[1] == '/' {
		s = s[2:]
		end := strings.IndexAny(s, "/?#")
		if end < 0 {
			end = len(s)
		}
		c.authority, c.hasAuthority, s = s[:end], true, s[end:]
	}
	// RFC 3986 Appendix B: the fragment is everything after the first
	// "#"; the query, what lies between the first "?" and the fragment.
	if i := strings.IndexByte(s, '#'); i >= 0 {
		c.fragment, c.hasFragment, s = s[i+1:], true, s[:i]
	}
	if i := strings.IndexByte(s, '?'); i >= 0 {
		c.query, c.hasQuery, s = s[i+1:], true, s[:i]
	}
	c.path = s
	return c
}

// withoutFragment returns s, split into c, without its fragment.
func withoutFragment(s string, c components) string {
	if c.hasFragment {
		return s[:len(s)-len(c.fragment)-1]
	}
	return s
}

// mergeDir returns the part of the base path that a relative-path
// reference is appended to (RFC 3986 §5.2.3).
func mergeDir(b components) string {
	// RFC 3986 §5.2.3: a base with an authority and an empty path
	// merges as "/".
	if b.hasAuthority && b.path == "" {
		return "/"
	}
	// RFC 3986 §5.2.3: otherwise all of the base path but its last
	// segment: up to and including its last "/", or nothing.
	return b.path[:strings.LastIndexByte(b.path, '/')+1]
}

// hasDotSegment reports whether some segment of path is "." or "..",
// that is, whether remove_dot_segments would change it.
func hasDotSegment(path string) bool {
	for seg := range strings.SplitSeq(path, "/") {
		if seg == "." || seg == ".." {
			return true
		}
	}
	return false
}

// recompose writes t as a string (RFC 3986 §5.3), its path being dir
// followed by t.path, with dot-segments removed if dots is set.
func recompose(t components, dir string, dots bool) string {
	n := len(t.scheme) + len(":") + len("//") + len(t.authority) +
		len(dir) + len(t.path) + len("?") + len(t.query) + len("#") + len(t.fragment)
	// The result is built in place; a usual URL fits in the stack
	// array, leaving one allocation: the string.
	var stack [128]byte
	buf := stack[:0]
	if n > len(stack) {
		buf = make([]byte, 0, n)
	}

	// RFC 3986 §5.3: scheme ":" ["//" authority] path ["?" query] ["#" fragment].
	buf = append(buf, t.scheme...)
	buf = append(buf, ':')
	if t.hasAuthority {
		buf = append(buf, "//"...)
		buf = append(buf, t.authority...)
	}
	start := len(buf)
	buf = append(buf, dir...) // RFC 3986 §5.2.3: merge
	buf = append(buf, t.path...)
	if dots {
		buf = buf[:start+len(removeDotSegments(buf[start:]))]
	}
	if t.hasQuery {
		buf = append(buf, '?')
		buf = append(buf, t.query...)
	}
	if t.hasFragment {
		buf = append(buf, '#')
		buf = append(buf, t.fragment...)
	}
	return string(buf)
}

// removeDotSegments is remove_dot_segments of RFC 3986 §5.2.4, done in
// place: the output buffer is p[:w] and the input buffer is p[r:]. The
// output never grows faster than the input is consumed (w <= r), so both
// fit in p. It returns the output buffer.
func removeDotSegments(p []byte) []byte {
	w, r := 0, 0
	for r < len(p) {
		in := p[r:]
		switch {
		// RFC 3986 §5.2.4 A: remove a leading "../" or "./".
		case startsWith(in, "../"):
			r += 3
		case startsWith(in, "./"):
			r += 2

		// RFC 3986 §5.2.4 B: replace a leading "/./", or an input of
		// "/.", with "/".
		case startsWith(in, "/./"):
			r += 2
		case string(in) == "/.":
			r++
			p[r] = '/'

		// RFC 3986 §5.2.4 C: the same for "/../" and "/..", also removing
		// the last segment and its preceding "/" from the output.
		case startsWith(in, "/../"):
			r += 3
			w = max(bytes.LastIndexByte(p[:w], '/'), 0)
		case string(in) == "/..":
			r += 2
			p[r] = '/'
			w = max(bytes.LastIndexByte(p[:w], '/'), 0)

		// RFC 3986 §5.2.4 D: drop an input of "." or "..".
		case string(in) == "." || string(in) == "..":
			r = len(p)

		// RFC 3986 §5.2.4 E: move the first segment, with its leading
		// "/" if any, up to the next "/", to the output.
		default:
			n := len(in)
			if i := bytes.IndexByte(in[1:], '/'); i >= 0 {
				n = 1 + i
			}
			w += copy(p[w:], in[:n])
			r += n
		}
	}
	return p[:w]
}

// startsWith reports whether b begins with s, without allocating.
func startsWith(b []byte, s string) bool {
	return len(b) >= len(s) && string(b[:len(s)]) == s
}
