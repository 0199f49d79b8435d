package gopher

import (
	"bufio"
	"bytes"
	"io"
	"strconv"
	"strings"

	"github.com/urlfetch/urlfetch/fetch"
)

// maxHeld bounds the lines a textReader holds back while it cannot yet
// tell whether the server dot-stuffs.
const maxHeld = 1 << 20

// stuffing is what a textReader knows of a server's dot-stuffing.
type stuffing int

const (
	unknown stuffing = iota
	stuffed          // RFC 1436: ".." at a line start stands for "."
	raw              // the text is sent as it is (pygopherd, gophernicus)
)

// textReader reads text that ends at a line holding only "." (RFC 1436
// section 3.8; Gopher+ "+-1"), or at the close for servers that send no
// such line. Only line starts are looked at, so a line of any length
// streams through.
//
// Whether ".." at a line start is stuffing cannot be told from one line:
// a line that begins with one "." and something else proves the server
// does not stuff, the "." line at the end proves it follows RFC 1436, and
// the close without it proves it does not. Lines that begin with ".." are
// held back (and the lines after them, at most maxHeld bytes) until one
// of these shows; past maxHeld the RFC's rule is taken.
type textReader struct {
	br      *bufio.Reader
	what    string // "text" or "menu", for messages
	max     int64  // bytes the text may take; 0 for no bound
	needDot bool   // a close before the "." line is an error (+-1)
	end     func(how string)
	eofEnd  string // how a text that ends at the close ended: "close", or "length" after a +N header

	n    int64
	mode stuffing
	bol  bool   // at the beginning of a line
	out  []byte // bytes ready for Read
	held []byte // lines held back while mode is unknown
	dots []int  // offsets in held of the lines that begin with ".."
	err  error  // returned once out is drained
}

func newTextReader(r io.Reader, what string, max int64, needDot bool, end func(string)) *textReader {
	br, ok := r.(*bufio.Reader)
	if !ok {
		br = bufio.NewReaderSize(r, readBuffer)
	}
	return &textReader{br: br, what: what, max: max, needDot: needDot, end: end, eofEnd: "close", bol: true}
}

func (t *textReader) Read(p []byte) (int, error) {
	for len(t.out) == 0 {
		if t.err != nil {
			return 0, t.err
		}
		t.step()
	}
	n := copy(p, t.out)
	t.out = t.out[n:]
	return n, nil
}

// step reads one line or the part of one that fits the buffer.
func (t *textReader) step() {
	frag, err := t.br.ReadSlice('\n')
	if len(frag) > 0 {
		t.n += int64(len(frag))
		if t.max > 0 && t.n > t.max {
			t.decide(raw)
			t.err = fetch.Errorf(fetch.ErrProtocol, "gopher: the %s is longer than %d bytes and has not ended; giving up", t.what, t.max)
			return
		}
		bol := t.bol
		t.bol = frag[len(frag)-1] == '\n'
		if bol {
			switch {
			case isDotLine(frag, err == io.EOF):
				t.finish("dot")
				return
			case bytes.HasPrefix(frag, []byte("..")):
				switch t.mode {
				case stuffed:
					frag = frag[1:]
				case unknown:
					t.dots = append(t.dots, len(t.held))
					t.held = append(t.held, frag...)
					t.checkHeld()
					t.after(err)
					return
				}
			case frag[0] == '.':
				// A stuffing server would have doubled this dot.
				if t.mode == unknown {
					t.decide(raw)
				}
			}
		}
		switch {
		case len(t.held) > 0:
			t.held = append(t.held, frag...)
			t.checkHeld()
		case len(t.out) > 0:
			t.out = append(t.out, frag...) // out is held text just flushed
		default:
			t.out = frag
		}
	}
	t.after(err)
}

// after handles the error of the last read.
func (t *textReader) after(err error) {
	switch {
	case err == nil || err == bufio.ErrBufferFull:
	case err == io.EOF && t.needDot:
		t.decide(raw)
		t.err = fetch.Errorf(fetch.ErrConnect, `gopher: the server closed the connection before the "." line that ends the %s (its +-1 header promised one)`, t.what)
	case err == io.EOF:
		t.finish(t.eofEnd)
	default:
		t.decide(raw)
		t.err = err
	}
}

