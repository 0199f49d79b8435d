package wais

import (
	"strconv"
	"strings"

	"github.com/urlfetch/urlfetch/internal/waiswire"
	"github.com/urlfetch/urlfetch/uri"
)

// A WAIS document id is itself a sequence of small fields: a one-byte
// field number, a compressed-integer length and the value (notes §6):
// 1 original server, 2 original database, 3 original local id, 4-6 the
// same for the distributor, 7 copyright disposition. Servers need it back
// byte for byte, so the client treats it as opaque and only re-encodes it
// for a URL.

// docField is one field of a structured document id.
type docField struct {
	num byte
	val []byte
}

// parseDocID splits a document id into its fields; ok is false when the
// bytes are not a well-formed sequence of fields.
func parseDocID(id []byte) (fs []docField, ok bool) {
	for len(id) > 0 {
		n := id[0]
		l, k, err := waiswire.ReadCInt(id[1:])
		if err != nil || l > len(id)-1-k || k != len(waiswire.AppendCInt(nil, l)) {
			// Not a field, or a length written with more bytes than it
			// needs, which the URL form could not give back.
			return nil, false
		}
		fs = append(fs, docField{num: n, val: id[1+k : 1+k+l]})
		id = id[1+k+l:]
	}
	return fs, len(fs) > 0
}

// rfc1630Safe reports whether c stands as itself in a field value of the
// RFC 1630 document-id encoding, as CERN's libwww wrote it: letters,
// digits and . / - _ $.
func rfc1630Safe(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte("./-_$", c) >= 0
}

const upperhex = "0123456789ABCDEF"

// encodeWPath writes a document id as the wpath of a URL. A structured id
// is written as RFC 1630 describes ("The wpath of a WAIS URL consists of
// encoded fields of the WAIS identifier, in the same order as in the WAIS
// identifier"): for each field its number, "=", the value in the
// conventional %XX encoding, and ";". Any other id is written %-encoded
// whole, "=" and ";" included, so the two forms never meet.
func encodeWPath(id []byte) string {
	fs, ok := parseDocID(id)
	if !ok {
		return uri.Escape(string(id), uri.ComponentWAIS)
	}
	var b strings.Builder
	for _, f := range fs {
		b.WriteString(strconv.Itoa(int(f.num)))
		b.WriteByte('=')
		for _, c := range f.val {
			if rfc1630Safe(c) {
				b.WriteByte(c)
			} else {
				b.WriteByte('%')
				b.WriteByte(upperhex[c>>4])
				b.WriteByte(upperhex[c&15])
			}
		}
		b.WriteByte(';')
	}
	return b.String()
}

// decodeWPath reads the raw (still encoded) wpath of a document URL: an
// optional decimal document length and "/" in front (the form libwww and
// Lynx generated, wtype/length/docid), then either the RFC 1630 fields or
// a %-encoded opaque id. length is -1 when the URL gives none.
func decodeWPath(raw string) (id []byte, length int64, err error) {
	length = -1
	if i := strings.IndexByte(raw, '/'); i > 0 && i < len(raw)-1 && allDigits(raw[:i]) {
		n, err := strconv.ParseInt(raw[:i], 10, 64)
		if err == nil {
			length, raw = n, raw[i+1:]
		}
	}
	if fs, ok := splitRFC1630(raw); ok {
		for _, f := range fs {
			id = append(id, f.num)
			id = waiswire.AppendCInt(id, len(f.val))
			id = append(id, f.val...)
		}
		return id, length, nil
	}
	s, err := uri.Unescape(raw)
	if err != nil {
		return nil, 0, err
	}
	return []byte(s), length, nil
}

// splitRFC1630 parses "n=value;n=value;" with each value %-decoded. It
// reports false for anything else, such as an opaque id.
func splitRFC1630(raw string) ([]docField, bool) {
	if raw == "" || !strings.HasSuffix(raw, ";") {
		return nil, false
	}
	var fs []docField
	for part := range strings.SplitSeq(strings.TrimSuffix(raw, ";"), ";") {
		k, v, ok := strings.Cut(part, "=")
		if !ok || !allDigits(k) || len(k) > 3 {
			return nil, false
		}
		n, _ := strconv.Atoi(k)
		if n > 255 {
			return nil, false
		}
		val, err := uri.Unescape(v)
		if err != nil {
			return nil, false
		}
		fs = append(fs, docField{num: byte(n), val: []byte(val)})
	}
	return fs, true
}

func allDigits(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}
