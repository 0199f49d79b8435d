package wais

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"strconv"
	"unicode/utf8"

	"github.com/urlfetch/urlfetch/fetch"
	"github.com/urlfetch/urlfetch/internal/waiswire"
	"github.com/urlfetch/urlfetch/uri"
)

// The Z39.50-1995 dialect (notes §10): Init, a Search with a ranked
// any-word type-1 query, Presents of the hits, Close.
//
// Z39.50 gives records no identifier a client can send back, so the URL
// of a hit names it by its search and its position in the result:
// wais://host:port/database/SYNTAX/position/words, where SYNTAX is the
// record syntax (SUTRS, XML, ...). Fetching it runs the search again and
// presents that one record; it names the same record as long as the
// database and its ranking do not change.

const (
	// zMessageSize is the preferred message size and maximum record size
	// this client asks for.
	zMessageSize = 1 << 20
	// zBatch is how many records one Present asks for.
	zBatch = 10
	// zSetName is the result set this client names.
	zSetName = "default"
	// maxHeadline bounds a headline made from a record.
	maxHeadline = 200
)

// Bib-1 attributes of the ranked any-word search that gives WAIS
// semantics on Zebra: use 1016 (any), relation 102 (relevance),
// structure 105 (free-form text), in the order yaz-client sends them.
var rankedAttrs = []zAttr{{Type: 4, Value: 105}, {Type: 2, Value: 102}, {Type: 1, Value: 1016}}

// zSession is a connection to a Z39.50 server after its Init.
type zSession struct {
	c       *conn
	server  string
	maxHits int
	syntax  oid  // the record syntax asked for
	relax   bool // fall back from SUTRS to XML if the server refuses it
	closed  bool
}

func (d *Driver) openZ3950(ctx context.Context, req *fetch.Request) (*zSession, error) {
	c, err := d.dial(ctx, req)
	if err != nil {
		return nil, err
	}
	s := &zSession{c: c, maxHits: d.maxHits(), syntax: oidSUTRS, relax: true}
	if err := s.init(); err != nil {
		c.close()
		return nil, err
	}
	return s, nil
}

// meta is the metadata of every response: the dialect and what the
// server said of itself.
func (s *zSession) meta() fetch.Meta {
	m := fetch.Meta{}
	m.Set("Wais-Dialect", DialectZ3950.String())
	m.Set("Wais-Server", s.server)
	return m
}

// close sends a Close (reason "finished") and closes the connection.
func (s *zSession) close() {
	if s.closed {
		return
	}
	s.closed = true
	s.c.req.Tracef(fetch.Out, "Close (finished)")
	s.c.write((&zClose{}).marshal())
	s.c.close()
}

// roundTrip sends an APDU and reads the reply to it.
func (s *zSession) roundTrip(apdu []byte, what string) (any, error) {
	if err := s.c.write(apdu); err != nil {
		return nil, err
	}
	b, err := waiswire.ReadBER(s.c.br, s.c.max)
	if err != nil {
		return nil, replyError(what, err, false)
	}
	m, err := decodeZ3950(b)
	if err != nil {
		return nil, replyError(what, err, true)
	}
	if c, ok := m.(*zClose); ok {
		return nil, fetch.Errorf(fetch.ErrProtocol, "wais: the server closed the association (reason %d) instead of answering the %s", c.Reason, what)
	}
	return m, nil
}

func (s *zSession) init() error {
	m := &zInit{
		Version:     []byte{0x00, 0xe0}, // versions 1, 2 and 3
		Options:     []byte{0x00, 0xc0}, // search, present
		Preferred:   zMessageSize,
		MaxRecord:   zMessageSize,
		ImplID:      "urlfetch",
		ImplName:    "urlfetch wais driver",
		ImplVersion: "1",
	}
	s.c.req.Tracef(fetch.Out, "InitializeRequest (Z39.50-1995, BER): versions 2 and 3, search and present, message and record size %d", zMessageSize)
	reply, err := s.roundTrip(m.marshal(), "InitializeRequest")
	if err != nil {
		return err
	}
	r, ok := reply.(*zInit)
	if !ok || !r.Response {
		return fetch.Errorf(fetch.ErrProtocol, "wais: the server answered the InitializeRequest with %T", reply)
	}
	s.server = oneLine(latin1(r.ImplName + " " + r.ImplVersion))
	s.c.req.Tracef(fetch.In, "InitializeResponse: result %v, server %q, maximum record size %d", r.Result, s.server, r.MaxRecord)
	if !r.Result {
		return fetch.Errorf(fetch.ErrProtocol, "wais: the server (%s) refused the InitializeRequest", s.server)
	}
	return nil
}

