//go:build integration

package integration

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/urlfetch/urlfetch/fetch"
	"github.com/urlfetch/urlfetch/fetch/fetchtest"
	"github.com/urlfetch/urlfetch/fetch/gopher"
)

// gopherServer is one of the two Gopher servers of the test bed, with
// the selectors that differ between them.
type gopherServer struct {
	name   string
	addr   string // 127.0.0.1:port
	root   string // the served tree
	search string // selector of the type-7 search script
	crlf   bool   // text is sent with CRLF line ends (gophernicus converts)
}

func (s gopherServer) url(path string) string { return "gopher://" + s.addr + path }

func (s gopherServer) port() string { _, p, _ := net.SplitHostPort(s.addr); return p }

func gopherServers(t *testing.T) []gopherServer {
	t.Helper()
	return []gopherServer{
		{name: "pygopherd", addr: addr(t, "GOPHER_PYGOPHERD"), root: env(t, "GOPHER_PYGOPHERD_ROOT"), search: "/search"},
		{name: "gophernicus", addr: addr(t, "GOPHER_GOPHERNICUS"), root: env(t, "GOPHER_GOPHERNICUS_ROOT"), search: "/cgi-bin/search", crlf: true},
	}
}

func pygopherd(t *testing.T) gopherServer   { return gopherServers(t)[0] }
func gophernicus(t *testing.T) gopherServer { return gopherServers(t)[1] }

// gopherTrace is a Client whose trace lines are also kept for the test
// to look at, and its gopher driver.
type gopherTrace struct {
	mu    sync.Mutex
	lines []string
}

func (g *gopherTrace) all() []string {
	g.mu.Lock()
	defer g.mu.Unlock()
	return slices.Clone(g.lines)
}

// sent returns the request lines the client traced as sent ("> ...").
func (g *gopherTrace) sent() []string {
	var out []string
	for _, l := range g.all() {
		if s, ok := strings.CutPrefix(l, "> "); ok {
			out = append(out, s)
		}
	}
	return out
}

func gopherClient(t *testing.T) (*fetch.Client, *gopher.Driver, *gopherTrace) {
	t.Helper()
	c := client(t)
	tr := &gopherTrace{}
	next := c.Trace
	c.Trace = func(dir fetch.Direction, line string) {
		tr.mu.Lock()
		tr.lines = append(tr.lines, string(dir)+" "+line)
		tr.mu.Unlock()
		next(dir, line)
	}
	d, ok := c.Driver("gopher").(*gopher.Driver)
	if !ok {
		t.Fatalf("all.NewClient registers %T for gopher, want *gopher.Driver", c.Driver("gopher"))
	}
	return c, d, tr
}

// gopherFetchErr fetches rawURL expecting a failure, and returns it.
func gopherFetchErr(t *testing.T, c *fetch.Client, rawURL string) error {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	resp, err := c.Fetch(ctx, rawURL)
	if err == nil {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		resp.Body.Close()
		t.Fatalf("Fetch(%q) = %v %q..., want an error", rawURL, resp.Kind, b)
	}
	return err
}

// gopherEntries fetches a listing and returns its entries; an entry error
// fails the test.
func gopherEntries(t *testing.T, c *fetch.Client, rawURL string) (*fetch.Response, []fetch.Entry) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	resp, err := c.Fetch(ctx, rawURL)
	if err != nil {
		t.Fatalf("Fetch(%q): %v", rawURL, err)
	}
	defer resp.Body.Close()
	if resp.Kind != fetch.Listing {
		t.Fatalf("Fetch(%q).Kind = %v, want listing", rawURL, resp.Kind)
	}
	var es []fetch.Entry
	for e, err := range resp.Entries() {
		if err != nil {
			t.Errorf("Fetch(%q).Entries(): %v", rawURL, err)
			continue
		}
		es = append(es, e)
	}
	return resp, es
}

func findEntry(es []fetch.Entry, name string) (fetch.Entry, bool) {
	for _, e := range es {
		if e.Name == name {
			return e, true
		}
	}
	return fetch.Entry{}, false
}

