package wais

import (
	"context"
	"strconv"
	"strings"

	"github.com/urlfetch/urlfetch/fetch"
	"github.com/urlfetch/urlfetch/uri"
)

// A Head request (fetch.Request.Head) asks for no document and no
// record, in either dialect:
//
//   - WAIS (the 1988 draft): a database without words is its
//     description, the server's answer to the search "?" (a few headers:
//     the source description, the catalog), whose headlines become Meta
//     "Wais-Description" and whose count "Wais-Hits"; a search is the
//     search, its headers counted, not listed. A document has no request
//     that is not its retrieval: after the Init (the server is there and
//     speaks WAIS) its metadata is the URL's: the type's media type, the
//     length the URL carries ("wtype/length/docid"), Meta
//     "Wais-Metadata" saying so. A missing docid is not found out.
//   - Z39.50-1995: a database without words has no description in the
//     base protocol: the Init is all (Meta "Wais-Server"); a search is
//     the SearchRequest, whose hit count is Meta "Z3950-Hits", with no
//     PresentRequest; a record is the search its URL names, its position
//     checked against the count (ErrNotFound past it), no Present: its
//     length is not known.

// head answers a Head request on the WAIS session s.
func (s *waisSession) head(ctx context.Context, t *target) (*fetch.Response, error) {
	defer s.close()
	meta := s.meta()
	if t.document {
		_, length, err := decodeWPath(t.wpath)
		if err != nil {
			return nil, fetch.Errorf(fetch.ErrURL, "wais: document id: %w", err)
		}
		meta.Set("Wais-Metadata", "from the URL: WAIS has no request for a document's metadata but its retrieval")
		s.c.req.Tracef(fetch.Note, "WAIS asks for nothing of a document but its retrieval: its type and length are the URL's")
		return &fetch.Response{Kind: fetch.Document, Type: mediaType(t.wtype), Length: length, Meta: meta, Body: fetch.EmptyBody(ctx, nil)}, nil
	}
	words, what := t.words, "search"
	if words == "" {
		words, what = helpSearch, "description of the database"
	}
	s.c.req.Tracef(fetch.Out, "Search %q for %q (query type 3, at most %d documents)", t.database, words, s.maxHits)
	r, err := s.search(keywordSearch(t.database, words, s.maxHits), "Search")
	if err != nil {
		return nil, err
	}
	if len(r.Headers) == 0 && len(r.Diagnostics) > 0 {
		return nil, diagError(what+" of "+strconv.Quote(t.database), false, r.Diagnostics)
	}
	meta.Set("Wais-Hits", strconv.Itoa(len(r.Headers)))
	if t.words == "" {
		for _, h := range r.Headers {
			meta.Add("Wais-Description", oneLine(latin1(h.Headline)))
		}
	}
	return &fetch.Response{Kind: fetch.Listing, Type: ListingType, Length: -1, Meta: meta, Body: fetch.EmptyBody(ctx, nil)}, nil
}

// head answers a Head request on the Z39.50 session s.
func (s *zSession) head(ctx context.Context, t *target) (*fetch.Response, error) {
	defer s.close()
	meta := s.meta()
	resp := &fetch.Response{Kind: fetch.Listing, Type: ListingType, Length: -1, Meta: meta}
	switch {
	case t.document:
		syntax, pos, words, err := s.recordOf(t)
		if err != nil {
			return nil, err
		}
		r, err := s.search(t.database, words)
		if err != nil {
			return nil, err
		}
		if pos > r.Count {
			return nil, fetch.Errorf(fetch.ErrNotFound, "wais: record %d of a search of %q for %q that found %d", pos, t.database, words, r.Count)
		}
		meta.Set("Z3950-Hits", strconv.FormatInt(r.Count, 10))
		resp.Kind, resp.Type = fetch.Document, syntaxMedia(syntax)
	case t.words == "":
		s.c.req.Tracef(fetch.Note, "Z39.50 has no description of a database: the Init is all there is to ask")
	default:
		r, err := s.search(t.database, t.words)
		if err != nil {
			return nil, err
		}
		meta.Set("Z3950-Hits", strconv.FormatInt(max(r.Count, 0), 10))
	}
	resp.Body = fetch.EmptyBody(ctx, nil)
	return resp, nil
}

// recordOf reads a Z39.50 document URL's wtype and wpath: the record
// syntax, the record's position in the search and the search's words.
func (s *zSession) recordOf(t *target) (syntax oid, pos int64, words string, err error) {
	syntax = syntaxOID(t.wtype)
	wpath, err := uri.Unescape(t.wpath)
	if err != nil {
		return nil, 0, "", fetch.Errorf(fetch.ErrURL, "wais: document id: %w", err)
	}
	posText, words, ok := strings.Cut(wpath, "/")
	pos, perr := strconv.ParseInt(posText, 10, 64)
	if syntax == nil || !ok || perr != nil || pos < 1 || words == "" || !allDigits(posText) {
		return nil, 0, "", fetch.Errorf(fetch.ErrNotFound, "wais: %s is a Z39.50 server, which gives records no document ids: its document URLs are .../database/SYNTAX/position/words, SYNTAX one of SUTRS, XML, USMARC or an OID, and %q is not one", s.server, t.wtype+"/"+t.wpath)
	}
	if err := fetch.CheckLine("wais search", words); err != nil {
		return nil, 0, "", err
	}
	return syntax, pos, words, nil
}
