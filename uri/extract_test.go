package uri

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// appendixExample is the example paragraph of the appendix of RFC 1738,
// "Recommendations for URLs in Context", verbatim.
const appendixExample = `   Yes, Jim, I found it under <URL:ftp://info.cern.ch/pub/www/doc
   ;type=d> but you can probably pick it up from <URL:ftp://ds.inter
   nic.net/rfc>.  Note the warning in <URL:http://ds.internic.net/
   instructions/overview.html#WARNING>.
`

func TestExtractAppendix(t *testing.T) {
	want := []Match{
		{"ftp://info.cern.ch/pub/www/doc;type=d", 30, 77},
		{"ftp://ds.internic.net/rfc", 115, 150},
		{"http://ds.internic.net/instructions/overview.html#WARNING", 173, 240},
	}
	got := Extract(appendixExample)
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Extract(%q) = %v, want %v", appendixExample, got, want)
	}
	spans := []string{
		"<URL:ftp://info.cern.ch/pub/www/doc\n   ;type=d>",
		"<URL:ftp://ds.inter\n   nic.net/rfc>",
		"<URL:http://ds.internic.net/\n   instructions/overview.html#WARNING>",
	}
	for i, m := range got {
		if span := appendixExample[m.Start:m.End]; span != spans[i] {
			t.Errorf("Extract(appendix)[%d] spans %q, want %q", i, span, spans[i])
		}
	}
	checkMatches(t, appendixExample, got)
}