// search runs the ranked any-word search for words in db.
func (s *zSession) search(db, words string) (*zSearchResponse, error) {
	m := &zSearch{
		Small: 0, Large: 1, Medium: 0, Replace: true, ResultSet: zSetName,
		Databases: []string{db}, AttrSet: oidBib1,
		Query: &rpnNode{Attrs: rankedAttrs, Term: []byte(words)},
	}
	s.c.req.Tracef(fetch.Out, "SearchRequest %q for %q (Bib-1 use 1016, relation 102, structure 105; no records)", db, words)
	reply, err := s.roundTrip(m.marshal(), "SearchRequest")
	if err != nil {
		return nil, err
	}
	r, ok := reply.(*zSearchResponse)
	if !ok {
		return nil, fetch.Errorf(fetch.ErrProtocol, "wais: the server answered the SearchRequest with %T", reply)
	}
	s.c.req.Tracef(fetch.In, "SearchResponse: status %v, %d hits, %d diagnostics", r.Status, r.Count, len(r.Diags))
	s.traceDiags(r.Diags)
	what := "search of " + strconv.Quote(db)
	switch {
	case r.Count <= 0 && len(r.Diags) > 0:
		return nil, diagError(what, false, r.Diags)
	case !r.Status && r.Count <= 0:
		return nil, fetch.Errorf(fetch.ErrProtocol, "wais: %s: the server says it failed, and gives no diagnostic", what)
	}
	return r, nil
}

func (s *zSession) traceDiags(ds []*Diagnostic) {
	for _, d := range ds {
		s.c.req.Tracef(fetch.In, "%v", d)
	}
}

// present asks for count records from start in the session's syntax.
func (s *zSession) present(start, count int64) (*zPresentResponse, error) {
	m := &zPresent{ResultSet: zSetName, Start: start, Count: count, ElementSet: "F", Syntax: s.syntax}
	s.c.req.Tracef(fetch.Out, "PresentRequest records %d-%d, element set F, syntax %s", start, start+count-1, syntaxName(s.syntax))
	reply, err := s.roundTrip(m.marshal(), "PresentRequest")
	if err != nil {
		return nil, err
	}
	r, ok := reply.(*zPresentResponse)
	if !ok {
		return nil, fetch.Errorf(fetch.ErrProtocol, "wais: the server answered the PresentRequest with %T", reply)
	}
	s.c.req.Tracef(fetch.In, "PresentResponse: status %d, %d records, %d diagnostics", r.PresentStatus, len(r.Records), len(r.Diags))
	s.traceDiags(r.Diags)
	return r, nil
}

// refusesSyntax reports whether a Present failed only for its record
// syntax.
func refusesSyntax(r *zPresentResponse) bool {
	for _, d := range r.Diags {
		if d.badSyntax() {
			return true
		}
	}
	if len(r.Records) == 0 {
		return false
	}
	for _, rec := range r.Records {
		if rec.Diag == nil || !rec.Diag.badSyntax() {
			return false
		}
	}
	return true
}

// records presents count records from start: in SUTRS, and if the server
// refuses SUTRS, in XML from then on.
func (s *zSession) records(start, count int64, document bool) ([]zRecord, error) {
	r, err := s.present(start, count)
	if err != nil {
		return nil, err
	}
	if refusesSyntax(r) && s.relax && s.syntax.equal(oidSUTRS) {
		s.syntax = oidXML
		s.c.req.Tracef(fetch.Note, "the server refuses SUTRS: asking for XML")
		if r, err = s.present(start, count); err != nil {
			return nil, err
		}
	}
	what := fmt.Sprintf("records %d-%d", start, start+count-1)
	switch {
	case len(r.Records) == 0 && len(r.Diags) > 0:
		return nil, diagError(what, document, r.Diags)
	case len(r.Records) == 0:
		return nil, fetch.Errorf(fetch.ErrProtocol, "wais: %s: the server sent no records and no diagnostic", what)
	case int64(len(r.Records)) > count:
		return nil, fetch.Errorf(fetch.ErrProtocol, "wais: %s: the server sent %d records", what, len(r.Records))
	}
	return r.Records, nil
}

// fetch runs the request of t on the session.
func (s *zSession) fetch(ctx context.Context, t *target) (*fetch.Response, error) {
	switch {
	case t.document:
		return s.document(ctx, t)
	case t.words == "":
		return s.describe(ctx, t), nil
	}
	return s.list(ctx, t)
}

// describe answers wais://host/database: Z39.50 has no description of a
// database in its base protocol, so the listing offers the search and
// says what the server said of itself.
func (s *zSession) describe(ctx context.Context, t *target) *fetch.Response {
	s.close()
	var b []byte
	b = appendHit(b, Hit{Type: fetch.EntrySearch, Score: -1, Size: -1, URL: t.databaseURL(), Headline: "search " + t.database})
	b = appendHit(b, Hit{Type: fetch.EntryInfo, Score: -1, Size: -1, Headline: s.server + ", a Z39.50-1995 server, describes no database: give words to search " + t.database + " (" + t.searchURL("words") + ")"})
	return listing(ctx, b, s.meta(), func() {})
}

