package mailto

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"io"
	"mime"
	"net/mail"
	"strings"
	"time"

	"github.com/urlfetch/urlfetch/fetch"
)

// MaxHeader is the most of a message's header block the driver reads to
// decide whether the message has one; the body is streamed, never held.
const MaxHeader = 64 << 10

// head is the start of a message as read from its source: its header
// block, if it has one, or else the first bytes of its body.
type head struct {
	raw   []byte // the header fields as read, or the start of the body
	blank []byte // the empty line that ends the header block; nil: no header block
	// What the header block holds.
	hasDate   bool
	messageID string // the Message-ID field's value, trimmed; "" if none
	nonASCII  bool
}

// hasHeader reports whether the message came with its own header block.
func (h *head) hasHeader() bool { return h.blank != nil }

var errLongLine = errors.New("line longer than the limit")

// readLine reads one line, with its LF. At the end of the input it
// returns what is left and io.EOF. A line longer than limit is returned
// unfinished, with errLongLine, once it has passed limit (by less than
// the reader's buffer).
func readLine(r *bufio.Reader, limit int) ([]byte, error) {
	var line []byte
	for {
		frag, err := r.ReadSlice('\n')
		line = append(line, frag...)
		if err != bufio.ErrBufferFull {
			return line, err
		}
		if len(line) > limit {
			return line, errLongLine
		}
	}
}

// readHead reads the start of a message. RFC 5322 section 2.1: a header
// block is lines of fields (continued by lines that start with white
// space), then an empty line. The message has one only when every line
// before its first empty line is a field: a first line such as "Hi Ann,"
// or "From ann Tue Mar 1" starts a body. A run of fields that the input
// ends without an empty line is taken as a body too, so that a text such
// as "Note: call me" is sent as written rather than lost in a header.
func readHead(r *bufio.Reader) (*head, error) {
	h := &head{}
	for {
		line, err := readLine(r, MaxHeader)
		switch {
		case err != nil && err != io.EOF && err != errLongLine:
			return nil, err
		case err == nil && len(h.raw) > 0 && isBlank(line):
			h.blank = line
			return h, nil
		}
		field := isField(line)
		if !field && !(len(h.raw) > 0 && isContinuation(line)) || err == io.EOF {
			h.raw = append(h.raw, line...)
			h.hasDate, h.messageID, h.nonASCII = false, "", false
			return h, nil
		}
		if err == errLongLine || len(h.raw)+len(line) > MaxHeader {
			return nil, fetch.Errorf(fetch.ErrUnsupported, "mailto: the message's header block is longer than %d bytes", MaxHeader)
		}
		if field {
			h.noteField(line)
		}
		if !isASCII(string(line)) {
			h.nonASCII = true
		}
		h.raw = append(h.raw, line...)
	}
}

// noteField records what the driver needs to know of one field.
func (h *head) noteField(line []byte) {
	name, value, _ := bytes.Cut(line, []byte(":"))
	switch strings.ToLower(string(name)) {
	case "date":
		h.hasDate = true
	case "message-id":
		h.messageID = strings.TrimSpace(string(value))
	}
}

// isField reports whether line starts a header field: a name of printable
// ASCII other than ":", then ":" (RFC 5322 section 2.2).
func isField(line []byte) bool {
	i := bytes.IndexByte(line, ':')
	if i <= 0 {
		return false
	}
	for _, c := range line[:i] {
		if c <= ' ' || c >= 127 {
			return false
		}
	}
	return true
}

func isContinuation(line []byte) bool {
	return len(line) > 0 && (line[0] == ' ' || line[0] == '\t') && !isBlank(line)
}

func isBlank(line []byte) bool {
	return string(line) == "\n" || string(line) == "\r\n"
}

// headerFields are what the driver writes in a message that has no header
// block of its own.
type headerFields struct {
	From      *mail.Address
	To, Cc    []string
	Subject   string
	Extra     []field // further fields from the URL, in order
	Date      time.Time
	MessageID string
}

type field struct{ name, value string }

// format writes the header block, with its final empty line, in CRLF
// lines. Unstructured values with non-ASCII text become RFC 2047 encoded
// words; long lines are folded at white space (RFC 5322 section 2.2.3).
func (f *headerFields) format() []byte {
	var b bytes.Buffer
	from := f.From.Address
	if f.From.Name != "" {
		from = f.From.String()
	}
	writeField(&b, "From", from)
	writeField(&b, "To", strings.Join(f.To, ", "))
	if len(f.Cc) > 0 {
		writeField(&b, "Cc", strings.Join(f.Cc, ", "))
	}
	if f.Subject != "" {
		writeField(&b, "Subject", encodeText(f.Subject))
	}
	for _, x := range f.Extra {
		writeField(&b, x.name, encodeText(x.value))
	}
	writeField(&b, "Date", f.Date.Format(time.RFC1123Z))
	writeField(&b, "Message-ID", f.MessageID)
	writeField(&b, "MIME-Version", "1.0")
	writeField(&b, "Content-Type", "text/plain; charset=utf-8")
	writeField(&b, "Content-Transfer-Encoding", "8bit")
	b.WriteString("\r\n")
	return b.Bytes()
}