func TestExtract(t *testing.T) {
	tests := []struct {
		text string
		want []Match
	}{
		{"", nil},
		{"no URLs here: just text, a < b > c", nil},

		// Bare URLs in prose, with the punctuation of the sentence left out.
		{"See http://info.cern.ch/hypertext/WWW/TheProject.html.", []Match{
			{"http://info.cern.ch/hypertext/WWW/TheProject.html", 4, 53}}},
		{"Get ftp://ds.internic.net/rfc, or not", []Match{{"ftp://ds.internic.net/rfc", 4, 29}}},
		{"(see http://x.org/a)", []Match{{"http://x.org/a", 5, 19}}},
		{"Really? http://x/?q=1&r=2#frag!?", []Match{{"http://x/?q=1&r=2#frag", 8, 30}}},
		{"'http://x/a'; then", []Match{{"http://x/a", 1, 11}}},
		{"ends http://x/a...:", []Match{{"http://x/a", 5, 15}}},
		{"http://x/a\tb", []Match{{"http://x/a", 0, 10}}},
		{"a\r\nhttp://x/a\r\n", []Match{{"http://x/a", 3, 13}}},

		// Parentheses and brackets that belong to the URL stay.
		{"http://x/a_(b)", []Match{{"http://x/a_(b)", 0, 14}}},
		{"(http://x/a_(b))", []Match{{"http://x/a_(b)", 1, 15}}},
		{"http://x/a_(b)).", []Match{{"http://x/a_(b)", 0, 14}}},
		{"http://x/(a)(b).", []Match{{"http://x/(a)(b)", 0, 15}}},
		{"[see http://x/]", []Match{{"http://x/", 5, 14}}},
		{"http://x/a[1]", []Match{{"http://x/a[1]", 0, 13}}},

		// Bare URLs end at whitespace, "<", ">" and '"'.
		{`href="http://x/a"`, []Match{{"http://x/a", 6, 16}}},
		{"http://x/a>b", []Match{{"http://x/a", 0, 10}}},
		{"http://a/<URL:ftp://b/>", []Match{{"http://a/", 0, 9}, {"ftp://b/", 9, 23}}},

		// Only known schemes, at a word start, with something after ":".
		{"xhttp://a 1http://a http: a mailto:. news:", nil},
		{"foo:bar svn+ssh://host/repo urn:isbn:0451450523", nil},
		{"_http://a", []Match{{"http://a", 1, 9}}},
		{"HTTP://EXAMPLE.COM/", []Match{{"HTTP://EXAMPLE.COM/", 0, 19}}},
		{"URL:http://x", []Match{{"http://x", 4, 12}}},
		// Issue 21: only URLs a client can fetch. An http URL without
		// "//host" is none.
		{"http:foo", nil},
		{"http:foo http://a/", []Match{{"http://a/", 9, 18}}},

		// mailto and news have no "//".
		{"Mail mailto:timbl@info.cern.ch or read news:comp.infosystems.www.", []Match{
			{"mailto:timbl@info.cern.ch", 5, 30},
			{"news:comp.infosystems.www", 39, 64}}},
		{"news:*, news:1234@host.dom; <mailto:mpm@boombox.micro.umn.edu>", []Match{
			{"news:*", 0, 6},
			{"news:1234@host.dom", 8, 26},
			{"mailto:mpm@boombox.micro.umn.edu", 28, 62}}},
		{"gopher://a:70/1 telnet://b tn3270://c file:///etc wais://d/db?x prospero://e/p nntp://f/g rlogin://h https://i", []Match{
			{"gopher://a:70/1", 0, 15},
			{"telnet://b", 16, 26},
			{"tn3270://c", 27, 37},
			{"file:///etc", 38, 49},
			{"wais://d/db?x", 50, 63},
			{"prospero://e/p", 64, 78},
			{"nntp://f/g", 79, 89},
			{"rlogin://h", 90, 100},
			{"https://i", 101, 110}}},

		// Wrappers.
		{"<http://x/>", []Match{{"http://x/", 0, 11}}},
		{"go to <URL:http://x/>.", []Match{{"http://x/", 6, 21}}},
		{"<url:HTTP://X>", []Match{{"HTTP://X", 0, 14}}},
		{"<URL: http://x/ >", []Match{{"http://x/", 0, 17}}},
		{"<URL:\n  ftp://x/a\n  /b\n  >", []Match{{"ftp://x/a/b", 0, 26}}},
		{"<URL:ftp://x/a b\tc>", []Match{{"ftp://x/abc", 0, 19}}},
		{"<URL:http://a/\r\n   b>", []Match{{"http://a/b", 0, 21}}},
		{"<URL:http://a/b#frag>", []Match{{"http://a/b#frag", 0, 21}}},
		{"<svn+ssh://host/r>", []Match{{"svn+ssh://host/r", 0, 18}}},
		{"<foo:bar>", []Match{{"foo:bar", 0, 9}}},
		{"<URL:foo>", nil}, // no scheme: issue 21, not a URL to fetch
		{"<http://x/.>", []Match{{"http://x/.", 0, 12}}},

		// Issue 21, point 5: IRIs stay in Unicode; Unicode whitespace ends
		// a bare URL and its closing punctuation is not part of it; what
		// Parse refuses is cleaned or dropped.
		{"Siehe http://bücher.example/straße.", []Match{{"http://bücher.example/straße", 6, 36}}},
		{"«http://bücher.example/»", []Match{{"http://bücher.example/", 2, 25}}},
		{"“http://x/a” and ‘http://y/’…", []Match{{"http://x/a", 3, 13}, {"http://y/", 24, 33}}},
		{"http://x/a\u00a0b http://例え.テスト/ページ。", []Match{{"http://x/a", 0, 10}, {"http://例え.テスト/ページ", 14, 47}}},
		{"http://x/a\u200fb", []Match{{"http://x/a", 0, 10}}},
		{"<URL:http://bücher.example/\n  straße>", []Match{{"http://bücher.example/straße", 0, 39}}},
		{"http://x/caf\xe9 and http://x/100%", []Match{{"http://x/caf%E9", 0, 13}, {"http://x/100%25", 18, 31}}},
		{"<URL:http://x/a`b> <http://x/{y}>", []Match{{"http://x/a%60b", 0, 18}, {"http://x/{y}", 19, 33}}},
		{"http://a..b/ http://h:port/ nntp://h/ telnet://h/x wais://h/ news://h/g http://ok/", []Match{{"http://ok/", 72, 82}}},
		{"<URL:http://⒈.com/> <http://ü-.example/>", nil},

		// Not wrappers.
		{"<not a url>", nil},
		{"<Note: see below>", nil},
		{"<1http://x> <http:> <http: x> <http:\nx> < http://a/>", []Match{{"http://a/", 42, 51}}},
		{"<URL:> <URL:  >", nil},
		{"<http://a/b", []Match{{"http://a/b", 1, 11}}},
		{"<URL:http://a/\n\nb>", []Match{{"http://a/", 5, 14}}},
		{"<URL:http://a/\r\n \r\nb>", []Match{{"http://a/", 5, 14}}},
		{"<URL:http://a/\r\rb>", []Match{{"http://a/", 5, 14}}},
		{"<foo <http://x>", []Match{{"http://x", 5, 15}}},
		{"<URL:http://x/<y>>", []Match{{"http://x/", 5, 14}}},
	}
	for _, tt := range tests {
		got := Extract(tt.text)
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("Extract(%q) = %v, want %v", tt.text, got, tt.want)
			continue
		}
		checkMatches(t, tt.text, got)
	}
}