func (t *textReader) checkHeld() {
	if len(t.held) > maxHeld {
		t.decide(stuffed)
	}
}

// finish ends the text: at its "." line, or at the close.
func (t *textReader) finish(how string) {
	if how == "dot" {
		t.decide(stuffed)
	} else {
		t.decide(raw)
	}
	t.err = io.EOF
	if t.end != nil {
		t.end(how)
	}
}

// decide settles the stuffing, if still unknown, and releases the held
// lines into out, un-stuffed if the server stuffs.
func (t *textReader) decide(m stuffing) {
	if t.mode == unknown {
		t.mode = m
	}
	if len(t.held) == 0 {
		return
	}
	out := t.held
	if t.mode == stuffed {
		w, r := 0, 0
		for _, d := range t.dots {
			w += copy(out[w:], out[r:d])
			r = d + 1 // drop the stuffed dot
		}
		w += copy(out[w:], out[r:])
		out = out[:w]
	}
	t.out = append(t.out, out...)
	t.held, t.dots = nil, nil
}

// isDotLine reports whether frag, read at a line start, is the line that
// ends a text: ".", CR LF or LF, or at the close without them.
func isDotLine(frag []byte, eof bool) bool {
	switch string(frag) {
	case ".\n", ".\r\n":
		return true
	case ".", ".\r":
		return eof
	}
	return false
}

// plusHeader is the first line of a Gopher+ reply (Gopher+ section 2.3):
// "+N" or "+-1" or "+-2" for success, "-" and the same for failure.
type plusHeader struct {
	ok   bool // the reply had a header
	line string
	fail bool
	size int64 // N >= 0 bytes, -1 up to the "." line, -2 up to the close
}

// readPlusHeader consumes the reply's Gopher+ header, if it has one.
func readPlusHeader(br *bufio.Reader) (plusHeader, error) {
	line, err := peekLine(br, 32)
	if err != nil && err != io.EOF {
		return plusHeader{}, err
	}
	if !bytes.HasSuffix(line, []byte("\n")) {
		return plusHeader{}, nil
	}
	s := trimEOL(string(line))
	if len(s) < 2 || (s[0] != '+' && s[0] != '-') {
		return plusHeader{}, nil
	}
	n, err := strconv.ParseInt(s[1:], 10, 64)
	if err != nil || n < -2 || s[1] == '+' {
		return plusHeader{}, nil
	}
	br.Discard(len(line))
	return plusHeader{ok: true, line: s, fail: s[0] == '-', size: n}, nil
}

// framed returns the reply's data as its header delimits it, for a reader
// that looks for the "." line itself.
func (h plusHeader) framed(br *bufio.Reader) io.Reader {
	if h.ok && h.size >= 0 {
		return &exactReader{r: br, left: h.size, size: h.size}
	}
	return br
}

// framedEnd returns the reply's data as its header delimits it, calling
// end when the data ends well. Data to the connection's close, or of
// the length a "+N" header announced (a close before it is an error),
// is a fetch.Stream of conn, which fetch.Copy can splice (fetch serve).
func (h plusHeader) framedEnd(br *bufio.Reader, conn *fetch.Conn, end func(string)) io.Reader {
	switch {
	case !h.ok || h.size == -2:
		return &fetch.Stream{R: br, Conn: conn, Length: -1, End: func() { end("close") }}
	case h.size == -1:
		return newTextReader(br, "data", 0, true, end)
	}
	size := h.size
	return &fetch.Stream{R: br, Conn: conn, Length: size, End: func() { end("length") },
		Short: func(got int64) error { return shortPlus(got, size) }}
}

// shortPlus is the error of data that ended after got of the size bytes
// a "+N" header announced.
func shortPlus(got, size int64) error {
	return fetch.Errorf(fetch.ErrConnect, "gopher: the server closed the connection after %d of the %d bytes its +%d header announced", got, size, size)
}

// exactReader reads the N bytes a "+N" header announced; a close before
// them is an error.
type exactReader struct {
	r          io.Reader
	left, size int64
}

func (e *exactReader) Read(p []byte) (int, error) {
	if e.left <= 0 {
		return 0, io.EOF
	}
	if int64(len(p)) > e.left {
		p = p[:e.left]
	}
	n, err := e.r.Read(p)
	e.left -= int64(n)
	if err == io.EOF {
		if e.left > 0 {
			return n, shortPlus(e.size-e.left, e.size)
		}
		err = nil
	}
	return n, err
}

