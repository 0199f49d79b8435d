//go:build integration

package integration

import (
	"crypto/tls"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/urlfetch/urlfetch/fetch"
	"github.com/urlfetch/urlfetch/fetch/fetchtest"
	"github.com/urlfetch/urlfetch/fetch/nntp"
	"github.com/urlfetch/urlfetch/uri"
)

// Issue 20, points 3 and 7: NNTP over TLS against the harness's INN. A
// standalone nnrpd speaks TLS from the first byte (NNTPS, for nntps: and
// snews:), and the nnrpd behind innd offers STARTTLS (NNTP, RFC 4642);
// both have a certificate of the test CA (TLS_CA), which these tests
// trust explicitly: a tls.Config whose RootCAs hold it, or --cacert.

// conn returns the client's i-th connection (from 0).
func (tp *nntpTap) conn(i int) *tapConn {
	tp.mu.Lock()
	defer tp.mu.Unlock()
	return tp.conns[i]
}

// nntpsBase is the nntps URL of the harness's TLS nnrpd, without a path.
func nntpsBase(t testing.TB) string { return "nntps://" + addr(t, "NNTPS") }

// tlsNewsClient returns newsClient's Client, trusting the test CA, with
// the news server at NNTPS (for snews:) and up as its TLSUpgrade.
func tlsNewsClient(t testing.TB, up fetch.Upgrade) (*fetch.Client, *nntpTap) {
	t.Helper()
	c, d, tap := newsClient(t)
	c.TLSConfig = testTLS(t)
	c.TLSUpgrade = up
	d.Server = addr(t, "NNTPS")
	return c, tap
}

// traceLines returns a Client trace hook that keeps its lines, as -v
// prints them, and the lines.
func traceLines(c *fetch.Client) *fetchtest.TraceLog {
	log := &fetchtest.TraceLog{}
	next := c.Trace
	c.Trace = func(dir fetch.Direction, line string) {
		log.Add(dir, line)
		next(dir, line)
	}
	return log
}

// inOrder reports the first of want not found in text after the one
// before it, or "" when all are there in order.
func inOrder(text string, want ...string) string {
	at := 0
	for _, w := range want {
		i := strings.Index(text[at:], w)
		if i < 0 {
			return w
		}
		at += i + len(w)
	}
	return ""
}

// nntps: the article as nntp: gives it, over TLS from the first byte:
// the client's first byte is a TLS handshake record, and no command
// crosses the wire in cleartext.
func TestNNTPSArticle(t *testing.T) {
	c, tap := tlsNewsClient(t, fetch.UpgradeDefault)
	log := traceLines(c)
	_, plain := get(t, c, nntpBase(t)+"/urlfetch.test/1")
	_, wantBody := splitArticle(t, plain)
	before := tap.dials()

	resp, article := get(t, c, nntpsBase(t)+"/urlfetch.test/1")
	if resp.Type != nntp.ArticleType || resp.Meta.Get("Message-Id") != "<hello@urlfetch.test>" {
		t.Errorf("Type %q, Message-Id %q; want %s of <hello@urlfetch.test>", resp.Type, resp.Meta.Get("Message-Id"), nntp.ArticleType)
	}
	if _, body := splitArticle(t, article); body != wantBody {
		t.Errorf("nntps body = %q, want the nntp body %q", body, wantBody)
	}
	if tap.dials() != before+1 {
		t.Fatalf("%d connections for the nntps fetch, want 1 (the nntp connection is no TLS one)", tap.dials()-before)
	}
	sent := tap.conn(before).text()
	if sent == "" || sent[0] != 0x16 || strings.Contains(sent, "ARTICLE") || strings.Contains(sent, "GROUP") {
		t.Errorf("the client's bytes on the nntps connection begin %q; want a TLS record (0x16) and no command in cleartext", sent[:min(len(sent), 32)])
	}
	if miss := inOrder(log.String(), "* connecting to "+addr(t, "NNTPS"), "* TLS: TLS 1.", "* TLS certificate: subject ", "< 20", "> GROUP urlfetch.test", "> ARTICLE 1"); miss != "" {
		t.Errorf("the trace has no %q where it belongs (TLS before the greeting):\n%s", miss, log)
	}
	// Issue 24, point 2: TLS from the first byte needs no capabilities.
	if strings.Contains(log.String(), "> CAPABILITIES") {
		t.Errorf("the trace has a CAPABILITIES no step needed:\n%s", log)
	}
}

