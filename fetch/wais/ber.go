package wais

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/urlfetch/urlfetch/internal/waiswire"
)

// This file is a small BER codec (X.209/X.690 Basic Encoding Rules), the
// transfer syntax of Z39.50-1992 and -1995. It reads what Z39.50 servers
// send: tags in the high-tag-number form, short, long and indefinite
// lengths with their end-of-contents octets, and constructed strings. It
// writes definite lengths only, which every server accepts. Go's
// encoding/asn1 is DER-only and refuses indefinite lengths, which Zebra
// and YAZ send in responses that carry records. The framing, length
// octets and reading one element off the connection, is
// internal/waiswire's, which the tests' misbehaving servers share.

// BER tag classes, as the top two bits of the identifier octet.
const (
	classUniversal   = 0x00
	classApplication = 0x40
	classContext     = 0x80
	classPrivate     = 0xc0
)

// Universal tags used here.
const (
	univBoolean     = 1
	univInteger     = 2
	univBitString   = 3
	univOctetString = 4
	univNull        = 5
	univOID         = 6
	univExternal    = 8
	univSequence    = 16
	univVisible     = 26
	univGeneral     = 27
)

// berError is a decoding error: what was wrong, wrapping waiswire.ErrBER.
func berError(format string, args ...any) error {
	return fmt.Errorf("%w: %s", waiswire.ErrBER, fmt.Sprintf(format, args...))
}

// element is one decoded BER element. For an indefinite length, Content
// is the encodings of its elements without the end-of-contents octets.
type element struct {
	Class       byte
	Constructed bool
	Tag         int
	Content     []byte
	Indefinite  bool
}

func (e element) is(class byte, tag int) bool { return e.Class == class && e.Tag == tag }

func (e element) String() string {
	cls := map[byte]string{classUniversal: "UNIVERSAL ", classApplication: "APPLICATION ", classContext: "", classPrivate: "PRIVATE "}[e.Class]
	return "[" + cls + strconv.Itoa(e.Tag) + "]"
}

// parseBERHeader reads the identifier and length octets at the front of b.
// For an indefinite length it returns l = -1.
func parseBERHeader(b []byte) (e element, l, n int, err error) {
	if len(b) < 2 {
		return e, 0, 0, berError("element cut short (%d bytes)", len(b))
	}
	id := b[0]
	e.Class = id & 0xc0
	e.Constructed = id&0x20 != 0
	e.Tag = int(id & 0x1f)
	n = 1
	if e.Tag == 0x1f {
		e.Tag = 0
		for i := 0; ; i++ {
			if n >= len(b) {
				return e, 0, 0, berError("tag cut short")
			}
			if i == waiswire.MaxBERTagBytes {
				return e, 0, 0, berError("tag longer than %d bytes", waiswire.MaxBERTagBytes)
			}
			c := b[n]
			n++
			e.Tag = e.Tag<<7 | int(c&0x7f)
			if c&0x80 == 0 {
				break
			}
		}
	}
	if n >= len(b) {
		return e, 0, 0, berError("length cut short")
	}
	c := b[n]
	n++
	switch {
	case c < 0x80:
		l = int(c)
	case c == 0x80:
		if !e.Constructed {
			return e, 0, 0, berError("primitive %v with an indefinite length", e)
		}
		e.Indefinite = true
		l = -1
	default:
		k := int(c & 0x7f)
		if k > waiswire.MaxBERLengthBytes {
			return e, 0, 0, berError("length of %d bytes", k)
		}
		if n+k > len(b) {
			return e, 0, 0, berError("length cut short")
		}
		for _, d := range b[n : n+k] {
			l = l<<8 | int(d)
		}
		n += k
		if l < 0 {
			return e, 0, 0, berError("length overflows")
		}
	}
	return e, l, n, nil
}

// parseElement decodes the element at the front of b and returns what
// follows it. Every length is checked against what remains.
func parseElement(b []byte) (element, []byte, error) {
	return parseElementDepth(b, 0)
}

func parseElementDepth(b []byte, depth int) (element, []byte, error) {
	if depth > waiswire.MaxBERDepth {
		return element{}, nil, berError("elements nested deeper than %d", waiswire.MaxBERDepth)
	}
	e, l, n, err := parseBERHeader(b)
	if err != nil {
		return e, nil, err
	}
	b = b[n:]
	if l >= 0 {
		if l > len(b) {
			return e, nil, berError("%v claims %d bytes, %d remain", e, l, len(b))
		}
		e.Content = b[:l:l]
		return e, b[l:], nil
	}
	// Indefinite: elements up to the end-of-contents octets 00 00.
	rest := b
	for {
		if len(rest) < 2 {
			return e, nil, berError("%v without its end-of-contents", e)
		}
		if rest[0] == 0 && rest[1] == 0 {
			used := len(b) - len(rest)
			e.Content = b[:used:used]
			return e, rest[2:], nil
		}
		_, after, err := parseElementDepth(rest, depth+1)
		if err != nil {
			return e, nil, err
		}
		rest = after
	}
}

// eachContextField calls fn for each context-class field of a constructed
// element, stopping at the first error: the loop every APDU decoder shares.
func eachContextField(e element, fn func(f element) error) error {
	fs, err := children(e.Content)
	if err != nil {
		return err
	}
	for _, f := range fs {
		if f.Class != classContext {
			continue
		}
		if err := fn(f); err != nil {
			return err
		}
	}
	return nil
}

