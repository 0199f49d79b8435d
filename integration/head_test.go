//go:build integration

package integration

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/urlfetch/urlfetch/fetch"
	"github.com/urlfetch/urlfetch/fetch/fetchtest"
	"github.com/urlfetch/urlfetch/fetch/gopher"
	"github.com/urlfetch/urlfetch/fetch/wais"
)

// Issue 22, point 2: -I/--head and Request.Head, metadata without a
// transfer, on every scheme's real server.

// mustHead is headOf for a URL that must answer.
func mustHead(t testing.TB, c *fetch.Client, rawURL string) *fetch.Response {
	t.Helper()
	resp, err := fetchtest.Head(t, c, rawURL)
	if err != nil {
		t.Fatalf("Head(%q): %v", rawURL, err)
	}
	return resp
}

// sentLines are the lines a trace shows sent ("> ..."), without the
// marker.
func sentLines(log *fetchtest.TraceLog) []string {
	var out []string
	for _, l := range log.Lines() {
		if s, ok := strings.CutPrefix(l, "> "); ok {
			out = append(out, s)
		}
	}
	return out
}

// ftpTransfers reports whether an FTP command transfers a file or a
// listing, or opens a data connection for one.
func ftpTransfers(cmd string) bool {
	verb, _, _ := strings.Cut(cmd, " ")
	switch strings.ToUpper(verb) {
	case "RETR", "LIST", "MLSD", "NLST", "EPSV", "PASV", "EPRT", "PORT", "REST", "PRET", "STOR":
		return true
	}
	return false
}

// gopherTransfers reports whether a traced gopher request line (a quoted
// Go string) asks for an item rather than its attributes ("!").
func gopherTransfers(line string) bool { return !strings.Contains(line, `\t!`) }

// mtimeOf is the modification time of a file the harness serves, to
// the second, in UTC: what MDTM says.
func mtimeOf(t testing.TB, path string) time.Time {
	t.Helper()
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.ModTime().UTC().Truncate(time.Second)
}

