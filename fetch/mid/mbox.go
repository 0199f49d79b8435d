package mid

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/urlfetch/urlfetch/fetch"
)

// An mbox is a mailbox in one file, messages one after another, each
// after a From_ line ("From sender date", RFC 4155), and each but the
// last followed by an empty line before the next From_ line. A line of a
// message that would begin with "From " is written with a ">" before it.
//
// What the driver gives back of a message is exact in this sense: the
// bytes from the line after its From_ line up to the empty line before
// the next From_ line (or the end of the file), neither included, with
// the From-quoting of the mboxrd format undone: one ">" is taken off a
// line that begins with one or more ">" and then "From ". That gives the
// message as it was delivered for mboxrd files (which quote ">From " too)
// and for the mboxo files of most software (Postfix, mutt), which quote
// only "From " lines; of an mboxo file, a line of the original message
// that began with ">From " comes back as "From ": the format itself does
// not say which it was. A From_ line is one that begins with "From " at
// the start of the file or after an empty line, so a message whose
// writer forgot to quote a "From " line in a paragraph stays whole. Line
// ends are kept as they are (LF or CRLF).
type mbox struct {
	path string
}

func (m *mbox) String() string { return "mbox " + m.path }

// quotePeek is how much of a line's start decides whether it is quoted:
// the scan that counts quoted lines and the reader that unquotes them
// look at the same bytes.
const quotePeek = 1024

// quotedFrom reports whether the line starting with start is a quoted
// From line: one or more ">", then "From ".
func quotedFrom(start []byte) bool {
	i := 0
	for i < len(start) && start[i] == '>' {
		i++
	}
	return i > 0 && bytes.HasPrefix(start[i:], []byte("From "))
}

// isFromLine reports whether line (with its line end) is a From_ line.
func isFromLine(line []byte) bool { return bytes.HasPrefix(line, []byte("From ")) }

// isBlank reports whether line is an empty line: its line end alone.
func isBlank(line []byte) bool {
	return len(line) > 0 && len(line) <= 2 && len(bytes.TrimRight(line, "\r\n")) == 0
}

// mboxScanner reads an mbox file line by line, knowing the offset of
// each line. Of each line it keeps the first quotePeek bytes, enough for
// the checks above, in one buffer: a file of any size costs flat memory.
type mboxScanner struct {
	br   *bufio.Reader
	off  int64  // offset of the next line
	line []byte // the first bytes of the last line, at most quotePeek
	len  int64  // the whole length of the last line
}

// next reads a line; at the end of the file it returns io.EOF with no
// line.
func (s *mboxScanner) next() error {
	s.line, s.len = s.line[:0], 0
	for {
		chunk, err := s.br.ReadSlice('\n')
		if room := quotePeek - len(s.line); room > 0 {
			s.line = append(s.line, chunk[:min(len(chunk), room)]...)
		}
		s.len += int64(len(chunk))
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		s.off += s.len
		if err == io.EOF && s.len > 0 {
			return nil // a last line without a line end
		}
		return err
	}
}

// find scans the file for the message whose Message-ID is id.
func (m *mbox) find(ctx context.Context, req *fetch.Request, id string, _ bool) (*message, error) {
	f, err := os.Open(m.path)
	if err != nil {
		return nil, fetch.Errorf(fetch.ErrNotFound, "mid: %s: %w", m, err)
	}
	msg, err := m.scan(ctx, req, f, id)
	if msg == nil {
		f.Close()
	}
	return msg, err
}

func (m *mbox) scan(ctx context.Context, req *fetch.Request, f *os.File, id string) (*message, error) {
	s := &mboxScanner{br: bufio.NewReaderSize(f, 64<<10)}
	err := s.next()
	if err == io.EOF {
		return nil, notFound(m, id) // an empty mailbox
	}
	if err != nil {
		return nil, fmt.Errorf("mid: %s: %w", m, err)
	}
	if !isFromLine(s.line) {
		return nil, fetch.Errorf(fetch.ErrProtocol, "mid: %s is not an mbox file: it does not begin with a From_ line", m)
	}
	for n := 1; ; n++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		// s holds a From_ line: the message starts after it.
		start := s.off
		h, hn, err := readHeader(s.br)
		if err != nil && !errors.Is(err, errHeaderTooLong) {
			return nil, fmt.Errorf("mid: %s: message %d: %w", m, n, err)
		}
		s.off += hn
		match := err == nil && sameID(msgID(h.Get("Message-Id")), id)
		if err != nil {
			// Too long a header: the rest of it is read as lines below.
			h = nil
		}
		end, quoted, more, err := s.toNextFrom()
		if err != nil {
			return nil, fmt.Errorf("mid: %s: message %d: %w", m, n, err)
		}
		if match {
			req.Tracef(fetch.Note, "found <%s> in %s: message %d, bytes %d to %d", id, m, n, start, end)
			body := &unquoter{br: bufio.NewReaderSize(io.NewSectionReader(f, start, end-start), 32<<10), bol: true}
			return &message{
				header: h,
				body:   readCloser{body, f},
				length: end - start - quoted,
				where:  fmt.Sprintf("message %d", n),
			}, nil
		}
		if !more {
			return nil, notFound(m, id)
		}
	}
}

// toNextFrom reads the rest of a message: lines up to the next From_
// line (read, in s) or the end of the file. It returns the offset where
// the message ends (before the empty line that precedes a From_ line, or
// one that ends the file), how many of its lines are quoted From lines,
// and whether a From_ line follows.
func (s *mboxScanner) toNextFrom() (end int64, quoted int64, more bool, err error) {
	var blank int64 = -1 // length of the last line, when it was empty; -1 otherwise
	blankStart := int64(-1)
	bodyStart := true // no line yet: the header's empty line came last
	for {
		lineStart := s.off
		err := s.next()
		if err == io.EOF {
			if blank >= 0 {
				return blankStart, quoted, false, nil
			}
			return s.off, quoted, false, nil
		}
		if err != nil {
			return 0, 0, false, err
		}
		if isFromLine(s.line) && (blank >= 0 || bodyStart) {
			if blank >= 0 {
				return blankStart, quoted, true, nil
			}
			return lineStart, quoted, true, nil
		}
		bodyStart = false
		if quotedFrom(s.line) {
			quoted++
		}
		if isBlank(s.line) {
			blank, blankStart = s.len, lineStart
		} else {
			blank, blankStart = -1, -1
		}
	}
}

// unquoter reads a message of an mbox with its From-quoting undone.
type unquoter struct {
	br  *bufio.Reader
	bol bool // at the beginning of a line
}

func (u *unquoter) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) {
		if u.bol {
			start, _ := u.br.Peek(quotePeek)
			if quotedFrom(start) {
				u.br.Discard(1)
			}
			u.bol = false
		}
		if _, err := u.br.Peek(1); err != nil {
			if n > 0 {
				return n, nil
			}
			return 0, err
		}
		chunk, _ := u.br.Peek(min(u.br.Buffered(), len(p)-n))
		if i := bytes.IndexByte(chunk, '\n'); i >= 0 {
			chunk = chunk[:i+1]
			u.bol = true
		}
		copy(p[n:], chunk)
		u.br.Discard(len(chunk))
		n += len(chunk)
	}
	return n, nil
}

// readCloser reads from one thing and closes another.
type readCloser struct {
	io.Reader
	io.Closer
}
