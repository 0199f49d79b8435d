package wais

import (
	"bufio"
	"bytes"
	"encoding/hex"
	"errors"
	"io"
	"reflect"
	"strings"
	"testing"

	"github.com/urlfetch/urlfetch/fetch"
	"github.com/urlfetch/urlfetch/internal/waiswire"
)

// zrec06SUTRS is record zrec06 of the test bed's zebra as SUTRS, as the
// zebra-present-sutrs capture carries it.
const zrec06SUTRS = "harness:\n" +
	"  title: Record 06: the flamingo\n" +
	"  Control-Identifier: zrec06\n" +
	"  date: 1994-12-06\n" +
	"  body: Record 06 of the harnesscorpus tells of the flamingo. It stands on\n" +
	"    one leg in the shallow lagoon.\n"

func mustDecodeZ(t *testing.T, name string, b []byte) any {
	t.Helper()
	m, err := decodeZ3950(b)
	if err != nil {
		t.Fatalf("%s: decodeZ3950: %v", name, err)
	}
	return m
}

type marshaler interface{ marshal() []byte }

// Every BER vector of notes §10 decodes to what the note says and the
// encoder writes it byte for byte.
func TestBERVectors(t *testing.T) {
	v := vectors(t, "z3950-vectors.txt")
	yazVersion := "5.34.0 dec0c8a0b762132468cc8264c1b220eae1c67bd7"
	for _, tc := range []struct {
		name string
		want marshaler
	}{
		{"Z1", &zInit{
			Version: []byte{0x00, 0xe0}, Options: []byte{0x00, 0xe9, 0xa2}, Preferred: 64 << 20, MaxRecord: 64 << 20,
			ImplID: "81", ImplName: "YAZ", ImplVersion: yazVersion,
		}},
		{"Z2", &zSearch{
			Small: 0, Large: 1, Medium: 0, Replace: true, ResultSet: "1", Databases: []string{"harness"},
			AttrSet: oidBib1, Query: &rpnNode{Term: []byte("flamingo")},
		}},
		{"Z4", &zPresent{ResultSet: "1", Start: 1, Count: 1, ElementSet: "F", Syntax: oidSUTRS}},
		{"Z5", &zSearch{
			Small: 0, Large: 1, Medium: 0, Replace: true, ResultSet: "1", Databases: []string{"harness"},
			AttrSet: oidBib1, Query: &rpnNode{Attrs: rankedAttrs, Term: []byte("ochre aardvark")},
		}},
		{"Z6", &zSearchResponse{Count: 9, Returned: 0, Next: 1, Status: true, PresentStatus: -1}},
		{"Z7", &zPresent{ResultSet: "1", Start: 1, Count: 1, Syntax: oidSUTRS}},
		{"Z8", &zPresentResponse{Returned: 1, Next: 2, PresentStatus: 0, zRecords: zRecords{Records: []zRecord{
			{Database: "Default", Syntax: oidSUTRS, Single: true, Data: []byte("This is dummy SUTRS record number 1\n")},
		}}}},
		{"Z9", &zClose{Reason: 0}},
		{"Z10", &zSearch{
			Small: 0, Large: 1, Medium: 0, Replace: true, ResultSet: "1", Databases: []string{"harness"},
			AttrSet: oidBib1, Query: &rpnNode{Op: opOr, Left: &rpnNode{Term: []byte("ochre")}, Right: &rpnNode{Term: []byte("aardvark")}},
		}},
	} {
		b := v[tc.name]
		if got := tc.want.marshal(); !bytes.Equal(got, b) {
			t.Errorf("%s: encoder writes\n%x\nwant\n%x", tc.name, got, b)
		}
		got := mustDecodeZ(t, tc.name, b)
		if !reflect.DeepEqual(clean(got), clean(tc.want)) {
			t.Errorf("%s decodes to %#v, want %#v", tc.name, got, tc.want)
		}
	}
	// Z3 carries additionalSearchInfo, which the driver keeps as it came.
	z3 := mustDecodeZ(t, "Z3", v["Z3"]).(*zSearchResponse)
	if z3.Count != 1 || z3.Returned != 0 || z3.Next != 1 || !z3.Status || z3.Additional == nil {
		t.Errorf("Z3 = %+v, want 1 hit, none returned, next 1, status true, additional info", z3)
	}
	if got := z3.marshal(); !bytes.Equal(got, v["Z3"]) {
		t.Errorf("Z3 encodes to %x, want %x", got, v["Z3"])
	}
}

// clean drops what DeepEqual would see but the vectors do not carry:
// empty and nil slices of attributes.
func clean(m any) any {
	if s, ok := m.(*zSearch); ok {
		c := *s
		c.Query = cleanRPN(s.Query)
		return &c
	}
	return m
}

