package nntp

import (
	"mime"
	"testing"

	"github.com/urlfetch/urlfetch/uri"
)

// The entries of a listing read over TLS are TLS URLs: an snews: group's
// articles are snews:<id> (nntps: by number where no news: URL carries
// the id), an nntps: group's nntps:, and the groups of snews:* snews:
// URLs; each written without its scheme's default port. A listing must
// never lead to cleartext by itself (fetch.Client.CheckHop refuses a hop
// from TLS to cleartext anyway).
func TestTLSEntryURLs(t *testing.T) {
	const (
		good = "3\tSubject\tA <a@example.com>\tTue, 20 Dec 1994 12:00:00 +0000\t<good@example.com>\t\t10\t1"
		odd  = "4\tSubject\tA <a@example.com>\tTue, 20 Dec 1994 12:00:00 +0000\t<no-at-sign>\t\t10\t1"
	)
	for _, tc := range []struct {
		server, url, line, want string
	}{
		{"news.test", "snews:misc.test", good, "snews:good@example.com"},
		{"news.test", "snews:misc.test", odd, "nntps://news.test/misc.test/4"},
		{"news.test:1563", "snews:misc.test", odd, "nntps://news.test:1563/misc.test/4"},
		{"news.test:563", "news:misc.test", odd, "nntp://news.test:563/misc.test/4"},
		{"news.test", "news:misc.test", good, "news:good@example.com"},
		{"", "nntps://news.test/misc.test", good, "nntps://news.test/misc.test/3"},
		{"", "nntps://news.test:1563/misc.test", odd, "nntps://news.test:1563/misc.test/4"},
		{"", "nntp://news.test/misc.test", good, "nntp://news.test/misc.test/3"},
	} {
		tg, err := (&Driver{Server: tc.server}).target(uri.MustParse(tc.url))
		if err != nil {
			t.Fatalf("target(%q): %v", tc.url, err)
		}
		e, err := tg.overviewEntry(tc.line, &mime.WordDecoder{})
		if err != nil || e.URL != tc.want {
			t.Errorf("Server %q, %s: entry URL %q (%v), want %q", tc.server, tc.url, e.URL, err, tc.want)
		}
	}
	for _, tc := range []struct {
		server, url, line, want string
	}{
		{"news.test", "snews:*", "misc.test 9 1 y", "snews:misc.test"},
		{"news.test", "snews:*", "odd@group 9 1 y", "nntps://news.test/odd%40group"},
		{"", "nntps://news.test/", "misc.test 9 1 y", "nntps://news.test/misc.test"},
		{"", "nntps://news.test:1563/", "misc.test 9 1 y", "nntps://news.test:1563/misc.test"},
	} {
		tg, err := (&Driver{Server: tc.server}).target(uri.MustParse(tc.url))
		if err != nil {
			t.Fatalf("target(%q): %v", tc.url, err)
		}
		e, err := tg.activeEntry(tc.line)
		if err != nil || e.URL != tc.want {
			t.Errorf("Server %q, %s: group entry URL %q (%v), want %q", tc.server, tc.url, e.URL, err, tc.want)
		}
	}
}