// served returns a file of a server's tree as the server sends it as
// text: gophernicus turns LF into CRLF.
func (s gopherServer) served(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(s.root, name))
	if err != nil {
		t.Fatal(err)
	}
	if s.crlf {
		return strings.ReplaceAll(string(b), "\n", "\r\n")
	}
	return string(b)
}

// Acceptance 7: the root menu by the three spellings of RFC 1738 section
// 3.4.1 (an empty gopher-path, with or without its "/", is type 1 with the
// empty selector), each item an entry with its own encoded URL.
func TestGopherRootMenu(t *testing.T) {
	for _, s := range gopherServers(t) {
		t.Run(s.name, func(t *testing.T) {
			c, _, tr := gopherClient(t)
			var first []fetch.Entry
			for i, u := range []string{s.url(""), s.url("/"), s.url("/1")} {
				resp, es := gopherEntries(t, c, u)
				if resp.Type != "application/gopher-menu" {
					t.Errorf("Fetch(%q).Type = %q, want application/gopher-menu", u, resp.Type)
				}
				if i == 0 {
					first = es
				} else if !reflect.DeepEqual(es, first) {
					t.Errorf("Fetch(%q) entries differ from those of %q:\n%v\n%v", u, s.url(""), es, first)
				}
			}
			for _, l := range tr.sent() {
				if l != `"\r\n"` {
					t.Errorf("sent %s for the root menu, want the empty selector %q", l, "\r\n")
				}
			}
			if len(tr.sent()) != 3 {
				t.Errorf("sent %q, want three requests", tr.sent())
			}
			// The names differ (pygopherd lists file names, gophernicus
			// the gophermap's display strings); the selectors do not.
			bySelector := map[string]fetch.Entry{}
			for _, e := range first {
				if e.URL != "" {
					g, err := gopherView(e.URL)
					if err != nil {
						t.Errorf("entry %q: URL %q: %v", e.Name, e.URL, err)
						continue
					}
					bySelector[g] = e
				}
			}
			plus := ""
			if s.name == "pygopherd" {
				plus = "%09%09+" // pygopherd marks its items as Gopher+ ones
			}
			want := []struct {
				url   string
				typ   fetch.EntryType
				media string
			}{
				{s.url("/0/hello.txt" + plus), fetch.EntryFile, "text/plain"},
				{s.url("/0/file%20with%20spaces.txt" + plus), fetch.EntryFile, "text/plain"},
				{s.url("/0/0about" + plus), fetch.EntryFile, "text/plain"},
				{s.url("/9/binary.bin" + plus), fetch.EntryFile, "application/octet-stream"},
				{s.url("/7" + s.search), fetch.EntrySearch, "application/gopher-menu"},
			}
			for _, w := range want {
				found := false
				for _, e := range first {
					if e.URL == w.url {
						found = true
						if e.Type != w.typ || e.Media != w.media || e.Size != -1 {
							t.Errorf("entry %q: type %v media %q size %d, want %v %q -1", e.URL, e.Type, e.Media, e.Size, w.typ, w.media)
						}
					}
				}
				if !found {
					t.Errorf("no entry with URL %q in %v", w.url, first)
				}
			}
			var dirs, infos int
			for _, e := range first {
				switch e.Type {
				case fetch.EntryDir:
					dirs++
				case fetch.EntryInfo:
					infos++
					if e.URL != "" {
						t.Errorf("info entry %q has URL %q, want none", e.Name, e.URL)
					}
				}
			}
			// pygopherd lists its root: dir, hostile (issue 22's
			// hostile names), html (issue 28's) and mirror (issue 27's
			// recursive retrieval); gophernicus' gophermap names dir and
			// mirror.
			wantDirs := map[string]int{"pygopherd": 4, "gophernicus": 2}[s.name]
			if dirs != wantDirs || infos == 0 {
				t.Errorf("%d dir and %d info entries, want %d dir and some info lines: %v", dirs, infos, wantDirs, first)
			}
			// Every entry URL is walkable: fetch the text ones.
			e, ok := findEntry(first, map[string]string{"pygopherd": "hello.txt", "gophernicus": "Hello"}[s.name])
			if !ok {
				t.Fatalf("no hello entry in %v", first)
			}
			if _, body := get(t, c, e.URL); string(body) != s.served(t, "hello.txt") {
				t.Errorf("Fetch(%q) = %q, want hello.txt", e.URL, body)
			}
		})
	}
}

