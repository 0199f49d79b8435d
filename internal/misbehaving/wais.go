package misbehaving

import (
	"bytes"
	"fmt"
	"io"
	"strconv"
)

// The WAIS dialect (Z39.50-1988 in its own tag-length-value encoding
// behind a 25-byte ASCII header; /work/shared/notes/wais.md) and
// Z39.50-1995 in BER: just enough of each to answer an Init and to
// misbehave in a reply.

// waisHeaderTail follows the ten-digit length in a WAIS message header.
const waisHeaderTail = "z2wais        0"

// WAIS PDU types and tags.
const (
	waisInitResponse   = 21
	waisSearchResponse = 23
	waisTagVersion     = 3
	waisTagOptions     = 4
	waisTagMaxRecord   = 6
	waisTagPresent     = 27
	waisTagUserInfo    = 99
	waisTagDocID       = 116
	waisTagVersionNum  = 117
	waisTagDocText     = 127
	waisTagTextGroup   = 153
)

// waisFrame puts the message header in front of an APDU; length is what
// the header declares.
func waisFrame(apdu []byte, length int) []byte {
	return append(fmt.Appendf(nil, "%010d%s", length, waisHeaderTail), apdu...)
}

// appendWAISInt appends v as a WAIS compressed integer: base 128,
// big-endian, the high bit on every byte but the last.
func appendWAISInt(b []byte, v int) []byte {
	var tmp [8]byte
	i := len(tmp) - 1
	tmp[i] = byte(v & 0x7f)
	for v >>= 7; v > 0; v >>= 7 {
		i--
		tmp[i] = byte(v&0x7f) | 0x80
	}
	return append(b, tmp[i:]...)
}

func appendWAISField(b []byte, tag int, val []byte) []byte {
	b = appendWAISInt(b, tag)
	b = appendWAISInt(b, len(val))
	return append(b, val...)
}

// waisAPDU joins the Z39.50 part, behind its 2-byte length, and the WAIS
// part.
func waisAPDU(z, w []byte) []byte {
	return append(append([]byte{byte(len(z) >> 8), byte(len(z))}, z...), w...)
}

// waisInitResponseAPDU accepts the Init, with a maximum record size of
// 100000, and the WAIS part freeWAIS sends (chunk code 0, chunk-id
// length 0).
func waisInitResponseAPDU() []byte {
	z := []byte{waisInitResponse, 1}
	z = appendWAISField(z, waisTagVersion, []byte{0x80})
	z = appendWAISField(z, waisTagOptions, []byte{0x80})
	z = appendWAISField(z, waisTagMaxRecord, []byte{0x01, 0x86, 0xa0})
	return waisAPDU(z, []byte{0x63, 0x06, 0x64, 0x01, 0x00, 0x65, 0x01, 0x00})
}

// waisTextAPDU is a Search-response holding one document-text group.
func waisTextAPDU(text []byte) []byte {
	z := []byte{waisSearchResponse, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0}
	z = appendWAISField(z, waisTagPresent, []byte{0})
	g := appendWAISField(nil, waisTagDocID, []byte("\x02\x02db\x03\x0e0 5000 doc.txt"))
	g = appendWAISField(g, waisTagVersionNum, []byte{0})
	g = appendWAISField(g, waisTagDocText, text)
	w := appendWAISField(nil, waisTagUserInfo, appendWAISField(nil, waisTagTextGroup, g))
	return waisAPDU(z, w)
}

// readWAIS reads one message from the client and returns its APDU.
func (c *conn) readWAIS() ([]byte, error) {
	h := make([]byte, len("0000000000")+len(waisHeaderTail))
	if _, err := io.ReadFull(c.br, h); err != nil {
		return nil, err
	}
	n, err := strconv.Atoi(string(h[:10]))
	if err != nil || n > 1<<20 {
		return nil, fmt.Errorf("a WAIS header %q from the client", h)
	}
	apdu := make([]byte, n)
	_, err = io.ReadFull(c.br, apdu)
	return apdu, err
}

// serveWAIS reads the Init and misbehaves in its reply, or in the reply
// to the Search after it.
func (s *Server) serveWAIS(c *conn) error {
	if _, err := c.readWAIS(); err != nil {
		return err
	}
	switch s.Case.Behaviour {
	case StallBefore:
		return c.stall()
	case StallDuring:
		// A header that promises 85 bytes, and 10 of them.
		if _, err := c.Write(waisFrame(waisInitResponseAPDU()[:10], 85)); err != nil {
			return err
		}
		return c.stall()
	case Huge:
		// A header that declares 9,999,999,999 bytes; nothing follows.
		if _, err := c.Write(waisFrame(nil, 9999999999)); err != nil {
			return err
		}
		return c.stall()
	case Garbage:
		if err := c.print(garbage); err != nil {
			return err
		}
		return c.stall()
	}
	apdu := waisInitResponseAPDU()
	if _, err := c.Write(waisFrame(apdu, len(apdu))); err != nil {
		return err
	}
	if _, err := c.readWAIS(); err != nil {
		return err
	}
	switch s.Case.Behaviour {
	case WrongLength:
		// The URL says the document has 5000 bytes; the server sends 100
		// as if that were all, and no diagnostic.
		apdu := waisTextAPDU(bytes.Repeat([]byte("t"), 100))
		if _, err := c.Write(waisFrame(apdu, len(apdu))); err != nil {
			return err
		}
		return c.stall()
	case CloseMidTransfer:
		// A header that promises 1000 bytes, 100 of them, the close.
		_, err := c.Write(waisFrame(bytes.Repeat([]byte{0}, 100), 1000))
		return err
	}
	return fmt.Errorf("no %v for wais", s.Case.Behaviour)
}

