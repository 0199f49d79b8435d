package wais

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/urlfetch/urlfetch/fetch"
	"github.com/urlfetch/urlfetch/fetch/fetchtest"
	"github.com/urlfetch/urlfetch/internal/misbehaving"
	"github.com/urlfetch/urlfetch/internal/waiswire"
)

// No WAIS server is packaged for Debian, so the WAIS dialect is driven end
// to end by replayServer: a scripted server that answers with the
// captured freeWAIS-sf replies of notes §8 where a capture exists (W2 to
// any Init, W5 to exactly W3, W7 to exactly W6, W8 to a retrieval of an
// unknown document) and builds the rest with the codec (slices of
// documents whose text was not captured, the help reply of §5).

// doc06 stands for the text of document 06, whose header (W5) was
// captured but not its 311 bytes: its first line is the captured one.
var doc06 = padText("Document 06: The ochre flamingo\nThis is test document number 6 of the WAIS harness corpus.\n", 311)

// doc20 is document 20: its first 100 bytes are W7's.
var doc20 = padText(doc20Head, 377)

func padText(head string, n int) []byte {
	b := []byte(head)
	for i := 0; len(b) < n; i++ {
		b = append(b, "filler line "+strconv.Itoa(i)+"\n"...)
	}
	return b[:n]
}

type replayServer struct {
	t    testing.TB
	ln   net.Listener
	addr string
	v    map[string][]byte
	docs map[string][]byte

	// crash closes the connection on any Search, as a crashed freeWAIS
	// child does; reply, if set, is sent raw in answer to any Search.
	crash bool
	reply []byte

	mu   sync.Mutex
	got  [][]byte // every message received
	acc  atomic.Int32
	done sync.WaitGroup
}

func newReplayServer(t testing.TB) *replayServer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &replayServer{t: t, ln: ln, addr: ln.Addr().String(), v: vectors(t, "wais-vectors.txt"), docs: map[string][]byte{
		string(docID06): doc06,
		string(docID20): doc20,
	}}
	s.done.Add(1)
	go func() {
		defer s.done.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			s.acc.Add(1)
			s.done.Add(1)
			go func() {
				defer s.done.Done()
				defer c.Close()
				s.serve(c)
			}()
		}
	}()
	t.Cleanup(func() { ln.Close(); s.done.Wait() })
	return s
}

func (s *replayServer) url(path string) string { return "wais://" + s.addr + "/" + path }

// received returns the messages the server got, framed.
func (s *replayServer) received() [][]byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([][]byte(nil), s.got...)
}

func (s *replayServer) serve(c net.Conn) {
	r := bufio.NewReader(c)
	for {
		apdu, err := waiswire.ReadMessage(r, 1<<20)
		if err != nil {
			return
		}
		msg := waiswire.Frame(apdu)
		s.mu.Lock()
		s.got = append(s.got, msg)
		s.mu.Unlock()
		m, err := decodeWAIS(apdu)
		if err != nil {
			return // freeWAIS closes on what it cannot parse
		}
		var out []byte
		switch m := m.(type) {
		case *waisInit:
			out = s.v["W2"]
		case *waisSearch:
			switch {
			case s.crash:
				return
			case s.reply != nil:
				c.Write(s.reply)
				return
			case bytes.Equal(msg, s.v["W3"]):
				out = s.v["W5"]
			case bytes.Equal(msg, s.v["W6"]):
				out = s.v["W7"]
			case m.QueryType == "3" && (m.SeedWords == "?" || m.SeedWords == ""):
				out = waiswire.Frame(helpReply().marshal())
			case m.QueryType == "3":
				out = waiswire.Frame(catalogOnly().marshal())
			default:
				out = s.retrieve(m)
			}
		default:
			return
		}
		if _, err := c.Write(out); err != nil {
			return
		}
	}
}

