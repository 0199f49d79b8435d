//go:build integration

package integration

import (
	"context"
	"encoding/xml"
	"errors"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/urlfetch/urlfetch/fetch"
	"github.com/urlfetch/urlfetch/fetch/fetchtest"
	"github.com/urlfetch/urlfetch/fetch/wais"
	"github.com/urlfetch/urlfetch/uri"
)

// zrec06SUTRS is record zrec06 of the zebra test bed as SUTRS, exactly as
// yaz-client 5.34 shows it from this zebrasrv ("format sutrs", "show 1"
// after "find @attr 1=1016 @attr 2=102 @attr 4=105 flamingo").
const zrec06SUTRS = "harness:\n" +
	"  title: Record 06: the flamingo\n" +
	"  Control-Identifier: zrec06\n" +
	"  date: 1994-12-06\n" +
	"  body: Record 06 of the harnesscorpus tells of the flamingo. It stands on\n" +
	"    one leg in the shallow lagoon.\n"

func zebraDB(t testing.TB) string {
	return "wais://" + addr(t, "ZEBRA") + "/" + env(t, "ZEBRA_DATABASE")
}

func ztestDB(t testing.TB) string {
	return "wais://" + addr(t, "ZTEST") + "/" + env(t, "ZTEST_DATABASE")
}

// waisClient is client(t) with the wais driver speaking dialect.
func waisClient(t testing.TB, dialect wais.Dialect) (*fetch.Client, *wais.Driver) {
	t.Helper()
	c := client(t)
	d, ok := c.Driver("wais").(*wais.Driver)
	if !ok {
		t.Fatalf("all.NewClient has no *wais.Driver for wais: %T", c.Driver("wais"))
	}
	d.Dialect = dialect
	return c, d
}

// waisList fetches a search and returns its entries and its hits, which
// must agree one for one.
func waisList(t testing.TB, c *fetch.Client, rawURL string) ([]fetch.Entry, []wais.Hit) {
	t.Helper()
	resp, body := get(t, c, rawURL)
	if resp.Kind != fetch.Listing {
		t.Fatalf("Fetch(%q).Kind = %v, want listing", rawURL, resp.Kind)
	}
	var entries []fetch.Entry
	resp.Body = io.NopCloser(strings.NewReader(string(body)))
	for e, err := range resp.Entries() {
		if err != nil {
			t.Fatalf("Fetch(%q).Entries(): %v", rawURL, err)
		}
		entries = append(entries, e)
	}
	var hits []wais.Hit
	for h, err := range wais.ParseListing(strings.NewReader(string(body))) {
		if err != nil {
			t.Fatalf("ParseListing(Fetch(%q)): %v", rawURL, err)
		}
		hits = append(hits, h)
	}
	if len(hits) != len(entries) {
		t.Fatalf("Fetch(%q): %d entries but %d hits in the body %q", rawURL, len(entries), len(hits), body)
	}
	return entries, hits
}

// harnessRecord is one XML record of the zebra corpus as the test bed
// indexed it (integration/servers/zebra/records).
type harnessRecord struct {
	Title string `xml:"title"`
	ID    string `xml:"Control-Identifier"`
	Date  string `xml:"date"`
	Body  string `xml:"body"`
}

func readHarnessRecord(t testing.TB, id string) harnessRecord {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("servers", "zebra", "records", id+".xml"))
	if err != nil {
		t.Fatal(err)
	}
	var r harnessRecord
	if err := xml.Unmarshal(b, &r); err != nil {
		t.Fatalf("%s.xml: %v", id, err)
	}
	return r
}

// sutrsHas reports whether a SUTRS rendering carries every field of r,
// with zebra's line folding undone.
func sutrsHas(sutrs string, r harnessRecord) bool {
	flat := strings.Join(strings.Fields(sutrs), " ")
	for _, f := range []string{"title: " + r.Title, "Control-Identifier: " + r.ID, "date: " + r.Date, "body: " + r.Body} {
		if !strings.Contains(flat, strings.Join(strings.Fields(f), " ")) {
			return false
		}
	}
	return true
}

