package wais

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/urlfetch/urlfetch/fetch"
	"github.com/urlfetch/urlfetch/internal/waiswire"
)

// The WAIS dialect: Init, then a Search with query type "3" for a search
// or query type "1" for each slice of a document (notes §4).

// Sizes this client asks for in its Init, as waissearch does; the slices
// of a document are at most the smaller of this and the server's
// maximum record size.
const (
	waisRecordSize = 100000
	// waisMinSlice is the slice used when a server states no maximum
	// record size (what libwww used).
	waisMinSlice = 10000
)

// helpSearch is the search that makes a WAIS server describe a database:
// its source description and catalog (notes §5).
const helpSearch = "?"

// errNoWAISReply is a first reply that shows the server does not speak
// WAIS: none within the probe deadline, a close, or bytes that are not a
// WAIS header.
var errNoWAISReply = errors.New("no WAIS reply")

// waisSession is a connection to a WAIS server after its Init.
type waisSession struct {
	c       *conn
	slice   int
	maxHits int
	server  string // what the Init-response says of the server
	closed  bool
}

// meta is the metadata of every response: the dialect and what the
// server said of itself.
func (s *waisSession) meta() fetch.Meta {
	m := fetch.Meta{}
	m.Set("Wais-Dialect", DialectWAIS.String())
	m.Set("Wais-Server", s.server)
	return m
}

func (s *waisSession) close() {
	if !s.closed {
		s.closed = true
		s.c.close()
	}
}

// openWAIS connects and sends the Init. With probe > 0 the first reply
// must begin within probe and like a WAIS message, or the error wraps
// errNoWAISReply.
func (d *Driver) openWAIS(ctx context.Context, req *fetch.Request, probe time.Duration) (*waisSession, error) {
	c, err := d.dial(ctx, req)
	if err != nil {
		return nil, err
	}
	s := &waisSession{c: c, slice: waisMinSlice, maxHits: d.maxHits()}
	if err := s.init(ctx, probe); err != nil {
		c.close()
		return nil, err
	}
	return s, nil
}

// initAPDU is the Init this client sends (notes §4.1).
func initAPDU() []byte {
	m := &waisInit{
		Version:     []byte{0x80}, // version 1
		Options:     []byte{0x80}, // will search
		Preferred:   some(waisRecordSize),
		MaxRecord:   some(waisRecordSize),
		ImplID:      "urlfetch",
		ImplName:    "urlfetch wais driver",
		ImplVersion: "1",
	}
	return m.marshal()
}

func (s *waisSession) init(ctx context.Context, probe time.Duration) error {
	s.c.req.Tracef(fetch.Out, "Init (WAIS, Z39.50-1988): version 1, message and record size %d", waisRecordSize)
	if probe > 0 {
		if err := s.probe(ctx, initAPDU(), probe); err != nil {
			return err
		}
	} else if err := s.c.write(waiswire.Frame(initAPDU())); err != nil {
		return err
	}
	reply, err := s.read("Init")
	if err != nil {
		return err
	}
	r, ok := reply.(*waisInit)
	if !ok || !r.Response {
		return fetch.Errorf(fetch.ErrProtocol, "wais: the server answered the Init with %s", describeWAIS(reply))
	}
	s.server = oneLine(latin1(r.ImplName + " " + r.ImplVersion))
	if r.MaxRecord.OK && r.MaxRecord.V > 0 {
		s.slice = int(min(r.MaxRecord.V, waisRecordSize))
	}
	s.c.req.Tracef(fetch.In, "Init-response: accepted %v, server %q, maximum record size %d", r.Accepted, s.server, r.MaxRecord.V)
	if !r.Accepted {
		return fetch.Errorf(fetch.ErrProtocol, "wais: the server (%s) refused the Init", s.server)
	}
	return nil
}

// probe sends the Init with a deadline of probe on the first bytes of the
// reply, and checks that they can begin a WAIS message header.
func (s *waisSession) probe(ctx context.Context, apdu []byte, probe time.Duration) error {
	pctx, cancel := context.WithTimeout(ctx, probe)
	defer cancel()
	s.c.c.Bind(pctx)
	defer s.c.c.Bind(ctx)
	if err := s.c.write(waiswire.Frame(apdu)); err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return fmt.Errorf("%w: sending the Init: %w", errNoWAISReply, err)
	}
	head, err := s.c.br.Peek(11)
	switch {
	case ctx.Err() != nil:
		return ctx.Err()
	case !prefixOfWAIS(head):
		return fmt.Errorf("%w: the reply begins % x, not a WAIS message header", errNoWAISReply, head)
	case err == nil:
		return nil
	case len(head) == 0 && errors.Is(err, io.EOF):
		return fmt.Errorf("%w: the server closed the connection", errNoWAISReply)
	case len(head) == 0 && errors.Is(err, context.DeadlineExceeded):
		return fmt.Errorf("%w within %v", errNoWAISReply, probe)
	case len(head) == 0:
		return fmt.Errorf("%w: %w", errNoWAISReply, err)
	}
	return replyError("Init", err, true)
}