// retrieve answers a retrieval as freeWAIS-sf does (notes §4.4): the
// bytes of the range, with "Request out of range" when it runs past the
// end, and W8 for a document it does not have.
func (s *replayServer) retrieve(m *waisSearch) []byte {
	var id []byte
	var start, end int64 = -1, -1
	for _, it := range m.Query {
		switch it.Attrs {
		case "un re ig ig ig ig":
			id = it.Term
		case "wb ro ig ig ig ig":
			start, _ = strconv.ParseInt(string(it.Term), 10, 64)
		case "wb rl ig ig ig ig":
			end, _ = strconv.ParseInt(string(it.Term), 10, 64)
		}
	}
	text, ok := s.docs[string(id)]
	if !ok {
		return s.v["W8"]
	}
	r := &waisSearchResponse{Returned: 1, PresentStatus: some(0), RefID: m.RefID, HasUserInfo: true}
	if start < 0 || end < 0 {
		return waiswire.Frame(r.marshal()) // no range: no text group
	}
	a, b := min(start, int64(len(text))), min(end, int64(len(text)))
	r.Texts = []docText{{DocID: id, Version: some(0), Text: text[a:b]}}
	if end > int64(len(text)) {
		r.Diagnostics = []*Diagnostic{{Code: "SF", AddInfo: "Request out of range", Surrogate: 1}}
	}
	return waiswire.Frame(r.marshal())
}

// helpReply is freeWAIS's answer to "?" (notes §5): the source
// description, the catalog and a diagnostic.
func helpReply() *waisSearchResponse {
	r := catalogOnly()
	src := docHeader{
		DocID: docIDOf("test-db", "0 0 /srv/wais-index/test-db.src"),
		Score: some(1000), Length: some(420), Types: []string{"WSRC"}, Source: "test-db", Date: "0",
		Headline: "Information on database: test-db",
	}
	r.Headers = append([]docHeader{src}, r.Headers...)
	r.Diagnostics = []*Diagnostic{{Code: "S1", AddInfo: "query syntax error: ?"}}
	r.Returned = 3
	return r
}

// catalogOnly is the answer to a search that finds nothing.
func catalogOnly() *waisSearchResponse {
	return &waisSearchResponse{Status: 1, Returned: 1, PresentStatus: some(0), HasUserInfo: true, Headers: []docHeader{{
		DocID: docIDOf("test-db", "0 0 /srv/wais-index/test-db.cat"),
		Score: some(1000), Length: some(700), Types: []string{"TEXT"}, Source: "test-db", Date: "0",
		Headline: "Catalog for database: test-db",
	}}}
}

// docIDOf builds the document id freeWAIS gives a help document: fields
// 2 (database) and 3 (local id), and 7 (copyright disposition).
func docIDOf(db, local string) []byte {
	var b []byte
	for _, f := range []docField{{2, []byte(db)}, {3, []byte(local)}, {7, []byte{0}}} {
		b = append(b, f.num)
		b = waiswire.AppendCInt(b, len(f.val))
		b = append(b, f.val...)
	}
	return b
}

// testClient is a Client with a wais Driver and a trace into the test log.
func testClient(t testing.TB, d *Driver) *fetch.Client {
	c := &fetch.Client{NetrcFile: "-", IdleTimeout: 5 * time.Second}
	c.Register("wais", d)
	c.Trace = func(dir fetch.Direction, line string) { t.Logf("%c %s", dir, line) }
	t.Cleanup(func() { c.Close() })
	return c
}

func fetchAll(t testing.TB, c *fetch.Client, raw string) (*fetch.Response, []byte) {
	t.Helper()
	resp, err := c.Fetch(t.Context(), raw)
	if err != nil {
		t.Fatalf("Fetch(%q): %v", raw, err)
	}
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("Fetch(%q): reading: %v", raw, err)
	}
	if err := resp.Body.Close(); err != nil {
		t.Fatalf("Fetch(%q): Close: %v", raw, err)
	}
	return resp, b
}

func listEntries(t testing.TB, c *fetch.Client, raw string) []fetch.Entry {
	t.Helper()
	resp, b := fetchAll(t, c, raw)
	if resp.Kind != fetch.Listing {
		t.Fatalf("Fetch(%q).Kind = %v, want listing", raw, resp.Kind)
	}
	resp.Body = io.NopCloser(bytes.NewReader(b))
	var es []fetch.Entry
	for e, err := range resp.Entries() {
		if err != nil {
			t.Fatalf("Fetch(%q).Entries(): %v", raw, err)
		}
		es = append(es, e)
	}
	return es
}

