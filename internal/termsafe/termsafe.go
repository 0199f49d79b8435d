// Package termsafe makes text a server sent harmless on a terminal
// (issue 22, point 5). Whatever a server sent — a file name, a gopher
// display string, an article's subject, the text of a reply quoted in an
// error — may hold characters a terminal acts on: an ESC that starts a
// control sequence (repaint the screen, retitle the window, and on some
// terminals worse), a CR that overwrites what a line showed, a
// bidirectional override that shows a name other than it is. The command
// shows such text escaped, as ls does, and so does fetch serve's HTML;
// --json escapes the same characters as \u escapes (package records).
package termsafe

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Control reports whether r is a character a terminal may act on
// rather than show: C0 controls, DEL, C1 controls (U+0080-U+009F, which
// some terminals take as 8-bit CSI and OSC), and the bidirectional
// controls (U+061C, U+200E, U+200F, U+202A-U+202E, U+2066-U+2069).
func Control(r rune) bool {
	return r < 0x20 || r == 0x7f || r >= 0x80 && r <= 0x9f || unicode.Is(unicode.Bidi_Control, r)
}

// Escape returns s with every terminal control written as an escape
// (\t, \n, \r, \e, \x07, \u202e) and every byte that is not UTF-8 as \xNN.
// A backslash is left alone: an escape shows where a character was, not
// a reversible encoding.
func Escape(s string) string {
	clean := true
	for _, r := range s {
		if r == utf8.RuneError || Control(r) {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			b.WriteString(`\x`)
			b.WriteString(strconv.FormatUint(uint64(s[i])|0x100, 16)[1:])
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == 0x1b:
			b.WriteString(`\e`)
		case r < 0x80 && Control(r):
			b.WriteString(`\x`)
			b.WriteString(strconv.FormatUint(uint64(r)|0x100, 16)[1:])
		case Control(r):
			b.WriteString(`\u`)
			b.WriteString(strconv.FormatUint(uint64(r)|0x10000, 16)[1:])
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}
