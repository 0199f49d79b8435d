//go:build integration

package integration

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/urlfetch/urlfetch/fetch"
	"github.com/urlfetch/urlfetch/fetch/fetchtest"
	"github.com/urlfetch/urlfetch/fetch/nntp"
)

// The news and nntp driver against the harness's INN: articles by
// message-id and by number, group listings from OVER, the group list from
// LIST ACTIVE, errors with INN's own replies, and one connection reused
// for several URLs. A tap on the Client's dial path counts the
// connections and records every byte the client sent, so the tests see
// the commands as INN received them.

// nntpTap is a dialer for fetch.Client.DialContext that records what the
// client writes on each connection.
type nntpTap struct {
	mu    sync.Mutex
	conns []*tapConn
}

type tapConn struct {
	net.Conn
	mu   sync.Mutex
	sent bytes.Buffer
}

func (c *tapConn) Write(p []byte) (int, error) {
	c.mu.Lock()
	c.sent.Write(p)
	c.mu.Unlock()
	return c.Conn.Write(p)
}

func (c *tapConn) text() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.sent.String()
}

func (tp *nntpTap) dial(ctx context.Context, network, a string) (net.Conn, error) {
	var d net.Dialer
	nc, err := d.DialContext(ctx, network, a)
	if err != nil {
		return nil, err
	}
	tc := &tapConn{Conn: nc}
	tp.mu.Lock()
	tp.conns = append(tp.conns, tc)
	tp.mu.Unlock()
	return tc, nil
}

// dials returns how many connections the client opened.
func (tp *nntpTap) dials() int {
	tp.mu.Lock()
	defer tp.mu.Unlock()
	return len(tp.conns)
}

// sent returns every line the client sent, over all connections, in the
// order of the connections.
func (tp *nntpTap) sent() []string {
	tp.mu.Lock()
	defer tp.mu.Unlock()
	var lines []string
	for _, c := range tp.conns {
		for _, l := range strings.SplitAfter(c.text(), "\r\n") {
			if l != "" {
				lines = append(lines, l)
			}
		}
	}
	return lines
}

// newsClient returns a Client whose news server is the harness's INN,
// dialing through a tap, and the driver to adjust before the first Fetch.
func newsClient(t testing.TB) (*fetch.Client, *nntp.Driver, *nntpTap) {
	t.Helper()
	c := client(t)
	tap := &nntpTap{}
	c.DialContext = tap.dial
	d, ok := c.Driver("news").(*nntp.Driver)
	if !ok {
		t.Fatalf("Client.Driver(\"news\") = %T, want *nntp.Driver", c.Driver("news"))
	}
	if c.Driver("nntp") != fetch.Driver(d) {
		t.Fatalf("news: and nntp: have different drivers: %T, %T", c.Driver("news"), c.Driver("nntp"))
	}
	d.Server = addr(t, "NNTP")
	return c, d, tap
}

// nntpBase is the nntp URL of the harness's INN, without a path.
func nntpBase(t testing.TB) string { return "nntp://" + addr(t, "NNTP") }

// articleFile returns the headers and body of one of the harness's
// article files, as posted.
func articleFile(t testing.TB, name string) (header, body string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("servers", "inn", "articles", name))
	if err != nil {
		t.Fatal(err)
	}
	h, bd, ok := strings.Cut(string(b), "\n\n")
	if !ok {
		t.Fatalf("%s has no empty line after its headers", name)
	}
	return h + "\n", bd
}

// splitArticle cuts a fetched article at its first empty line.
func splitArticle(t testing.TB, article []byte) (header, body string) {
	t.Helper()
	h, b, ok := strings.Cut(string(article), "\n\n")
	if !ok {
		t.Fatalf("article has no empty line after its headers: %q", article)
	}
	return h + "\n", b
}

// sentIndex returns the index of line (with CRLF) in what the client
// sent, or -1.
func sentIndex(lines []string, line string) int {
	for i, l := range lines {
		if l == line+"\r\n" {
			return i
		}
	}
	return -1
}

