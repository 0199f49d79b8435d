package uri

import (
	"strconv"
	"strings"
)

// Change records one edit Clean made, at a byte offset of its input.
type Change struct {
	Offset int    // byte offset in the input
	What   string // e.g. `removed "<URL:" wrapper`, `encoded space as %20`
}

// Clean turns a URL as people paste it into a string that Parse can
// accept, and reports each edit it made. It
//
//   - trims surrounding whitespace;
//   - removes surrounding double quotes, a "<...>" or "<URL:...>" wrapper
//     and a "URL:" prefix (in any case), as often as they nest;
//   - inside a wrapper, removes each run of whitespace that holds a line
//     break, as in a long URL folded across lines (RFC 1738, appendix);
//   - percent-encodes, in upper-case hex, every byte RFC 1738 does not
//     allow unencoded: space, control bytes, bytes of 0x80 and above
//     (each byte of a UTF-8 sequence), '"', "<", ">" and "`";
//   - encodes a "%" not followed by two hex digits as %25, and every "#"
//     after the first, which starts the fragment, as %23.
//
// Clean does not otherwise check the URL. Its output has no byte outside
// the xchar set of RFC 1738 section 5 but a single "#", and every "%" in
// it starts an escape. When s needs no change, Clean returns s and a nil
// slice without allocating. The Changes are in order of Offset, and a run
// of like bytes (spaces, non-ASCII bytes) is reported as one Change.
func Clean(s string) (string, []Change) {
	var changes []Change
	var tail []Change // trailing trims, outermost first
	lo, hi := 0, len(s)
	wrapped := false
peel:
	for {
		a := lo
		for a < hi && extractSpace(s[a]) {
			a++
		}
		if a > lo {
			changes = append(changes, Change{lo, "trimmed leading whitespace"})
			lo = a
		}
		b := hi
		for b > lo && extractSpace(s[b-1]) {
			b--
		}
		if b < hi {
			tail = append(tail, Change{b, "trimmed trailing whitespace"})
			hi = b
		}
		n := hi - lo
		switch {
		case n >= 2 && s[lo] == '"' && s[hi-1] == '"':
			changes = append(changes, Change{lo, "removed surrounding quotes"})
			lo, hi = lo+1, hi-1
		case n >= 2 && s[lo] == '<' && s[hi-1] == '>':
			wrapped = true
			if n >= 6 && strings.EqualFold(s[lo+1:lo+5], "URL:") {
				changes = append(changes, Change{lo, `removed "` + s[lo:lo+5] + `" wrapper`})
				lo, hi = lo+5, hi-1
			} else {
				changes = append(changes, Change{lo, `removed "<" ">" wrapper`})
				lo, hi = lo+1, hi-1
			}
		case n >= 4 && strings.EqualFold(s[lo:lo+4], "URL:"):
			changes = append(changes, Change{lo, `removed "` + s[lo:lo+4] + `" prefix`})
			lo += 4
		default:
			break peel
		}
	}

	var b strings.Builder
	copied := lo    // s[copied:i] is yet to be written to b
	edited := false // b holds output
	hash := false   // a "#" has been kept
	plain := lo     // s[:plain] has no whitespace run to remove
	for i := lo; i < hi; {
		c := s[i]
		if cleanRaw[c] || c == '#' && !hash || c == '%' && cleanEscape(s, i, hi, wrapped) {
			hash = hash || c == '#'
			i++
			continue
		}
		if !edited {
			edited = true
			b.Grow(hi - lo + 16)
		}
		b.WriteString(s[copied:i])
		start := i
		if wrapped && i >= plain && extractSpace(c) {
			j, br := cleanRun(s, i, hi)
			if br {
				changes = append(changes, Change{start, "removed line break inside wrapper"})
				i, copied = j, j
				continue
			}
			plain = j // encode this run byte by byte, below
		}
		switch {
		case c == ' ':
			for i < hi && s[i] == ' ' {
				b.WriteString("%20")
				i++
			}
			if n := i - start; n == 1 {
				changes = append(changes, Change{start, "encoded space as %20"})
			} else {
				changes = append(changes, Change{start, "encoded " + strconv.Itoa(n) + " spaces as %20"})
			}
		case c >= 0x80:
			for i < hi && s[i] >= 0x80 {
				cleanWriteEscape(&b, s[i])
				i++
			}
			enc := b.String()[b.Len()-3*(i-start):]
			if n := i - start; n == 1 {
				changes = append(changes, Change{start, "encoded non-ASCII byte " + cleanHexByte(c) + " as " + enc})
			} else {
				changes = append(changes, Change{start, "encoded " + strconv.Itoa(n) + " non-ASCII bytes " + strconv.Quote(s[start:i]) + " as " + enc})
			}
		case c == '%':
			b.WriteString("%25")
			i++
			changes = append(changes, Change{start, `encoded "%" not followed by two hex digits as %25`})
		case c == '#':
			b.WriteString("%23")
			i++
			changes = append(changes, Change{start, `encoded "#" after the fragment's "#" as %23`})
		case c < 0x20 || c == 0x7f:
			cleanWriteEscape(&b, c)
			i++
			changes = append(changes, Change{start, "encoded control byte " + cleanHexByte(c) + " as " + b.String()[b.Len()-3:]})
		default: // '"', '<', '>', '`'
			cleanWriteEscape(&b, c)
			i++
			changes = append(changes, Change{start, "encoded unsafe character " + strconv.QuoteRune(rune(c)) + " as " + b.String()[b.Len()-3:]})
		}
		copied = i
	}
	for k := len(tail) - 1; k >= 0; k-- {
		changes = append(changes, tail[k])
	}
	if changes == nil {
		return s, nil
	}
	if !edited {
		return s[lo:hi], changes
	}
	b.WriteString(s[copied:hi])
	return b.String(), changes
}

// cleanRaw marks the bytes that may stand unencoded in a URL: xchar of
// RFC 1738 section 5 (alpha, digit, safe, extra, national, reserved), less
// "%", which must begin an escape.
var cleanRaw = func() (t [256]bool) {
	const raw = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789" +
		"$-_.+" + "!*'()," + "{}|\\^~[]" + ";/?:@&="
	for i := 0; i < len(raw); i++ {
		t[raw[i]] = true
	}
	return t
}()

// cleanRun returns the end of the whitespace run at s[i] and whether it
// holds a line break, and so is removed inside a wrapper.
func cleanRun(s string, i, hi int) (end int, lineBreak bool) {
	for end = i; end < hi && extractSpace(s[end]); end++ {
		lineBreak = lineBreak || s[end] == '\n' || s[end] == '\r'
	}
	return end, lineBreak
}

// cleanEscape reports whether the "%" at s[i] is followed by two hex
// digits in the output, where a folded line break inside a wrapper is
// removed.
func cleanEscape(s string, i, hi int, wrapped bool) bool {
	for n := 0; n < 2; n++ {
		i++
		if wrapped {
			if j, br := cleanRun(s, i, hi); br {
				i = j
			}
		}
		if i >= hi || !cleanIsHex(s[i]) {
			return false
		}
	}
	return true
}

func cleanIsHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c|0x20 && c|0x20 <= 'f'
}

const cleanUpperHex = "0123456789ABCDEF"

func cleanWriteEscape(b *strings.Builder, c byte) {
	b.WriteByte('%')
	b.WriteByte(cleanUpperHex[c>>4])
	b.WriteByte(cleanUpperHex[c&15])
}

func cleanHexByte(c byte) string {
	return "0x" + string(cleanUpperHex[c>>4]) + string(cleanUpperHex[c&15])
}