// Search, then fetch the hit's URL: the request is W3 byte for byte, the
// reply the captured W5, and the entry's URL retrieves the document.
func TestWAISReplaySearchThenFetch(t *testing.T) {
	srv := newReplayServer(t)
	c := testClient(t, &Driver{})
	es := listEntries(t, c, srv.url("test-db?flamingo"))
	if len(es) != 1 {
		t.Fatalf("entries = %+v, want the one hit of W5", es)
	}
	e := es[0]
	wantURL := srv.url("test-db/TEXT/311/" + encodeWPath(docID06))
	if e.Name != "Document 06: The ochre flamingo" || e.Size != 311 || e.Type != fetch.EntryFile || e.Media != "text/plain" ||
		e.Title != "score 614, from /work/steering/harness/run/wais-index/test-db" || e.URL != wantURL {
		t.Errorf("entry = %+v, want W5's hit at %s", e, wantURL)
	}
	if got := srv.received(); len(got) != 2 || !bytes.Equal(got[1], srv.v["W3"]) {
		t.Errorf("the server got %x, want an Init and W3", got)
	}
	resp, body := fetchAll(t, c, e.URL)
	if !bytes.Equal(body, doc06) || resp.Length != 311 || resp.Type != "text/plain" || resp.Kind != fetch.Document {
		t.Errorf("Fetch(entry) = %v %q %d bytes %q, want document 06", resp.Kind, resp.Type, resp.Length, body)
	}
	if resp.Meta.Get("Wais-Dialect") != "wais" || resp.Meta.Get("Wais-Server") != "University of Dortmund Informatik VI 2.2.8 string" {
		t.Errorf("Meta = %v, want W2's server in dialect wais", resp.Meta)
	}
	got := srv.received()
	m, err := decodeWAIS(got[len(got)-1][waiswire.HeaderLen:])
	if err != nil {
		t.Fatal(err)
	}
	if want := retrievalSearch("test-db", docID06, "TEXT", 0, 311).marshal(); !bytes.Equal(got[len(got)-1][waiswire.HeaderLen:], want) {
		t.Errorf("retrieval sent = %+v, want docid of W5 and bytes 0-311", m)
	}
}

// The retrieval of notes §8, W6, replayed: the driver sends W6 byte for
// byte and reads W7's 100 bytes.
func TestWAISReplayRetrieval(t *testing.T) {
	srv := newReplayServer(t)
	c := testClient(t, &Driver{Dialect: DialectWAIS})
	raw := srv.url("test-db/TEXT/100/" + encodeWPath(docID20))
	_, body := fetchAll(t, c, raw)
	if string(body) != doc20Head {
		t.Errorf("Fetch(%q) = %q, want W7's text %q", raw, body, doc20Head)
	}
	if got := srv.received(); len(got) != 2 || !bytes.Equal(got[1], srv.v["W6"]) {
		t.Errorf("the server got %x, want an Init and W6", got)
	}
}

// W8: a document the server does not have is ErrNotFound with its text.
func TestWAISReplayMissingDocument(t *testing.T) {
	srv := newReplayServer(t)
	c := testClient(t, &Driver{})
	raw := srv.url("test-db/TEXT/2=test-db;3=0%2010%20/etc/passwd;")
	resp, err := c.Fetch(t.Context(), raw)
	if err == nil {
		resp.Body.Close()
	}
	var d *Diagnostic
	if !errors.Is(err, fetch.ErrNotFound) || !errors.As(err, &d) || d.Code != "SF" || !strings.Contains(err.Error(), "Missing DocID in request") {
		t.Errorf("Fetch(%q) error = %v, want ErrNotFound with the server's \"Missing DocID in request\"", raw, err)
	}
}

