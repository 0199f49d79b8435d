package main

import (
	"strconv"
	"strings"
	"unicode/utf8"

	jsonrec "github.com/urlfetch/urlfetch/internal/records"
)

// Terminal safety (issue 22, point 5). Whatever a server sent — a file
// name, a gopher display string, an article's subject, the text of a
// reply quoted in an error — may hold bytes a terminal acts on: an ESC
// that starts a control sequence (repaint the screen, retitle the window,
// and on some terminals worse), a CR that overwrites what a line showed,
// a bidirectional override that shows a name other than it is. Such text
// is shown escaped, as ls does: the messages and traces on standard error
// always, a listing when it goes to a terminal. --json escapes them in
// its own way (internal/records), and documents, --raw listings and files keep
// their exact bytes.

// terminalControl reports whether r is a character a terminal may act on
// rather than show (records.TerminalControl, which --json escapes too).
func terminalControl(r rune) bool { return jsonrec.TerminalControl(r) }

// safeText returns s with every terminal control written as an escape
// (\t, \n, \r, \e, \x07, \u202e) and every byte that is not UTF-8 as \xNN.
// A backslash is left alone: an escape shows where a character was, not
// a reversible encoding.
func safeText(s string) string {
	clean := true
	for _, r := range s {
		if r == utf8.RuneError || terminalControl(r) {
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
		case r < 0x80 && terminalControl(r):
			b.WriteString(`\x`)
			b.WriteString(strconv.FormatUint(uint64(r)|0x100, 16)[1:])
		case terminalControl(r):
			b.WriteString(`\u`)
			b.WriteString(strconv.FormatUint(uint64(r)|0x10000, 16)[1:])
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}