// children decodes the elements of a constructed element's contents, at
// most maxItems of them.
func children(content []byte) ([]element, error) {
	var out []element
	for len(content) > 0 {
		if len(out) == maxItems {
			return nil, berError("more than %d elements in one constructed element", maxItems)
		}
		e, rest, err := parseElement(content)
		if err != nil {
			return nil, err
		}
		out = append(out, e)
		content = rest
	}
	return out, nil
}

// intValue decodes an INTEGER's contents, two's complement.
func intValue(e element) (int64, error) {
	b := e.Content
	if e.Constructed || len(b) == 0 || len(b) > 8 {
		return 0, berError("%v is not an INTEGER that fits in 64 bits", e)
	}
	v := int64(int8(b[0]))
	for _, c := range b[1:] {
		v = v<<8 | int64(c)
	}
	return v, nil
}

// boolValue decodes a BOOLEAN's contents.
func boolValue(e element) (bool, error) {
	if e.Constructed || len(e.Content) != 1 {
		return false, berError("%v is not a BOOLEAN", e)
	}
	return e.Content[0] != 0, nil
}

// stringValue decodes an OCTET STRING or character string, primitive or
// (BER allows it) constructed from segments.
func stringValue(e element) ([]byte, error) {
	return stringValueDepth(e, 0)
}

func stringValueDepth(e element, depth int) ([]byte, error) {
	if !e.Constructed {
		return e.Content, nil
	}
	if depth > waiswire.MaxBERDepth {
		return nil, berError("string segments nested deeper than %d", waiswire.MaxBERDepth)
	}
	parts, err := children(e.Content)
	if err != nil {
		return nil, err
	}
	var out []byte
	for _, p := range parts {
		s, err := stringValueDepth(p, depth+1)
		if err != nil {
			return nil, err
		}
		out = append(out, s...)
	}
	return out, nil
}

// oid is an OBJECT IDENTIFIER as its arcs.
type oid []int

func (o oid) String() string {
	s := make([]string, len(o))
	for i, a := range o {
		s[i] = strconv.Itoa(a)
	}
	return strings.Join(s, ".")
}

func (o oid) equal(p oid) bool {
	if len(o) != len(p) {
		return false
	}
	for i := range o {
		if o[i] != p[i] {
			return false
		}
	}
	return true
}

// oidValue decodes an OBJECT IDENTIFIER's contents.
func oidValue(e element) (oid, error) {
	b := e.Content
	if e.Constructed || len(b) == 0 || len(b) > 64 {
		return nil, berError("%v is not an OBJECT IDENTIFIER", e)
	}
	var arcs oid
	v := 0
	for i, c := range b {
		if v > 1<<24 {
			return nil, berError("OBJECT IDENTIFIER arc too large")
		}
		v = v<<7 | int(c&0x7f)
		if c&0x80 != 0 {
			if i == len(b)-1 {
				return nil, berError("OBJECT IDENTIFIER cut short")
			}
			continue
		}
		if len(arcs) == 0 {
			first := min(v/40, 2)
			arcs = append(arcs, first, v-40*first)
		} else {
			arcs = append(arcs, v)
		}
		v = 0
	}
	return arcs, nil
}

// Writing. Every builder returns a complete element.

func appendBERTag(b []byte, class byte, constructed bool, tag int) []byte {
	id := class
	if constructed {
		id |= 0x20
	}
	if tag < 0x1f {
		return append(b, id|byte(tag))
	}
	b = append(b, id|0x1f)
	return waiswire.AppendCInt(b, tag)
}

// tlv builds an element with the given contents.
func tlv(class byte, constructed bool, tag int, content []byte) []byte {
	b := appendBERTag(nil, class, constructed, tag)
	b = waiswire.AppendBERLength(b, len(content))
	return append(b, content...)
}

// cons builds a constructed element of the given class and tag from its
// elements.
func cons(class byte, tag int, elems ...[]byte) []byte {
	n := 0
	for _, e := range elems {
		n += len(e)
	}
	content := make([]byte, 0, n)
	for _, e := range elems {
		content = append(content, e...)
	}
	return tlv(class, true, tag, content)
}

// ctx builds a primitive context-specific element.
func ctx(tag int, content []byte) []byte { return tlv(classContext, false, tag, content) }

// ctxCons builds a constructed context-specific element.
func ctxCons(tag int, elems ...[]byte) []byte { return cons(classContext, tag, elems...) }

// intBytes encodes an integer's contents, minimal two's complement.
func intBytes(v int64) []byte {
	n := 1
	for x := v; x > 127 || x < -128; x >>= 8 {
		n++
	}
	b := make([]byte, n)
	for i := n - 1; i >= 0; i-- {
		b[i] = byte(v)
		v >>= 8
	}
	return b
}

func boolBytes(v bool) []byte {
	if v {
		return []byte{1}
	}
	return []byte{0}
}

// oidBytes encodes an OBJECT IDENTIFIER's contents.
func oidBytes(o oid) []byte {
	b := waiswire.AppendCInt(nil, o[0]*40+o[1])
	for _, a := range o[2:] {
		b = waiswire.AppendCInt(b, a)
	}
	return b
}