// wais://host/db: the help search (W4 byte for byte); its diagnostic is
// no error, as headers came with it.
func TestWAISDescribeDatabase(t *testing.T) {
	srv := newReplayServer(t)
	c := testClient(t, &Driver{})
	es := listEntries(t, c, srv.url("test-db"))
	if len(es) != 2 || es[0].Name != "Information on database: test-db" || es[0].Media != "application/x-wais-source" ||
		es[1].Name != "Catalog for database: test-db" || !strings.Contains(es[0].URL, "/test-db/WSRC/420/2=test-db;3=0%200%20/srv/wais-index/test-db.src;7=%00;") {
		t.Errorf("entries = %+v, want the source description and the catalog", es)
	}
	if got := srv.received(); len(got) != 2 || !bytes.Equal(got[1], srv.v["W4"]) {
		t.Errorf("the server got %x, want an Init and W4", got)
	}
	// The driver's Search turns the database into that search (W3).
	c = testClient(t, &Driver{Search: "flamingo"})
	if es := listEntries(t, c, srv.url("test-db")); len(es) != 1 || es[0].Size != 311 {
		t.Errorf("with Search flamingo: entries %+v, want W5's hit", es)
	}
	asked := ""
	c = testClient(t, &Driver{Prompt: func(_ context.Context, db string) (string, error) { asked = db; return " flamingo \n", nil }})
	if es := listEntries(t, c, srv.url("test-db")); len(es) != 1 || asked != "test-db" {
		t.Errorf("with a Prompt: entries %+v, asked for %q", es, asked)
	}
}

// A document comes in slices of the server's maximum record size (W2:
// 100000), each asked for only when the Body needs it.
func TestWAISSlicesStream(t *testing.T) {
	srv := newReplayServer(t)
	big := padText("big\n", 250000)
	id := docIDOf("test-db", "0 250000 /big.txt")
	srv.docs[string(id)] = big
	c := testClient(t, &Driver{})
	for _, tc := range []struct {
		path   string
		slices []string // the ranges asked for
		length int64
	}{
		{"250000/" + encodeWPath(id), []string{"0-100000", "100000-200000", "200000-250000"}, 250000},
		{encodeWPath(id), []string{"0-100000", "100000-200000", "200000-300000"}, -1},
	} {
		before := len(srv.received())
		resp, err := c.Fetch(t.Context(), srv.url("test-db/TEXT/"+tc.path))
		if err != nil {
			t.Fatal(err)
		}
		if resp.Length != tc.length {
			t.Errorf("Length = %d, want %d", resp.Length, tc.length)
		}
		head := make([]byte, 1000)
		if _, err := io.ReadFull(resp.Body, head); err != nil {
			t.Fatal(err)
		}
		if n := len(srv.received()) - before; n != 2 {
			t.Errorf("after reading 1000 bytes the server got %d messages, want 2 (Init, the first slice)", n)
		}
		rest, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil || !bytes.Equal(append(head, rest...), big) {
			t.Errorf("body = %d bytes, %v; want the 250000 bytes", 1000+len(rest), err)
		}
		var ranges []string
		for _, msg := range srv.received()[before+1:] {
			m, err := decodeWAIS(msg[waiswire.HeaderLen:])
			if err != nil {
				t.Fatal(err)
			}
			q := m.(*waisSearch).Query
			ranges = append(ranges, string(q[3].Term)+"-"+string(q[5].Term))
		}
		if strings.Join(ranges, " ") != strings.Join(tc.slices, " ") {
			t.Errorf("slices %v, want %v", ranges, tc.slices)
		}
	}
}