func TestWAISZebraSearchOneWord(t *testing.T) {
	c, _ := waisClient(t, wais.DialectZ3950)
	entries, hits := waisList(t, c, zebraDB(t)+"?flamingo")
	if len(entries) != 1 {
		t.Fatalf("search flamingo: %d entries %+v, want 1 (zrec06)", len(entries), entries)
	}
	e, h := entries[0], hits[0]
	if e.Name != "Record 06: the flamingo" || e.Type != fetch.EntryFile || e.Size != int64(len(zrec06SUTRS)) || e.Media != "text/plain" {
		t.Errorf("entry = %+v; want Name %q, a file of %d bytes, text/plain", e, "Record 06: the flamingo", len(zrec06SUTRS))
	}
	if h.Headline != e.Name || h.Source != env(t, "ZEBRA_DATABASE") || h.WType != "SUTRS" || h.Size != e.Size || h.URL != e.URL {
		t.Errorf("hit = %+v; want the entry's headline, size and URL, source %q, type SUTRS", h, env(t, "ZEBRA_DATABASE"))
	}
	u, err := uri.Parse(e.URL)
	if err != nil {
		t.Fatalf("entry URL %q: %v", e.URL, err)
	}
	if w, err := u.WAIS(); err != nil || !w.IsDocument() || u.Hostport() != addr(t, "ZEBRA") || w.Database != env(t, "ZEBRA_DATABASE") {
		t.Errorf("entry URL %q: %+v, %v; want a document of the same server and database", e.URL, w, err)
	}
	resp, body := get(t, c, e.URL)
	if string(body) != zrec06SUTRS {
		t.Errorf("Fetch(%q) = %q, want the record as yaz-client shows it: %q", e.URL, body, zrec06SUTRS)
	}
	if resp.Kind != fetch.Document || resp.Type != "text/plain" || resp.Length != int64(len(zrec06SUTRS)) {
		t.Errorf("Fetch(%q): Kind %v Type %q Length %d; want a text/plain document of %d bytes", e.URL, resp.Kind, resp.Type, resp.Length, len(zrec06SUTRS))
	}
	if !sutrsHas(string(body), readHarnessRecord(t, "zrec06")) {
		t.Errorf("Fetch(%q) = %q: it lacks a field of zrec06.xml", e.URL, body)
	}
}

// "ochre aardvark" is ranked any-word: zrec01 (aardvark) and zrec03
// (ochre), in the order zebra ranks them for yaz-client.
func TestWAISZebraSearchSeveralWords(t *testing.T) {
	c, _ := waisClient(t, wais.DialectZ3950)
	entries, _ := waisList(t, c, zebraDB(t)+"?ochre+aardvark")
	want := []string{"zrec01", "zrec03"}
	if len(entries) != len(want) {
		t.Fatalf("search ochre aardvark: %d entries %+v, want %v", len(entries), entries, want)
	}
	for i, id := range want {
		rec := readHarnessRecord(t, id)
		if entries[i].Name != rec.Title {
			t.Errorf("entry %d Name = %q, want %q (%s)", i, entries[i].Name, rec.Title, id)
		}
		_, body := get(t, c, entries[i].URL)
		if !sutrsHas(string(body), rec) {
			t.Errorf("Fetch(%q) = %q, want record %s", entries[i].URL, body, id)
		}
	}
}