// prefixOfWAIS reports whether b can be the start of a WAIS header.
func prefixOfWAIS(b []byte) bool {
	for i, c := range b {
		switch {
		case i < 10 && (c < '0' || c > '9'):
			return false
		case i == 10 && c != 'z':
			return false
		}
	}
	return true
}

// read reads one message, the reply to what.
func (s *waisSession) read(what string) (any, error) {
	apdu, err := waiswire.ReadMessage(s.c.br, s.c.max)
	if err != nil {
		return nil, replyError(what, err, !errors.Is(err, io.EOF))
	}
	m, err := decodeWAIS(apdu)
	if err != nil {
		return nil, replyError(what, err, true)
	}
	return m, nil
}

// search sends a Search and returns the Search-response.
func (s *waisSession) search(m *waisSearch, what string) (*waisSearchResponse, error) {
	if err := s.c.write(waiswire.Frame(m.marshal())); err != nil {
		return nil, err
	}
	reply, err := s.read(what)
	if err != nil {
		return nil, err
	}
	r, ok := reply.(*waisSearchResponse)
	if !ok {
		return nil, fetch.Errorf(fetch.ErrProtocol, "wais: the server answered the %s with %s", what, describeWAIS(reply))
	}
	s.c.req.Tracef(fetch.In, "Search-response: %d document headers, %d text groups, %d diagnostics", len(r.Headers), len(r.Texts), len(r.Diagnostics))
	for _, d := range r.Diagnostics {
		s.c.req.Tracef(fetch.In, "%v", d)
	}
	return r, nil
}

func describeWAIS(m any) string {
	switch m := m.(type) {
	case *waisInit:
		if m.Response {
			return "an Init-response"
		}
		return "an Init"
	case *waisSearch:
		return "a Search"
	case *waisSearchResponse:
		return "a Search-response"
	}
	return "an unknown message"
}

// keywordSearch is the Search for words in db (notes §4.2), with
// waissearch's values.
func keywordSearch(db, words string, max int) *waisSearch {
	return &waisSearch{
		SmallSet: 30, LargeSet: 5000, MediumSet: 30, Replace: true,
		Databases: []string{db}, QueryType: "3",
		SeedWords: words, DateFactor: some(1), MaxDocs: some(int64(max)),
	}
}

// retrievalSearch is the Search that retrieves bytes [start, end) of a
// document (notes §4.4), with the bytes every deployed server has seen.
func retrievalSearch(db string, docID []byte, wtype string, start, end int64) *waisSearch {
	return &waisSearch{
		SmallSet: 10, LargeSet: 16, MediumSet: 15, Replace: true,
		ResultSet: "FOO", Databases: []string{db}, QueryType: "1",
		ElementSets: []byte(" \x1fDocument Text"), RefID: []byte("3"),
		Query: []rpnItem{
			{Attrs: "un re ig ig ig ig", Term: docID},
			{Attrs: "wt re ig ig ig ig", Term: []byte(wtype)}, {Op: "a"},
			{Attrs: "wb ro ig ig ig ig", Term: strconv.AppendInt(nil, start, 10)}, {Op: "a"},
			{Attrs: "wb rl ig ig ig ig", Term: strconv.AppendInt(nil, end, 10)}, {Op: "a"},
		},
	}
}

// fetch runs the request of t on the session.
func (s *waisSession) fetch(ctx context.Context, t *target) (*fetch.Response, error) {
	if t.document {
		return s.document(ctx, t)
	}
	words, what := t.words, "search"
	if words == "" {
		words, what = helpSearch, "description of the database"
	}
	s.c.req.Tracef(fetch.Out, "Search %q for %q (query type 3, at most %d documents)", t.database, words, s.maxHits)
	r, err := s.search(keywordSearch(t.database, words, s.maxHits), "Search")
	s.close()
	if err != nil {
		return nil, err
	}
	if len(r.Headers) == 0 && len(r.Diagnostics) > 0 {
		return nil, diagError(what+" of "+strconv.Quote(t.database), false, r.Diagnostics)
	}
	var b []byte
	for _, h := range r.Headers {
		b = appendHit(b, s.hit(t, h))
	}
	return listing(ctx, b, s.meta(), func() {}), nil
}