// list searches and presents the hits a batch at a time as the Body is
// read; the first batch now, so that a failure is an error of Fetch.
func (s *zSession) list(ctx context.Context, t *target) (*fetch.Response, error) {
	r, err := s.search(t.database, t.words)
	if err != nil {
		return nil, err
	}
	total := min(r.Count, int64(s.maxHits))
	if total <= 0 {
		s.close()
		m := s.meta()
		m.Set("Z3950-Hits", strconv.FormatInt(max(r.Count, 0), 10))
		return listing(ctx, nil, m, func() {}), nil
	}
	pos := int64(1)
	batch := func() ([]byte, error) {
		if pos > total {
			return nil, io.EOF
		}
		n := min(zBatch, total-pos+1)
		recs, err := s.records(pos, n, false)
		if err != nil {
			return nil, err
		}
		var b []byte
		for _, rec := range recs {
			b = appendHit(b, s.hit(t, pos, rec))
			pos++
		}
		return b, nil
	}
	first, err := batch()
	if err != nil {
		return nil, err
	}
	served := false
	resp := &fetch.Response{Kind: fetch.Listing, Type: ListingType, Length: -1, Meta: s.meta()}
	resp.Meta.Set("Z3950-Hits", strconv.FormatInt(r.Count, 10))
	resp.Body = newBody(ctx, func() ([]byte, error) {
		if !served {
			served = true
			return first, nil
		}
		return batch()
	}, s.close)
	resp.SetEntries(fetch.ParseEntries)
	return resp, nil
}

// hit is the listing line of the record at pos.
func (s *zSession) hit(t *target, pos int64, rec zRecord) Hit {
	if rec.Diag != nil {
		return Hit{Type: fetch.EntryError, Score: -1, Size: -1, Source: rec.Database, Headline: fmt.Sprintf("record %d: %v", pos, rec.Diag)}
	}
	name := syntaxName(rec.Syntax)
	return Hit{
		Type: fetch.EntryFile, Score: -1, Size: int64(len(rec.Data)), WType: name, Source: latin1(rec.Database),
		Headline: headline(rec.Data, rec.Syntax),
		URL:      t.documentURL(name, strconv.FormatInt(pos, 10)+"/"+uri.Escape(t.words, uri.ComponentWAIS)),
	}
}

// document fetches the record a hit's URL names: wtype is its syntax,
// wpath its position and the search's words.
func (s *zSession) document(ctx context.Context, t *target) (*fetch.Response, error) {
	syntax, pos, words, err := s.recordOf(t)
	if err != nil {
		return nil, err
	}
	s.syntax, s.relax = syntax, false
	r, err := s.search(t.database, words)
	if err != nil {
		return nil, err
	}
	if pos > r.Count {
		return nil, fetch.Errorf(fetch.ErrNotFound, "wais: record %d of a search of %q for %q that found %d", pos, t.database, words, r.Count)
	}
	recs, err := s.records(pos, 1, true)
	if err != nil {
		return nil, err
	}
	s.close()
	rec := recs[0]
	if rec.Diag != nil {
		return nil, diagError(fmt.Sprintf("record %d", pos), true, []*Diagnostic{rec.Diag})
	}
	data := rec.Data
	resp := &fetch.Response{Kind: fetch.Document, Type: syntaxMedia(rec.Syntax), Meta: s.meta()}
	if off := s.c.req.Offset; off > 0 && off <= int64(len(data)) {
		data, resp.Offset = data[off:], off
	}
	resp.Length = int64(len(data))
	served := false
	resp.Body = newBody(ctx, func() ([]byte, error) {
		if served {
			return nil, io.EOF
		}
		served = true
		return data, nil
	}, func() {})
	return resp, nil
}

// headline makes a headline of a record: the text of its first title
// element or field, else its first line with text.
func headline(data []byte, syntax oid) string {
	var h []byte
	if syntax.equal(oidXML) {
		if i := bytes.Index(data, []byte("<title>")); i >= 0 {
			rest := data[i+len("<title>"):]
			if j := bytes.Index(rest, []byte("</title>")); j >= 0 {
				h = rest[:j]
			}
		}
	} else {
		for line := range bytes.SplitSeq(data, []byte("\n")) {
			if v, ok := bytes.CutPrefix(bytes.TrimSpace(line), []byte("title:")); ok {
				h = v
				break
			}
		}
	}
	if len(bytes.TrimSpace(h)) == 0 {
		for line := range bytes.SplitSeq(data, []byte("\n")) {
			if len(bytes.TrimSpace(line)) > 0 {
				h = line
				break
			}
		}
	}
	s := oneLine(latin1(string(h)))
	if len(s) > maxHeadline {
		cut := maxHeadline
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut] + "…"
	}
	return s
}
