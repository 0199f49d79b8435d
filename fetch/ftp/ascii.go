package ftp

import "io"

// crlfReader converts the CRLF line ends of an ASCII-mode transfer (RFC
// 959's NVT-ASCII) to the local newline, "\n". A CR not followed by LF
// stays as it is.
type crlfReader struct {
	r   io.Reader
	buf []byte // converted bytes not yet returned
	raw []byte
	cr  bool // the last byte read was a CR, held back
	err error
}

func newCRLFReader(r io.Reader) *crlfReader {
	return &crlfReader{r: r, raw: make([]byte, 32<<10)}
}

func (c *crlfReader) Read(p []byte) (int, error) {
	for len(c.buf) == 0 {
		if c.err != nil {
			if c.cr {
				c.cr = false
				c.buf = append(c.raw[:0], '\r')
				break
			}
			return 0, c.err
		}
		n, err := c.r.Read(c.raw)
		c.err = err
		c.buf = c.convert(c.raw[:n])
	}
	n := copy(p, c.buf)
	c.buf = c.buf[n:]
	return n, nil
}

// convert converts raw in place, with a CR held back from the last call.
func (c *crlfReader) convert(raw []byte) []byte {
	if len(raw) == 0 {
		return raw
	}
	out := raw[:0]
	if c.cr {
		c.cr = false
		if raw[0] != '\n' {
			// The held CR stands alone: it must come out before raw[0],
			// which needs room; shift by one at the end of the buffer.
			raw = append(raw[:len(raw):len(raw)], 0)
			copy(raw[1:], raw)
			raw[0] = '\r'
			out = raw[:0]
		}
	}
	for i := 0; i < len(raw); i++ {
		b := raw[i]
		if b == '\r' {
			if i+1 == len(raw) {
				c.cr = true // its LF may be in the next read
				break
			}
			if raw[i+1] == '\n' {
				continue
			}
		}
		out = append(out, b)
	}
	return out
}
