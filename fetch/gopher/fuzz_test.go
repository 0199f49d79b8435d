package gopher

import (
	"bytes"
	"errors"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/urlfetch/urlfetch/fetch"
	"github.com/urlfetch/urlfetch/uri"
)

// Issue 12: a menu and an attribute reply are bytes from a server, which
// may be hostile. Seeds: testdata/fuzz/FuzzMenu and FuzzPlusAttributes
// (menus of pygopherd and gophernicus, Gopher+ blocks as pygopherd sends
// them, lines at and just over MaxLine).
//
// Each target takes the bytes and a pad, which lengthens the first line
// to around MaxLine; see stretch.

// minPad is the smallest pad that counts: a pad lengthens a line to within
// 4 KiB of MaxLine or beyond it, and a smaller one is ignored, so that
// most inputs stay short and quick (the fuzzer minimizes an input with
// its pad, and would spend its time on 64 KiB lines).
const minPad = MaxLine - 4<<10

// stretch returns b with pad 'x' bytes after its first byte, or b itself
// when pad is below minPad.
func stretch(b []byte, pad uint16) []byte {
	if int(pad) < minPad {
		return b
	}
	at := min(1, len(b))
	out := make([]byte, 0, len(b)+int(pad))
	out = append(out, b[:at]...)
	out = append(out, bytes.Repeat([]byte{'x'}, int(pad))...)
	return append(out, b[at:]...)
}

// menuLine is one line of a menu as parseMenu reads it.
type menuLine struct {
	text string // without its LF and one CR before it
	long bool   // longer than MaxLine: an error, not an item
}

// menuLines splits a menu as RFC 1436 section 3 says, and as parseMenu
// must: LF ends a line, the line "." ends the menu, and what follows it is
// not read.
func menuLines(b []byte) []menuLine {
	var ls []menuLine
	for len(b) > 0 {
		line := b
		if i := bytes.IndexByte(b, '\n'); i >= 0 {
			line, b = b[:i+1], b[i+1:]
		} else {
			b = nil
		}
		if len(line) > MaxLine {
			ls = append(ls, menuLine{long: true})
			continue
		}
		text := trimEOL(string(line))
		if text == "." {
			break
		}
		ls = append(ls, menuLine{text: text})
	}
	return ls
}

// FuzzMenu checks parseMenu, which the driver gives a menu's Body to: one
// entry or one ErrProtocol error per line up to ".", in order; a line over
// MaxLine is an error and the menu goes on; a name holds no CR or LF and
// is the line's display string; an entry's URL is "" only for info and
// error lines, else it parses and designates the line's host, port, type
// and selector; and stopping early stops the parser.
func FuzzMenu(f *testing.F) {
	f.Fuzz(func(t *testing.T, menu []byte, pad uint16) {
		menu = stretch(menu, pad)
		want := menuLines(menu)
		var got []error // nil for an entry
		var prev ItemType
		for e, err := range parseMenu(bytes.NewReader(menu)) {
			n := len(got)
			got = append(got, err)
			if n >= len(want) {
				t.Fatalf("parseMenu yielded %d items, more than the %d lines of %.300q", n+1, len(want), menu)
			}
			l := want[n]
			if err != nil {
				if !errors.Is(err, fetch.ErrProtocol) {
					t.Fatalf("line %d (%.300q): error %v, want ErrProtocol", n+1, l.text, err)
				}
				m := splitMenuLine(l.text)
				if m.ok && (m.typ == TypeInfo || m.typ == TypeError || (m.typ != TypeRedundant || prev != 0) && urlHost(m.host)) {
					t.Fatalf("line %d (%.300q), a menu item, gave error %v", n+1, l.text, err)
				}
				if m.ok && m.typ != TypeRedundant {
					prev = m.typ
				}
				continue
			}
			if l.long {
				t.Fatalf("line %d longer than MaxLine gave entry %+.300v, want an error", n+1, e)
			}
			checkMenuEntry(t, l.text, e, &prev)
		}
		if len(got) != len(want) {
			t.Fatalf("parseMenu(%.300q) yielded %d items for %d lines", menu, len(got), len(want))
		}
		// Breaking out of the loop must end the parser: range-over-func
		// panics if it yields again.
		if stop := len(menu) % (len(want) + 1); stop < len(want) {
			n := 0
			for range parseMenu(bytes.NewReader(menu)) {
				if n == stop {
					break
				}
				n++
			}
		}
	})
}