// TestExtractReferences runs Extract over the REFERENCES section of the
// RFC 1738 draft, whose long URLs are folded across lines.
func TestExtractReferences(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("testdata", "extract", "references.txt"))
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	want := []string{
		"ftp://ds.internic.net/rfc/rfc1436.txt",
		"ftp://boombox.micro.umn.edu/pub/gopher/gopher_protocol/Gopher+/Gopher+.txt",
		"gopher://boombox.micro.umn.edu/11/gopher/gopher_protocol",
		"ftp://ds.internic.net/rfc/rfc1630.txt",
		"ftp://info.cern.ch/pub/www/doc/http-spec.txt.Z",
		"ftp://ds.internic.net/rfc/rfc822.txt",
		"ftp://quake.think.com/pub/wais/doc/protspec.txt",
		"ftp://ds.internic.net/rfc/rfc1635.txt",
		"ftp://ds.internic.net/rfc/rfc1036.txt",
		"ftp://quake.think.com/pub/wais/doc/doc-ids.txt",
		"ftp://ds.internic.net/rfc/rfc977.txt",
		"ftp://ds.internic.net/internet-drafts/draft-ietf-uri-fun-req-00.txt",
		"wais://quake.think.com/wais-discussion-archives?lynch",
		"ftp://ds.internic.net/rfc/rfc1034.txt",
		"ftp://prospero.isi.edu/pub/prospero/doc/prospero-protocol.PS.Z",
		"ftp://ds.internic.net/rfc/rfc959.txt",
		"ftp://ds.internic.net/internet-drafts/draft-sollins-urn-00.txt",
		"ftp://ds.internic.net/rfc/rfc1625.txt",
		"ftp://uu.psi.com/wp/nir.txt",
	}
	ms := Extract(text)
	var got []string
	for _, m := range ms {
		got = append(got, m.URL)
		span := text[m.Start:m.End]
		if !strings.HasPrefix(span, "<URL:") || !strings.HasSuffix(span, ">") {
			t.Errorf("Extract(references): match %q spans %q, want a <URL:...> wrapper", m.URL, span)
		}
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Extract(references) URLs = %q, want %q", got, want)
	}
	checkMatches(t, text, ms)
}

func TestExtractAllocs(t *testing.T) {
	for _, tt := range []struct {
		text string
		max  float64
	}{
		{"no URL here at all, none", 0},
		{"see <URL:http://x/a> and <http://y/>, http://z/.", 3}, // the result slice, as it grows
		{"see <URL:http://x/\n a> now", 2},                      // the slice and the joined URL
		{strings.Repeat("HTTPS: x.http: <a <URL: < ", 50), 0},   // no match at all
	} {
		if n := testing.AllocsPerRun(100, func() { Extract(tt.text) }); n > tt.max {
			t.Errorf("Extract(%q) allocates %v times, want at most %v", tt.text, n, tt.max)
		}
	}
}