// Issue 24, point 2: no round trip the URL does not need. Each URL form
// on a new connection to INN, whose nnrpd is a reader from the greeting
// on, sends only what the URL asks for: no CAPABILITIES, no MODE READER
// (the driver sends no command before the reply to the last, so each
// command is one round trip after the greeting). A second URL on the
// pooled connection sends only its own commands.
func TestNewsRoundTrips(t *testing.T) {
	for _, tc := range []struct {
		urls []string
		want []string
	}{
		{[]string{"news:hello@urlfetch.test"}, []string{"ARTICLE <hello@urlfetch.test>"}},
		{[]string{"news:urlfetch.test"}, []string{"GROUP urlfetch.test", "OVER 1-4"}},
		{[]string{"news:*"}, []string{"LIST ACTIVE"}},
		{[]string{nntpBase(t) + "/urlfetch.test/2"}, []string{"GROUP urlfetch.test", "ARTICLE 2"}},
		{[]string{"news:hello@urlfetch.test", "news:dot-stuffed@urlfetch.test", "news:urlfetch.test"},
			[]string{"ARTICLE <hello@urlfetch.test>", "ARTICLE <dot-stuffed@urlfetch.test>", "GROUP urlfetch.test", "OVER 1-4"}},
	} {
		t.Run(strings.Join(tc.urls, " "), func(t *testing.T) {
			c, _, tap := newsClient(t)
			for _, u := range tc.urls {
				resp, err := c.Fetch(t.Context(), u)
				if err != nil {
					t.Fatalf("Fetch(%q): %v", u, err)
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
			}
			var got []string
			for _, l := range tap.sent() {
				got = append(got, strings.TrimSuffix(l, "\r\n"))
			}
			if !slices.Equal(got, tc.want) || tap.dials() != 1 {
				t.Errorf("the client sent %q on %d connections, want %q on 1", got, tap.dials(), tc.want)
			}
		})
	}
}

func TestNewsArticle(t *testing.T) {
	c, _, tap := newsClient(t)
	_, wantBody := articleFile(t, "01-hello.art")
	resp, article := get(t, c, "news:hello@urlfetch.test")
	if resp.Kind != fetch.Document || resp.Type != "message/rfc822" {
		t.Errorf("Kind, Type = %v, %q; want document, message/rfc822", resp.Kind, resp.Type)
	}
	header, body := splitArticle(t, article)
	if body != wantBody {
		t.Errorf("body = %q, want %q", body, wantBody)
	}
	if !strings.Contains(header, "Message-ID: <hello@urlfetch.test>\n") || !strings.Contains(header, "Xref: ") {
		t.Errorf("header as served = %q, want INN's headers with the Message-ID", header)
	}
	for k, want := range map[string]string{
		"Subject":    "Hello from the urlfetch test bed",
		"From":       "urlfetch tester <tester@urlfetch.test>",
		"Message-Id": "<hello@urlfetch.test>",
		"Newsgroups": "urlfetch.test",
	} {
		if got := resp.Meta.Get(k); got != want {
			t.Errorf("Meta[%q] = %q, want %q", k, got, want)
		}
	}
	if want := time.Date(1994, 12, 20, 12, 0, 0, 0, time.UTC); !resp.Modified.Equal(want) {
		t.Errorf("Modified = %v, want %v (the Date header)", resp.Modified, want)
	}
	if resp.Length >= 0 && resp.Length != int64(len(article)) {
		t.Errorf("Length = %d, body has %d bytes", resp.Length, len(article))
	}
	if sentIndex(tap.sent(), "ARTICLE <hello@urlfetch.test>") < 0 {
		t.Errorf("the client sent %q, want ARTICLE <hello@urlfetch.test>", tap.sent())
	}
}

// The body's lines that start with "." arrive dot-stuffed; the client
// gives them back as posted, and the single "." line does not end the
// article.
func TestNewsArticleDotLines(t *testing.T) {
	c, _, _ := newsClient(t)
	_, wantBody := articleFile(t, "02-dot-stuffed.art")
	_, article := get(t, c, "news:dot-stuffed@urlfetch.test")
	if _, body := splitArticle(t, article); body != wantBody {
		t.Errorf("body = %q, want %q", body, wantBody)
	}
}

func TestNewsArticleNonASCII(t *testing.T) {
	c, _, _ := newsClient(t)
	_, wantBody := articleFile(t, "03-non-ascii.art")
	resp, article := get(t, c, "news:non-ascii@urlfetch.test")
	if _, body := splitArticle(t, article); body != wantBody {
		t.Errorf("body = %q, want %q", body, wantBody)
	}
	if got := resp.Meta.Get("Content-Type"); got != "text/plain; charset=utf-8" {
		t.Errorf("Meta Content-Type = %q", got)
	}
}

// The article of about one MiB, streamed: its body by SHA-256 (the
// client turns the wire's CRLF into LF, so the body is the file as
// posted).
func TestNewsArticleOneMiB(t *testing.T) {
	c, _, _ := newsClient(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	resp, err := c.Fetch(ctx, "news:one-mib@urlfetch.test")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	br := bufio.NewReader(resp.Body)
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			t.Fatalf("reading the header: %v", err)
		}
		if line == "\n" {
			break
		}
	}
	sum, n, err := sha256Of(br)
	if err != nil {
		t.Fatalf("reading the body: %v", err)
	}
	fi, err := os.Stat(env(t, "NNTP_ONE_MIB_BODY"))
	if err != nil {
		t.Fatal(err)
	}
	if sum != env(t, "NNTP_ONE_MIB_SHA256") || n != fi.Size() {
		t.Errorf("body: %d bytes, sha256 %s; want %d bytes, %s", n, sum, fi.Size(), env(t, "NNTP_ONE_MIB_SHA256"))
	}
	if err := resp.Body.Close(); err != nil {
		t.Errorf("Close after the whole article = %v", err)
	}
}