// gopherView returns the decoded request line of a gopher URL.
func gopherView(raw string) (string, error) {
	req, err := (&fetch.Client{}).NewRequest(raw)
	if err != nil {
		return "", err
	}
	g, err := req.URL.Gopher()
	if err != nil {
		return "", err
	}
	return g.Request(), nil
}

// Acceptance 2 and 7: lines that start with dots come out exactly as the
// file has them from both servers, neither of which dot-stuffs text or
// ends it with a "." line; the Meta says the text ended at the close.
func TestGopherDotsText(t *testing.T) {
	for _, s := range gopherServers(t) {
		t.Run(s.name, func(t *testing.T) {
			c, _, _ := gopherClient(t)
			resp, body := get(t, c, s.url("/0/dots.txt"))
			if want := s.served(t, "dots.txt"); string(body) != want {
				t.Errorf("body = %q, want %q", body, want)
			}
			if resp.Kind != fetch.Document || resp.Type != "text/plain" || resp.Length != -1 {
				t.Errorf("Kind %v Type %q Length %d, want document text/plain -1", resp.Kind, resp.Type, resp.Length)
			}
			if got := resp.Meta.Get("Gopher-End"); got != "close" {
				t.Errorf("Meta Gopher-End = %q, want close (no \".\" line)", got)
			}
		})
	}
}

// Acceptance 7: a binary file by its SHA-256, the small one through the
// library and the 64 MiB one through the command, streamed.
func TestGopherBinary(t *testing.T) {
	for _, s := range gopherServers(t) {
		t.Run(s.name, func(t *testing.T) {
			c, _, _ := gopherClient(t)
			resp, body := get(t, c, s.url("/9/binary.bin"))
			if sum, n, _ := sha256Of(bytes.NewReader(body)); sum != env(t, "BINARY_SHA256") || strconv.FormatInt(n, 10) != env(t, "BINARY_SIZE") {
				t.Errorf("binary.bin: %d bytes, sha256 %s; want %s", n, sum, env(t, "BINARY_SHA256"))
			}
			if resp.Type != "application/octet-stream" {
				t.Errorf("Type = %q, want application/octet-stream", resp.Type)
			}

			checkBigFile(t, s.url("/9/big.bin"))
		})
	}
}

// Acceptance 1 and 7: the selector is decoded before it is sent, the
// type character never is, and a selector that begins with a copy of its
// type keeps it. pygopherd decodes nothing itself, so it tells a client
// that sends "%20" from one that sends a space.
func TestGopherSelectors(t *testing.T) {
	for _, s := range gopherServers(t) {
		t.Run(s.name, func(t *testing.T) {
			c, _, tr := gopherClient(t)
			tests := []struct {
				path, file, sent string
			}{
				{"/0/file%20with%20spaces.txt", "file with spaces.txt", `"/file with spaces.txt\r\n"`},
				{"/0%2Ffile%20with%20spaces%2Etxt", "file with spaces.txt", `"/file with spaces.txt\r\n"`},
				{"/00about", "0about", `"0about\r\n"`},
				{"/0/0about", "0about", `"/0about\r\n"`},
				{"/0hello.txt", "hello.txt", `"hello.txt\r\n"`},
			}
			for _, tt := range tests {
				_, body := get(t, c, s.url(tt.path))
				if want := s.served(t, tt.file); string(body) != want {
					t.Errorf("Fetch(%q) = %q, want %q", tt.path, body, want)
				}
				if sent := tr.sent(); len(sent) == 0 || sent[len(sent)-1] != tt.sent {
					t.Errorf("Fetch(%q) sent %q, want %s", tt.path, sent, tt.sent)
				}
			}
		})
	}
}