// A document whose length the URL does not give ends on a short slice or
// on the server's out-of-range diagnostic; a resume starts where asked.
func TestWAISUnknownLengthAndResume(t *testing.T) {
	srv := newReplayServer(t)
	exact := padText("exact\n", 200000)
	id := docIDOf("test-db", "0 200000 /exact.txt")
	srv.docs[string(id)] = exact
	c := testClient(t, &Driver{})
	_, body := fetchAll(t, c, srv.url("test-db/TEXT/"+encodeWPath(id)))
	if !bytes.Equal(body, exact) {
		t.Errorf("body = %d bytes, want the 200000 (the third slice is empty and out of range)", len(body))
	}
	req, err := c.NewRequest(srv.url("test-db/TEXT/311/" + encodeWPath(docID06)))
	if err != nil {
		t.Fatal(err)
	}
	req.Offset = 300
	resp, err := c.Do(t.Context(), req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil || resp.Offset != 300 || resp.Length != 11 || !bytes.Equal(b, doc06[300:]) {
		t.Errorf("resume at 300: Offset %d Length %d body %q %v; want the last 11 bytes", resp.Offset, resp.Length, b, err)
	}
}

// A server that closes the connection instead of replying (ErrConnect:
// the one rule of a broken connection, issue 19), and replies that break
// the limits (ErrProtocol): each an error a person understands.
func TestWAISBrokenReplies(t *testing.T) {
	for _, tc := range []struct {
		name  string
		crash bool
		reply string
		kind  error
		want  string
	}{
		{"crash", true, "", fetch.ErrConnect, "the server closed the connection without replying to the Search"},
		{"cut", false, "0000000100z2wais        0\x00\x0e", fetch.ErrConnect, "the server closed the connection in the middle of its reply to the Search"},
		{"huge", false, "9999999999z2wais        0", fetch.ErrProtocol, "more than the limit of 4194304"},
		{"field", false, "0000000015z2wais        0\x00\x0d\x17\x01\x00\x00\x00\x00\x00\x01\x00\x00\x00\x1b\x05", fetch.ErrProtocol, "field 27 claims 5 bytes, 0 remain"},
		{"not WAIS", false, "HTTP/1.0 400 Bad Request\r\n\r\n", fetch.ErrProtocol, "does not begin with ten digits"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := newReplayServer(t)
			srv.crash = tc.crash
			if tc.reply != "" {
				srv.reply = []byte(tc.reply)
			}
			c := testClient(t, &Driver{Dialect: DialectWAIS})
			raw := srv.url("test-db?flamingo")
			resp, err := c.Fetch(t.Context(), raw)
			if err == nil {
				resp.Body.Close()
			}
			if !errors.Is(err, tc.kind) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Fetch(%q) error = %v, want %v saying %q", raw, err, tc.kind, tc.want)
			}
		})
	}
}

// Decoded data that a C server would cut short never leaves the client.
func TestWAISUnsafe(t *testing.T) {
	srv := newReplayServer(t)
	c := testClient(t, &Driver{})
	for _, raw := range []string{
		srv.url("test%00db?flamingo"),
		srv.url("test%1Fother?flamingo"),
		srv.url("test-db?fla%0D%0Amingo"),
		srv.url("test-db/TE%0AXT/2=x;"),
	} {
		_, err := c.Fetch(t.Context(), raw)
		if !errors.Is(err, fetch.ErrUnsafe) {
			t.Errorf("Fetch(%q) error = %v, want ErrUnsafe", raw, err)
		}
	}
	if got := srv.received(); len(got) != 0 {
		t.Errorf("the server got %d messages, want none", len(got))
	}
}

// berServer is a scripted Z39.50 server: it answers with the test bed's
// captured zebra replies, or with what answer builds. Like YAZ, it says
// nothing to bytes it cannot decode and waits for more.
type berServer struct {
	addr   string
	acc    atomic.Int32
	answer func(m any) (reply []byte, hangUp bool)
}

func newBERServer(t testing.TB, answer func(m any) (reply []byte, hangUp bool)) *berServer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &berServer{addr: ln.Addr().String(), answer: answer}
	var wg sync.WaitGroup
	var mu sync.Mutex
	var conns []net.Conn
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			s.acc.Add(1)
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer c.Close()
				r := bufio.NewReader(c)
				for {
					b, err := waiswire.ReadBER(r, 1<<20)
					if err != nil {
						return
					}
					m, err := decodeZ3950(b)
					if err != nil {
						continue
					}
					if _, ok := m.(*zClose); ok {
						return
					}
					out, hangUp := s.answer(m)
					c.Write(out)
					if hangUp {
						return
					}
				}
			}()
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		mu.Lock()
		for _, c := range conns {
			c.Close()
		}
		mu.Unlock()
		wg.Wait()
	})
	return s
}

// zebraAnswers replies as the test bed's zebra did, from its captures.
func zebraAnswers(t testing.TB) func(m any) ([]byte, bool) {
	c := vectors(t, "z3950-testbed.txt")
	return func(m any) ([]byte, bool) {
		switch m := m.(type) {
		case *zInit:
			return c["zebra-init-response"], false
		case *zSearch:
			if m.Databases[0] != "harness" {
				return c["zebra-search-nosuchdb"], false
			}
			return c["zebra-search-flamingo"], false
		case *zPresent:
			if m.Syntax.equal(oidXML) {
				return c["zebra-present-xml"], false
			}
			return c["zebra-present-sutrs"], false
		}
		return nil, true
	}
}