// Every record of the corpus, found by the word they all share, fetched
// by its entry's URL as SUTRS and as XML, equals its file.
func TestWAISZebraFetchEveryHit(t *testing.T) {
	c, _ := waisClient(t, wais.DialectZ3950)
	entries, _ := waisList(t, c, zebraDB(t)+"?harnesscorpus")
	if len(entries) != 12 {
		t.Fatalf("search harnesscorpus: %d entries, want the 12 records", len(entries))
	}
	resp, _ := get(t, c, zebraDB(t)+"?harnesscorpus")
	if resp.Meta.Get("Z3950-Hits") != "12" || resp.Meta.Get("Wais-Dialect") != "z3950" || !strings.HasPrefix(resp.Meta.Get("Wais-Server"), "Zebra Information Server") {
		t.Errorf("Meta = %v, want 12 hits from a Zebra server in dialect z3950", resp.Meta)
	}
	seen := map[string]bool{}
	for _, e := range entries {
		resp, body := get(t, c, e.URL)
		if resp.Length != int64(len(body)) || e.Size != int64(len(body)) {
			t.Errorf("Fetch(%q): Length %d, listing size %d, body %d bytes", e.URL, resp.Length, e.Size, len(body))
		}
		var id string
		for i := 1; i <= 12; i++ {
			cand := "zrec" + string(rune('0'+i/10)) + string(rune('0'+i%10))
			if strings.Contains(string(body), "Control-Identifier: "+cand+"\n") {
				id = cand
			}
		}
		if id == "" {
			t.Errorf("Fetch(%q) = %q: no Control-Identifier of the corpus", e.URL, body)
			continue
		}
		seen[id] = true
		rec := readHarnessRecord(t, id)
		if !sutrsHas(string(body), rec) || e.Name != rec.Title {
			t.Errorf("Fetch(%q) = %q (entry %q), want record %s", e.URL, body, e.Name, id)
		}
		// The same record as XML: the entry URL with wtype XML.
		w, err := uri.MustParse(e.URL).WAIS()
		if err != nil {
			t.Fatal(err)
		}
		w.WType = "XML"
		xresp, xbody := get(t, c, w.String())
		var got harnessRecord
		if err := xml.Unmarshal(xbody, &got); err != nil || got != rec {
			t.Errorf("Fetch(%q) = %q (%v), want the fields of %s.xml %+v", w.String(), xbody, err, id, rec)
		}
		if xresp.Type != "text/xml" {
			t.Errorf("Fetch(%q).Type = %q, want text/xml", w.String(), xresp.Type)
		}
	}
	if len(seen) != 12 {
		t.Errorf("the 12 hits are %d distinct records: %v", len(seen), seen)
	}
}

func TestWAISZebraNoHits(t *testing.T) {
	c, _ := waisClient(t, wais.DialectZ3950)
	entries, _ := waisList(t, c, zebraDB(t)+"?nosuchwordxyzzy")
	if len(entries) != 0 {
		t.Errorf("search nosuchwordxyzzy: entries %+v, want none", entries)
	}
}

// A database the server does not have: its diagnostic 109 with the
// server's own words, as ErrNotFound.
func TestWAISUnknownDatabase(t *testing.T) {
	for _, key := range []string{"ZEBRA", "ZTEST"} {
		c, _ := waisClient(t, wais.DialectZ3950)
		raw := "wais://" + addr(t, key) + "/nosuchdb?flamingo"
		resp, err := c.Fetch(t.Context(), raw)
		if err == nil {
			resp.Body.Close()
			t.Errorf("Fetch(%q) error = nil, want diagnostic 109", raw)
			continue
		}
		var diag *wais.Diagnostic
		if !errors.Is(err, fetch.ErrNotFound) || !errors.As(err, &diag) || diag.Code != "109" || !strings.Contains(err.Error(), "nosuchdb") || !strings.Contains(err.Error(), "109") {
			t.Errorf("Fetch(%q) error = %v (%#v), want ErrNotFound carrying diagnostic 109 and the server's addinfo", raw, err, diag)
		}
	}
}

func TestWAISClosedPort(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	a := ln.Addr().String()
	ln.Close()
	c, _ := waisClient(t, wais.DialectAuto)
	raw := "wais://" + a + "/db?flamingo"
	resp, err := c.Fetch(t.Context(), raw)
	if err == nil {
		resp.Body.Close()
	}
	if !errors.Is(err, fetch.ErrConnect) {
		t.Errorf("Fetch(%q) error = %v, want ErrConnect", raw, err)
	}
}