// hit is the listing line of a document header. Its URL is the form
// libwww generated, wtype/length/docid with the docid encoded as RFC 1630
// says, so that the document can be fetched in slices to its end.
func (s *waisSession) hit(t *target, h docHeader) Hit {
	wtype := "TEXT"
	if len(h.Types) > 0 && h.Types[0] != "" {
		wtype = h.Types[0]
	}
	hit := Hit{Type: fetch.EntryFile, Score: -1, Size: -1, WType: latin1(wtype), Date: latin1(h.Date), Source: latin1(h.Source), Headline: latin1(h.Headline)}
	if h.Score.OK {
		hit.Score = max(h.Score.V, 0)
	}
	wpath := encodeWPath(h.DocID)
	if h.Length.OK && h.Length.V > 0 {
		hit.Size = h.Length.V
		wpath = strconv.FormatInt(h.Length.V, 10) + "/" + wpath
	}
	hit.URL = t.documentURL(wtype, wpath)
	return hit
}

// listing returns a Listing whose Body is the lines b.
func listing(ctx context.Context, b []byte, meta fetch.Meta, done func()) *fetch.Response {
	sent := false
	resp := &fetch.Response{
		Meta:   meta,
		Kind:   fetch.Listing,
		Type:   ListingType,
		Length: int64(len(b)),
		Body: newBody(ctx, func() ([]byte, error) {
			if sent {
				return nil, io.EOF
			}
			sent = true
			return b, nil
		}, done),
	}
	resp.SetEntries(fetch.ParseEntries)
	return resp
}

// retrieval reads a document slice by slice.
type retrieval struct {
	s      *waisSession
	t      *target
	docID  []byte
	off    int64
	end    int64 // -1 when the length is not known
	first  bool
	done   bool
	pretty string // the docid for the trace
}

// document retrieves the document of t from Request.Offset on: the first
// slice now, so that a missing document is an error of Fetch, the rest as
// the Body is read.
func (s *waisSession) document(ctx context.Context, t *target) (*fetch.Response, error) {
	docID, length, err := decodeWPath(t.wpath)
	if err != nil {
		return nil, fetch.Errorf(fetch.ErrURL, "wais: document id: %w", err)
	}
	r := &retrieval{s: s, t: t, docID: docID, end: length, first: true, pretty: encodeWPath(docID)}
	if off := s.c.req.Offset; off > 0 && (length < 0 || off <= length) {
		r.off = off
	}
	start := r.off
	first, err := r.next()
	if err != nil && err != io.EOF {
		return nil, err
	}
	resp := &fetch.Response{Kind: fetch.Document, Type: mediaType(t.wtype), Length: -1, Offset: start, Meta: s.meta()}
	if length >= 0 {
		resp.Length = length - start
	}
	served := false
	resp.Body = newBody(ctx, func() ([]byte, error) {
		if !served {
			served = true
			if err != nil {
				return first, err
			}
			return first, nil
		}
		return r.next()
	}, s.close)
	return resp, nil
}

// next retrieves the next slice; io.EOF after the last.
func (r *retrieval) next() ([]byte, error) {
	if r.done {
		return nil, io.EOF
	}
	want := int64(r.s.slice)
	if r.end >= 0 {
		want = min(want, r.end-r.off)
	}
	if want <= 0 && !r.first {
		r.done = true
		return nil, io.EOF
	}
	first := r.first
	r.first = false
	req := r.s.c.req
	req.Tracef(fetch.Out, "Search %q: retrieve %s bytes %d-%d of document %s (query type 1)", r.t.database, r.t.wtype, r.off, r.off+want, r.pretty)
	m, err := r.s.search(retrievalSearch(r.t.database, r.docID, r.t.wtype, r.off, r.off+want), "retrieval")
	if err != nil {
		return nil, err
	}
	if len(m.Texts) == 0 {
		switch {
		case len(m.Diagnostics) > 0 && (first || r.end >= 0):
			return nil, diagError("document "+r.pretty+" of "+strconv.Quote(r.t.database), true, m.Diagnostics)
		case len(m.Diagnostics) > 0:
			r.done = true // the end of a document of unknown length
			return nil, io.EOF
		}
		return nil, fetch.Errorf(fetch.ErrProtocol, "wais: the reply to the retrieval of bytes %d-%d holds no document text", r.off, r.off+want)
	}
	var text []byte
	for _, t := range m.Texts {
		text = append(text, t.Text...)
	}
	if int64(len(text)) > want {
		return nil, fetch.Errorf(fetch.ErrProtocol, "wais: the server sent %d bytes for a slice of %d", len(text), want)
	}
	r.off += int64(len(text))
	if int64(len(text)) == want && len(m.Diagnostics) == 0 && want > 0 {
		return text, nil
	}
	r.done = true
	if r.end >= 0 && r.off < r.end {
		return text, fetch.Errorf(fetch.ErrProtocol, "wais: the document ended at byte %d of the %d its URL gives: %w", r.off, r.end, io.ErrUnexpectedEOF)
	}
	return text, io.EOF
}