// An nntps: group lists nntps: URLs, each at the server's own port, and
// following one reads the article over TLS again; snews: lists snews:.
func TestNNTPSListing(t *testing.T) {
	c, _ := tlsNewsClient(t, fetch.UpgradeDefault)
	base := nntpsBase(t)
	es := groupEntries(t, c, base+"/urlfetch.test")
	if len(es) == 0 {
		t.Fatalf("%s/urlfetch.test: no entries", base)
	}
	for _, e := range es {
		if want := base + "/urlfetch.test/" + e.Name; e.URL != want {
			t.Errorf("entry %s: URL %q, want %q", e.Name, e.URL, want)
		}
	}
	for _, e := range groupEntries(t, c, "snews:urlfetch.test") {
		if !strings.HasPrefix(e.URL, "snews:") || !strings.HasSuffix(e.URL, "@urlfetch.test") {
			t.Errorf("snews:urlfetch.test entry %s: URL %q, want snews:<message-id>", e.Name, e.URL)
		}
	}
	for _, e := range groupEntries(t, c, "snews:*") {
		if e.Name == "urlfetch.test" && e.URL != "snews:urlfetch.test" {
			t.Errorf("snews:* entry %s: URL %q, want snews:urlfetch.test", e.Name, e.URL)
		}
	}

	req, err := c.NewRequest(base + "/urlfetch.test")
	if err != nil {
		t.Fatal(err)
	}
	last := es[len(es)-1]
	resp, err := c.Do(t.Context(), req.Follow(fetch.HopEntry, uri.MustParse(last.URL)))
	if err != nil {
		t.Fatalf("following entry %s (%s): %v", last.Name, last.URL, err)
	}
	resp.Body.Close()
	_, err = c.Do(t.Context(), req.Follow(fetch.HopEntry, uri.MustParse(nntpBase(t)+"/urlfetch.test/1")))
	if !errors.Is(err, fetch.ErrUnsafe) || !strings.Contains(err.Error(), "from TLS (nntps) to cleartext (nntp)") {
		t.Errorf("an nntp: entry of an nntps: listing: error %v; want ErrUnsafe, TLS to cleartext", err)
	}
}

// snews:<message-id> with --news-server at the TLS nnrpd: the article,
// and -v shows the handshake.
func TestSNewsCommand(t *testing.T) {
	_, wantBody := articleFile(t, "01-hello.art")
	r := runFetch(t, t.TempDir(), "-v", "--cacert", env(t, "TLS_CA"), "--news-server", addr(t, "NNTPS"), "snews:hello@urlfetch.test")
	if r.code != 0 {
		t.Fatalf("fetch snews:hello@urlfetch.test: exit %d: %s", r.code, r.stderr)
	}
	if _, body := splitArticle(t, []byte(r.stdout)); body != wantBody {
		t.Errorf("body = %q, want %q", body, wantBody)
	}
	if miss := inOrder(r.stderr, "* TLS: TLS 1.", "* TLS certificate: subject ", "< 20", "> ARTICLE <hello@urlfetch.test>"); miss != "" {
		t.Errorf("-v has no %q where it belongs:\n%s", miss, r.stderr)
	}
	if strings.Contains(r.stderr, "> CAPABILITIES") {
		t.Errorf("-v shows a CAPABILITIES no step needed (issue 24, point 2):\n%s", r.stderr)
	}
}