// yaz-ztest invents 9 hits for "flamingo" and serves synthetic records.
func TestWAISZtestSearch(t *testing.T) {
	c, _ := waisClient(t, wais.DialectZ3950)
	entries, hits := waisList(t, c, ztestDB(t)+"?flamingo")
	if len(entries) != 9 {
		t.Fatalf("ztest search flamingo: %d entries, want 9", len(entries))
	}
	for i, e := range entries {
		want := "This is dummy SUTRS record number " + string(rune('1'+i))
		if e.Name != want || hits[i].Source != "Default" {
			t.Errorf("entry %d = %+v (source %q), want %q from Default", i, e, hits[i].Source, want)
		}
	}
	_, body := get(t, c, entries[2].URL)
	if want := "This is dummy SUTRS record number 3\n"; string(body) != want {
		t.Errorf("Fetch(%q) = %q, want %q", entries[2].URL, body, want)
	}
}

// wais://host/db names a database to search: a 1995 server has no
// description of it, so the listing offers the search, with what the
// server said of itself.
func TestWAISDatabaseOffersSearch(t *testing.T) {
	c, _ := waisClient(t, wais.DialectZ3950)
	raw := zebraDB(t)
	entries, _ := waisList(t, c, raw)
	if len(entries) != 2 || entries[0].Type != fetch.EntrySearch || entries[0].URL != raw ||
		entries[1].Type != fetch.EntryInfo || !strings.Contains(entries[1].Name, "Zebra Information Server") {
		t.Errorf("Fetch(%q) entries = %+v; want a search entry for %s and an info line naming the Zebra server", raw, entries, raw)
	}
	// With the driver's Search words, the database URL is that search.
	c, d := waisClient(t, wais.DialectZ3950)
	d.Search = "flamingo"
	entries, _ = waisList(t, c, raw)
	if len(entries) != 1 || entries[0].Name != "Record 06: the flamingo" {
		t.Errorf("Fetch(%q) with Search %q = %+v, want the flamingo record", raw, d.Search, entries)
	}
}

// In auto mode the first contact tries WAIS, sees no WAIS reply within
// the probe deadline and talks BER on a fresh connection; the answer is
// remembered, so the next fetch connects once.
func TestWAISDialectAuto(t *testing.T) {
	c := client(t)
	d := c.Driver("wais").(*wais.Driver)
	d.ProbeTimeout = 500 * time.Millisecond
	var connects int
	var probe []string
	next := c.Trace
	c.Trace = func(dir fetch.Direction, line string) {
		if strings.HasPrefix(line, "connecting to ") {
			connects++
		}
		if strings.Contains(line, "dialect") {
			probe = append(probe, line)
		}
		next(dir, line)
	}
	raw := zebraDB(t) + "?flamingo"
	start := time.Now()
	entries, _ := waisList(t, c, raw)
	if len(entries) != 1 || connects != 2 {
		t.Errorf("first fetch: %d entries, %d connections; want 1 entry after 2 connections (WAIS probe, then BER)", len(entries), connects)
	}
	if el := time.Since(start); el > 10*time.Second {
		t.Errorf("first fetch took %v with a 500ms probe", el)
	}
	connects = 0
	entries, _ = waisList(t, c, raw)
	if len(entries) != 1 || connects != 1 {
		t.Errorf("second fetch: %d entries, %d connections; want 1 entry, 1 connection (dialect remembered)", len(entries), connects)
	}
	if len(probe) == 0 {
		t.Errorf("the trace says nothing of the dialect")
	}
	// Forced to WAIS, a 1995 server never answers: the read deadline ends it.
	c2, _ := waisClient(t, wais.DialectWAIS)
	c2.IdleTimeout = time.Second
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	start = time.Now()
	resp, err := c2.Fetch(ctx, raw)
	if err == nil {
		resp.Body.Close()
	}
	if !errors.Is(err, fetch.ErrTimeout) || time.Since(start) > 10*time.Second {
		t.Errorf("Fetch(%q) forced to WAIS = %v after %v, want ErrTimeout after the 1s idle timeout", raw, err, time.Since(start))
	}
}