func TestNewsArticleMissing(t *testing.T) {
	c, _, _ := newsClient(t)
	_, err := c.Fetch(context.Background(), "news:no-such-article@urlfetch.test")
	if !errors.Is(err, fetch.ErrNotFound) {
		t.Fatalf("error = %v, want ErrNotFound", err)
	}
	var re *nntp.ReplyError
	if !errors.As(err, &re) || re.Code != 430 {
		t.Errorf("error = %v, want it to wrap INN's 430 reply", err)
	}
	if msg := err.Error(); !strings.Contains(msg, "nntp: ARTICLE <no-such-article@urlfetch.test>: 430 ") {
		t.Errorf("error = %q, want the command and INN's reply", msg)
	}
}

// groupEntries fetches a listing and returns its entries, failing on any
// entry error.
func groupEntries(t testing.TB, c *fetch.Client, rawURL string) []fetch.Entry {
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
	if err := resp.Body.Close(); err != nil {
		t.Errorf("Fetch(%q): Close = %v", rawURL, err)
	}
	return es
}

// entryNumbers returns the article numbers of a group listing.
func entryNumbers(t testing.TB, es []fetch.Entry) []int {
	t.Helper()
	var ns []int
	for _, e := range es {
		n, err := strconv.Atoi(e.Name)
		if err != nil {
			t.Fatalf("entry name %q is not an article number", e.Name)
		}
		ns = append(ns, n)
	}
	return ns
}

// descending returns hi, hi-1, ..., lo.
func descending(hi, lo int) []int {
	var ns []int
	for n := hi; n >= lo; n-- {
		ns = append(ns, n)
	}
	return ns
}