// Acceptance 4 and 7: a type-7 search with %09; without a search the
// library refuses before connecting, takes Driver.Search, or asks.
func TestGopherSearch(t *testing.T) {
	for _, s := range gopherServers(t) {
		t.Run(s.name, func(t *testing.T) {
			c, d, tr := gopherClient(t)
			u := s.url("/7" + s.search + "%09foo%20bar")
			_, es := gopherEntries(t, c, u)
			checkSearchResults(t, s, es, "foo bar")
			if sent := tr.sent(); len(sent) != 1 || sent[0] != strconv.Quote(s.search+"\tfoo bar\r\n") {
				t.Errorf("sent %q, want %q", sent, s.search+"\tfoo bar\r\n")
			}

			bare := s.url("/7" + s.search)
			n := len(tr.all())
			err := gopherFetchErr(t, c, bare)
			if !errors.Is(err, gopher.ErrSearchRequired) || !strings.Contains(err.Error(), "search is required") {
				t.Errorf("Fetch(%q) error = %v, want ErrSearchRequired", bare, err)
			}
			for _, l := range tr.all()[n:] {
				t.Errorf("Fetch(%q) without a search traced %q; want nothing sent", bare, l)
			}

			d.Search = "alpha"
			_, es = gopherEntries(t, c, bare)
			checkSearchResults(t, s, es, "alpha")
			d.Search = ""

			var asked []gopher.Question
			d.Ask = func(ctx context.Context, q gopher.Question) (string, error) {
				asked = append(asked, q)
				return "beta gamma", nil
			}
			_, es = gopherEntries(t, c, bare)
			checkSearchResults(t, s, es, "beta gamma")
			if len(asked) != 1 || asked[0].Kind != "Search" {
				t.Errorf("asked %+v, want one Search question", asked)
			}
		})
	}
}

func checkSearchResults(t *testing.T, s gopherServer, es []fetch.Entry, query string) {
	t.Helper()
	words := strings.Fields(query)
	if len(es) != 1+len(words) {
		t.Fatalf("search %q: %d entries %v, want %d", query, len(es), es, 1+len(words))
	}
	if es[0].Type != fetch.EntryInfo || es[0].Name != "query: "+query {
		t.Errorf("search %q: first entry %+v, want the info line echoing it", query, es[0])
	}
	for i, w := range words {
		e := es[1+i]
		if e.Name != "result for "+w || e.URL != s.url("/0/hello.txt") || e.Type != fetch.EntryFile {
			t.Errorf("search %q: entry %+v, want result for %s at %s", query, e, w, s.url("/0/hello.txt"))
		}
	}
}

// Acceptance 3 and 7: a missing selector is ErrNotFound with the server's
// own text, from the "3" item pygopherd sends for any type, the "3" menu
// gophernicus sends for a directory, and pygopherd's Gopher+ "--2" reply.
func TestGopherMissing(t *testing.T) {
	py, gn := pygopherd(t), gophernicus(t)
	c, _, _ := gopherClient(t)
	tests := []struct{ url, text string }{
		{py.url("/0/nothing"), "'/nothing' does not exist (no handler found)"},
		{py.url("/9/nothing"), "'/nothing' does not exist (no handler found)"},
		{py.url("/1/nothing"), "'/nothing' does not exist (no handler found)"},
		{py.url("/0/nothing%09%09+"), "'/nothing' does not exist (no handler found)"},
		{py.url("/0/nothing%09%09!"), "'/nothing' does not exist (no handler found)"},
		{gn.url("/1/nodir/"), "Error: File or directory not found!"},
		{gn.url("/7/cgi-bin/search%09"), "search needs a query"}, // an explicitly empty search is sent
	}
	for _, tt := range tests {
		err := gopherFetchErr(t, c, tt.url)
		if !errors.Is(err, fetch.ErrNotFound) || !strings.Contains(err.Error(), tt.text) {
			t.Errorf("Fetch(%q) error = %v, want ErrNotFound with %q", tt.url, err, tt.text)
		}
	}
}

