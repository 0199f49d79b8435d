package wais

import (
	"bufio"
	"bytes"
	"testing"

	"github.com/urlfetch/urlfetch/internal/waiswire"
)

// fuzzLimit is the message limit the fuzz targets read with: a hostile
// length beyond it must be refused before anything is allocated for it.
const fuzzLimit = 1 << 16

// FuzzWAISDecode feeds the WAIS codec messages, APDUs and document ids:
// nothing may panic, no read may buffer more than the limit, whatever
// decodes must encode to bytes that decode to the same encoding, and
// every document id must come back from its URL form.
func FuzzWAISDecode(f *testing.F) {
	for _, b := range vectors(f, "wais-vectors.txt") {
		f.Add(b)
		if len(b) > waiswire.HeaderLen {
			f.Add(b[waiswire.HeaderLen:])
		}
	}
	f.Add([]byte("9999999999z2wais        0"))
	f.Add([]byte("0000000003z2wais        0\x00\x01\x17"))
	f.Fuzz(func(t *testing.T, data []byte) {
		if apdu, err := waiswire.ReadMessage(bytes.NewReader(data), fuzzLimit); err == nil {
			if len(apdu) > fuzzLimit {
				t.Fatalf("waiswire.ReadMessage returned %d bytes, more than the limit", len(apdu))
			}
			decodeWAIS(apdu)
		}
		if m, err := decodeWAIS(data); err == nil {
			enc := m.(marshaler).marshal()
			m2, err := decodeWAIS(enc)
			if err != nil {
				t.Fatalf("decodeWAIS(%x) = %#v, whose encoding %x does not decode: %v", data, m, enc, err)
			}
			if enc2 := m2.(marshaler).marshal(); !bytes.Equal(enc, enc2) {
				t.Fatalf("encoding is not stable: %x then %x", enc, enc2)
			}
		}
		fields(data)
		back, _, err := decodeWPath(encodeWPath(data))
		if err != nil || !bytes.Equal(back, data) {
			t.Fatalf("docid %x: URL form %q decodes to %x, %v", data, encodeWPath(data), back, err)
		}
		decodeWPath(string(data))
	})
}

// FuzzBERDecode feeds the BER codec APDUs: nothing may panic, the framer
// may not buffer more than the limit, and whatever decodes must encode to
// bytes that decode to the same encoding.
func FuzzBERDecode(f *testing.F) {
	for _, file := range []string{"z3950-vectors.txt", "z3950-testbed.txt"} {
		for _, b := range vectors(f, file) {
			f.Add(b)
		}
	}
	f.Add([]byte{0xb9, 0x84, 0x7f, 0xff, 0xff, 0xff})
	f.Add([]byte{0xb9, 0x80, 0xa0, 0x80, 0x04, 0x01, 0x41, 0x00, 0x00, 0x00, 0x00})
	f.Fuzz(func(t *testing.T, data []byte) {
		if b, err := waiswire.ReadBER(bufio.NewReader(bytes.NewReader(data)), fuzzLimit); err == nil {
			if len(b) > fuzzLimit || !bytes.HasPrefix(data, b) {
				t.Fatalf("waiswire.ReadBER returned %d bytes that are not a prefix of its input within the limit", len(b))
			}
		}
		m, err := decodeZ3950(data)
		if err != nil {
			walk(data, 0)
			return
		}
		enc := m.(marshaler).marshal()
		m2, err := decodeZ3950(enc)
		if err != nil {
			t.Fatalf("decodeZ3950(%x) = %#v, whose encoding %x does not decode: %v", data, m, enc, err)
		}
		if enc2 := m2.(marshaler).marshal(); !bytes.Equal(enc, enc2) {
			t.Fatalf("encoding is not stable: %x then %x", enc, enc2)
		}
	})
}

// walk decodes every element of b and its constructed elements' contents,
// and every primitive as each kind of value.
func walk(b []byte, depth int) {
	es, err := children(b)
	if err != nil || depth > waiswire.MaxBERDepth {
		return
	}
	for _, e := range es {
		if e.Constructed {
			walk(e.Content, depth+1)
			stringValue(e)
			continue
		}
		intValue(e)
		boolValue(e)
		oidValue(e)
	}
}