func TestNewsGroupListing(t *testing.T) {
	c, _, tap := newsClient(t)
	es := groupEntries(t, c, "news:urlfetch.test")
	if got, want := fmt.Sprint(entryNumbers(t, es)), fmt.Sprint(descending(4, 1)); got != want {
		t.Fatalf("article numbers = %s, want %s (newest first)", got, want)
	}
	wantURL := []string{"news:one-mib@urlfetch.test", "news:non-ascii@urlfetch.test", "news:dot-stuffed@urlfetch.test", "news:hello@urlfetch.test"}
	wantSubject := []string{"A body of about one MiB", "Non-ASCII body", "Lines that start with dots", "Hello from the urlfetch test bed"}
	for i, e := range es {
		if e.URL != wantURL[i] || e.Type != fetch.EntryArticle {
			t.Errorf("entry %s: URL %q type %v, want %q article", e.Name, e.URL, e.Type, wantURL[i])
		}
		if !strings.Contains(e.Title, wantSubject[i]) || !strings.Contains(e.Title, "urlfetch tester <tester@urlfetch.test>") {
			t.Errorf("entry %s: Title %q, want the subject %q and the author", e.Name, e.Title, wantSubject[i])
		}
		if e.Size <= 0 || e.Time.IsZero() {
			t.Errorf("entry %s: Size %d Time %v, want the overview's bytes and date", e.Name, e.Size, e.Time)
		}
	}
	if want := time.Date(1994, 12, 20, 12, 0, 0, 0, time.UTC); !es[3].Time.Equal(want) {
		t.Errorf("entry 1 Time = %v, want %v", es[3].Time, want)
	}
	if es[0].Size < 1<<20 {
		t.Errorf("entry 4 Size = %d, want the one-MiB article's size", es[0].Size)
	}
	sent := tap.sent()
	if g, o := sentIndex(sent, "GROUP urlfetch.test"), sentIndex(sent, "OVER 1-4"); g < 0 || o < g {
		t.Errorf("the client sent %q, want GROUP urlfetch.test, then OVER 1-4", sent)
	}
	// INN's nnrpd lists READER: no MODE READER (RFC 3977 section 5.3).
	if sentIndex(sent, "MODE READER") >= 0 {
		t.Errorf("the client sent %q; INN lists READER, so MODE READER is not needed", sent)
	}
	// An entry's URL leads to its article.
	_, wantBody := articleFile(t, "02-dot-stuffed.art")
	if _, article := get(t, c, es[2].URL); !strings.HasSuffix(string(article), "\n\n"+wantBody) {
		t.Errorf("Fetch(%q) = %q, want the dot-stuffed article", es[2].URL, article)
	}
}

// urlfetch.big has 210 articles: all of them, newest first, with
// MaxEntries < 0; the newest N by default or with MaxEntries N; a range.
func TestNewsGroupListingBig(t *testing.T) {
	total, err := strconv.Atoi(env(t, "NNTP_BIG_GROUP_COUNT"))
	if err != nil || total < 200 {
		t.Fatalf("NNTP_BIG_GROUP_COUNT = %q, want at least 200", env(t, "NNTP_BIG_GROUP_COUNT"))
	}
	for _, tc := range []struct {
		name       string
		maxEntries int
		rng        nntp.ArticleRange
		want       []int
	}{
		{"all", -1, nntp.ArticleRange{}, descending(total, 1)},
		{"default", 0, nntp.ArticleRange{}, descending(total, total-nntp.DefaultMaxEntries+1)},
		{"newest7", 7, nntp.ArticleRange{}, descending(total, total-6)},
		{"range5-9", 0, nntp.ArticleRange{First: 5, Last: 9}, descending(9, 5)},
		{"rangePastEnd", 0, nntp.ArticleRange{First: int64(total - 2), Last: int64(total + 50)}, descending(total, total-2)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, d, _ := newsClient(t)
			d.MaxEntries = tc.maxEntries
			d.Range = tc.rng
			es := groupEntries(t, c, "news:urlfetch.big")
			if got, want := fmt.Sprint(entryNumbers(t, es)), fmt.Sprint(tc.want); got != want {
				t.Fatalf("article numbers = %s, want %s", got, want)
			}
			for _, e := range es {
				n, _ := strconv.Atoi(e.Name)
				wantURL := fmt.Sprintf("news:big-%03d@urlfetch.test", n)
				wantTitle := fmt.Sprintf("Article %03d of urlfetch.big", n)
				wantTime := time.Date(1994, 12, 21, n/60, n%60, 0, 0, time.UTC)
				if e.URL != wantURL || !strings.Contains(e.Title, wantTitle) || !e.Time.Equal(wantTime) || e.Size <= 0 {
					t.Errorf("entry %d = %+v, want URL %s, title %q, time %v, a size", n, e, wantURL, wantTitle, wantTime)
				}
			}
		})
	}
}