// In auto mode a server that never answers WAIS is spoken to in BER on a
// second connection, and remembered: the next fetch connects once.
func TestDialectAutoFallback(t *testing.T) {
	srv := newBERServer(t, zebraAnswers(t))
	d := &Driver{ProbeTimeout: 300 * time.Millisecond}
	c := testClient(t, d)
	raw := "wais://" + srv.addr + "/harness?flamingo"
	es := listEntries(t, c, raw)
	if len(es) != 1 || es[0].Name != "Record 06: the flamingo" || es[0].Size != int64(len(zrec06SUTRS)) {
		t.Errorf("entries = %+v, want zrec06", es)
	}
	if n := srv.acc.Load(); n != 2 {
		t.Errorf("first fetch: %d connections, want 2 (WAIS probe, BER)", n)
	}
	if got := d.dialectOf(srv.addr); got != DialectZ3950 {
		t.Errorf("remembered dialect = %v, want z3950", got)
	}
	_, body := fetchAll(t, c, es[0].URL)
	if string(body) != zrec06SUTRS {
		t.Errorf("Fetch(%q) = %q", es[0].URL, body)
	}
	if n := srv.acc.Load(); n != 3 {
		t.Errorf("after the second fetch: %d connections, want 3", n)
	}
	// And a WAIS server is remembered as one.
	w := newReplayServer(t)
	listEntries(t, c, w.url("test-db?flamingo"))
	listEntries(t, c, w.url("test-db?flamingo"))
	if n := w.acc.Load(); n != 2 || d.dialectOf(w.addr) != DialectWAIS {
		t.Errorf("WAIS server: %d connections for 2 fetches, dialect %v; want 2, wais", n, d.dialectOf(w.addr))
	}
}

// A server that refuses SUTRS gets a Present in XML.
func TestZ3950SyntaxFallback(t *testing.T) {
	zebra := zebraAnswers(t)
	srv := newBERServer(t, func(m any) ([]byte, bool) {
		if p, ok := m.(*zPresent); ok && p.Syntax.equal(oidSUTRS) {
			return (&zPresentResponse{PresentStatus: 5, Next: p.Start, zRecords: zRecords{Diags: []*Diagnostic{{Code: "239", AddInfo: "1.2.840.10003.5.101"}}}}).marshal(), false
		}
		return zebra(m)
	})
	c := testClient(t, &Driver{Dialect: DialectZ3950})
	es := listEntries(t, c, "wais://"+srv.addr+"/harness?flamingo")
	if len(es) != 1 || es[0].Media != "text/xml" || !strings.Contains(es[0].URL, "/harness/XML/1/flamingo") || es[0].Name != "Record 06: the flamingo" {
		t.Fatalf("entries = %+v, want zrec06 as XML", es)
	}
	resp, body := fetchAll(t, c, es[0].URL)
	if resp.Type != "text/xml" || !bytes.Contains(body, []byte("<Control-Identifier>zrec06</Control-Identifier>")) {
		t.Errorf("Fetch(%q) = %q %q", es[0].URL, resp.Type, body)
	}
	// A SUTRS URL asks for SUTRS only: the refusal is the error.
	raw := "wais://" + srv.addr + "/harness/SUTRS/1/flamingo"
	_, err := c.Fetch(t.Context(), raw)
	if !errors.Is(err, fetch.ErrUnsupported) || !strings.Contains(err.Error(), "239") {
		t.Errorf("Fetch(%q) error = %v, want the server's diagnostic 239", raw, err)
	}
}