// BER identifiers of the Z39.50-1995 APDUs and fields used here: context
// class, constructed for the APDUs.
const (
	berInitResponse   = 0xa0 | 21
	berSearchResponse = 0xa0 | 23
	berIndefinite     = 0x80
)

// berTLV encodes one element with a definite length (short or long form).
func berTLV(id byte, content []byte) []byte {
	b := []byte{id}
	switch n := len(content); {
	case n < 0x80:
		b = append(b, byte(n))
	case n < 0x100:
		b = append(b, 0x81, byte(n))
	default:
		b = append(b, 0x82, byte(n>>8), byte(n))
	}
	return append(b, content...)
}

// zInitResponse is an InitializeResponse that accepts: versions 2 and 3,
// search and present, message sizes of 1 MiB, result true, and an
// implementation name.
func zInitResponse() []byte {
	var f []byte
	f = append(f, berTLV(0x83, []byte{0x00, 0x60})...)       // [3] protocolVersion
	f = append(f, berTLV(0x84, []byte{0x00, 0xc0})...)       // [4] options
	f = append(f, berTLV(0x85, []byte{0x10, 0x00, 0x00})...) // [5] preferredMessageSize
	f = append(f, berTLV(0x86, []byte{0x10, 0x00, 0x00})...) // [6] exceptionalRecordSize
	f = append(f, berTLV(0x8c, []byte{0xff})...)             // [12] result
	name := []byte("misbehaving")
	f = append(f, 0x9f, 111, byte(len(name))) // [111] implementationName
	f = append(f, name...)
	return berTLV(berInitResponse, f)
}

// readBER reads one element with a definite length from the client,
// which sends no other kind.
func (c *conn) readBER() ([]byte, error) {
	id, err := c.br.ReadByte()
	if err != nil {
		return nil, err
	}
	if id&0x1f == 0x1f {
		for {
			b, err := c.br.ReadByte()
			if err != nil {
				return nil, err
			}
			if b&0x80 == 0 {
				break
			}
		}
	}
	l, err := c.br.ReadByte()
	if err != nil {
		return nil, err
	}
	n := int(l)
	if l&0x80 != 0 {
		k := int(l & 0x7f)
		if k == 0 || k > 3 {
			return nil, fmt.Errorf("a BER length of form %#x from the client", l)
		}
		n = 0
		for range k {
			b, err := c.br.ReadByte()
			if err != nil {
				return nil, err
			}
			n = n<<8 | int(b)
		}
	}
	content := make([]byte, n)
	_, err = io.ReadFull(c.br, content)
	return content, err
}

// serveZ3950 reads the InitializeRequest and misbehaves in its reply, or
// in the reply to the SearchRequest after it.
func (s *Server) serveZ3950(c *conn) error {
	if _, err := c.readBER(); err != nil {
		return err
	}
	switch s.Case.Behaviour {
	case StallBefore:
		return c.stall()
	case StallDuring:
		// An InitializeResponse that promises 32 bytes, and 5 of them.
		if _, err := c.Write(append([]byte{berInitResponse, 32}, zInitResponse()[2:7]...)); err != nil {
			return err
		}
		return c.stall()
	case EndlessLine:
		// An element of indefinite length whose end-of-contents never
		// comes: octet strings of 127 bytes, one after another.
		if _, err := c.Write([]byte{berInitResponse, berIndefinite}); err != nil {
			return err
		}
		elem := berTLV(0x04, bytes.Repeat([]byte("a"), 127))
		return c.endless(func(b []byte, _ int) []byte { return append(b, elem...) })
	case Huge:
		// An InitializeResponse of 2 GiB, by its length; nothing follows.
		if _, err := c.Write([]byte{berInitResponse, 0x84, 0x7f, 0xff, 0xff, 0xff}); err != nil {
			return err
		}
		return c.stall()
	case Garbage:
		if err := c.print(garbage); err != nil {
			return err
		}
		return c.stall()
	case WrongLength:
		// The InitializeResponse says it has 5 bytes; its first field
		// alone says 16, and 16 follow.
		b := []byte{berInitResponse, 5, 0x83, 16}
		b = append(b, bytes.Repeat([]byte{0}, 16)...)
		if _, err := c.Write(b); err != nil {
			return err
		}
		return c.stall()
	}
	if _, err := c.Write(zInitResponse()); err != nil {
		return err
	}
	if _, err := c.readBER(); err != nil {
		return err
	}
	if s.Case.Behaviour == CloseMidTransfer {
		// A SearchResponse that promises 200 bytes, 20 of them, the close.
		_, err := c.Write(append([]byte{berSearchResponse, 0x81, 200}, bytes.Repeat([]byte{0}, 20)...))
		return err
	}
	return fmt.Errorf("no %v for z39.50", s.Case.Behaviour)
}