func TestNewsGroupEmpty(t *testing.T) {
	c, _, _ := newsClient(t)
	if es := groupEntries(t, c, "news:urlfetch.empty"); len(es) != 0 {
		t.Errorf("urlfetch.empty lists %d entries: %+v", len(es), es)
	}
}

func TestNewsGroupMissing(t *testing.T) {
	c, _, _ := newsClient(t)
	for _, raw := range []string{"news:urlfetch.no-such-group", nntpBase(t) + "/urlfetch.no-such-group", nntpBase(t) + "/urlfetch.no-such-group/1"} {
		_, err := c.Fetch(context.Background(), raw)
		var re *nntp.ReplyError
		if !errors.Is(err, fetch.ErrNotFound) || !errors.As(err, &re) || re.Code != 411 {
			t.Errorf("Fetch(%q) error = %v, want ErrNotFound with INN's 411", raw, err)
			continue
		}
		if !strings.Contains(err.Error(), "nntp: GROUP urlfetch.no-such-group: 411 ") {
			t.Errorf("Fetch(%q) error = %q, want the command and INN's reply", raw, err)
		}
	}
}

func TestNewsAllGroups(t *testing.T) {
	c, _, tap := newsClient(t)
	es := groupEntries(t, c, "news:*")
	byName := map[string]fetch.Entry{}
	for _, e := range es {
		if e.Type != fetch.EntryGroup || e.URL != "news:"+e.Name {
			t.Errorf("entry %+v, want a group whose URL is news:%s", e, e.Name)
		}
		byName[e.Name] = e
	}
	for name, want := range map[string]string{
		"urlfetch.test":  "4 articles",
		"urlfetch.big":   env(t, "NNTP_BIG_GROUP_COUNT") + " articles",
		"urlfetch.empty": "0 articles",
		"control":        "no posting",
	} {
		if e, ok := byName[name]; !ok || !strings.Contains(e.Title, want) {
			t.Errorf("news:* entry %q = %+v (present %v), want a title with %q", name, e, ok, want)
		}
	}
	if !strings.Contains(byName["urlfetch.test"].Title, "posting allowed") {
		t.Errorf("urlfetch.test title %q, want its posting status", byName["urlfetch.test"].Title)
	}
	if sentIndex(tap.sent(), "LIST ACTIVE") < 0 {
		t.Errorf("the client sent %q, want LIST ACTIVE", tap.sent())
	}
}

// Beyond RFC 1738, which gives only "*": a wildmat selects groups
// (RFC 5538 section 2.2).
func TestNewsGroupWildmat(t *testing.T) {
	c, _, tap := newsClient(t)
	var names []string
	for _, e := range groupEntries(t, c, "news:urlfetch.*") {
		names = append(names, e.Name)
	}
	if got := strings.Join(names, " "); got != "urlfetch.test urlfetch.big urlfetch.empty" {
		t.Errorf("news:urlfetch.* lists %q, want INN's three urlfetch groups in active order", got)
	}
	if sentIndex(tap.sent(), "LIST ACTIVE urlfetch.*") < 0 {
		t.Errorf("the client sent %q, want LIST ACTIVE urlfetch.*", tap.sent())
	}
}

