package misbehaving

import (
	"bytes"
	"fmt"

	"github.com/urlfetch/urlfetch/internal/waiswire"
)

// The WAIS dialect (Z39.50-1988 in its own tag-length-value encoding
// behind a 25-byte ASCII header; /work/shared/notes/wais.md) and
// Z39.50-1995 in BER: just enough of each to answer an Init and to
// misbehave in a reply. Messages are framed with internal/waiswire, as
// the client frames them: only what the servers say is their own.

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

// maxClientMessage bounds a message the servers read from the client.
const maxClientMessage = 1 << 20

// waisFrame puts the message header in front of an APDU; length is what
// the header declares, which need not be what follows.
func waisFrame(apdu []byte, length int) []byte {
	return append(waiswire.AppendHeader(nil, length), apdu...)
}

// waisInitResponseAPDU accepts the Init, with a maximum record size of
// 100000, and the WAIS part freeWAIS sends (chunk code 0, chunk-id
// length 0).
func waisInitResponseAPDU() []byte {
	z := []byte{waisInitResponse, 1}
	z = waiswire.AppendTLV(z, waisTagVersion, []byte{0x80})
	z = waiswire.AppendTLV(z, waisTagOptions, []byte{0x80})
	z = waiswire.AppendTLV(z, waisTagMaxRecord, []byte{0x01, 0x86, 0xa0})
	return waiswire.JoinAPDU(z, []byte{0x63, 0x06, 0x64, 0x01, 0x00, 0x65, 0x01, 0x00})
}

// waisTextAPDU is a Search-response holding one document-text group.
func waisTextAPDU(text []byte) []byte {
	z := []byte{waisSearchResponse, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0}
	z = waiswire.AppendTLV(z, waisTagPresent, []byte{0})
	g := waiswire.AppendTLV(nil, waisTagDocID, []byte("\x02\x02db\x03\x0e0 5000 doc.txt"))
	g = waiswire.AppendTLV(g, waisTagVersionNum, []byte{0})
	g = waiswire.AppendTLV(g, waisTagDocText, text)
	w := waiswire.AppendTLV(nil, waisTagUserInfo, waiswire.AppendTLV(nil, waisTagTextGroup, g))
	return waiswire.JoinAPDU(z, w)
}

// readWAIS reads one message from the client and returns its APDU.
func (c *conn) readWAIS() ([]byte, error) {
	return waiswire.ReadMessage(c.br, maxClientMessage)
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

// berTLV encodes one element with a definite length.
func berTLV(id byte, content []byte) []byte {
	return append(waiswire.AppendBERLength([]byte{id}, len(content)), content...)
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

// readBER reads one element from the client.
func (c *conn) readBER() ([]byte, error) {
	return waiswire.ReadBER(c.br, maxClientMessage)
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
