package waiswire

import (
	"bufio"
	"errors"
	"fmt"
	"io"
)

// BER (X.209/X.690 Basic Encoding Rules) is the transfer syntax of
// Z39.50-1992 and -1995. Here is what frames an element: its length
// octets, and reading one whole element off a stream; fetch/wais parses
// what is inside.

// Limits of a BER reader. The parser of elements in fetch/wais keeps the
// same ones, so that what ReadBER lets through it can parse.
const (
	// MaxBERDepth bounds the nesting of constructed elements a reader
	// follows. Z39.50 PDUs nest about a dozen deep.
	MaxBERDepth = 64
	// MaxBERTagBytes bounds the high-tag-number form: four base-128
	// bytes hold every tag Z39.50 defines (the largest is 5 bits of 3
	// bytes).
	MaxBERTagBytes = 4
	// MaxBERLengthBytes bounds the long form of a definite length.
	MaxBERLengthBytes = 4
)

// ErrBER is wrapped by every error that says a BER element is malformed.
var ErrBER = errors.New("malformed BER")

func berError(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrBER, fmt.Sprintf(format, args...))
}

// AppendBERLength appends the length octets of a definite length n: the
// short form below 128, else the long form in as few bytes as n needs.
func AppendBERLength(b []byte, n int) []byte {
	if n < 0x80 {
		return append(b, byte(n))
	}
	var tmp [8]byte
	i := len(tmp)
	for v := n; v > 0; v >>= 8 {
		i--
		tmp[i] = byte(v)
	}
	b = append(b, 0x80|byte(len(tmp)-i))
	return append(b, tmp[i:]...)
}

// ReadBER reads one complete element from r: the identifier and length
// octets are parsed as they arrive, and an indefinite length is followed
// through its nested elements to the matching end-of-contents. No more
// than max bytes are read or buffered. It returns io.EOF only when the
// stream ends before the first byte; a malformed element or one beyond
// max is an error that wraps ErrBER.
func ReadBER(r *bufio.Reader, max int) ([]byte, error) {
	f := &berFramer{r: r, max: max}
	if err := f.element(0); err != nil {
		if err == io.EOF && len(f.buf) > 0 {
			err = io.ErrUnexpectedEOF
		}
		return nil, err
	}
	return f.buf, nil
}

type berFramer struct {
	r   *bufio.Reader
	buf []byte
	max int
}

func (f *berFramer) byte() (byte, error) {
	if len(f.buf) >= f.max {
		return 0, berError("message longer than the limit of %d bytes", f.max)
	}
	c, err := f.r.ReadByte()
	if err != nil {
		return 0, err
	}
	f.buf = append(f.buf, c)
	return c, nil
}

func (f *berFramer) element(depth int) error {
	if depth > MaxBERDepth {
		return berError("elements nested deeper than %d", MaxBERDepth)
	}
	id, err := f.byte()
	if err != nil {
		return err
	}
	if id&0x1f == 0x1f {
		for i := 0; ; i++ {
			if i == MaxBERTagBytes {
				return berError("tag longer than %d bytes", MaxBERTagBytes)
			}
			c, err := f.byte()
			if err != nil {
				return err
			}
			if c&0x80 == 0 {
				break
			}
		}
	}
	c, err := f.byte()
	if err != nil {
		return err
	}
	switch {
	case c == 0x80:
		if id&0x20 == 0 {
			return berError("primitive element with an indefinite length")
		}
		for {
			p, err := f.r.Peek(2)
			if err != nil {
				return err
			}
			if p[0] == 0 && p[1] == 0 {
				f.byte()
				_, err := f.byte()
				return err
			}
			if err := f.element(depth + 1); err != nil {
				return err
			}
		}
	case c < 0x80:
		return f.content(int(c))
	default:
		k := int(c & 0x7f)
		if k > MaxBERLengthBytes {
			return berError("length of %d bytes", k)
		}
		l := 0
		for range k {
			d, err := f.byte()
			if err != nil {
				return err
			}
			l = l<<8 | int(d)
		}
		if l < 0 {
			// Four length bytes overflow a 32-bit int.
			return berError("length overflows")
		}
		return f.content(l)
	}
}

// content reads l bytes of contents, refusing a length beyond the limit
// before it allocates anything.
func (f *berFramer) content(l int) error {
	if l > f.max-len(f.buf) {
		return berError("element of %d bytes exceeds the limit of %d bytes", l, f.max)
	}
	start := len(f.buf)
	f.buf = append(f.buf, make([]byte, l)...)
	_, err := io.ReadFull(f.r, f.buf[start:])
	return err
}