// The command: a search by URL and by --search, then the hit's URL.
func TestWAISCommand(t *testing.T) {
	dir := t.TempDir()
	db := zebraDB(t)
	r := runFetch(t, dir, "--wais-dialect", "z3950", "--urls", db+"?flamingo")
	if r.code != 0 || !strings.Contains(r.stdout, "Record 06: the flamingo") {
		t.Fatalf("fetch %s?flamingo: exit %d, stdout %q, stderr %q", db, r.code, r.stdout, r.stderr)
	}
	fields := strings.Fields(r.stdout)
	entryURL := fields[len(fields)-1]
	r2 := runFetch(t, dir, "--wais-dialect", "z3950", "--search", "flamingo", "--urls", db)
	if r2.code != 0 || r2.stdout != r.stdout {
		t.Errorf("fetch --search flamingo %s: exit %d, stdout %q, want %q", db, r2.code, r2.stdout, r.stdout)
	}
	r3 := runFetch(t, dir, "--wais-dialect", "z3950", entryURL)
	if r3.code != 0 || r3.stdout != zrec06SUTRS {
		t.Errorf("fetch %s: exit %d, stdout %q, stderr %q; want the record", entryURL, r3.code, r3.stdout, r3.stderr)
	}
	r4 := runFetch(t, dir, "--wais-dialect", "x25", db+"?flamingo")
	if r4.code != 2 || !strings.Contains(r4.stderr, "x25") {
		t.Errorf("fetch --wais-dialect x25: exit %d, stderr %q; want a usage error (2) naming the value", r4.code, r4.stderr)
	}
	r5 := runFetch(t, dir, "--wais-dialect", "z3950", "wais://"+addr(t, "ZEBRA")+"/nosuchdb?flamingo")
	if r5.code != 4 || !strings.Contains(r5.stderr, "109") {
		t.Errorf("fetch of an unknown database: exit %d, stderr %q; want 4 (not found) and diagnostic 109", r5.code, r5.stderr)
	}
}

// On a terminal, the command asks for the words to search a database
// URL that carries none; an empty answer lists the database itself.
func TestWAISCommandPrompt(t *testing.T) {
	script, err := exec.LookPath("script")
	if err != nil {
		t.Fatalf("script(1) of util-linux runs the command on a terminal: %v", err)
	}
	db := zebraDB(t)
	for _, tc := range []struct{ answer, want string }{
		{"flamingo\n", "Record 06: the flamingo"},
		{"\n", "describes no database"},
	} {
		cmd := exec.Command(script, "-qec", fetchBin+" --wais-dialect z3950 "+db, "/dev/null")
		cmd.Env = append(os.Environ(), "NETRC=/nonexistent")
		cmd.Stdin = strings.NewReader(tc.answer)
		out, err := cmd.CombinedOutput()
		if err != nil || !strings.Contains(string(out), "search harness (empty: describe it): ") || !strings.Contains(string(out), tc.want) {
			t.Errorf("fetch %s on a terminal answering %q: %v, output %q; want the prompt and %q", db, tc.answer, err, out, tc.want)
		}
	}
}

func TestWAISConformanceZebra(t *testing.T) {
	c, _ := waisClient(t, wais.DialectZ3950)
	entries, _ := waisList(t, c, zebraDB(t)+"?flamingo")
	if len(entries) != 1 {
		t.Fatalf("search flamingo: %d entries, want 1", len(entries))
	}
	fetchtest.Run(t, fetchtest.Opt{
		Scheme: "wais",
		NewClient: func(t testing.TB) *fetch.Client {
			c := &fetch.Client{NetrcFile: "-"}
			c.Register("wais", &wais.Driver{Dialect: wais.DialectZ3950})
			return c
		},
		Found: []fetchtest.Case{
			{URL: entries[0].URL, Want: zrec06SUTRS, Type: "text/plain"},
			{URL: zebraDB(t) + "?ochre+aardvark", Kind: fetch.Listing},
		},
		Missing: "wais://" + addr(t, "ZEBRA") + "/nosuchdb?flamingo",
		Listing: zebraDB(t) + "?harnesscorpus",
		Stall:   func(t testing.TB) string { return "wais://" + fetchtest.SilentServer(t) + "/db?flamingo" },
		Inject: []string{
			zebraDB(t) + "?flamingo%0D%0Aheron",
			"wais://" + addr(t, "ZEBRA") + "/harness%00x?flamingo",
		},
		Transfers: waisTransfers,
		Caps:      fetchtest.Caps{Resume: true},
	})
}