// gophernicus answers a missing file of a text or binary type with a
// plain text line, not a "3" item (see servers/README.md): nothing in
// the reply tells it from a document, so it comes back as one. This pins
// the gap reported in the issue.
func TestGopherGophernicusMissingFileIsText(t *testing.T) {
	gn := gophernicus(t)
	_, body := get(t, client(t), gn.url("/0/nothing"))
	if !strings.HasPrefix(string(body), "Error: File or directory not found!") {
		t.Errorf("body = %q, want gophernicus's plain error text", body)
	}
}

// Acceptance 7: a closed port is ErrConnect.
func TestGopherClosedPort(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	a := l.Addr().String()
	l.Close()
	err = gopherFetchErr(t, client(t), "gopher://"+a+"/0/x")
	if !errors.Is(err, fetch.ErrConnect) {
		t.Errorf("Fetch of closed port %s: %v, want ErrConnect", a, err)
	}
}

// Acceptance 5: the Gopher+ forms pygopherd answers. "+" gives the default
// view with its exact length; a view and language are sent as written.
func TestGopherPlusViewPygopherd(t *testing.T) {
	s := pygopherd(t)
	c, _, tr := gopherClient(t)
	want := s.served(t, "hello.txt")
	tests := []struct{ path, sent, typ string }{
		{"/0/hello.txt%09%09+", "/hello.txt\t+\r\n", "text/plain"},
		{"/0/hello.txt%09+", "/hello.txt\t+\r\n", "text/plain"},
		{"/0/hello.txt%09%09+text/plain%20En_US", "/hello.txt\t+text/plain En_US\r\n", "text/plain"},
		{"/0/hello.txt%09%09+application/postscript%20Es_ES", "/hello.txt\t+application/postscript Es_ES\r\n", "application/postscript"},
	}
	for _, tt := range tests {
		resp, body := get(t, c, s.url(tt.path))
		if string(body) != want {
			t.Errorf("Fetch(%q) = %q, want %q", tt.path, body, want)
		}
		if resp.Length != int64(len(want)) || resp.Meta.Get("Gopher-Plus") != "+"+strconv.Itoa(len(want)) || resp.Meta.Get("Gopher-End") != "length" {
			t.Errorf("Fetch(%q): Length %d Meta %v, want the +%d header honoured", tt.path, resp.Length, resp.Meta, len(want))
		}
		if resp.Type != tt.typ {
			t.Errorf("Fetch(%q).Type = %q, want %q", tt.path, resp.Type, tt.typ)
		}
		if sent := tr.sent(); sent[len(sent)-1] != strconv.Quote(tt.sent) {
			t.Errorf("Fetch(%q) sent %s, want %q", tt.path, sent[len(sent)-1], tt.sent)
		}
	}
	// A binary item with "+": exactly its bytes.
	_, body := get(t, c, s.url("/9/binary.bin%09%09+"))
	if sum, _, _ := sha256Of(bytes.NewReader(body)); sum != env(t, "BINARY_SHA256") {
		t.Errorf("binary.bin with +: sha256 %s, want %s", sum, env(t, "BINARY_SHA256"))
	}
	// A directory with "+" answers "+-2" and a Gopher+ menu.
	resp, es := gopherEntries(t, c, s.url("/1/dir%09%09+"))
	if resp.Meta.Get("Gopher-Plus") != "+-2" || len(es) != 1 || es[0].URL != s.url("/0/dir/inner.txt%09%09+") {
		t.Errorf("/1/dir with +: Meta %v entries %v, want +-2 and inner.txt", resp.Meta, es)
	}
	// A search with "+" after the words.
	_, es = gopherEntries(t, c, s.url("/7/search%09foo%09+"))
	checkSearchResults(t, s, es, "foo")
	if sent := tr.sent(); sent[len(sent)-1] != strconv.Quote("/search\tfoo\t+\r\n") {
		t.Errorf("search with +: sent %s", sent[len(sent)-1])
	}
}