func TestNNTPArticle(t *testing.T) {
	c, _, tap := newsClient(t)
	_, wantBody := articleFile(t, "02-dot-stuffed.art")
	resp, article := get(t, c, nntpBase(t)+"/urlfetch.test/2")
	if resp.Type != "message/rfc822" || resp.Meta.Get("Message-Id") != "<dot-stuffed@urlfetch.test>" {
		t.Errorf("Type %q, Message-Id %q", resp.Type, resp.Meta.Get("Message-Id"))
	}
	if _, body := splitArticle(t, article); body != wantBody {
		t.Errorf("body = %q, want %q", body, wantBody)
	}
	sent := tap.sent()
	if g, a := sentIndex(sent, "GROUP urlfetch.test"), sentIndex(sent, "ARTICLE 2"); g < 0 || a != g+1 {
		t.Errorf("the client sent %q, want GROUP urlfetch.test then ARTICLE 2", sent)
	}
}

func TestNNTPArticleMissing(t *testing.T) {
	c, _, _ := newsClient(t)
	raw := nntpBase(t) + "/urlfetch.test/999"
	_, err := c.Fetch(context.Background(), raw)
	var re *nntp.ReplyError
	if !errors.Is(err, fetch.ErrNotFound) || !errors.As(err, &re) || re.Code != 423 {
		t.Fatalf("Fetch(%q) error = %v, want ErrNotFound with INN's 423", raw, err)
	}
	if !strings.Contains(err.Error(), "nntp: ARTICLE 999 in urlfetch.test: 423 ") {
		t.Errorf("error = %q, want the command and INN's reply", err)
	}
}

func TestNNTPGroupListing(t *testing.T) {
	c, d, _ := newsClient(t)
	d.MaxEntries = -1
	base := nntpBase(t)
	es := groupEntries(t, c, base+"/urlfetch.big")
	total, _ := strconv.Atoi(env(t, "NNTP_BIG_GROUP_COUNT"))
	if got, want := fmt.Sprint(entryNumbers(t, es)), fmt.Sprint(descending(total, 1)); got != want {
		t.Fatalf("article numbers = %s, want %s", got, want)
	}
	for _, e := range es {
		if want := base + "/urlfetch.big/" + e.Name; e.URL != want {
			t.Errorf("entry %s URL = %q, want %q", e.Name, e.URL, want)
		}
	}
	resp, _ := get(t, c, es[0].URL)
	if got := resp.Meta.Get("Message-Id"); got != fmt.Sprintf("<big-%03d@urlfetch.test>", total) {
		t.Errorf("Fetch(%q) Message-Id = %q, want the newest article", es[0].URL, got)
	}
}

// Beyond RFC 1738: nntp://host/ without a group lists the server's
// groups, each entry an nntp URL.
func TestNNTPAllGroups(t *testing.T) {
	c, _, _ := newsClient(t)
	base := nntpBase(t)
	found := false
	for _, e := range groupEntries(t, c, base+"/") {
		if e.URL != base+"/"+e.Name {
			t.Errorf("entry %q URL = %q, want %q", e.Name, e.URL, base+"/"+e.Name)
		}
		found = found || e.Name == "urlfetch.big"
	}
	if !found {
		t.Errorf("nntp://host/ does not list urlfetch.big")
	}
}

// Several news and nntp URLs to one server share one connection, a
// failed command (430) included; closing the Client ends it with QUIT.
func TestNewsReusesConnection(t *testing.T) {
	c, _, tap := newsClient(t)
	get(t, c, "news:hello@urlfetch.test")
	if _, err := c.Fetch(context.Background(), "news:no-such-article@urlfetch.test"); !errors.Is(err, fetch.ErrNotFound) {
		t.Fatalf("missing article: %v", err)
	}
	if es := groupEntries(t, c, "news:urlfetch.test"); len(es) != 4 {
		t.Errorf("news:urlfetch.test lists %d entries, want 4", len(es))
	}
	get(t, c, nntpBase(t)+"/urlfetch.test/2")
	groupEntries(t, c, "news:*")
	get(t, c, "news:one-mib@urlfetch.test")
	get(t, c, "news:hello@urlfetch.test")
	if n := tap.dials(); n != 1 {
		t.Errorf("7 URLs to one server opened %d connections, want 1", n)
	}
	if err := c.Close(); err != nil {
		t.Errorf("Client.Close() = %v", err)
	}
	if sent := tap.sent(); len(sent) == 0 || sent[len(sent)-1] != "QUIT\r\n" {
		t.Errorf("the client sent %q, want QUIT last", sent)
	}
}