// checkMatches checks what holds for every result of Extract: matches are
// in order, within text, do not overlap, and each URL is the text of its
// span less the wrapper and whitespace.
func checkMatches(t *testing.T, text string, ms []Match) {
	t.Helper()
	prev := 0
	for i, m := range ms {
		if m.Start < prev || m.End <= m.Start || m.End > len(text) {
			t.Errorf("Extract(%q)[%d] = %v: out of order or out of bounds (previous end %d, len %d)", text, i, m, prev, len(text))
			return
		}
		prev = m.End
		if m.URL == "" || strings.ContainsAny(m.URL, " \t\r\n\v\f<>") {
			t.Errorf("Extract(%q)[%d].URL = %q: empty or holds whitespace or brackets", text, i, m.URL)
		}
		// Issue 21, point 5: what Extract finds, a client can fetch.
		if u, err := Parse(m.URL); err != nil {
			t.Errorf("Extract(%q)[%d] = %v, which Parse refuses: %v", text, i, m, err)
		} else if err := schemeView(u); err != nil {
			t.Errorf("Extract(%q)[%d] = %v, which its scheme's view refuses: %v", text, i, m, err)
		}
		span := text[m.Start:m.End]
		if span[0] != '<' {
			if clean, _ := Clean(span); m.URL != span && m.URL != clean {
				t.Errorf("Extract(%q)[%d] = %v: URL is not the span %q, nor the span cleaned", text, i, m, span)
			}
			continue
		}
		inner := span[1 : len(span)-1]
		if len(inner) >= 4 && strings.EqualFold(inner[:4], "URL:") {
			inner = inner[4:]
		}
		inner = extractSqueeze(inner)
		if clean, _ := Clean(inner); span[len(span)-1] != '>' || m.URL != inner && m.URL != clean {
			t.Errorf("Extract(%q)[%d] = %v: URL is not the content of the wrapper %q, nor that cleaned", text, i, m, span)
		}
	}
}

// schemeView returns the error of the exported view of u's scheme, as a
// driver asks for it, or nil.
func schemeView(u *URL) error {
	var err error
	switch u.Scheme {
	case "ftp", "ftps":
		_, err = u.FTP()
	case "http", "https":
		_, err = u.HTTP()
	case "gopher":
		_, err = u.Gopher()
	case "mailto":
		_, err = u.Mailto()
	case "news", "snews":
		_, err = u.News()
	case "nntp", "nntps":
		_, err = u.NNTP()
	case "telnet", "rlogin", "tn3270":
		_, err = u.Telnet()
	case "wais":
		_, err = u.WAIS()
	case "file":
		_, err = u.File()
	case "prospero":
		_, err = u.Prospero()
	}
	return err
}

func FuzzExtract(f *testing.F) {
	for _, s := range []string{
		appendixExample,
		"see http://x/a_(b)). and <http://y/> or mailto:a@b, news:c.",
		"<URL:ftp://a/\r\n  b> <URL:\n\n> <foo <bar:baz>",
		"((http://x/)]]. HTTP://Y <URL:",
		"Siehe http://bücher.example/straße. <URL:http://x/caf\xe9> http:foo «http://例え.テスト/»",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		checkMatches(t, text, Extract(text))
	})
}

func ExampleExtract() {
	text := `The draft is at <URL:ftp://ds.internic.net/internet-drafts/
    draft-ietf-uri-url-06.txt>; the WWW project lives at
http://info.cern.ch/hypertext/WWW/TheProject.html (ask timbl).`
	for _, m := range Extract(text) {
		fmt.Println(m.Start, m.End, m.URL)
	}
	// Output:
	// 16 90 ftp://ds.internic.net/internet-drafts/draft-ietf-uri-url-06.txt
	// 117 166 http://info.cern.ch/hypertext/WWW/TheProject.html
}