// Acceptance 5: "!" gives an item's attribute blocks, parsed into Meta and
// printed readably; "!+ABSTRACT" and several names select blocks (pygopherd
// answers those with the document, so the client asks for "!" and picks).
func TestGopherPlusAttributesPygopherd(t *testing.T) {
	s := pygopherd(t)
	c, _, tr := gopherClient(t)
	info := "0dots.txt\t/dots.txt\t127.0.0.1\t" + s.port() + "\t+"
	abstract := []string{`Lines that start with "." and "..":`, "pygopherd sends them as they are, with no dot-stuffing."}

	resp, body := get(t, c, s.url("/0/dots.txt%09%09!"))
	m := resp.Meta
	if resp.Kind != fetch.Document || !strings.HasPrefix(resp.Type, "text/plain") {
		t.Errorf("Kind %v Type %q, want a text document", resp.Kind, resp.Type)
	}
	if got := m.Values("Gopher-Info"); !slices.Equal(got, []string{info}) {
		t.Errorf("Meta Gopher-Info = %q, want %q", got, info)
	}
	if got := m.Values("Gopher-Admin"); len(got) != 2 || got[0] != "Admin: urlfetch test bed <admin@urlfetch.test>" || !strings.HasPrefix(got[1], "Mod-Date: ") {
		t.Errorf("Meta Gopher-Admin = %q", got)
	}
	if got := m.Values("Gopher-Views"); !slices.Equal(got, []string{"text/plain: <0k>"}) {
		t.Errorf("Meta Gopher-Views = %q", got)
	}
	if got := m.Values("Gopher-Abstract"); !slices.Equal(got, abstract) {
		t.Errorf("Meta Gopher-Abstract = %q, want %q", got, abstract)
	}
	if resp.Modified.IsZero() {
		t.Errorf("Modified is zero; want the +ADMIN Mod-Date")
	}
	for _, w := range append([]string{"dots.txt", "Admin: urlfetch test bed <admin@urlfetch.test>", "text/plain: <0k>", s.url("/0/dots.txt%09%09+")}, abstract...) {
		if !strings.Contains(string(body), w) {
			t.Errorf("printed attributes lack %q:\n%s", w, body)
		}
	}
	if bytes.ContainsAny(body, "\t") {
		t.Errorf("printed attributes hold TABs:\n%s", body)
	}

	for _, tt := range []struct {
		plus   string
		blocks []string
	}{
		{"!+ABSTRACT", []string{"Gopher-Info", "Gopher-Abstract"}},
		{"!+ABSTRACT%20+VIEWS", []string{"Gopher-Info", "Gopher-Abstract", "Gopher-Views"}},
	} {
		n := len(tr.sent())
		resp, _ := get(t, c, s.url("/0/dots.txt%09%09"+tt.plus))
		var keys []string
		for k := range resp.Meta {
			if strings.HasPrefix(k, "Gopher-") && k != "Gopher-Plus" && k != "Gopher-End" && k != "Gopher-Type" {
				keys = append(keys, k)
			}
		}
		slices.Sort(keys)
		want := slices.Sorted(slices.Values(tt.blocks))
		if !slices.Equal(keys, want) {
			t.Errorf("%s: Meta blocks %q, want %q", tt.plus, keys, want)
		}
		if got := resp.Meta.Values("Gopher-Abstract"); !slices.Equal(got, abstract) {
			t.Errorf("%s: Meta Gopher-Abstract = %q", tt.plus, got)
		}
		if sent := tr.sent()[n:]; len(sent) != 2 || sent[1] != strconv.Quote("/dots.txt\t!\r\n") {
			t.Errorf("%s: sent %q, want the selection, then \"!\"", tt.plus, sent)
		}
	}
}