// Fetches from many goroutines through one Client: the Driver's idle
// connections are shared safely, and each body is whole.
func TestNewsConcurrent(t *testing.T) {
	c, _, tap := newsClient(t)
	_, hello := articleFile(t, "01-hello.art")
	_, dots := articleFile(t, "02-dot-stuffed.art")
	want := map[string]string{"news:hello@urlfetch.test": hello, "news:dot-stuffed@urlfetch.test": dots}
	urls := []string{"news:hello@urlfetch.test", "news:dot-stuffed@urlfetch.test"}
	const fetches = 24
	var wg sync.WaitGroup
	errs := make(chan error, fetches)
	for i := range fetches {
		wg.Add(1)
		go func() {
			defer wg.Done()
			raw := urls[i%2]
			resp, err := c.Fetch(context.Background(), raw)
			if err != nil {
				errs <- err
				return
			}
			defer resp.Body.Close()
			b, err := io.ReadAll(resp.Body)
			if err == nil && !strings.HasSuffix(string(b), "\n\n"+want[raw]) {
				err = fmt.Errorf("Fetch(%q) = %q, want the article", raw, b)
			}
			if err != nil {
				errs <- err
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	n := tap.dials()
	t.Logf("%d concurrent fetches used %d connections", fetches, n)
	// The connections they left idle serve the next fetch.
	get(t, c, "news:hello@urlfetch.test")
	if tap.dials() != n {
		t.Errorf("a fetch after the concurrent ones opened a connection, want an idle one reused")
	}
}

// A decoded CR, LF or NUL in a message-id or group is refused before any
// connection is made.
func TestNewsUnsafe(t *testing.T) {
	c, _, tap := newsClient(t)
	for _, raw := range []string{
		"news:evil%0D%0AQUIT@urlfetch.test",
		"news:urlfetch.test%0D%0AQUIT",
		"news:urlfetch.test%00",
		nntpBase(t) + "/urlfetch.test%0AQUIT/1",
		nntpBase(t) + "/urlfetch.test%0D%0AQUIT",
	} {
		_, err := c.Fetch(context.Background(), raw)
		if !errors.Is(err, fetch.ErrUnsafe) {
			t.Errorf("Fetch(%q) error = %v, want ErrUnsafe", raw, err)
		}
	}
	if n := tap.dials(); n != 0 {
		t.Errorf("unsafe URLs opened %d connections, want none", n)
	}
}

// The fetch command: --news-server, NNTPSERVER, --max-entries, -o, and
// the exit codes.
func TestNewsCommand(t *testing.T) {
	srv := addr(t, "NNTP")
	dir := t.TempDir()
	t.Setenv("NNTPSERVER", "")

	r := runFetch(t, dir, "news:hello@urlfetch.test")
	if r.code != 6 || !strings.Contains(r.stderr, "--news-server") || !strings.Contains(r.stderr, "NNTPSERVER") {
		t.Errorf("without a server: exit %d, stderr %q; want 6 and how to set one", r.code, r.stderr)
	}

	r = runFetch(t, dir, "--news-server", srv, "--max-entries", "0", "--urls", "news:urlfetch.big")
	lines := strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n")
	total, _ := strconv.Atoi(env(t, "NNTP_BIG_GROUP_COUNT"))
	if r.code != 0 || len(lines) != total || !strings.HasSuffix(lines[0], fmt.Sprintf("news:big-%03d@urlfetch.test", total)) {
		t.Errorf("--max-entries 0 news:urlfetch.big: exit %d, %d lines (first %q), stderr %q; want %d lines, newest first",
			r.code, len(lines), lines[0], r.stderr, total)
	}
	t.Logf("peak RSS of fetch listing %d articles: %.1f MiB", total, float64(r.maxRSS)/(1<<20))

	r = runFetch(t, dir, "--news-server", srv, "--max-entries", "3", "news:urlfetch.big")
	if n := strings.Count(r.stdout, "\n"); r.code != 0 || n != 3 {
		t.Errorf("--max-entries 3: exit %d, %d lines: %q", r.code, n, r.stdout)
	}

	t.Setenv("NNTPSERVER", srv)
	r = runFetch(t, dir, "-v", "news:hello@urlfetch.test", "news:urlfetch.test", "news:dot-stuffed@urlfetch.test")
	if r.code != 0 || !strings.Contains(r.stdout, "Hello, news reader.") || !strings.Contains(r.stdout, "..two dots") {
		t.Errorf("NNTPSERVER, three URLs: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	if n := strings.Count(r.stderr, "* connecting to "); n != 1 {
		t.Errorf("three URLs: %d connections in the trace, want 1:\n%s", n, r.stderr)
	}
	r = runFetch(t, dir, "-o", "one-mib.txt", "news:one-mib@urlfetch.test")
	if r.code != 0 {
		t.Fatalf("NNTPSERVER, -o: exit %d: %s", r.code, r.stderr)
	}
	f, err := os.Open(filepath.Join(dir, "one-mib.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	br := bufio.NewReader(f)
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			t.Fatalf("one-mib.txt: no end of header: %v", err)
		}
		if line == "\n" {
			break
		}
	}
	if sum, _, err := sha256Of(br); err != nil || sum != env(t, "NNTP_ONE_MIB_SHA256") {
		t.Errorf("one-mib.txt body sha256 %s, %v; want %s", sum, err, env(t, "NNTP_ONE_MIB_SHA256"))
	}
	t.Logf("peak RSS of fetch for the one-MiB article: %.1f MiB", float64(r.maxRSS)/(1<<20))

	r = runFetch(t, dir, "news:no-such-article@urlfetch.test")
	if r.code != 4 || !strings.Contains(r.stderr, "430") {
		t.Errorf("missing article: exit %d, stderr %q; want 4 and INN's 430", r.code, r.stderr)
	}
	r = runFetch(t, dir, "news:urlfetch.no-such-group")
	if r.code != 4 || !strings.Contains(r.stderr, "411") {
		t.Errorf("missing group: exit %d, stderr %q; want 4 and INN's 411", r.code, r.stderr)
	}
}

func TestNNTPConformance(t *testing.T) {
	base := nntpBase(t)
	fetchtest.Run(t, fetchtest.Opt{
		Scheme: "nntp",
		Driver: &nntp.Driver{},
		Found: []fetchtest.Case{
			{URL: base + "/urlfetch.test/1", Type: "message/rfc822"},
			{URL: base + "/urlfetch.test/2", Type: "message/rfc822"},
		},
		Missing: base + "/urlfetch.test/999",
		Listing: base + "/urlfetch.test",
		Stall:   func(t testing.TB) string { return "nntp://" + fetchtest.SilentServer(t) + "/urlfetch.test/1" },
		Inject: []string{
			base + "/urlfetch.test%0D%0AQUIT/1",
			base + "/urlfetch.test%00/1",
			base + "/urlfetch%0Atest",
		},
		Transfers: nntpTransfers,
	})
}

func TestNewsConformance(t *testing.T) {
	fetchtest.Run(t, fetchtest.Opt{
		Scheme: "news",
		Driver: &nntp.Driver{Server: addr(t, "NNTP")},
		Found: []fetchtest.Case{
			{URL: "news:hello@urlfetch.test", Type: "message/rfc822"},
			{URL: "news:dot-stuffed@urlfetch.test", Type: "message/rfc822"},
			{URL: "news:one-mib@urlfetch.test", Type: "message/rfc822"},
		},
		Missing: "news:no-such-article@urlfetch.test",
		Listing: "news:urlfetch.test",
		Inject: []string{
			"news:evil%0D%0AQUIT@urlfetch.test",
			"news:urlfetch.test%0D%0AQUIT",
			"news:urlfetch%00test",
		},
		Transfers: nntpTransfers,
	})
}
