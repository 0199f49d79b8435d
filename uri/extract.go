package uri

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Match is a URL found in text.
type Match struct {
	URL   string // the URL, with its wrapper, "URL:" prefix and any whitespace inside a wrapper removed
	Start int    // byte offset in the text where the match begins (the "<" of a wrapper)
	End   int    // byte offset just past the match (past the ">")
}

// Extract finds the URLs in plain text, in text order, without overlaps.
//
// It recognises the wrappers recommended by the appendix of RFC 1738,
// "<URL:...>" (the prefix in any case, optionally followed by whitespace),
// and plain "<scheme:...>" for any syntactically valid scheme. Whitespace
// inside a wrapper, such as the line breaks of a long URL folded across
// lines, is dropped; a fragment inside the brackets is kept. A "<" with no
// ">" before a blank line or the end of text is not a wrapper.
//
// Outside wrappers it finds bare URLs of the schemes the package knows
// (http, ftp, mailto, news, ...), in any case. A bare URL starts at its
// scheme, which must not follow a letter or digit, and runs to whitespace
// (Unicode's too), "<", ">", '"', a character that may not stand in an
// IRI, or the end of text; trailing punctuation that usually ends a
// sentence (. , ; : ! ? ' and Unicode's closing quotes, brackets and
// other punctuation) is not part of it, nor is a closing ")" or "]" that
// has no opening partner inside the URL.
//
// Every Match.URL is one that Parse accepts and that the view of its
// scheme (FTP, HTTP, ...) describes, so a client can fetch what Extract
// finds: an IRI stays as written, in Unicode (see Parse); what Parse
// would refuse is made valid by Clean where it can be (a stray "%", a
// byte that is not UTF-8), and dropped where it cannot ("<URL:foo>",
// "http:foo", a host name with an empty label). Match.URL is therefore
// a substring of text unless whitespace had to be removed or bytes
// encoded.
func Extract(text string) []Match {
	var out []Match
	i := 0
	for i < len(text) {
		c := text[i]
		switch {
		case c == '<':
			if m, ok := extractWrapped(text, i); ok {
				if m.URL, ok = extractUsable(m.URL); ok {
					out = append(out, m)
				}
				i = m.End
				continue
			}
		case extractAlnum(c) && (i == 0 || !extractAlnum(text[i-1])):
			j := i + 1
			for j < len(text) && extractAlnum(text[j]) {
				j++
			}
			if j < len(text) && text[j] == ':' && extractKnownScheme(text[i:j]) {
				if end := extractBareEnd(text, j+1); end > j+1 {
					if u, ok := extractUsable(text[i:end]); ok {
						out = append(out, Match{URL: u, Start: i, End: end})
					}
					// A URL dropped is skipped whole, so that Extract
					// stays linear.
					i = end
					continue
				}
			}
			// No scheme starts inside an alphanumeric run.
			i = j
			continue
		}
		i++
	}
	return out
}

// extractUsable returns s, or s as Clean makes it, when Parse accepts it
// and the view of its scheme describes it; ok is false when neither does.
// A valid s costs no allocation.
func extractUsable(s string) (url string, ok bool) {
	if extractValid(s) {
		return s, true
	}
	if c, changes := Clean(s); changes != nil && extractValid(c) {
		return c, true
	}
	return "", false
}

func extractValid(s string) bool {
	var u URL
	return u.parse(s) == nil && u.checkView() == nil
}