func cleanRPN(n *rpnNode) *rpnNode {
	if n == nil {
		return nil
	}
	c := *n
	if len(c.Attrs) == 0 {
		c.Attrs = nil
	}
	c.Left, c.Right = cleanRPN(n.Left), cleanRPN(n.Right)
	return &c
}

// The test bed's captures: zebra's indefinite lengths at every level, its
// XML octet-aligned, its diagnostics; yaz-ztest's definite lengths.
func TestBERTestbedCaptures(t *testing.T) {
	c := vectors(t, "z3950-testbed.txt")

	init := mustDecodeZ(t, "zebra-init-response", c["zebra-init-response"]).(*zInit)
	if !init.Response || !init.Result || init.ImplName != "Zebra Information Server/GFS/YAZ" || init.MaxRecord != 64<<20 {
		t.Errorf("zebra InitializeResponse = %+v", init)
	}

	p := mustDecodeZ(t, "zebra-present-sutrs", c["zebra-present-sutrs"]).(*zPresentResponse)
	if len(p.Records) != 1 || string(p.Records[0].Data) != zrec06SUTRS || p.Records[0].Database != "harness" || !p.Records[0].Syntax.equal(oidSUTRS) {
		t.Errorf("zebra PresentResponse (indefinite) = %+v, want zrec06 in SUTRS", p)
	}

	x := mustDecodeZ(t, "zebra-present-xml", c["zebra-present-xml"]).(*zPresentResponse)
	if len(x.Records) != 1 || !x.Records[0].Syntax.equal(oidXML) || x.Records[0].Single ||
		!bytes.HasPrefix(x.Records[0].Data, []byte("<?xml")) || !bytes.HasSuffix(x.Records[0].Data, []byte("</harness>")) {
		t.Errorf("zebra PresentResponse (XML) = %+v", x)
	}
	if h := headline(x.Records[0].Data, oidXML); h != "Record 06: the flamingo" {
		t.Errorf("headline(XML record) = %q", h)
	}
	if h := headline(p.Records[0].Data, oidSUTRS); h != "Record 06: the flamingo" {
		t.Errorf("headline(SUTRS record) = %q", h)
	}

	s := mustDecodeZ(t, "zebra-search-nosuchdb", c["zebra-search-nosuchdb"]).(*zSearchResponse)
	if s.Status || s.Count != 0 || len(s.Diags) != 1 || s.Diags[0].Code != "109" || s.Diags[0].AddInfo != "nosuchdb" {
		t.Fatalf("zebra SearchResponse for a missing database = %+v", s)
	}
	err := diagError("search", false, s.Diags)
	var d *Diagnostic
	if !errors.Is(err, fetch.ErrNotFound) || !errors.As(err, &d) || err.Error() != `wais: search: server diagnostic 109 (database unavailable): nosuchdb` {
		t.Errorf("diagError = %v", err)
	}

	f := mustDecodeZ(t, "zebra-present-after-failed-search", c["zebra-present-after-failed-search"]).(*zPresentResponse)
	if f.PresentStatus != 5 || len(f.Diags) != 1 || f.Diags[0].Code != "30" {
		t.Errorf("zebra PresentResponse without a result set = %+v", f)
	}

	// yaz-ztest sends what the note captured from it.
	v := vectors(t, "z3950-vectors.txt")
	if !bytes.Equal(c["ztest-search-flamingo"], v["Z6"]) || !bytes.Equal(c["ztest-present-sutrs"], v["Z8"]) || !bytes.Equal(c["zebra-search-flamingo"], v["Z3"]) {
		t.Errorf("the test bed's replies differ from the note's captures Z3, Z6, Z8")
	}
}

