package warc

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/urlfetch/urlfetch/fetch"
	"github.com/urlfetch/urlfetch/internal/warc/warctest"
	"github.com/urlfetch/urlfetch/uri"
)

// Each record of a file this Writer wrote reads back, with gowarc, as
// written: the warcinfo record naming the tool, a resource record of a
// gopher document with its bytes, an empty one, and an HTTP exchange as
// request and response records, the response concurrent to the request,
// its payload the body.
func TestWriteReadBack(t *testing.T) {
	path := filepath.Join(t.TempDir(), "out.warc.gz")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := NewWriter(f)
	if _, err := w.WriteInfo("urlfetch fetch test", [2]string{"description", "a\r\nline break"}); err != nil {
		t.Fatal(err)
	}
	body := bytes.Repeat([]byte("gopher\r\n\x00\xff"), 10000)
	date := time.Date(2026, 11, 25, 12, 0, 0, 0, time.UTC)
	doc := &fetch.Response{URL: uri.MustParse("gopher://h.example/9/bin"), Type: "application/octet-stream"}
	if err := w.Archive(doc, date, BytesBlock(body)); err != nil {
		t.Fatal(err)
	}
	empty := &fetch.Response{URL: uri.MustParse("ftp://joe:secret@h.example/empty.txt"), Type: "text/plain"}
	if err := w.Archive(empty, date, BytesBlock(nil)); err != nil {
		t.Fatal(err)
	}
	page := &fetch.Response{URL: uri.MustParse("http://h.example/a/?q=1"), Status: "200 OK", Type: "text/html",
		Meta: fetch.Meta{"Content-Type": {"text/html"}, "Etag": {`"x"`}}}
	if err := w.Archive(page, date, BytesBlock([]byte("<p>hi</p>"))); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}

	recs := warctest.Read(t, path)
	if len(recs) != 5 {
		t.Fatalf("%d records, want 5: %+v", len(recs), recs)
	}
	if recs[0].Type != "warcinfo" || !bytes.Contains(recs[0].Block, []byte("software: urlfetch fetch test\r\n")) ||
		!bytes.Contains(recs[0].Block, []byte("description: a  line break\r\n")) {
		t.Errorf("warcinfo: %+v", recs[0])
	}
	if r := recs[1]; r.Type != "resource" || r.Target != "gopher://h.example/9/bin" || r.ContentType != "application/octet-stream" || !bytes.Equal(r.Block, body) {
		t.Errorf("resource: %s %s %s, %d bytes", r.Type, r.Target, r.ContentType, len(r.Block))
	}
	if r := recs[2]; r.Type != "resource" || strings.Contains(r.Target, "secret") || len(r.Block) != 0 {
		t.Errorf("empty resource: %+v (the password must not be archived)", r)
	}
	req, resp := recs[3], recs[4]
	if req.Type != "request" || string(req.Block) != "GET /a/?q=1 HTTP/1.1\r\nHost: h.example\r\n\r\n" {
		t.Errorf("request: %+v", req)
	}
	if resp.Type != "response" || resp.ConcurrentTo != req.ID || resp.ContentType != HTTPResponseType ||
		string(resp.Block) != "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nEtag: \"x\"\r\n\r\n<p>hi</p>" {
		t.Errorf("response: %+v (block %q)", resp, resp.Block)
	}
}

// A block that changes between its digest and its copy is refused, and
// the file is not written on from there.
func TestBlockChanged(t *testing.T) {
	var out bytes.Buffer
	w := NewWriter(&out)
	calls := 0
	b := Block{Size: 3, Open: func() (io.ReadCloser, error) {
		calls++
		if calls == 1 {
			return io.NopCloser(strings.NewReader("abc")), nil
		}
		return io.NopCloser(strings.NewReader("ab")), nil
	}}
	if _, err := w.Write(Header{Type: Resource, TargetURI: "file:///x", PayloadOffset: -1}, b); err == nil {
		t.Fatal("a block that shrank was written")
	}
	if _, err := w.Write(Header{Type: Resource, TargetURI: "file:///y", PayloadOffset: -1}, BytesBlock([]byte("z"))); err == nil {
		t.Error("a record was written after a broken one")
	}
}