// extractWrapped tries to read a wrapper at text[lt], a "<". The scan
// stops at the first "<" after lt, so failed attempts never scan the
// same bytes twice and Extract stays linear.
func extractWrapped(text string, lt int) (Match, bool) {
	p := lt + 1
	prefixed := len(text)-p >= 4 && strings.EqualFold(text[p:p+4], "URL:")
	if prefixed {
		p += 4
	} else {
		// A plain wrapper must begin with scheme ":" and a byte of the
		// scheme-specific part right away, so that prose such as
		// "<Note: see below>" is not taken for a URL.
		k := extractSchemeEnd(text, p)
		if k < 0 || k+1 >= len(text) || extractSpace(text[k+1]) || text[k+1] == '>' {
			return Match{}, false
		}
	}
	first, last := -1, -1 // bounds of the non-space content
	interior := false     // whitespace between first and last
	breaks := 0           // line breaks since the last non-space byte
	for k := p; k < len(text); k++ {
		switch c := text[k]; c {
		case '>':
			if first < 0 {
				return Match{}, false
			}
			m := Match{URL: text[first:last], Start: lt, End: k + 1}
			if interior {
				m.URL = extractSqueeze(m.URL)
			}
			return m, true
		case '<':
			return Match{}, false
		case '\r', '\n':
			// "\r\n" is one line break, and so is a lone "\r" or "\n".
			if c == '\r' && k+1 < len(text) && text[k+1] == '\n' {
				continue
			}
			if breaks++; breaks == 2 {
				return Match{}, false // a blank line ends the search
			}
		case ' ', '\t', '\v', '\f':
		default:
			breaks = 0
			if first < 0 {
				first = k
			} else if last < k {
				interior = true
			}
			last = k + 1
		}
	}
	return Match{}, false
}

// extractSchemeEnd returns the index of the ":" ending a scheme that
// starts at text[p], or -1. A scheme is a letter followed by letters,
// digits, "+", "-" and ".".
func extractSchemeEnd(text string, p int) int {
	if p >= len(text) || !extractLetter(text[p]) {
		return -1
	}
	for k := p + 1; k < len(text); k++ {
		c := text[k]
		switch {
		case c == ':':
			return k
		case extractAlnum(c) || c == '+' || c == '-' || c == '.':
		default:
			return -1
		}
	}
	return -1
}

// extractBareEnd returns the end of a bare URL whose scheme-specific part
// starts at text[p]: the first whitespace, "<", ">" or '"', less trailing
// punctuation. A result of p means the URL is empty.
func extractBareEnd(text string, p int) int {
	end := p
	parens, brackets := 0, 0 // opened minus closed
	for end < len(text) {
		c := text[end]
		if extractSpace(c) || c == '<' || c == '>' || c == '"' {
			break
		}
		if c >= 0x80 {
			// A byte that is not UTF-8 is left to Clean to encode.
			r, n := utf8.DecodeRuneInString(text[end:])
			if unicode.IsSpace(r) || n > 1 && !iriChar(r) {
				break
			}
			end += n
			continue
		}
		switch c {
		case '(':
			parens++
		case ')':
			parens--
		case '[':
			brackets++
		case ']':
			brackets--
		}
		end++
	}
	for end > p {
		switch text[end-1] {
		case '.', ',', ';', ':', '!', '?', '\'':
		case ')':
			// Keep a ")" that closes a "(" of the URL.
			if parens >= 0 {
				return end
			}
			parens++
		case ']':
			if brackets >= 0 {
				return end
			}
			brackets++
		default:
			if text[end-1] >= 0x80 {
				// Unicode's closing quotes and brackets, "。", "…".
				r, n := utf8.DecodeLastRuneInString(text[p:end])
				if n > 1 && unicode.In(r, unicode.Pe, unicode.Pf, unicode.Po) {
					end -= n
					continue
				}
			}
			return end
		}
		end--
	}
	return end
}

// extractKnownScheme reports whether name, in any case, is a scheme the
// package knows. It does not allocate.
func extractKnownScheme(name string) bool {
	var buf [16]byte
	if len(name) > len(buf) {
		return false
	}
	lower := true
	for i := 0; i < len(name); i++ {
		c := name[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
			lower = false
		}
		buf[i] = c
	}
	if lower {
		return isKnownScheme(name)
	}
	return isKnownScheme(string(buf[:len(name)]))
}

// extractSqueeze returns s without its whitespace.
func extractSqueeze(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); i++ {
		if !extractSpace(s[i]) {
			b.WriteByte(s[i])
		}
	}
	return b.String()
}

func extractSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f'
}

func extractLetter(c byte) bool { return 'a' <= c|0x20 && c|0x20 <= 'z' }

func extractAlnum(c byte) bool { return extractLetter(c) || '0' <= c && c <= '9' }