// additions returns the fields a message with its own header block lacks:
// Date and Message-ID (RFC 5322 section 3.6), in CRLF lines.
func (h *head) additions(date time.Time, messageID string) []byte {
	var b bytes.Buffer
	if !h.hasDate {
		writeField(&b, "Date", date.Format(time.RFC1123Z))
	}
	if h.messageID == "" {
		writeField(&b, "Message-ID", messageID)
	}
	return b.Bytes()
}

// encodeText makes an unstructured value ASCII: RFC 2047 encoded words for
// text that is not.
func encodeText(s string) string {
	if isASCII(s) {
		return s
	}
	return mime.QEncoding.Encode("utf-8", s)
}

// foldAt is the line length RFC 5322 section 2.1.1 asks lines to keep to.
const foldAt = 78

// writeField writes "name: value" and CRLF, folded before white space to
// keep lines within foldAt where the value allows it.
func writeField(b *bytes.Buffer, name, value string) {
	line := name + ":"
	for i, word := range strings.Split(value, " ") {
		if i > 0 && word != "" && len(line)+1+len(word) > foldAt && strings.TrimSpace(line) != name+":" {
			b.WriteString(line)
			b.WriteString("\r\n")
			line = ""
		}
		line += " " + word
	}
	b.WriteString(line)
	b.WriteString("\r\n")
}

// newMessageID returns a unique Message-ID at host (RFC 5322 section
// 3.6.4).
func newMessageID(now time.Time, host string) string {
	var r [12]byte
	rand.Read(r[:])
	return "<" + now.UTC().Format("20060102150405") + "." + hex.EncodeToString(r[:]) + "@" + host + ">"
}

// ctxReader reads the message so that ctx ends a Read even while the
// source blocks (a terminal, a pipe), which an io.Reader cannot be asked
// to stop: each Read of the source runs in a goroutine of its own, which
// ends when that Read returns. When ctx ends first the Read is left
// behind and its bytes are dropped.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
	buf []byte
}

type readResult struct {
	n   int
	err error
}

func (c *ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	if len(p) == 0 {
		return 0, nil
	}
	if cap(c.buf) < len(p) {
		c.buf = make([]byte, len(p))
	}
	buf := c.buf[:len(p)]
	done := make(chan readResult, 1)
	go func() {
		n, err := c.r.Read(buf)
		done <- readResult{n, err}
	}()
	select {
	case r := <-done:
		return copy(p, buf[:r.n]), r.err
	case <-c.ctx.Done():
		c.buf = nil // the Read left behind still writes into it
		return 0, c.ctx.Err()
	}
}

// bareCRReader gives every bare CR of a message its LF. go-smtp's DATA
// writer (textproto's DotWriter) turns a bare LF into CR LF but passes a
// bare CR on, after which it does not dot-stuff: "x CR . CR LF" would
// reach the server as a "." line to any server that takes a bare CR for
// a line end, ending the message early and running the rest as commands
// (RFC 5321 section 2.3.8 forbids bare CRs; "SMTP smuggling"). An RFC 6068
// body comes straight from a URL, so it must not be able to.
type bareCRReader struct {
	br *bufio.Reader
	lf bool // a bare CR went out last: its LF is next
}

func newBareCRReader(r io.Reader) *bareCRReader {
	return &bareCRReader{br: bufio.NewReader(r)}
}

func (r *bareCRReader) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	if r.lf {
		r.lf = false
		p[0] = '\n'
		return 1, nil
	}
	if r.br.Buffered() == 0 {
		if _, err := r.br.Peek(1); err != nil {
			return 0, err
		}
	}
	chunk, _ := r.br.Peek(min(r.br.Buffered(), len(p)))
	if i := bytes.IndexByte(chunk, '\r'); i != 0 {
		if i > 0 {
			chunk = chunk[:i]
		}
		n := copy(p, chunk)
		r.br.Discard(n)
		return n, nil
	}
	// A CR: bare unless an LF follows it.
	next, _ := r.br.Peek(2)
	r.br.Discard(1)
	p[0] = '\r'
	r.lf = len(next) < 2 || next[1] != '\n'
	return 1, nil
}