// menuItem is a menu line split as RFC 1436 section 3.8 says: a type
// byte, then TAB-separated display string, selector, host and port. ok is
// false for a line the client cannot use; an info or error line needs only
// its display string.
type menuItem struct {
	typ                     ItemType
	display, selector, host string
	port                    int
	ok                      bool
}

func splitMenuLine(text string) menuItem {
	if text == "" {
		return menuItem{}
	}
	f := strings.Split(text[1:], "\t")
	m := menuItem{typ: ItemType(text[0]), display: f[0]}
	if strings.ContainsAny(m.display, "\r\n") {
		return m
	}
	if m.typ == TypeInfo || m.typ == TypeError {
		m.ok = true
		return m
	}
	if len(f) < 4 {
		return m
	}
	m.selector, m.host = f[1], f[2]
	if h := m.host; len(h) > 2 && h[0] == '[' && h[len(h)-1] == ']' {
		m.host = h[1 : len(h)-1]
	}
	port, err := strconv.Atoi(strings.TrimSpace(f[3]))
	m.port, m.ok = port, err == nil && port >= 1 && port <= 65535
	return m
}

// urlHost reports whether a URL can carry host as its host: the hosts of
// lines the parser must not refuse.
func urlHost(host string) bool {
	u, err := uri.Parse("gopher://" + host + "/")
	if strings.IndexByte(host, ':') >= 0 {
		u, err = uri.Parse("gopher://[" + host + "]/")
	}
	return err == nil && u.Host == host
}

// checkMenuEntry checks the entry of a menu line; prev is the type of the
// item before it, which a "+" line repeats.
func checkMenuEntry(t *testing.T, text string, e fetch.Entry, prev *ItemType) {
	t.Helper()
	m := splitMenuLine(text)
	if !m.ok {
		t.Fatalf("line %.300q, which is not a menu item, gave entry %+.300v", text, e)
	}
	if m.typ == TypeRedundant {
		m.typ = *prev
	}
	*prev = m.typ
	if e.Name != m.display || strings.ContainsAny(e.Name, "\r\n") {
		t.Fatalf("line %.300q: name %.300q, want the display string %.300q, without CR or LF", text, e.Name, m.display)
	}
	if e.Size != -1 {
		t.Fatalf("line %.300q: size %d, want -1", text, e.Size)
	}
	if m.typ == TypeInfo || m.typ == TypeError {
		if e.URL != "" {
			t.Fatalf("line %.300q: an info or error line has URL %.300q", text, e.URL)
		}
		return
	}
	// Every byte escaped, plus the scheme, port, type and Gopher+ mark.
	if max := 3*len(text) + 32; len(e.URL) > max {
		t.Fatalf("line %.300q: URL %.300q is longer than %d bytes", text, e.URL, max)
	}
	u, err := uri.Parse(e.URL)
	if err != nil {
		t.Fatalf("line %.300q: URL %.300q does not parse: %v", text, e.URL, err)
	}
	if _, ok := embeddedURL(m.selector); ok && m.typ == TypeHTML {
		return // a URL of any scheme, host and path
	}
	switch u.Scheme {
	case "gopher":
		g, err := u.Gopher()
		if err != nil {
			t.Fatalf("line %.300q: URL %.300q: %v", text, e.URL, err)
		}
		port := m.port
		if port == uri.DefaultPort("gopher") {
			port = 0
		}
		if g.Host != m.host || g.Port != port || ItemType(g.Type) != m.typ || g.Selector != m.selector {
			t.Fatalf("line %.300q: URL %.300q designates host %.300q port %d type %q selector %.300q, want %.300q %d %q %.300q",
				text, e.URL, g.Host, g.Port, g.Type, g.Selector, m.host, port, byte(m.typ), m.selector)
		}
	case "telnet", "tn3270":
		tn, err := u.Telnet()
		if err != nil {
			t.Fatalf("line %.300q: URL %.300q: %v", text, e.URL, err)
		}
		if tn.Host != m.host || tn.User != m.selector {
			t.Fatalf("line %.300q: URL %.300q designates host %.300q user %.300q, want %.300q %.300q", text, e.URL, tn.Host, tn.User, m.host, m.selector)
		}
	default:
		t.Fatalf("line %.300q: a %s item has a %s URL %.300q", text, m.typ, u.Scheme, e.URL)
	}
}

