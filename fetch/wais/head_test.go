package wais

import (
	"context"
	"strings"
	"testing"

	"github.com/urlfetch/urlfetch/fetch"
	"github.com/urlfetch/urlfetch/fetch/fetchtest"
)

// transfers reports whether a traced WAIS or Z39.50 request transfers a
// document or records: a retrieval, a PresentRequest.
func transfers(line string) bool {
	return strings.Contains(line, "retrieve") || strings.HasPrefix(line, "PresentRequest")
}

// Issue 22, point 2, on the WAIS replay server (freeWAIS's recorded
// bytes): a database's Head is its description ("?"), its headlines in
// Meta; a search's, the hit count; a document's, the URL's type and
// length after the Init, with no retrieval. Nobody is asked for words.
func TestHeadWAIS_ReplayServer(t *testing.T) {
	srv := newReplayServer(t)
	asked := false
	c := testClient(t, &Driver{Prompt: func(context.Context, string) (string, error) { asked = true; return "x", nil }})
	resp, err := fetchtest.Head(t, c, srv.url("test-db"))
	if err != nil || resp.Kind != fetch.Listing || resp.Meta.Get("Wais-Hits") != "2" || resp.Meta["Wais-Description"][0] != "Information on database: test-db" {
		t.Errorf("Head(database) = %+v, %v; want the description's two headlines", resp, err)
	}
	if asked {
		t.Error("Head(database) asked for words")
	}
	resp, err = fetchtest.Head(t, c, srv.url("test-db?flamingo"))
	if err != nil || resp.Kind != fetch.Listing || resp.Meta.Get("Wais-Hits") == "" || resp.Meta.Get("Wais-Description") != "" {
		t.Errorf("Head(search) = %+v, %v; want a hit count", resp, err)
	}
	resp, err = fetchtest.Head(t, c, srv.url("test-db/TEXT/311/"+encodeWPath(docID06)))
	if err != nil || resp.Kind != fetch.Document || resp.Length != 311 || resp.Type != "text/plain" || resp.Meta.Get("Wais-Metadata") == "" {
		t.Errorf("Head(document) = %+v, %v; want the URL's 311 bytes of text/plain", resp, err)
	}
	for _, m := range srv.received() {
		if dm, err := decodeWAIS(m[25:]); err == nil {
			if s, ok := dm.(*waisSearch); ok && s.QueryType != "3" {
				t.Errorf("the Heads sent a retrieval (query type %s)", s.QueryType)
			}
		}
	}
}

// A database that answers a Head's search with diagnostics and nothing
// else is the search's error, as for a fetch.
func TestHeadWAISDiagnostics_ReplayServer(t *testing.T) {
	srv := newReplayServer(t)
	srv.reply = srv.v["W8"]
	c := testClient(t, &Driver{})
	_, err := fetchtest.Head(t, c, srv.url("test-db?flamingo"))
	_, ferr := c.Fetch(t.Context(), srv.url("test-db?flamingo"))
	if err == nil || ferr == nil || err.Error() != ferr.Error() {
		t.Errorf("a search answered with diagnostics only: Head's error %v, Fetch's %v; want the same error", err, ferr)
	}
}