// STARTTLS on INN (RFC 4642), asked for by --ssl and by --ssl-reqd: the
// cleartext CAPABILITIES, STARTTLS, INN's 382, the TLS lines, then
// CAPABILITIES again before anything else; the article as in cleartext.
func TestNNTPStartTLSCommand(t *testing.T) {
	dir := t.TempDir()
	url := nntpBase(t) + "/urlfetch.test/1"
	plain := runFetch(t, dir, url)
	if plain.code != 0 {
		t.Fatalf("fetch %s: exit %d: %s", url, plain.code, plain.stderr)
	}
	for _, flag := range []string{"--ssl", "--ssl-reqd"} {
		r := runFetch(t, dir, "-v", flag, "--cacert", env(t, "TLS_CA"), url)
		if r.code != 0 {
			t.Errorf("fetch %s %s: exit %d: %s", flag, url, r.code, r.stderr)
			continue
		}
		if r.stdout != plain.stdout {
			t.Errorf("%s: the article differs from the one fetched in cleartext:\n%q\nwant\n%q", flag, r.stdout, plain.stdout)
		}
		if miss := inOrder(r.stderr, "> CAPABILITIES", "< 101 ", "STARTTLS", "> STARTTLS", "< 382 ", "* TLS: TLS 1.", "* TLS certificate: subject ", "> CAPABILITIES", "< 101 ", "> GROUP urlfetch.test", "> ARTICLE 1"); miss != "" {
			t.Errorf("%s -v has no %q where it belongs:\n%s", flag, miss, r.stderr)
		}
		if strings.Contains(r.stderr, "cleartext") {
			t.Errorf("%s -v says it went on in cleartext:\n%s", flag, r.stderr)
		}
		t.Logf("fetch -v %s %s:\n%s", flag, url, r.stderr)
	}
}

// What the client sends in cleartext before TLS is CAPABILITIES and
// STARTTLS, nothing more; the next byte is a TLS record.
func TestNNTPStartTLSWire(t *testing.T) {
	c, tap := tlsNewsClient(t, fetch.UpgradeRequire)
	d := c.Driver("news").(*nntp.Driver)
	d.Server = addr(t, "NNTP")
	_, article := get(t, c, "news:hello@urlfetch.test")
	_, wantBody := articleFile(t, "01-hello.art")
	if _, body := splitArticle(t, article); body != wantBody {
		t.Errorf("body = %q, want %q", body, wantBody)
	}
	const clear = "CAPABILITIES\r\nSTARTTLS\r\n"
	sent := tap.conn(0).text()
	if !strings.HasPrefix(sent, clear) || len(sent) == len(clear) || sent[len(clear)] != 0x16 || strings.Contains(sent, "ARTICLE") {
		t.Errorf("the client sent %q...; want %q, then TLS records only", sent[:min(len(sent), len(clear)+8)], clear)
	}
}

// A connection's TLS is part of what makes it reusable: one Driver under
// a cleartext Client, a STARTTLS Client and a Client with other TLS
// settings (-k) keeps one connection for each, and each Client reuses
// its own.
func TestNNTPStartTLSPool(t *testing.T) {
	tap := &nntpTap{}
	d := &nntp.Driver{Server: addr(t, "NNTP")}
	newClient := func(cfg *tls.Config, up fetch.Upgrade) *fetch.Client {
		c := &fetch.Client{NetrcFile: "-", DialContext: tap.dial, TLSConfig: cfg, TLSUpgrade: up, IdleTimeout: 30 * time.Second}
		c.Register("news", d)
		t.Cleanup(func() { c.Close() })
		return c
	}
	plain := newClient(nil, fetch.UpgradeDefault)
	starttls := newClient(testTLS(t), fetch.UpgradeRequire)
	insecure := newClient(&tls.Config{InsecureSkipVerify: true}, fetch.UpgradeRequire)
	for i, step := range []struct {
		c     *fetch.Client
		dials int // connections made so far
	}{
		{plain, 1}, {starttls, 2}, {starttls, 2}, {plain, 2}, {insecure, 3}, {starttls, 3}, {insecure, 3},
	} {
		get(t, step.c, "news:hello@urlfetch.test")
		if n := tap.dials(); n != step.dials {
			t.Fatalf("fetch %d: %d connections, want %d", i+1, n, step.dials)
		}
	}
	for i, want := range []bool{false, true, true} {
		if sent := tap.conn(i).text(); strings.HasPrefix(sent, "CAPABILITIES\r\nSTARTTLS\r\n") != want {
			t.Errorf("connection %d sent %q...; STARTTLS %v, want %v", i+1, sent[:min(len(sent), 40)], !want, want)
		}
	}
}

