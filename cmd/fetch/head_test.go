package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/urlfetch/urlfetch/fetch"
	"github.com/urlfetch/urlfetch/uri"
)

// Issue 22, point 2: -I/--head prints what a Head request learns, as
// curl -I does: "Name: value" lines, then an empty line; with --json the
// metadata record. The file is stat'ed, not read.
func TestHeadOption(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "a.txt")
	if err := os.WriteFile(p, []byte("hello, world\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	when := time.Date(1994, 12, 20, 10, 0, 0, 0, time.UTC)
	if err := os.Chtimes(p, when, when); err != nil {
		t.Fatal(err)
	}
	for _, flag := range []string{"-I", "--head"} {
		r := fetchCmd(t, dir, "", flag, fileURL(p))
		want := "Content-Type: text/plain; charset=utf-8\nContent-Length: 13\nLast-Modified: Tue, 20 Dec 1994 10:00:00 GMT\n\n"
		if r.code != 0 || r.stdout != want {
			t.Errorf("fetch %s %s = %d, stdout %q, stderr %q; want\n%s", flag, fileURL(p), r.code, r.stdout, r.stderr, want)
		}
	}
	r := fetchCmd(t, dir, "", "-I", "--json", fileURL(p))
	var rec struct {
		Kind     string
		Length   int64
		Modified time.Time
	}
	if err := json.Unmarshal([]byte(r.stdout), &rec); err != nil || r.code != 0 || rec.Kind != "head" || rec.Length != 13 || !rec.Modified.Equal(when) {
		t.Errorf("fetch -I --json = %d %q (%v); want a head record of 13 bytes, %v", r.code, r.stdout, err, when)
	}
	r = fetchCmd(t, dir, "", "-I", fileURL(dir)+"/")
	if r.code != 0 || !strings.HasPrefix(r.stdout, "Content-Type: "+fetch.ListingType+"\nLast-Modified: ") || strings.Contains(r.stdout, "a.txt") {
		t.Errorf("fetch -I DIR/ = %d %q %q; want the listing's type and time, no entries", r.code, r.stdout, r.stderr)
	}
	// Two URLs: two blocks, in order.
	r = fetchCmd(t, dir, "", "-I", fileURL(p), fileURL(dir)+"/")
	if blocks := strings.Split(strings.TrimSuffix(r.stdout, "\n\n"), "\n\n"); r.code != 0 || len(blocks) != 2 || !strings.Contains(blocks[0], "Content-Length: 13") {
		t.Errorf("fetch -I FILE DIR/ = %d %q; want two blocks, the file's first", r.code, r.stdout)
	}
}

// A scheme without metadata, an output option, a missing file: each
// fails as the rest of the command fails, with its exit code.
func TestHeadOptionErrors(t *testing.T) {
	dir := t.TempDir()
	r := fetchCmd(t, dir, "", "-I", "mailto:someone@example.org")
	if r.code != exitUnsupported || !strings.Contains(r.stderr, "no metadata to ask for") || r.stdout != "" {
		t.Errorf("fetch -I mailto: = %d %q %q; want %d, saying there is no metadata", r.code, r.stdout, r.stderr, exitUnsupported)
	}
	r = fetchCmd(t, dir, "", "-I", "telnet://127.0.0.1/")
	if r.code != exitUnsupported || !strings.Contains(r.stderr, "no metadata to ask for") {
		t.Errorf("fetch -I telnet: = %d %q; want %d", r.code, r.stderr, exitUnsupported)
	}
	for _, args := range [][]string{{"-I", "-o", "x"}, {"-I", "-O"}, {"-I", "-C", "-o", "x"}} {
		r = fetchCmd(t, dir, "", append(args, fileURL(dir)+"/")...)
		if r.code != exitUsage || !strings.Contains(r.stderr, "-I") {
			t.Errorf("fetch %s = %d %q; want a usage error naming -I", strings.Join(args, " "), r.code, r.stderr)
		}
	}
	r = fetchCmd(t, dir, "", "-I", fileURL(filepath.Join(dir, "missing")))
	if r.code != exitNotFound {
		t.Errorf("fetch -I missing = %d %q; want %d", r.code, r.stderr, exitNotFound)
	}
}

// What a server sent is shown, never obeyed: a CR or LF in a value cannot
// start a line of its own, an ESC cannot reach the terminal. The status
// comes first, then the three fields of every scheme, then the server's
// fields, sorted.
func TestWriteHead(t *testing.T) {
	resp := &fetch.Response{
		URL:      uri.MustParse("gopher://h/0/x"),
		Kind:     fetch.Document,
		Type:     "text/plain",
		Length:   -1,
		Modified: time.Date(1994, 12, 20, 10, 0, 0, 0, time.UTC),
		Status:   "+-2",
		Meta: fetch.Meta{
			"Gopher-Views": {"text/plain: <1k>", "evil\r\nSet-Cookie: x"},
			"Gopher-Admin": {"Admin: \x1b]0;owned\x07 <a@b>", "bad \xff utf-8 \u202e"},
		},
	}
	var b strings.Builder
	if err := writeHead(&b, resp); err != nil {
		t.Fatal(err)
	}
	want := "+-2\n" +
		"Content-Type: text/plain\n" +
		"Last-Modified: Tue, 20 Dec 1994 10:00:00 GMT\n" +
		`Gopher-Admin: Admin: \e]0;owned\x07 <a@b>` + "\n" +
		`Gopher-Admin: bad \xff utf-8 \u202e` + "\n" +
		"Gopher-Views: text/plain: <1k>\n" +
		`Gopher-Views: evil\r\nSet-Cookie: x` + "\n\n"
	if b.String() != want {
		t.Errorf("writeHead =\n%s\nwant\n%s", b.String(), want)
	}
	// An HTTP response's own Content-Type and Content-Length are printed
	// once, from the Response.
	resp = &fetch.Response{Kind: fetch.Document, Type: "text/html", Length: 5, Status: "200 OK", Modified: time.Unix(0, 0), Meta: fetch.Meta{
		"Content-Type": {"text/html"}, "Content-Length": {"5"}, "Last-Modified": {"Thu, 01 Jan 1970 00:00:00 GMT"}, "Etag": {`"x"`},
	}}
	b.Reset()
	writeHead(&b, resp)
	if want := "200 OK\nContent-Type: text/html\nContent-Length: 5\nLast-Modified: Thu, 01 Jan 1970 00:00:00 GMT\nEtag: \"x\"\n\n"; b.String() != want {
		t.Errorf("writeHead of an HTTP reply =\n%q\nwant\n%q", b.String(), want)
	}
}