// Acceptance 5: "$" gives the attributes of every item of a directory.
func TestGopherPlusDirectoryAttributes(t *testing.T) {
	for _, s := range gopherServers(t) {
		t.Run(s.name, func(t *testing.T) {
			c, _, tr := gopherClient(t)
			resp, body := get(t, c, s.url("/1%09%09$"))
			if sent := tr.sent(); sent[len(sent)-1] != strconv.Quote("\t$\r\n") {
				t.Errorf("sent %s, want %q", sent[len(sent)-1], "\t$\r\n")
			}
			infos := resp.Meta.Values("Gopher-Info")
			switch s.name {
			case "pygopherd":
				// One +INFO per item of the root menu.
				_, es := gopherEntries(t, c, s.url("/"))
				if len(infos) != len(es) || !slices.Contains(infos, "0hello.txt\t/hello.txt\t127.0.0.1\t"+s.port()+"\t+") {
					t.Errorf("Gopher-Info = %q, want one per root item (%d)", infos, len(es))
				}
				if got := resp.Meta.Values("Gopher-Ask"); len(got) != 2 {
					t.Errorf("Gopher-Ask = %q, want form.txt's two questions", got)
				}
				if !strings.Contains(string(body), "hello.txt") || !strings.Contains(string(body), "binary.bin") {
					t.Errorf("printed attributes:\n%s", body)
				}
				resp, _ := get(t, c, s.url("/1/dir%09%09$"))
				if got := resp.Meta.Values("Gopher-Info"); !slices.Equal(got, []string{"0inner.txt\t/dir/inner.txt\t127.0.0.1\t" + s.port() + "\t+"}) {
					t.Errorf("/1/dir with $: Gopher-Info = %q, want inner.txt's", got)
				}
			case "gophernicus":
				// Its only Gopher+ answer: +INFO and +VIEWS of the root.
				if !slices.Equal(infos, []string{"1Main menu\t\t127.0.0.1\t" + s.port()}) {
					t.Errorf("Gopher-Info = %q", infos)
				}
				if got := resp.Meta.Values("Gopher-Views"); !slices.Equal(got, []string{"application/gopher+-menu: <512b>"}) {
					t.Errorf("Gopher-Views = %q", got)
				}
				if resp.Meta.Get("Gopher-Plus") != "+-1" || !strings.Contains(string(body), "Main menu") {
					t.Errorf("Meta %v, body:\n%s", resp.Meta, body)
				}
			}
		})
	}
}

// gophernicus speaks no Gopher+ but for "$" on its root: "!" elsewhere is
// answered with the document, which the client reports rather than passes
// off as attributes; "+" gives the plain document.
func TestGopherPlusGophernicusUnsupported(t *testing.T) {
	s := gophernicus(t)
	c, _, _ := gopherClient(t)
	err := gopherFetchErr(t, c, s.url("/0/hello.txt%09%09!"))
	if !errors.Is(err, fetch.ErrUnsupported) || !strings.Contains(err.Error(), "attribute") {
		t.Errorf("\"!\" on gophernicus: %v, want ErrUnsupported about attributes", err)
	}
	resp, body := get(t, c, s.url("/0/hello.txt%09%09+"))
	if string(body) != s.served(t, "hello.txt") || resp.Meta.Get("Gopher-Plus") != "" {
		t.Errorf("\"+\" on gophernicus: %q Meta %v, want the plain document", body, resp.Meta)
	}
}