// Issue 19: freeWAIS-sf answers a search of a database it does not have
// with only the diagnostic S1 "The following database is not available"
// (the code it also gives a query it cannot parse): a not-found, exit 4,
// as a missing FTP directory is. A syntax error stays what it was.
func TestWAISMissingDatabase(t *testing.T) {
	for _, tc := range []struct {
		text string
		kind error
	}{
		{"The following database is not available: nosuch", fetch.ErrNotFound},
		{"query syntax error: ?", nil},
	} {
		srv := newReplayServer(t)
		srv.reply = waiswire.Frame((&waisSearchResponse{Status: 1, PresentStatus: some(0), HasUserInfo: true,
			Diagnostics: []*Diagnostic{{Code: "S1", AddInfo: tc.text}}}).marshal())
		c := testClient(t, &Driver{Dialect: DialectWAIS})
		raw := srv.url("nosuch?flamingo")
		resp, err := c.Fetch(t.Context(), raw)
		if err == nil {
			resp.Body.Close()
		}
		var d *Diagnostic
		switch {
		case !errors.As(err, &d) || d.Code != "S1" || !strings.Contains(err.Error(), tc.text):
			t.Errorf("Fetch(%q) with diagnostic %q: %v; want the diagnostic in the error", raw, tc.text, err)
		case tc.kind != nil && !errors.Is(err, tc.kind):
			t.Errorf("Fetch(%q) with diagnostic %q: %v; want %v", raw, tc.text, err, tc.kind)
		case tc.kind == nil && errors.Is(err, fetch.ErrNotFound):
			t.Errorf("Fetch(%q) with diagnostic %q: %v; a syntax error is no not-found", raw, tc.text, err)
		}
	}
}

// Z39.50 replies that stop or break, in words: a connection that breaks
// is ErrConnect (issue 19: one rule of a broken connection), a reply that
// does not fit the protocol ErrProtocol.
func TestZ3950BrokenReplies(t *testing.T) {
	zebra := zebraAnswers(t)
	for _, tc := range []struct {
		name  string
		reply []byte
		kind  error
		want  string
	}{
		{"close", nil, fetch.ErrConnect, "the server closed the connection without replying to the SearchRequest"},
		{"cut", []byte{0xb7, 0x3a, 0x97}, fetch.ErrConnect, "in the middle of its reply to the SearchRequest"},
		{"huge", []byte{0xb7, 0x84, 0x7f, 0, 0, 0}, fetch.ErrProtocol, "exceeds the limit"},
		{"Close", (&zClose{Reason: 2}).marshal(), fetch.ErrProtocol, "closed the association (reason 2)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := newBERServer(t, func(m any) ([]byte, bool) {
				if _, ok := m.(*zSearch); ok {
					return tc.reply, true
				}
				return zebra(m)
			})
			c := testClient(t, &Driver{Dialect: DialectZ3950})
			raw := "wais://" + srv.addr + "/harness?flamingo"
			resp, err := c.Fetch(t.Context(), raw)
			if err == nil {
				resp.Body.Close()
			}
			if !errors.Is(err, tc.kind) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Fetch(%q) error = %v, want %v saying %q", raw, err, tc.kind, tc.want)
			}
		})
	}
}

func TestConformance(t *testing.T) {
	srv := newReplayServer(t)
	fetchtest.Run(t, fetchtest.Opt{
		Scheme: "wais",
		Driver: &Driver{},
		Found: []fetchtest.Case{
			{URL: srv.url("test-db/TEXT/311/" + encodeWPath(docID06)), Want: string(doc06), Type: "text/plain"},
			{URL: srv.url("test-db/TEXT/100/" + encodeWPath(docID20)), Want: doc20Head},
			{URL: srv.url("test-db/TEXT/" + encodeWPath(docID20)), Want: string(doc20)},
			{URL: srv.url("test-db?flamingo"), Kind: fetch.Listing},
		},
		Missing: srv.url("test-db/TEXT/2=test-db;3=nothing;"),
		Listing: srv.url("test-db"),
		Stall:   func(t testing.TB) string { return "wais://" + fetchtest.SilentServer(t) + "/test-db?flamingo" },
		Inject:  []string{srv.url("test-db?a%0D%0Ab"), srv.url("test%00db?flamingo")},
		Invalid: []string{srv.url("test-db/TEXT"), "wais://" + srv.addr + "/"},
		Broken: func(t testing.TB) string {
			return misbehaving.Serve(t, misbehaving.WAIS, misbehaving.CloseMidTransfer).URL()
		},
		Transfers: transfers,
		// WAIS has no request for a document but its retrieval: a
		// Head of one is the URL's word, the missing one not found out.
		Caps: fetchtest.Caps{Resume: true, HeadFromURL: true},
	})
}

