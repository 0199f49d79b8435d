package uri

// ParseLenient parses what people paste rather than what the syntax
// allows: surrounding spaces, a "URL:" prefix, <...> wrappers with line
// breaks inside, unencoded spaces, UTF-8 and stray "%" signs. Clean turns
// the input into a valid URL, Parse parses that, and the changes say what
// was altered, at which offsets of the input.
func ParseLenient(s string) (*URL, []Change, error) {
	clean, changes := Clean(s)
	u, err := Parse(clean)
	if err != nil {
		return nil, changes, err
	}
	return u, changes, nil
}

// Resolve expands ref, a URL or a partial form of one, against u (RFC 1630
// partial forms, by the algorithm of RFC 3986 section 5.2) and parses the
// result.
func (u *URL) Resolve(ref string) (*URL, error) {
	s, err := Resolve(u.String(), ref)
	if err != nil {
		return nil, err
	}
	return Parse(s)
}
