// Package waiswire frames the messages of the two protocols of wais: URLs
// on the wire: classic WAIS, the 1988 draft of Z39.50 as WAIS servers
// speak it (a 25-byte ASCII header in front of every APDU, and inside it
// tag-length-value fields whose tag and length are compressed integers),
// and BER, the transfer syntax of Z39.50-1995 (definite lengths, and one
// whole element read off a stream).
//
// It is the one copy of that framing for the client, fetch/wais, and for
// the servers of internal/misbehaving, which break the protocols on
// purpose: a fake that framed its messages with code of its own could
// drift from the client and prove nothing. What the messages mean, their
// fields and the decoding of their values, is fetch/wais's business.
//
// The wire format of WAIS is described in the project's notes on WAIS
// (from captures of freeWAIS-sf); section numbers in comments refer to
// them.
package waiswire

import (
	"errors"
	"fmt"
	"io"
	"strconv"
)

// HeaderLen is the size of the message header that precedes every APDU
// (notes §1.1): ten decimal digits of APDU length, "z" for a Z39.50 APDU,
// header version "2", the server name "wais" padded to ten bytes, no
// compression, no encoding and a checksum of "0".
const HeaderLen = 25

// headerTail is what follows the length in every header written here,
// exactly as waissearch and freeWAIS write it.
const headerTail = "z2wais        0"

// maxCIntBytes bounds a compressed integer: freeWAIS writes at most four bytes.
const maxCIntBytes = 4

// ErrWAIS is wrapped by every error that says a WAIS message is malformed.
var ErrWAIS = errors.New("malformed WAIS message")

// waisError is a decoding error: what was wrong, wrapping ErrWAIS.
func waisError(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrWAIS, fmt.Sprintf(format, args...))
}

// AppendHeader appends the message header for an APDU of n bytes. The
// APDU is the caller's to append: a misbehaving server declares one
// length and sends another.
func AppendHeader(b []byte, n int) []byte {
	b = fmt.Appendf(b, "%010d", n)
	return append(b, headerTail...)
}

// Frame returns apdu behind its message header.
func Frame(apdu []byte) []byte {
	return append(AppendHeader(make([]byte, 0, HeaderLen+len(apdu)), len(apdu)), apdu...)
}

// looksLikeWAIS reports whether b, the first bytes of a reply, can begin
// a WAIS message header: ten ASCII digits and the message type "z".
func looksLikeWAIS(b []byte) bool {
	if len(b) < 11 {
		return false
	}
	for _, c := range b[:10] {
		if c < '0' || c > '9' {
			return false
		}
	}
	return b[10] == 'z'
}

// parseHeader checks a 25-byte message header and returns the length of
// the APDU behind it.
func parseHeader(h []byte) (int, error) {
	if len(h) != HeaderLen {
		return 0, waisError("header of %d bytes, want %d", len(h), HeaderLen)
	}
	if !looksLikeWAIS(h) {
		return 0, waisError("header %q does not begin with ten digits and \"z\"", h[:11])
	}
	if h[22] != ' ' || h[23] != ' ' {
		return 0, waisError("header asks for compression %q and encoding %q, which this client does not do", h[22], h[23])
	}
	n, err := strconv.Atoi(string(h[:10]))
	if err != nil {
		return 0, waisError("header length %q", h[:10])
	}
	return n, nil
}

// ReadMessage reads one message from r and returns its APDU. An APDU
// longer than max is refused before it is read. It returns io.EOF only
// when r ends before the first byte, io.ErrUnexpectedEOF when it ends
// later; a malformed header is an error that wraps ErrWAIS.
func ReadMessage(r io.Reader, max int) ([]byte, error) {
	h := make([]byte, HeaderLen)
	if _, err := io.ReadFull(r, h); err != nil {
		return nil, err
	}
	n, err := parseHeader(h)
	if err != nil {
		return nil, err
	}
	if n > max {
		return nil, waisError("message of %d bytes, more than the limit of %d", n, max)
	}
	apdu := make([]byte, n)
	if _, err := io.ReadFull(r, apdu); err != nil {
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return nil, err
	}
	return apdu, nil
}

// AppendCInt appends v as a compressed integer: base 128, big-endian,
// the high bit set on every byte but the last (notes §2.1). BER writes
// the subidentifiers of a tag or an OBJECT IDENTIFIER the same way.
func AppendCInt(b []byte, v int) []byte {
	var tmp [10]byte
	i := len(tmp) - 1
	tmp[i] = byte(v & 0x7f)
	for v >>= 7; v > 0; v >>= 7 {
		i--
		tmp[i] = byte(v&0x7f) | 0x80
	}
	return append(b, tmp[i:]...)
}

// ReadCInt reads a compressed integer from the front of b and returns it
// with the number of bytes it took. An integer cut short or longer than
// freeWAIS writes is an error that wraps ErrWAIS.
func ReadCInt(b []byte) (v, n int, err error) {
	for n < len(b) {
		c := b[n]
		n++
		if n > maxCIntBytes {
			return 0, 0, waisError("compressed integer longer than %d bytes", maxCIntBytes)
		}
		v = v<<7 | int(c&0x7f)
		if c&0x80 == 0 {
			return v, n, nil
		}
	}
	return 0, 0, waisError("compressed integer cut short")
}

// AppendTLV appends one field: its tag and the length of val as
// compressed integers, then val.
func AppendTLV(b []byte, tag int, val []byte) []byte {
	b = AppendCInt(b, tag)
	b = AppendCInt(b, len(val))
	return append(b, val...)
}

// AppendTLVString is AppendTLV for a string value.
func AppendTLVString(b []byte, tag int, val string) []byte {
	b = AppendCInt(b, tag)
	b = AppendCInt(b, len(val))
	return append(b, val...)
}

// SplitAPDU cuts an APDU into its Z39.50 part, which begins with the PDU
// type, and its WAIS part (notes §2.7).
func SplitAPDU(apdu []byte) (z, w []byte, err error) {
	if len(apdu) < 3 {
		return nil, nil, waisError("APDU of %d bytes", len(apdu))
	}
	h := int(apdu[0])<<8 | int(apdu[1])
	if h < 1 || h > len(apdu)-2 {
		return nil, nil, waisError("Z39.50 part claims %d bytes, %d remain", h, len(apdu)-2)
	}
	return apdu[2 : 2+h], apdu[2+h:], nil
}

// JoinAPDU puts the 2-byte length of z in front of z and w.
func JoinAPDU(z, w []byte) []byte {
	b := make([]byte, 0, 2+len(z)+len(w))
	b = append(b, byte(len(z)>>8), byte(len(z)))
	b = append(b, z...)
	return append(b, w...)
}