func TestParseDialect(t *testing.T) {
	for _, d := range []Dialect{DialectAuto, DialectWAIS, DialectZ3950} {
		if got, err := ParseDialect(d.String()); err != nil || got != d {
			t.Errorf("ParseDialect(%q) = %v, %v", d.String(), got, err)
		}
	}
	if _, err := ParseDialect("x25"); err == nil || !strings.Contains(err.Error(), "x25") {
		t.Errorf("ParseDialect(x25) error = %v", err)
	}
}

// The listing lines carry any headline and URL and parse back.
func TestListingRoundTrip(t *testing.T) {
	hits := []Hit{
		{Type: fetch.EntryFile, Score: 614, Size: 311, WType: "TEXT", Date: "940822", Source: "/srv/a b", URL: "wais://h/db/TEXT/1=x;", Headline: "Odd: 100% -  \ttab\r\nnewline é"},
		{Type: fetch.EntrySearch, Score: -1, Size: -1, URL: "wais://h/db", Headline: ""},
		{Type: fetch.EntryError, Score: -1, Size: -1, WType: "-", Headline: "record 3: server diagnostic 14"},
	}
	var b []byte
	for _, h := range hits {
		b = appendHit(b, h)
	}
	i := 0
	for h, err := range ParseListing(bytes.NewReader(b)) {
		if err != nil || i >= len(hits) || h != hits[i] {
			t.Errorf("line %d = %+v, %v; want %+v", i, h, err, hits[min(i, len(hits)-1)])
		}
		i++
	}
	if i != len(hits) {
		t.Errorf("%d hits parsed, want %d", i, len(hits))
	}
	if e := hits[0].Entry(); e.Time.IsZero() || e.Time.Year() != 1994 || e.Media != "text/plain" {
		t.Errorf("Entry() = %+v", e)
	}
	for _, bad := range []string{"file 1 2 TEXT", "dir - - - - - - x", "file x - - - - - h", "file - - %zz - - - h"} {
		for _, err := range ParseListing(strings.NewReader(bad + "\n")) {
			if !errors.Is(err, fetch.ErrProtocol) {
				t.Errorf("ParseListing(%q) error = %v, want ErrProtocol", bad, err)
			}
		}
	}
}

// RFC 1738 §3.9: without a port the driver connects to 210, and the
// entries' URLs name no port either.
func TestDefaultPort(t *testing.T) {
	srv := newReplayServer(t)
	var dialed []string
	c := testClient(t, &Driver{})
	c.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		dialed = append(dialed, addr)
		return (&net.Dialer{}).DialContext(ctx, network, srv.addr)
	}
	es := listEntries(t, c, "wais://wais.example.org/test-db?flamingo")
	if len(dialed) != 1 || dialed[0] != "wais.example.org:210" {
		t.Errorf("dialed %v, want wais.example.org:210", dialed)
	}
	if len(es) != 1 || !strings.HasPrefix(es[0].URL, "wais://wais.example.org/test-db/TEXT/311/1=") {
		t.Errorf("entries = %+v, want a URL without a port", es)
	}
}

// A WAIS document URL sent to a Z39.50 server names nothing there.
func TestZ3950DocumentURLForms(t *testing.T) {
	srv := newBERServer(t, zebraAnswers(t))
	c := testClient(t, &Driver{Dialect: DialectZ3950})
	for _, path := range []string{"TEXT/311/" + encodeWPath(docID06), "SUTRS/0/flamingo", "SUTRS/x/flamingo", "SUTRS/1"} {
		raw := "wais://" + srv.addr + "/harness/" + path
		_, err := c.Fetch(t.Context(), raw)
		if !errors.Is(err, fetch.ErrNotFound) || !strings.Contains(err.Error(), "SYNTAX/position/words") {
			t.Errorf("Fetch(%q) error = %v, want ErrNotFound explaining the URL form", raw, err)
		}
	}
	raw := "wais://" + srv.addr + "/harness/SUTRS/2/flamingo"
	if _, err := c.Fetch(t.Context(), raw); !errors.Is(err, fetch.ErrNotFound) || !strings.Contains(err.Error(), "found 1") {
		t.Errorf("Fetch(%q) error = %v, want ErrNotFound: record 2 of a search that found 1", raw, err)
	}
}
