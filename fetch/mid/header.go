package mid

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"net/textproto"
	"strings"
)

// maxHeader bounds the header of one message that the driver reads to
// learn its Message-ID: a header past it is not a mail header (or not one
// worth the memory), and the message is passed over.
const maxHeader = 256 << 10

// errHeaderTooLong is the error of a header past maxHeader.
var errHeaderTooLong = errors.New("mid: a message header longer than 256 KiB")

// readHeader reads a message header (RFC 5322 section 2.2) from br, up to
// and including the empty line that ends it, and returns its fields,
// unfolded, under canonical keys, and the bytes it read. A line with no
// colon is passed over (a mbox's stray "From " line, garbage); a header
// that ends with the input, with no empty line, is a header without a
// body. Line ends may be LF or CRLF.
func readHeader(br *bufio.Reader) (textproto.MIMEHeader, int64, error) {
	h := textproto.MIMEHeader{}
	var n int64
	var key string
	var value strings.Builder
	flush := func() {
		if key != "" {
			h[key] = append(h[key], strings.TrimSpace(value.String()))
		}
		key = ""
		value.Reset()
	}
	for {
		line, err := br.ReadSlice('\n')
		for errors.Is(err, bufio.ErrBufferFull) {
			// A line longer than the buffer: keep reading it.
			var more []byte
			more, err = br.ReadSlice('\n')
			line = append(append([]byte(nil), line...), more...)
		}
		n += int64(len(line))
		if n > maxHeader {
			return nil, n, errHeaderTooLong
		}
		if err != nil && err != io.EOF {
			return nil, n, err
		}
		text := bytes.TrimRight(line, "\r\n")
		switch {
		case len(text) == 0 && len(line) > 0:
			flush()
			return h, n, nil // the empty line
		case len(text) > 0 && (text[0] == ' ' || text[0] == '\t'):
			if key != "" {
				value.WriteByte(' ')
				value.Write(bytes.TrimSpace(text))
			}
		case len(text) > 0:
			flush()
			if name, v, ok := bytes.Cut(text, []byte{':'}); ok && len(bytes.TrimSpace(name)) > 0 {
				key = textproto.CanonicalMIMEHeaderKey(string(bytes.TrimSpace(name)))
				value.Write(v)
			}
		}
		if err == io.EOF {
			flush()
			return h, n, nil
		}
	}
}

// msgID is the addr-spec of a Message-ID or Content-ID field's value:
// what stands between its "<" and ">", without the white space and
// comments around them (RFC 5322 section 3.6.4, RFC 2045 section 7). A
// value without brackets, as some software writes, is taken whole.
func msgID(value string) string {
	v := strings.TrimSpace(value)
	if i := strings.IndexByte(v, '<'); i >= 0 {
		if j := strings.IndexByte(v[i:], '>'); j > 0 {
			return strings.TrimSpace(v[i+1 : i+j])
		}
	}
	return v
}

// sameID reports whether a and b are the same message-id or content-id:
// the same left part, byte for byte, and the same domain, whose case does
// not matter (RFC 5321 section 2.4).
func sameID(a, b string) bool {
	ai, bi := strings.LastIndexByte(a, '@'), strings.LastIndexByte(b, '@')
	if ai < 0 || bi < 0 {
		return a == b
	}
	return a[:ai] == b[:bi] && strings.EqualFold(a[ai:], b[bi:])
}