// Acceptance 5: a "?" item: the client fetches the +ASK form, asks each
// question through Driver.Ask and sends the answers as RFC 1738 section
// 3.4.9 shows; a URL with the filled-in form is sent verbatim.
func TestGopherPlusAskPygopherd(t *testing.T) {
	s := pygopherd(t)
	c, d, tr := gopherClient(t)
	want := s.served(t, "form.txt")

	err := gopherFetchErr(t, c, s.url("/0/form.txt%09%09?"))
	if !errors.Is(err, fetch.ErrUnsupported) || !strings.Contains(err.Error(), "+ASK") {
		t.Errorf("a form without Driver.Ask: %v, want ErrUnsupported naming +ASK", err)
	}

	var asked []gopher.Question
	d.Ask = func(ctx context.Context, q gopher.Question) (string, error) {
		asked = append(asked, q)
		switch q.Kind {
		case "Ask":
			return "Bob", nil
		case "Choose":
			return q.Choices[1], nil
		}
		return "", fmt.Errorf("unexpected question %+v", q)
	}
	n := len(tr.sent())
	_, body := get(t, c, s.url("/0/form.txt%09%09?"))
	if string(body) != want {
		t.Errorf("form answered: %q, want %q", body, want)
	}
	wantQ := []gopher.Question{
		{Kind: "Ask", Prompt: "What is your name?", Default: "nobody"},
		{Kind: "Choose", Prompt: "Pick a colour", Choices: []string{"red", "green", "blue"}},
	}
	if fmt.Sprint(asked) != fmt.Sprint(wantQ) {
		t.Errorf("asked %+v, want %+v", asked, wantQ)
	}
	wantSent := []string{`"/form.txt\t!\r\n"`, `"/form.txt\t+\t1\r\n"`, `"+-1\r\n"`, `"Bob\r\n"`, `"green\r\n"`, `".\r\n"`}
	if got := tr.sent()[n:]; !slices.Equal(got, wantSent) {
		t.Errorf("sent %q, want %q", got, wantSent)
	}

	d.Ask = nil
	n = len(tr.sent())
	filled := s.url("/0/form.txt%09+%091%0D%0A+-1%0D%0AAlice%0D%0Ablue%0D%0A.%0D%0A")
	_, body = get(t, c, filled)
	if string(body) != want {
		t.Errorf("filled-in form URL: %q, want %q", body, want)
	}
	wantSent = []string{`"/form.txt\t+\t1\r\n"`, `"+-1\r\n"`, `"Alice\r\n"`, `"blue\r\n"`, `".\r\n"`}
	if got := tr.sent()[n:]; !slices.Equal(got, wantSent) {
		t.Errorf("filled-in form sent %q, want %q", got, wantSent)
	}
}

// Acceptance 4 through the command: --search fills a type-7 URL without
// one, and without it the command says a search is required.
func TestGopherCommandSearch(t *testing.T) {
	s := pygopherd(t)
	dir := t.TempDir()
	r := runFetch(t, dir, "--urls", "--search", "foo bar", s.url("/7/search"))
	if r.code != 0 || !strings.Contains(r.stdout, "result for foo") || !strings.Contains(r.stdout, "result for bar") {
		t.Errorf("fetch --search: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
	}
	r = runFetch(t, dir, s.url("/7/search"))
	if r.code != 6 || !strings.Contains(r.stderr, "search is required") {
		t.Errorf("fetch of a type-7 URL without a search: exit %d, stderr %q; want 6 and a message saying a search is required", r.code, r.stderr)
	}
	r = runFetch(t, dir, "-v", s.url("/7/search%09x"))
	if !strings.Contains(r.stderr, `> "/search\tx\r\n"`) {
		t.Errorf("fetch -v: trace %q lacks the exact request", r.stderr)
	}
}

// Acceptance 6 on the real servers: the conformance suite, with a local
// listener that never answers as the stall (no real server stalls).
func TestGopherConformance(t *testing.T) {
	for _, s := range gopherServers(t) {
		t.Run(s.name, func(t *testing.T) {
			missing := s.url("/0/nothing")
			if s.name == "gophernicus" {
				missing = s.url("/1/nodir/")
			}
			fetchtest.Run(t, fetchtest.Opt{
				Scheme: "gopher",
				Driver: &gopher.Driver{},
				Found: []fetchtest.Case{
					{URL: s.url("/0/hello.txt"), Want: s.served(t, "hello.txt"), Type: "text/plain"},
					{URL: s.url("/9/binary.bin"), SHA256: env(t, "BINARY_SHA256")},
					{URL: s.url("/1/dir/"), Kind: fetch.Listing},
				},
				Missing: missing,
				Listing: s.url("/"),
				Stall:   gopherStall,
				Inject: []string{
					s.url("/0/hello.txt%0D%0A/dots.txt"),
					s.url("/0/hello.txt%00"),
					s.url("/7" + s.search + "%09a%0Ab"),
					s.url("/0/hello.txt%09%09+%0D%0A"),
				},
				Transfers: gopherTransfers,
				// Plain Gopher URLs: a Head asks the server nothing.
				Caps: fetchtest.Caps{HeadFromURL: true},
			})
		})
	}
}

// gopherStall returns the URL of a server that accepts and never answers.
func gopherStall(t testing.TB) string {
	return "gopher://" + fetchtest.SilentServer(t) + "/0/stall"
}