// waiswire.ReadBER frames one element off a stream: definite,
// indefinite, and stopping exactly at its end.
func TestReadBER(t *testing.T) {
	c := vectors(t, "z3950-testbed.txt")
	v := vectors(t, "z3950-vectors.txt")
	for _, msg := range [][]byte{c["zebra-present-sutrs"], c["zebra-present-xml"], v["Z8"], v["Z1"], v["Z9"]} {
		r := bufio.NewReader(io.MultiReader(bytes.NewReader(msg), strings.NewReader("\xb7\x03next")))
		got, err := waiswire.ReadBER(r, 1<<20)
		if err != nil || !bytes.Equal(got, msg) {
			t.Errorf("waiswire.ReadBER(%x...) = %x, %v; want the element", msg[:4], got, err)
		}
		rest, _ := io.ReadAll(r)
		if string(rest) != "\xb7\x03next" {
			t.Errorf("waiswire.ReadBER(%x...) left %q, want the next element", msg[:4], rest)
		}
	}
	if _, err := waiswire.ReadBER(bufio.NewReader(strings.NewReader("")), 100); err != io.EOF {
		t.Errorf("waiswire.ReadBER(empty) error = %v, want io.EOF", err)
	}
	sutrs := c["zebra-present-sutrs"]
	for _, tc := range []struct {
		name string
		in   []byte
		max  int
		want error
	}{
		{"cut in the header", []byte{0xb9}, 100, io.ErrUnexpectedEOF},
		{"cut in the contents", v["Z8"][:40], 1 << 20, io.ErrUnexpectedEOF},
		{"indefinite without its end", sutrs[:len(sutrs)-4], 1 << 20, io.ErrUnexpectedEOF},
		{"longer than the limit", v["Z8"], 50, waiswire.ErrBER},
		{"hostile length", []byte{0xb9, 0x84, 0x7f, 0xff, 0xff, 0xff}, 1 << 20, waiswire.ErrBER},
		{"length of 5 bytes", []byte{0xb9, 0x85, 1, 1, 1, 1, 1}, 1 << 20, waiswire.ErrBER},
		{"primitive indefinite", []byte{0x04, 0x80, 0, 0}, 100, waiswire.ErrBER},
		{"tag of 5 bytes", []byte{0xbf, 0x81, 0x81, 0x81, 0x81, 0x01, 0x00}, 100, waiswire.ErrBER},
		{"too deep", bytes.Repeat([]byte{0xa0, 0x80}, waiswire.MaxBERDepth+2), 1 << 20, waiswire.ErrBER},
	} {
		_, err := waiswire.ReadBER(bufio.NewReader(bytes.NewReader(tc.in)), tc.max)
		if !errors.Is(err, tc.want) {
			t.Errorf("waiswire.ReadBER(%s) error = %v, want %v", tc.name, err, tc.want)
		}
	}
}

// Every length is checked against what remains; constructed strings and
// high tag numbers are read.
func TestParseElement(t *testing.T) {
	for _, tc := range []struct {
		hex  string
		ok   bool
		want string // contents of a string
	}{
		{"0403616263", true, "abc"},
		{"2480040161040262630000", true, "abc"}, // constructed, indefinite
		{"240804016104036263", false, ""},       // a segment longer than what remains
		{"24060401610402626300", false, ""},     // definite length cuts a segment
		{"04050102", false, ""},                 // longer than what remains
		{"2480040161", false, ""},               // no end-of-contents
		{"3080", false, ""},                     // no end-of-contents at all
		{"9f8101026869", true, "hi"},            // tag 129
		{"0481ff", false, ""},                   // long form, nothing follows
		{"048200", false, ""},                   // long form cut
	} {
		b, err := hex.DecodeString(tc.hex)
		if err != nil {
			t.Fatal(err)
		}
		e, _, err := parseElement(b)
		if err == nil {
			var s []byte
			s, err = stringValue(e)
			if err == nil && string(s) != tc.want {
				t.Errorf("stringValue(%s) = %q, want %q", tc.hex, s, tc.want)
			}
		}
		if (err == nil) != tc.ok {
			t.Errorf("parseElement/stringValue(%s) error = %v, want ok %v", tc.hex, err, tc.ok)
		}
	}
	e, _, err := parseElement([]byte{0x9f, 0x81, 0x01, 0x00})
	if err != nil || e.Tag != 129 || e.Class != classContext {
		t.Errorf("tag 129 = %v, %v", e, err)
	}
}

func TestBERValues(t *testing.T) {
	for _, v := range []int64{0, 1, 127, 128, 255, 256, -1, -128, -129, 1 << 20, 64 << 20, 1<<62 + 5, -(1 << 62)} {
		e, _, err := parseElement(tlv(classUniversal, false, univInteger, intBytes(v)))
		got, err2 := intValue(e)
		if err != nil || err2 != nil || got != v {
			t.Errorf("INTEGER %d round trip = %d, %v %v", v, got, err, err2)
		}
	}
	for _, o := range []oid{oidBib1, oidSUTRS, oidXML, {2, 999, 3}, {0, 39}} {
		e, _, err := parseElement(tlv(classUniversal, false, univOID, oidBytes(o)))
		got, err2 := oidValue(e)
		if err != nil || err2 != nil || !got.equal(o) {
			t.Errorf("OID %v round trip = %v, %v %v", o, got, err, err2)
		}
	}
	if got := syntaxOID("1.2.840.10003.5.109.10"); !got.equal(oidXML) {
		t.Errorf("syntaxOID(dotted XML) = %v", got)
	}
	for _, bad := range []string{"", "TEXT", "1", "3.1", "1.2.x"} {
		if got := syntaxOID(bad); got != nil {
			t.Errorf("syntaxOID(%q) = %v, want nil", bad, got)
		}
	}
}