// plusError reads the text of a failed Gopher+ reply ("--2", then a line
// with the error code and the administrator, then the message) into an
// error: code 1 (not available) and 3 (moved) are ErrNotFound.
func plusError(br *bufio.Reader, h plusHeader, sel string) error {
	var r io.Reader = io.LimitReader(br, maxErrText)
	if h.size >= 0 {
		r = io.LimitReader(br, min(h.size, maxErrText))
	}
	var lines []string
	lr := bufio.NewReader(r)
	for {
		line, long, err := readLine(lr, MaxLine)
		if s := trimEOL(line); !long && s != "" {
			if s == "." && h.size == -1 {
				break
			}
			lines = append(lines, s)
		}
		if err != nil {
			if err != io.EOF && len(lines) == 0 {
				return err
			}
			break
		}
	}
	code, who := "", ""
	if len(lines) > 0 {
		code, who, _ = strings.Cut(lines[0], " ")
		lines = lines[1:]
	}
	for i, l := range lines {
		lines[i] = clean(l)
	}
	msg := strings.Join(lines, "; ")
	if msg == "" {
		msg = clean(who)
	}
	if msg == "" {
		msg = "no error text"
	}
	detail := "Gopher+ error " + code
	if who != "" && clean(who) != msg && code != "3" {
		detail += ", " + clean(who)
	}
	switch code {
	case "1":
		return errorf(fetch.ErrNotFound, sel, "%s (%s)", msg, detail)
	case "3":
		if it, err := ParseItem(who); err == nil {
			if u, err := it.URL(); err == nil && u != "" {
				return errorf(fetch.ErrNotFound, sel, "moved to %s (%s)", u, detail)
			}
		}
		return errorf(fetch.ErrNotFound, sel, "moved: %s (%s)", msg, detail)
	}
	return fetch.Errorf(fetch.ErrProtocol, "gopher: %q: %s (%s)", sel, msg, detail)
}

// peekLine returns the first line of br's input with its end, or what
// there is of it up to limit bytes or the close, without consuming it.
func peekLine(br *bufio.Reader, limit int) ([]byte, error) {
	for {
		b, _ := br.Peek(br.Buffered())
		if i := bytes.IndexByte(b, '\n'); i >= 0 {
			return b[:i+1], nil
		}
		if len(b) >= limit {
			return b[:limit], nil
		}
		if _, err := br.Peek(len(b) + 1); err != nil {
			b, _ = br.Peek(br.Buffered())
			return b, err
		}
	}
}

// peekAll returns br's whole input without consuming it when it ends
// within limit bytes, and false when it does not.
func peekAll(br *bufio.Reader, limit int) ([]byte, bool, error) {
	for {
		n := br.Buffered()
		if n > limit {
			return nil, false, nil
		}
		if _, err := br.Peek(n + 1); err != nil {
			b, _ := br.Peek(br.Buffered())
			if err == io.EOF {
				return b, true, nil
			}
			return nil, false, err
		}
	}
}

// sniffError recognises a reply that is only an error item: the "3" line
// (and "i" lines) that servers send for a selector they do not have,
// whatever the type asked for (RFC 1436 section 3.8).
func sniffError(br *bufio.Reader, sel string) error {
	line, err := peekLine(br, sniffLimit)
	if err != nil && err != io.EOF {
		return err
	}
	if len(line) < 2 || line[0] != byte(TypeError) || bytes.IndexByte(line, '\t') < 0 {
		return nil
	}
	all, ended, err := peekAll(br, sniffLimit)
	if err != nil || !ended {
		return err
	}
	var msgs []string
	for _, l := range strings.Split(string(all), "\n") {
		l = strings.TrimSuffix(l, "\r")
		switch {
		case l == "" || l == ".":
		case (l[0] == byte(TypeError) || l[0] == byte(TypeInfo)) && strings.Contains(l, "\t"):
			if l[0] == byte(TypeError) {
				it, _ := ParseItem(l)
				msgs = append(msgs, clean(it.Display))
			}
		default:
			return nil // a document that happens to begin like one
		}
	}
	return errorf(fetch.ErrNotFound, sel, "%s", strings.Join(msgs, "; "))
}