// runFetchTrustingNone runs the fetch command as runFetch does, with
// args, but trusting no certificate authority at all: the system's
// roots are an empty file and an empty directory (SSL_CERT_FILE,
// SSL_CERT_DIR), and no --cacert is given, whatever the shared helpers
// come to trust.
func runFetchTrustingNone(t testing.TB, dir string, args ...string) cmdResult {
	t.Helper()
	empty := filepath.Join(t.TempDir(), "no-roots.pem")
	if err := os.WriteFile(empty, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	return execFetchEnv(t, dir, "", []string{"SSL_CERT_FILE=" + empty, "SSL_CERT_DIR=" + t.TempDir()}, args...)
}

// A certificate the client does not trust: exit 11, the error naming the
// host and how to trust it, for nntps: and for STARTTLS alike; nothing
// of the article is printed.
func TestNNTPSUntrusted(t *testing.T) {
	dir := t.TempDir()
	for _, args := range [][]string{
		{nntpsBase(t) + "/urlfetch.test/1"},
		{"--news-server", addr(t, "NNTPS"), "snews:hello@urlfetch.test"},
		{"--ssl-reqd", nntpBase(t) + "/urlfetch.test/1"},
		{"--ssl", nntpBase(t) + "/urlfetch.test/1"},
	} {
		r := runFetchTrustingNone(t, dir, args...)
		if r.code != 11 || r.stdout != "" || !strings.Contains(r.stderr, "certificate of 127.0.0.1 is not trusted") || !strings.Contains(r.stderr, "--cacert") {
			t.Errorf("fetch %q: exit %d, stdout %q, stderr %q; want 11, nothing printed, the untrusted certificate of 127.0.0.1 and --cacert", args, r.code, r.stdout, r.stderr)
		}
	}
}

// The conformance suite over TLS: nntps: URLs of the TLS nnrpd, and
// snews: URLs with it as the news server; a Stall URL's server accepts
// and never answers, so the handshake waits.
func TestNNTPSConformance(t *testing.T) {
	base := nntpsBase(t)
	pool := testTLS(t).RootCAs
	fetchtest.Run(t, fetchtest.Opt{
		Scheme: "nntps",
		NewClient: func(t testing.TB) *fetch.Client {
			c := &fetch.Client{NetrcFile: "-", TLSConfig: &tls.Config{RootCAs: pool}}
			c.Register("nntps", &nntp.Driver{})
			return c
		},
		Found: []fetchtest.Case{
			{URL: base + "/urlfetch.test/1", Type: nntp.ArticleType},
			{URL: base + "/urlfetch.test/2", Type: nntp.ArticleType},
		},
		Missing: base + "/urlfetch.test/999",
		Listing: base + "/urlfetch.test",
		Stall:   func(t testing.TB) string { return "nntps://" + fetchtest.SilentServer(t) + "/urlfetch.test/1" },
		Inject: []string{
			base + "/urlfetch.test%0D%0AQUIT/1",
			base + "/urlfetch.test%00/1",
			base + "/urlfetch%0Atest",
		},
		Invalid:   []string{base + "/urlfetch.test/x"},
		Transfers: nntpTransfers,
	})
}

func TestSNewsConformance(t *testing.T) {
	server := addr(t, "NNTPS")
	pool := testTLS(t).RootCAs
	fetchtest.Run(t, fetchtest.Opt{
		Scheme: "snews",
		NewClient: func(t testing.TB) *fetch.Client {
			c := &fetch.Client{NetrcFile: "-", TLSConfig: &tls.Config{RootCAs: pool}}
			c.Register("snews", &nntp.Driver{Server: server})
			return c
		},
		Found: []fetchtest.Case{
			{URL: "snews:hello@urlfetch.test", Type: nntp.ArticleType},
			{URL: "snews:dot-stuffed@urlfetch.test", Type: nntp.ArticleType},
			{URL: "snews:one-mib@urlfetch.test", Type: nntp.ArticleType},
		},
		Missing: "snews:no-such-article@urlfetch.test",
		Listing: "snews:urlfetch.test",
		Inject: []string{
			"snews:evil%0D%0AQUIT@urlfetch.test",
			"snews:urlfetch.test%0D%0AQUIT",
			"snews:urlfetch%00test",
		},
		Transfers: nntpTransfers,
	})
}
