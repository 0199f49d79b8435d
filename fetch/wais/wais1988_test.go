package wais

import (
	"bufio"
	"bytes"
	"encoding/hex"
	"errors"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/urlfetch/urlfetch/internal/waiswire"
)

// vectors reads a file of "NAME HEX" lines from testdata.
func vectors(t testing.TB, file string) map[string][]byte {
	t.Helper()
	f, err := os.Open("testdata/" + file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	m := map[string][]byte{}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || line[0] == '#' {
			continue
		}
		name, hx, ok := strings.Cut(line, " ")
		b, err := hex.DecodeString(hx)
		if !ok || err != nil {
			t.Fatalf("%s: bad line %q: %v", file, line, err)
		}
		m[name] = b
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return m
}

// Documents 20 and 06 of the freeWAIS test database, as their ids appear
// in W5, W6 and W7.
var (
	docID20 = []byte("\x02\x07test-db\x03\x360 377 /work/steering/harness/run/wais-corpus/doc20.txt")
	docID06 = []byte("\x01\x08vm:18212" +
		"\x02\x2d/work/steering/harness/run/wais-index/test-db" +
		"\x03\x360 311 /work/steering/harness/run/wais-corpus/doc06.txt" +
		"\x04\x08vm:18212" +
		"\x05\x2d/work/steering/harness/run/wais-index/test-db" +
		"\x06\x360 311 /work/steering/harness/run/wais-corpus/doc06.txt" +
		"\x07\x01\x00")
	// doc20Head is the first 100 bytes of document 20, which W7 carries.
	doc20Head = "Document 20: The lilac tapir\nThis is test document number 20 of the WAIS harness corpus.\nIts distinc"
)

// decodeVector checks a vector's header and decodes its APDU.
func decodeVector(t *testing.T, name string, msg []byte) any {
	t.Helper()
	apdu, err := waiswire.ReadMessage(bytes.NewReader(msg), 1<<20)
	if err != nil {
		t.Fatalf("%s: waiswire.ReadMessage: %v", name, err)
	}
	if len(apdu) != len(msg)-waiswire.HeaderLen {
		t.Fatalf("%s: APDU of %d bytes in a message of %d", name, len(apdu), len(msg))
	}
	m, err := decodeWAIS(apdu)
	if err != nil {
		t.Fatalf("%s: decodeWAIS: %v", name, err)
	}
	return m
}

// Every vector of notes §8 decodes to what the transcript of §7 says, and
// encodes back byte for byte.
func TestWAISVectors(t *testing.T) {
	v := vectors(t, "wais-vectors.txt")
	for _, name := range []string{"W1", "W2", "W3", "W4", "W5", "W6", "W7", "W8"} {
		msg := v[name]
		m := decodeVector(t, name, msg)
		var want any
		var enc []byte
		switch name {
		case "W1":
			want = &waisInit{
				Version: []byte{0x80}, Options: []byte{0x80}, Preferred: some(100000), MaxRecord: some(100000),
				IDAuth: "waissearch freeWAIS-sf 2.2.8 string, from host: vm.unknown, user: root",
				ImplID: "LS6", ImplName: "University of Dortmund Informatik VI", ImplVersion: "2.2.8 string",
			}
		case "W2":
			want = &waisInit{
				Response: true, Accepted: true, Version: []byte{0x80}, Options: []byte{0x80}, Preferred: some(100000), MaxRecord: some(100000),
				ImplID: "LS6", ImplName: "University of Dortmund Informatik VI", ImplVersion: "2.2.8 string",
				UserInfo: []byte{0x63, 0x06, 0x64, 0x01, 0x00, 0x65, 0x01, 0x00},
			}
		case "W3":
			want = keywordSearch("test-db", "flamingo", 40)
		case "W4":
			want = keywordSearch("test-db", "?", 40)
		case "W5":
			want = &waisSearchResponse{
				Status: 1, Returned: 1, PresentStatus: some(0), HasUserInfo: true,
				Headers: []docHeader{{
					DocID: docID06, Score: some(614), BestMatch: some(0), Length: some(311), Lines: some(5), Types: []string{"TEXT"},
					Source: "/work/steering/harness/run/wais-index/test-db", Date: "0", Headline: "Document 06: The ochre flamingo",
				}},
			}
		case "W6":
			want = retrievalSearch("test-db", docID20, "TEXT", 0, 100)
		case "W7":
			want = &waisSearchResponse{
				Returned: 1, PresentStatus: some(0), RefID: []byte("3"), HasUserInfo: true,
				Texts: []docText{{DocID: docID20, Version: some(0), Text: []byte(doc20Head)}},
			}
		case "W8":
			want = &waisSearchResponse{
				Returned: 1, PresentStatus: some(0), RefID: []byte("3"), HasUserInfo: true,
				Diagnostics: []*Diagnostic{{Dialect: DialectWAIS, Code: "SF", AddInfo: "Missing DocID in request", Surrogate: 1}},
			}
		}
		if !reflect.DeepEqual(m, want) {
			t.Errorf("%s decodes to\n%#v\nwant\n%#v", name, m, want)
		}
		switch m := want.(type) {
		case *waisInit:
			enc = m.marshal()
		case *waisSearch:
			enc = m.marshal()
		case *waisSearchResponse:
			enc = m.marshal()
		}
		if got := waiswire.Frame(enc); !bytes.Equal(got, msg) {
			t.Errorf("%s encodes to\n%x\nwant\n%x", name, got, msg)
		}
	}
}

// W9 is one diagnostic record on its own (notes §2.9).
func TestWAISDiagnosticRecord(t *testing.T) {
	w9 := vectors(t, "wais-vectors.txt")["W9"]
	fs, err := fields(w9)
	if err != nil || len(fs) != 1 || fs[0].diag == nil {
		t.Fatalf("fields(W9) = %+v, %v; want one diagnostic", fs, err)
	}
	d := fs[0].diag
	if d.Code != "S1" || d.AddInfo != "query syntax error: ?" || d.Surrogate != 0 {
		t.Errorf("W9 = %+v, want S1 \"query syntax error: ?\"", d)
	}
	if got := appendDiagnostic(nil, d); !bytes.Equal(got, w9) {
		t.Errorf("appendDiagnostic = %x, want %x", got, w9)
	}
}

// The encoder makes W3, W4 and W6 from the values a URL gives, as the
// driver does (notes §8).
func TestWAISEncoderFromURLValues(t *testing.T) {
	v := vectors(t, "wais-vectors.txt")
	for _, tc := range []struct {
		name string
		got  []byte
	}{
		{"W3", waiswire.Frame(keywordSearch("test-db", "flamingo", 40).marshal())},
		{"W4", waiswire.Frame(keywordSearch("test-db", helpSearch, 40).marshal())},
		{"W6", waiswire.Frame(retrievalSearch("test-db", docID20, "TEXT", 0, 100).marshal())},
	} {
		if !bytes.Equal(tc.got, v[tc.name]) {
			t.Errorf("encoder for %s = %x, want %x", tc.name, tc.got, v[tc.name])
		}
	}
}

// W5's document id renders as the URL of notes §6 and back to the same
// 229 bytes.
func TestWAISDocIDURL(t *testing.T) {
	m := decodeVector(t, "W5", vectors(t, "wais-vectors.txt")["W5"]).(*waisSearchResponse)
	id := m.Headers[0].DocID
	if len(id) != 229 {
		t.Fatalf("W5 docid is %d bytes, want 229", len(id))
	}
	const want = "1=vm%3A18212;2=/work/steering/harness/run/wais-index/test-db;3=0%20311%20/work/steering/harness/run/wais-corpus/doc06.txt;" +
		"4=vm%3A18212;5=/work/steering/harness/run/wais-index/test-db;6=0%20311%20/work/steering/harness/run/wais-corpus/doc06.txt;7=%00;"
	if got := encodeWPath(id); got != want {
		t.Errorf("encodeWPath(W5 docid) = %q, want %q", got, want)
	}
	back, length, err := decodeWPath("311/" + want)
	if err != nil || length != 311 || !bytes.Equal(back, id) {
		t.Errorf("decodeWPath(311/...) = %q, %d, %v; want the 229 bytes and 311", back, length, err)
	}
	hit := (&waisSession{}).hit(&target{host: "127.0.0.1", port: 18212, database: "test-db"}, m.Headers[0])
	if hit.URL != "wais://127.0.0.1:18212/test-db/TEXT/311/"+want {
		t.Errorf("hit URL = %q", hit.URL)
	}
}

// Every length is checked against what remains of its message.
func TestWAISLengthsChecked(t *testing.T) {
	for _, hx := range []string{
		"0001",                                  // shorter than a Z39.50 part
		"000217",                                // Z39.50 part longer than the APDU
		"000117",                                // Search-response cut short
		"00011463",                              // Init with a WAIS part
		"000d1701000000000001000000" + "1b05",   // field claims 5 bytes, 0 remain
		"000b1701000000000001000000" + "63ff7f", // WAIS part claims 16383 bytes
		"000b1701000000000001000000" + "63031c0018",        // diagnostic claims 24 bytes
		"000b1701000000000001000000" + "6304" + "81168100", // header without a docid
	} {
		b, err := hex.DecodeString(hx)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := decodeWAIS(b); !errors.Is(err, waiswire.ErrWAIS) {
			t.Errorf("decodeWAIS(%s) error = %v, want a malformed-WAIS error", hx, err)
		}
	}
}

// Issue 23, the sweep: a reply is bounded in what it decodes into, not
// only in its bytes: 4 MiB of five-byte document headers, or of empty
// BER diagnostics, decoded into gigabytes. More than maxItems is the
// server breaking its protocol.
func TestTooManyItems(t *testing.T) {
	r := &waisSearchResponse{Status: 1, PresentStatus: some(0), HasUserInfo: true}
	for range maxItems + 1 {
		r.Headers = append(r.Headers, docHeader{})
	}
	_, err := decodeWAIS(r.marshal())
	if !errors.Is(err, waiswire.ErrWAIS) || !strings.Contains(err.Error(), "more than") {
		t.Errorf("a search response of %d headers: %v; want ErrWAIS saying more than %d", maxItems+1, err, maxItems)
	}
	r.Headers = r.Headers[:maxItems-1]
	if _, err := decodeWAIS(r.marshal()); err != nil {
		t.Errorf("a search response of %d headers: %v", maxItems-1, err)
	}
	empty := bytes.Repeat([]byte{0x30, 0x00}, maxItems+1)
	if _, err := children(empty); !errors.Is(err, waiswire.ErrBER) {
		t.Errorf("%d empty BER elements: %v; want ErrBER", maxItems+1, err)
	}
	if es, err := children(empty[:2*maxItems]); err != nil || len(es) != maxItems {
		t.Errorf("%d empty BER elements: %d, %v", maxItems, len(es), err)
	}
}