// FuzzPlusAttributes checks ParseAttributes, the parser of the replies to
// "!" and "$": a line over MaxLine is an error; blocks hold what lines of
// the reply hold and no more; an item holds one +INFO block, its first
// (but the first item, which may have none); writing the blocks out again
// and parsing that gives the same blocks; and
// what the driver does with them (the +INFO item, the +ADMIN date, the
// +ASK questions, the text for a person) neither panics nor loses the
// item's URL.
func FuzzPlusAttributes(f *testing.F) {
	f.Fuzz(func(t *testing.T, reply []byte, pad uint16) {
		reply = stretch(reply, pad)
		items, err := ParseAttributes(bytes.NewReader(reply))
		long := false
		for _, l := range menuLines(reply) {
			long = long || l.long
		}
		if err != nil {
			if errors.Is(err, errNoAttributes) && began(err) == "" {
				t.Fatalf("ParseAttributes(%.300q): %v, without the line it began with", reply, err)
			}
			return
		}
		if long {
			t.Fatalf("ParseAttributes(%.300q) accepted a line longer than MaxLine", reply)
		}
		// What the blocks hold comes from the lines of the reply: a name
		// line begins with the block's name and ends with its value, and
		// a block line is a line of the reply, less one leading space.
		var texts []string
		replyLines := map[string]bool{}
		for _, l := range menuLines(reply) {
			texts = append(texts, l.text)
			replyLines[l.text] = true
		}
		size, lines := 0, 0
		for i, it := range items {
			if len(it.Blocks) == 0 {
				t.Fatalf("ParseAttributes(%.300q): item %d has no blocks", reply, i)
			}
			for j, b := range it.Blocks {
				if (b.Name == "+INFO") != (j == 0) && (i > 0 || j > 0) {
					t.Fatalf("ParseAttributes(%.300q): item %d has +INFO as block %d, %.300q as its first", reply, i, j, it.Blocks[0].Name)
				}
				if !strings.HasPrefix(b.Name, "+") || strings.ContainsAny(b.Name, " :\n") {
					t.Fatalf("ParseAttributes(%.300q): block name %.300q", reply, b.Name)
				}
				if !slices.ContainsFunc(texts, func(l string) bool { return strings.HasPrefix(l, b.Name) && strings.HasSuffix(l, b.Value) }) {
					t.Fatalf("ParseAttributes(%.300q): block %.300q with value %.300q, which no line of the reply holds", reply, b.Name, b.Value)
				}
				size += len(b.Name) + len(b.Value)
				lines++
				for _, l := range b.Lines {
					if !replyLines[" "+l] && !replyLines[l] {
						t.Fatalf("ParseAttributes(%.300q): block %.300q has line %.300q, which is not a line of the reply", reply, b.Name, l)
					}
					size += len(l)
					lines++
				}
			}
		}
		if size > len(reply) || lines > bytes.Count(reply, []byte("\n"))+1 {
			t.Fatalf("ParseAttributes(%.300q): %d bytes in %d lines of blocks, more than the reply", reply, size, lines)
		}
		out := writeAttributes(items)
		fits := true
		for _, l := range menuLines([]byte(out)) {
			fits = fits && !l.long // ": " may take a line over MaxLine
		}
		if again, err := ParseAttributes(strings.NewReader(out)); fits && (err != nil || !reflect.DeepEqual(again, items)) {
			t.Fatalf("ParseAttributes(%.300q) = %.300q, which written out parses to %.300q, %v", reply, items, again, err)
		}
		text := renderAttributes(items)
		for _, it := range items {
			if item, err := it.Item(); err == nil {
				if u, err := item.URL(); err == nil && u != "" && !strings.Contains(text, "  URL: "+u+"\n") {
					t.Fatalf("renderAttributes(%.300q) = %.300q, without the URL %.300q of its +INFO item", items, text, u)
				}
			}
			it.Modified()
			if b := it.Get("+ASK"); b != nil {
				if qs, err := ParseAsk(b); err == nil {
					for _, q := range qs {
						_ = q.String()
					}
				}
			}
		}
	})
}

// writeAttributes writes blocks as a server would: "+NAME: value" and
// each line after a space, lines ending in CR LF.
func writeAttributes(items []Attributes) string {
	var b strings.Builder
	for _, it := range items {
		for _, blk := range it.Blocks {
			b.WriteString(blk.Name + ": " + blk.Value + "\r\n")
			for _, l := range blk.Lines {
				b.WriteString(" " + l + "\r\n")
			}
		}
	}
	return b.String()
}