// vsftpdSession waits until vsftpd's log, from byte from on, holds a
// session (one process) in which token occurs and which has ended
// (QUIT), and returns that session's lines.
func vsftpdSession(t testing.TB, logPath string, from int64, token string) []string {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		b, err := os.ReadFile(logPath)
		if err != nil {
			t.Fatal(err)
		}
		if int64(len(b)) < from {
			from = 0 // rotated
		}
		pid := ""
		var lines []string
		for _, l := range strings.Split(string(b[from:]), "\n") {
			if pid == "" && strings.Contains(l, token) {
				if i := strings.Index(l, "[pid "); i >= 0 {
					pid = l[i : i+strings.IndexByte(l[i:], ']')+1]
				}
			}
		}
		if pid != "" {
			ended := false
			for _, l := range strings.Split(string(b[from:]), "\n") {
				if strings.Contains(l, pid) {
					lines = append(lines, l)
					ended = ended || strings.Contains(l, `"QUIT"`)
				}
			}
			if ended {
				return lines
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("vsftpd's log %s shows no ended session with %q", logPath, token)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func logSize(t testing.TB, path string) int64 {
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fi.Size()
}

// A Head on vsftpd is SIZE and MDTM after the CWDs: the size and time
// the server's files have, and in vsftpd's own log no RETR, no EPSV or
// PASV, no download. A unique missing name marks the session in the log.
func TestHeadFTP(t *testing.T) {
	c, trace := traceClient(t)
	base := ftpBase(t)
	logPath := env(t, "FTP_LOG")
	from := logSize(t, logPath)
	token := fmt.Sprintf("head-probe-%d", time.Now().UnixNano())

	if _, err := fetchtest.Head(t, c, base+"/"+token); !errors.Is(err, fetch.ErrNotFound) {
		t.Errorf("Head of a missing name: %v, want ErrNotFound", err)
	}
	root := env(t, "FTP_ANON_ROOT")
	big := mustHead(t, c, base+"/big.bin")
	if want, _ := strconv.ParseInt(env(t, "BIG_SIZE"), 10, 64); big.Kind != fetch.Document || big.Length != want {
		t.Errorf("Head(big.bin) = %v, Length %d; want a document of %d bytes", big.Kind, big.Length, want)
	}
	if want := mtimeOf(t, filepath.Join(root, "big.bin")); !big.Modified.Equal(want) {
		t.Errorf("Head(big.bin).Modified = %v, want %v (the file's mtime)", big.Modified, want)
	}
	readme := mustHead(t, c, base+"/a/b/c/file.txt")
	if fi, _ := os.Stat(filepath.Join(root, "a/b/c/file.txt")); readme.Length != fi.Size() || !readme.Modified.Equal(mtimeOf(t, filepath.Join(root, "a/b/c/file.txt"))) {
		t.Errorf("Head(a/b/c/file.txt) = Length %d, Modified %v; want %d, %v", readme.Length, readme.Modified, fi.Size(), fi.ModTime().UTC())
	}
	for _, dir := range []string{"/a/b", "/emptydir/", "/"} {
		if r := mustHead(t, c, base+dir); r.Kind != fetch.Listing {
			t.Errorf("Head(%s) = %v, want a listing", dir, r.Kind)
		}
	}
	if r := mustHead(t, c, base+"/readme.txt;type=a"); r.Length != -1 || r.Type != "text/plain" {
		t.Errorf("Head(readme.txt;type=a) = Length %d, Type %q; want -1 and text/plain", r.Length, r.Type)
	}
	c.Close()

	for _, cmd := range sentLines(trace) {
		if ftpTransfers(cmd) {
			t.Errorf("the Heads sent %q", cmd)
		}
	}
	session := vsftpdSession(t, logPath, from, token)
	text := strings.Join(session, "\n")
	for _, want := range []string{`"SIZE big.bin"`, `"MDTM big.bin"`, `"CWD a"`, `"SIZE file.txt"`, `"CWD emptydir"`} {
		if !strings.Contains(text, want) {
			t.Errorf("vsftpd's log of the session lacks %s:\n%s", want, text)
		}
	}
	for _, l := range session {
		_, cmd, ok := strings.Cut(l, `FTP command: Client "127.0.0.1", "`)
		if ok && ftpTransfers(strings.TrimSuffix(cmd, `"`)) || strings.Contains(l, "DOWNLOAD") {
			t.Errorf("vsftpd's log of the Heads' session shows a transfer: %s", l)
		}
	}
}

// net/http code gains Head and Range for ftp through fetch.Transport: a
// HEAD sends no RETR; "Range: bytes=N-" resumes with REST (206, the right
// bytes and Content-Range).
func TestHeadTransportFTP(t *testing.T) {
	c, trace := traceClient(t)
	tr := &http.Transport{}
	tr.RegisterProtocol("ftp", &fetch.Transport{Client: c})
	hc := &http.Client{Transport: tr}
	base := ftpBase(t)
	want := anonFile(t, "binary.bin")

	resp, err := hc.Head(base + "/binary.bin")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 || resp.ContentLength != int64(len(want)) || resp.Header.Get("Last-Modified") == "" {
		t.Errorf("HEAD binary.bin = %d, ContentLength %d, Last-Modified %q; want 200, %d, a time", resp.StatusCode, resp.ContentLength, resp.Header.Get("Last-Modified"), len(want))
	}
	for _, cmd := range sentLines(trace) {
		if ftpTransfers(cmd) {
			t.Errorf("http.Client.Head sent %q", cmd)
		}
	}

	trace.Reset()
	req, _ := http.NewRequest("GET", base+"/binary.bin", nil)
	req.Header.Set("Range", "bytes=1000-")
	resp, err = hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil || resp.StatusCode != 206 || !bytes.Equal(b, want[1000:]) || resp.Header.Get("Content-Range") != fmt.Sprintf("bytes 1000-%d/%d", len(want)-1, len(want)) {
		t.Errorf("GET with Range: bytes=1000- = %d, %d bytes, Content-Range %q, %v; want 206 and the last %d bytes", resp.StatusCode, len(b), resp.Header.Get("Content-Range"), err, len(want)-1000)
	}
	if !strings.Contains(trace.String(), "> REST 1000\n") {
		t.Errorf("the resumed GET sent no REST 1000:\n%s", trace)
	}

	req, _ = http.NewRequest("GET", base+"/binary.bin", nil)
	req.Header.Set("Range", "bytes=0-99")
	resp, err = hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !bytes.Equal(b, want) {
		t.Errorf("GET with Range: bytes=0-99 = %d, %d bytes; want 200 and the whole file (a range this Transport ignores)", resp.StatusCode, len(b))
	}
}

// nginxLogged waits until nginx's access log shows a request line that
// holds want ("HEAD /hello.txt?token HTTP/1.1").
func nginxLogged(t testing.TB, want string) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		b, err := os.ReadFile(env(t, "HTTP_ACCESS_LOG"))
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(b, []byte(`"`+want+`"`)) {
			return
		}
		if time.Now().After(deadline) {
			t.Errorf("nginx's access log shows no %q", want)
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// A Head on nginx is a real HEAD (HTTP/1.1, and HTTP/2 over TLS): the
// access log says so, and the Response has the file's length and time. A
// Head that meets a redirect follows it as a Head, to another scheme too.
func TestHeadHTTP(t *testing.T) {
	c, trace := traceClient(t)
	root := env(t, "HTTP_ROOT")
	fi, err := os.Stat(filepath.Join(root, "hello.txt"))
	if err != nil {
		t.Fatal(err)
	}
	token := fmt.Sprintf("head-%d", time.Now().UnixNano())
	for _, tc := range []struct{ base, proto string }{
		{httpBase(t), "HTTP/1.1"},
		{"https://" + addr(t, "HTTPS"), "HTTP/2.0"},
	} {
		resp := mustHead(t, c, tc.base+"/hello.txt?"+token)
		if resp.Kind != fetch.Document || resp.Length != fi.Size() || !resp.Modified.Equal(fi.ModTime().UTC().Truncate(time.Second)) || resp.Type != "text/plain" || !strings.HasPrefix(resp.Status, "200") {
			t.Errorf("Head(%s/hello.txt) = %v %q, Length %d, Modified %v, Type %q; want 200, %d bytes, %v, text/plain", tc.base, resp.Kind, resp.Status, resp.Length, resp.Modified, resp.Type, fi.Size(), fi.ModTime().UTC())
		}
		nginxLogged(t, "HEAD /hello.txt?"+token+" "+tc.proto)
	}
	if _, err := fetchtest.Head(t, c, httpBase(t)+"/missing.txt"); !errors.Is(err, fetch.ErrNotFound) {
		t.Errorf("Head(missing.txt) = %v, want ErrNotFound", err)
	}

	// 302 to /hello.txt, then 302 to ftp://.../readme.txt: both hops stay
	// Heads.
	resp := mustHead(t, c, httpBase(t)+"/redirect/302")
	if resp.Length != fi.Size() || resp.URL.Path != "/hello.txt" {
		t.Errorf("Head(/redirect/302) = %s, Length %d; want /hello.txt's %d", resp.URL, resp.Length, fi.Size())
	}
	trace.Reset()
	resp = mustHead(t, c, httpBase(t)+"/redirect/ftp")
	if want := int64(len(anonFile(t, "readme.txt"))); resp.URL.Scheme != "ftp" || resp.Length != want {
		t.Errorf("Head(/redirect/ftp) = %s, Length %d; want ftp's readme.txt, %d bytes", resp.URL, resp.Length, want)
	}
	sent := sentLines(trace)
	if len(sent) == 0 || !strings.HasPrefix(sent[0], "HEAD /redirect/ftp ") {
		t.Errorf("Head(/redirect/ftp) sent %q first, want HEAD /redirect/ftp", sent)
	}
	for _, cmd := range sent {
		if ftpTransfers(cmd) || strings.HasPrefix(cmd, "GET ") {
			t.Errorf("Head(/redirect/ftp) sent %q", cmd)
		}
	}
}

// squidLoggedMethod counts the lines of squid's access log that show
// method for rawURL.
func squidLoggedMethod(t testing.TB, method, rawURL string) int {
	log, err := os.ReadFile(env(t, "SQUID_ACCESS_LOG"))
	if err != nil {
		t.Fatal(err)
	}
	return bytes.Count(log, []byte(" "+method+" "+rawURL+" "))
}

// Through a gateway a Head is a HEAD with the whole URL (RFC 1738
// section 4): squid logs "HEAD ftp://...", never a GET.
func TestHeadGatewayFTPThroughSquid(t *testing.T) {
	c, trace := squidClient(t)
	raw := ftpBase(t) + "/binary.bin"
	heads, gets := squidLoggedMethod(t, "HEAD", raw), squidLoggedMethod(t, "GET", raw)
	resp := mustHead(t, c, raw)
	if resp.Kind != fetch.Document {
		t.Errorf("Head(%s) through squid = %v, want a document", raw, resp.Kind)
	}
	if sent := sentLines(trace); len(sent) == 0 || sent[0] != "HEAD "+raw+" HTTP/1.1" {
		t.Errorf("Head through squid sent %q first, want HEAD %s HTTP/1.1", sent, raw)
	}
	deadline := time.Now().Add(5 * time.Second)
	for squidLoggedMethod(t, "HEAD", raw) <= heads {
		if time.Now().After(deadline) {
			t.Fatalf("squid's access log shows no HEAD %s", raw)
		}
		time.Sleep(100 * time.Millisecond)
	}
	if n := squidLoggedMethod(t, "GET", raw); n != gets {
		t.Errorf("squid's access log shows %d more GETs of %s", n-gets, raw)
	}
}

// countIn counts the occurrences of sub in the file at path.
func countIn(t testing.TB, path, sub string) int {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return bytes.Count(b, []byte(sub))
}

// A Head of a Gopher+ item (the URL marks it, as a Gopher+ menu does) is
// the "!" request: pygopherd answers with the item's attribute blocks,
// whose +ADMIN Mod-Date is the Response's time and whose blocks are its
// Meta. The one line sent is the "!" request.
func TestHeadGopherPlus(t *testing.T) {
	s := pygopherd(t)
	c, trace := traceClient(t)
	resp := mustHead(t, c, s.url("/9/big.bin%09%09+"))
	if resp.Kind != fetch.Document || resp.Length != -1 || resp.Type != "application/octet-stream" {
		t.Errorf("Head(big.bin) = %v, Length %d, Type %q; want a document of application/octet-stream", resp.Kind, resp.Length, resp.Type)
	}
	if want := mtimeOf(t, filepath.Join(s.root, "big.bin")); !resp.Modified.Equal(want) {
		t.Errorf("Head(big.bin).Modified = %v, want the file's %v (+ADMIN Mod-Date)", resp.Modified, want)
	}
	if v := resp.Meta.Get("Gopher-Views"); !strings.HasPrefix(v, "application/octet-stream: <65536k>") {
		t.Errorf("Head(big.bin) Meta Gopher-Views = %q, want pygopherd's view with its size", v)
	}
	if sent := sentLines(trace); !slices.Equal(sent, []string{`"/big.bin\t!\r\n"`}) {
		t.Errorf("Head(big.bin) sent %q, want only the \"!\" request", sent)
	}

	resp = mustHead(t, c, s.url("/1/dir%09%09+"))
	if resp.Kind != fetch.Listing || resp.Type != gopher.MenuType || resp.Modified.IsZero() {
		t.Errorf("Head(dir) = %v, Type %q, Modified %v; want a menu with a time", resp.Kind, resp.Type, resp.Modified)
	}
	if _, err := fetchtest.Head(t, c, s.url("/0/nothing%09%09+")); !errors.Is(err, fetch.ErrNotFound) {
		t.Errorf("Head(nothing) = %v, want ErrNotFound (pygopherd's --2)", err)
	}

	// Every item of pygopherd's root menu is marked Gopher+: each one's
	// Head is its "!" request.
	root, _ := get(t, c, s.url("/"))
	for e, err := range root.Entries() {
		if err != nil || e.URL == "" || !strings.HasPrefix(e.URL, "gopher://") || e.Type == fetch.EntrySearch {
			continue
		}
		trace.Reset()
		r := mustHead(t, c, e.URL)
		for _, l := range sentLines(trace) {
			if !strings.HasSuffix(l, `\t!\r\n"`) {
				t.Errorf("Head(%s) sent %s, not a \"!\" request", e.URL, l)
			}
		}
		if r.Meta.Get("Gopher-Info") == "" {
			t.Errorf("Head(%s) has no +INFO in its Meta: %v", e.URL, r.Meta)
		}
	}
}

// RFC 1436 has no request for metadata: the Head of an item the URL does
// not mark as Gopher+ is answered from the URL alone, without connecting
// (gophernicus's log shows no request for it). An item the URL marks as
// Gopher+ on a server that is not (gophernicus answers "!" with the
// document) is asked, and the Response says so; no error.
func TestHeadGopherPlain(t *testing.T) {
	s := gophernicus(t)
	c, trace := traceClient(t)
	logPath := env(t, "GOPHER_GOPHERNICUS_LOG")
	before := countIn(t, logPath, `"GET 0/hello.txt `)
	resp := mustHead(t, c, s.url("/0/hello.txt"))
	if resp.Kind != fetch.Document || resp.Type != "text/plain" || resp.Length != -1 || !strings.Contains(resp.Meta.Get("Gopher-Metadata"), "from the URL") {
		t.Errorf("Head(hello.txt) = %v, Type %q, Length %d, Meta %v; want a text/plain document of unknown length, from the URL", resp.Kind, resp.Type, resp.Length, resp.Meta)
	}
	if sent := sentLines(trace); len(sent) > 0 || strings.Contains(trace.String(), "* connecting to") {
		t.Errorf("Head(hello.txt) connected or sent %q:\n%s", sent, trace)
	}
	if r := mustHead(t, c, s.url("/1/dir/")); r.Kind != fetch.Listing || r.Type != gopher.MenuType {
		t.Errorf("Head(dir/) = %v, Type %q; want a menu", r.Kind, r.Type)
	}
	trace.Reset()
	resp = mustHead(t, c, s.url("/0/hello.txt%09%09+"))
	if resp.Kind != fetch.Document || resp.Length != -1 || !strings.Contains(resp.Meta.Get("Gopher-Metadata"), "no attribute blocks") {
		t.Errorf("Head(hello.txt, marked Gopher+) on gophernicus = %v, Length %d, Meta %v; want a document, saying the server sent no attributes", resp.Kind, resp.Length, resp.Meta)
	}
	if sent := sentLines(trace); !slices.Equal(sent, []string{`"/hello.txt\t!\r\n"`}) {
		t.Errorf("Head(hello.txt, marked Gopher+) sent %q, want the \"!\" request", sent)
	}
	// gophernicus logs a request when its connection ends: the marked
	// Head's is the one request for hello.txt since before the plain one.
	deadline := time.Now().Add(5 * time.Second)
	for countIn(t, logPath, `"GET 0/hello.txt `) == before && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if n := countIn(t, logPath, `"GET 0/hello.txt `); n != before+1 {
		t.Errorf("gophernicus logged %d requests for hello.txt during the two Heads, want 1 (the marked one's)", n-before)
	}
}

// nntpTransfers reports whether an NNTP command transfers an article or
// a listing: ARTICLE, BODY, LIST, NEWNEWS, and an overview of more than
// one article.
func nntpTransfers(line string) bool {
	verb, arg, _ := strings.Cut(strings.TrimSpace(line), " ")
	switch strings.ToUpper(verb) {
	case "ARTICLE", "BODY", "LIST", "NEWNEWS", "NEWGROUPS":
		return true
	case "OVER", "XOVER":
		lo, hi, ok := strings.Cut(arg, "-")
		return !ok || lo != hi
	}
	return false
}

// A Head on INN: news:<id> is HEAD <id>, the article's header as Meta;
// nntp://host/group/N is GROUP, HEAD N and OVER N (its :bytes and
// :lines); a group is GROUP alone; news:* is the greeting alone. The tap
// on the connection shows INN got no ARTICLE, no range of OVER, no LIST;
// all of it on one connection.
func TestHeadNNTP(t *testing.T) {
	c, _, tap := newsClient(t)
	resp := mustHead(t, c, "news:hello@urlfetch.test")
	if resp.Kind != fetch.Document || resp.Type != "message/rfc822" || resp.Length != -1 ||
		resp.Meta.Get("Subject") != "Hello from the urlfetch test bed" || !resp.Modified.Equal(time.Date(1994, 12, 20, 12, 0, 0, 0, time.UTC)) || !strings.HasPrefix(resp.Status, "221 ") {
		t.Errorf("Head(news:hello@urlfetch.test) = %v %q, Length %d, Modified %v, Status %q, Meta %v", resp.Kind, resp.Type, resp.Length, resp.Modified, resp.Status, resp.Meta)
	}
	resp = mustHead(t, c, nntpBase(t)+"/urlfetch.test/2")
	if resp.Meta.Get("Message-Id") != "<dot-stuffed@urlfetch.test>" || resp.Meta.Get("Lines") != "7" || resp.Meta.Get("Bytes") == "" {
		t.Errorf("Head(urlfetch.test/2) Meta = %v; want its header with Bytes and Lines 7", resp.Meta)
	}
	resp = mustHead(t, c, "news:urlfetch.test")
	if resp.Kind != fetch.Listing || resp.Meta.Get("Nntp-Count") != "4" || resp.Meta.Get("Nntp-Low") != "1" || resp.Meta.Get("Nntp-High") != "4" {
		t.Errorf("Head(news:urlfetch.test) = %v, Meta %v; want a listing of 4 articles, 1 to 4", resp.Kind, resp.Meta)
	}
	resp = mustHead(t, c, "news:*")
	if resp.Kind != fetch.Listing || !strings.HasPrefix(resp.Status, "200 ") {
		t.Errorf("Head(news:*) = %v, Status %q; want a listing with INN's greeting", resp.Kind, resp.Status)
	}
	for _, raw := range []string{"news:no-such@urlfetch.test", nntpBase(t) + "/urlfetch.test/999", "news:urlfetch.no-such-group"} {
		if _, err := fetchtest.Head(t, c, raw); !errors.Is(err, fetch.ErrNotFound) {
			t.Errorf("Head(%s) = %v, want ErrNotFound", raw, err)
		}
	}
	sent := tap.sent()
	for _, l := range sent {
		if nntpTransfers(l) {
			t.Errorf("the Heads sent %q", l)
		}
	}
	for _, want := range []string{"HEAD <hello@urlfetch.test>\r\n", "GROUP urlfetch.test\r\n", "HEAD 2\r\n", "OVER 2-2\r\n"} {
		if !slices.Contains(sent, want) {
			t.Errorf("the Heads sent %q; want %q among them", sent, want)
		}
	}
	if n := tap.dials(); n != 1 {
		t.Errorf("%d connections for the Heads, want 1: each one leaves it clean in the pool", n)
	}
}

// waisTransfers reports whether a traced WAIS or Z39.50 request
// transfers a document or records: a retrieval, a PresentRequest.
func waisTransfers(line string) bool {
	return strings.Contains(line, "retrieve") || strings.HasPrefix(line, "PresentRequest")
}

// A Head on Zebra and yaz-ztest (Z39.50): a search is its hit count,
// with no PresentRequest; a record is the search its URL names, its
// position checked; a database is the Init. A missing database and a
// record past the count fail.
func TestHeadWAIS(t *testing.T) {
	c, _ := waisClient(t, wais.DialectAuto)
	entries, _ := waisList(t, c, zebraDB(t)+"?flamingo")
	if len(entries) != 1 {
		t.Fatalf("search flamingo: %d entries, want 1", len(entries))
	}
	c, trace := traceClient(t)
	resp := mustHead(t, c, zebraDB(t)+"?harnesscorpus")
	if resp.Kind != fetch.Listing || resp.Meta.Get("Z3950-Hits") != "12" || resp.Meta.Get("Wais-Dialect") != "z3950" {
		t.Errorf("Head(harness?harnesscorpus) = %v, Meta %v; want a listing of 12 hits", resp.Kind, resp.Meta)
	}
	resp = mustHead(t, c, entries[0].URL)
	if resp.Kind != fetch.Document || resp.Type != "text/plain" || resp.Meta.Get("Z3950-Hits") != "1" {
		t.Errorf("Head(%s) = %v %q, Meta %v; want a text/plain record, its search's 1 hit", entries[0].URL, resp.Kind, resp.Type, resp.Meta)
	}
	resp = mustHead(t, c, zebraDB(t))
	if resp.Kind != fetch.Listing || resp.Meta.Get("Wais-Server") == "" {
		t.Errorf("Head(harness) = %v, Meta %v; want the server's Init", resp.Kind, resp.Meta)
	}
	resp = mustHead(t, c, ztestDB(t)+"?anything")
	if resp.Kind != fetch.Listing || resp.Meta.Get("Z3950-Hits") == "" {
		t.Errorf("Head(yaz-ztest Default?anything) = %v, Meta %v; want a hit count", resp.Kind, resp.Meta)
	}
	past := strings.Replace(entries[0].URL, "/SUTRS/1/", "/SUTRS/2/", 1)
	if past == entries[0].URL {
		t.Fatalf("the record URL %s is not .../SUTRS/1/words", entries[0].URL)
	}
	for _, raw := range []string{"wais://" + addr(t, "ZEBRA") + "/nosuchdb?flamingo", past} {
		if _, err := fetchtest.Head(t, c, raw); !errors.Is(err, fetch.ErrNotFound) {
			t.Errorf("Head(%s) = %v, want ErrNotFound", raw, err)
		}
	}
	for _, l := range sentLines(trace) {
		if waisTransfers(l) {
			t.Errorf("the Heads sent %q", l)
		}
	}
}

// headLines parses fetch -I's output: the first line if it has no
// "Name: " (a status), and the fields.
func headLines(t testing.TB, out string) (status string, fields map[string][]string) {
	t.Helper()
	fields = map[string][]string{}
	block, rest, ok := strings.Cut(out, "\n\n")
	if !ok || rest != "" {
		t.Errorf("fetch -I printed %q; want one block ended by an empty line", out)
	}
	for i, l := range strings.Split(block, "\n") {
		k, v, ok := strings.Cut(l, ": ")
		if i == 0 && (!ok || strings.ContainsAny(k, " \t")) {
			status = l
			continue
		}
		fields[k] = append(fields[k], v)
	}
	return status, fields
}

// fetch -I as a user runs it, on each scheme's real server: the size and
// time the server's own files have, and in the -v trace the question
// asked and no transfer.
func TestHeadCommand(t *testing.T) {
	dir := t.TempDir()
	ftpRoot := env(t, "FTP_ANON_ROOT")
	fi, err := os.Stat(filepath.Join(ftpRoot, "readme.txt"))
	if err != nil {
		t.Fatal(err)
	}
	r := runFetch(t, dir, "-I", "-v", ftpBase(t)+"/readme.txt")
	_, f := headLines(t, r.stdout)
	if r.code != 0 || f["Content-Length"][0] != strconv.FormatInt(fi.Size(), 10) || f["Last-Modified"][0] != fi.ModTime().UTC().Format(http.TimeFormat) {
		t.Errorf("fetch -I ftp://.../readme.txt = %d, %q; want its %d bytes and %v", r.code, r.stdout, fi.Size(), fi.ModTime().UTC())
	}
	for _, l := range strings.Split(r.stderr, "\n") {
		if cmd, ok := strings.CutPrefix(l, "> "); ok && ftpTransfers(cmd) {
			t.Errorf("fetch -I -v ftp: sent %q", cmd)
		}
	}
	if !strings.Contains(r.stderr, "> SIZE readme.txt\n") || !strings.Contains(r.stderr, "> MDTM readme.txt\n") {
		t.Errorf("fetch -I -v ftp: no SIZE and MDTM in the trace:\n%s", r.stderr)
	}

	hello, err := os.Stat(filepath.Join(env(t, "HTTP_ROOT"), "hello.txt"))
	if err != nil {
		t.Fatal(err)
	}
	r = runFetch(t, dir, "-I", "-v", httpBase(t)+"/hello.txt")
	status, f := headLines(t, r.stdout)
	if r.code != 0 || status != "200 OK" || f["Content-Length"][0] != strconv.FormatInt(hello.Size(), 10) || len(f["Server"]) != 1 {
		t.Errorf("fetch -I http://.../hello.txt = %d, %q; want 200 OK, %d bytes and nginx's fields", r.code, r.stdout, hello.Size())
	}
	if !strings.Contains(r.stderr, "> HEAD /hello.txt HTTP/1.1\n") {
		t.Errorf("fetch -I -v http: no HEAD in the trace:\n%s", r.stderr)
	}

	r = runFetch(t, dir, "-I", pygopherd(t).url("/0/hello.txt%09%09+"))
	status, f = headLines(t, r.stdout)
	if r.code != 0 || status != "+-2" || f["Content-Type"][0] != "text/plain" || len(f["Gopher-Views"]) == 0 || len(f["Last-Modified"]) != 1 {
		t.Errorf("fetch -I pygopherd hello.txt (Gopher+) = %d, %q; want +-2, its views and time", r.code, r.stdout)
	}
	r = runFetch(t, dir, "-I", "-v", gophernicus(t).url("/0/hello.txt"))
	_, f = headLines(t, r.stdout)
	if r.code != 0 || f["Content-Type"][0] != "text/plain" || len(f["Gopher-Metadata"]) != 1 || strings.Contains(r.stderr, "* connecting to") {
		t.Errorf("fetch -I gophernicus hello.txt = %d, %q, %q; want the URL's word, no connection", r.code, r.stdout, r.stderr)
	}

	r = runFetch(t, dir, "-I", "--news-server", addr(t, "NNTP"), "news:hello@urlfetch.test")
	status, f = headLines(t, r.stdout)
	if r.code != 0 || !strings.HasPrefix(status, "221 ") || f["Subject"][0] != "Hello from the urlfetch test bed" || f["Content-Type"][0] != "message/rfc822" {
		t.Errorf("fetch -I news:hello@urlfetch.test = %d, %q, %q", r.code, r.stdout, r.stderr)
	}
	r = runFetch(t, dir, "-I", nntpBase(t)+"/urlfetch.big")
	_, f = headLines(t, r.stdout)
	if r.code != 0 || f["Nntp-Count"][0] != env(t, "NNTP_BIG_GROUP_COUNT") {
		t.Errorf("fetch -I nntp://.../urlfetch.big = %d, %q; want %s articles", r.code, r.stdout, env(t, "NNTP_BIG_GROUP_COUNT"))
	}

	r = runFetch(t, dir, "-I", fileURLOf(env(t, "BIG_FILE")))
	_, f = headLines(t, r.stdout)
	if r.code != 0 || f["Content-Length"][0] != env(t, "BIG_SIZE") {
		t.Errorf("fetch -I file big.bin = %d, %q; want %s bytes", r.code, r.stdout, env(t, "BIG_SIZE"))
	}

	r = runFetch(t, dir, "-I", "-v", zebraDB(t)+"?harnesscorpus")
	_, f = headLines(t, r.stdout)
	if r.code != 0 || f["Z3950-Hits"][0] != "12" || strings.Contains(r.stderr, "PresentRequest") {
		t.Errorf("fetch -I zebra harness?harnesscorpus = %d, %q; want 12 hits, no PresentRequest:\n%s", r.code, r.stdout, r.stderr)
	}

	r = runFetch(t, dir, "-I", "--json", ftpBase(t)+"/readme.txt")
	var rec struct {
		Kind     string
		Length   int64
		Modified time.Time
	}
	if err := json.Unmarshal([]byte(r.stdout), &rec); err != nil || r.code != 0 || rec.Kind != "head" || rec.Length != fi.Size() || !rec.Modified.Equal(fi.ModTime().UTC().Truncate(time.Second)) {
		t.Errorf("fetch -I --json ftp readme.txt = %d, %q (%v)", r.code, r.stdout, err)
	}
}
