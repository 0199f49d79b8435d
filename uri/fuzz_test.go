package uri

import (
	"net/url"
	"strings"
	"testing"
)

// FuzzParse checks that Parse never panics, that a valid URL round-trips
// through String (but for the case of its scheme), and that parsing the
// result again is stable. Seeds: testdata/fuzz/FuzzParse and specURLs.
func FuzzParse(f *testing.F) {
	for _, s := range specURLs {
		f.Add(s)
	}
	for _, s := range []string{"http://bücher.example/straße?q=ü#ä", "ftp://jöran@b%C3%BCcher.example/ü", "http://１．２．３．４/", "news:grüße"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		u, err := Parse(s)
		if err != nil {
			if _, ok := err.(*Error); !ok {
				t.Fatalf("Parse(%q) error %T, want *Error", s, err)
			}
			return
		}
		out := u.String()
		colon := strings.IndexByte(s, ':')
		if want := strings.ToLower(s[:colon]) + s[colon:]; out != want {
			t.Fatalf("Parse(%q).String() = %q, want %q", s, out, want)
		}
		v, err := Parse(out)
		if err != nil {
			t.Fatalf("Parse(%q) ok but Parse(String()=%q) error: %v", s, out, err)
		}
		if *v != *u {
			t.Fatalf("Parse(String()) unstable for %q: %+v vs %+v", s, *u, *v)
		}
		// The views never panic, and what they build parses.
		type stringer interface{ String() string }
		for _, view := range []func() (stringer, error){
			func() (stringer, error) { return u.FTP() },
			func() (stringer, error) { return u.HTTP() },
			func() (stringer, error) { return u.Gopher() },
			func() (stringer, error) { return u.Mailto() },
			func() (stringer, error) { return u.News() },
			func() (stringer, error) { return u.NNTP() },
			func() (stringer, error) { return u.Telnet() },
			func() (stringer, error) { return u.WAIS() },
			func() (stringer, error) { return u.File() },
			func() (stringer, error) { return u.Prospero() },
		} {
			if b, err := view(); err == nil {
				if _, err := Parse(b.String()); err != nil {
					t.Fatalf("view of %q built %q, which does not parse: %v", s, b.String(), err)
				}
			}
		}
		// Issue 21, point 5: an IRI maps to a URI that is all ASCII
		// and parses.
		a, err := u.URI()
		if err != nil {
			t.Fatalf("Parse(%q).URI(): %v", s, err)
		}
		as := a.String()
		for i := 0; i < len(as); i++ {
			if as[i] >= 0x80 {
				t.Fatalf("Parse(%q).URI() = %q, not ASCII", s, as)
			}
		}
		if _, err := Parse(as); err != nil {
			t.Fatalf("Parse(%q).URI() = %q, which does not parse: %v", s, as, err)
		}
		_ = u.Normalize().String()
		_ = u.Redacted()
	})
}

// FuzzNormalize (issue 25, point 4): the Normalize form of every URL
// Parse accepts parses, normalizing it again changes nothing, and it is
// Equal to its source (checkNormal).
func FuzzNormalize(f *testing.F) {
	for _, s := range specURLs {
		f.Add(s)
	}
	for _, s := range []string{
		"HTTP://B%C3%BCcher.Example:080/a%7e%2f{x}?q=%41%2b#%7E",
		"gopher://h:70/%31", "gopher://h/0a%2F%3F%09s%09+", "mailto:%2F%2Fx@h?to=a%40b&subject=%41",
		"news:%3Ca%40b%3E", "nntp://h/g/007", "telnet://u:p@h", "wais://h/d%2Fb/T/x%2Fy", "wais://h/db?a%20b+c",
		"file://LOCALHOST/a%3Bb", "file:/x", "prospero://h/a%3Bb;f=a=b", "ftp://@h/a%3Btype=a/b;type=D",
		"http://[::ffff:1.2.3.4]/", "x-new://u%3A@h/%41?%2B",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		checkNormal(t, s)
	})
}

// FuzzStrict (issue 25, point 4): Strict never panics, and what it
// reports holds together (checkDepartures): in order, within the URL,
// each with a section, a rule and a fix, and none for a URL with an
// unsafe or non-ASCII character; for the URL's Normalize form too.
func FuzzStrict(f *testing.F) {
	for _, s := range specURLs {
		f.Add(s)
	}
	for _, s := range []string{
		"http://a_b.example:/~x/ü?a/b#{frag}~", "news:%3C1234@h_x.example%3E", "news:comp.lang.c++",
		"nntp://u:p@h/g/1/2", "wais://h/db/TEXT/a/b?x", "prospero://h/n;f=a=b;g", "file:/a;b",
		"mailto:a@x,b@y?s=1", "telnet://h/x", "http://bücher.example./", "http://[::1]:/",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		u, err := Parse(s)
		if err != nil {
			return
		}
		checkDepartures(t, u, u.Strict())
		n := u.Normalize()
		checkDepartures(t, n, n.Strict())
	})
}

// parseMix is a realistic mix of valid URLs of every scheme the package
// knows, none with escapes but the gopher search: the corpus of the
// BenchmarkParse and BenchmarkNetURLParse pair (issue 25, point 3).
var parseMix = []string{
	"http://www.example.com/index.html",
	"https://go.dev/doc/effective_go?lang=en#names",
	"ftp://ftp.example.org/pub/linux/kernel/v6.x/linux-6.1.tar.xz",
	"ftp://anonymous:guest@ftp.example.org:2121/incoming/report.txt;type=a",
	"ftps://ftp.example.org/pub/README",
	"gopher://gopher.floodgap.com/1/world",
	"gopher://gopher.example.org:7070/7/search%09veronica",
	"mailto:someone@example.com",
	"news:comp.infosystems.www.misc",
	"news:12345667123@info.cern.ch",
	"snews:comp.lang.go",
	"nntp://news.example.com:119/comp.lang.go/4242",
	"nntps://news.example.com/comp.lang.go",
	"telnet://user@bbs.example.com:2323/",
	"rlogin://guest@host.example.org",
	"tn3270://mainframe.example.org:2323",
	"wais://quake.think.com/wais-discussion-archives?lynch",
	"file:///usr/share/doc/README",
	"prospero://host.dom//pros/name;OBJECT-VERSION=3",
}

// sink keeps the benchmarked result alive, so the URL escapes to the heap
// as it does in real use.
var sink *URL

// BenchmarkParse and BenchmarkNetURLParse are a pair: the same corpus
// through Parse and through net/url.Parse. Compare them in one run:
//
//	go test -run '^$' -bench 'Parse$' -count 10 ./uri > bench.txt
//	benchstat -col /name bench.txt     (or read the two rows)
func BenchmarkParse(b *testing.B) {
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		u, err := Parse(parseMix[i])
		if err != nil {
			b.Fatal(err)
		}
		sink = u
		if i++; i == len(parseMix) {
			i = 0
		}
	}
}

// netSink is sink for net/url's URLs.
var netSink *url.URL

func BenchmarkNetURLParse(b *testing.B) {
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		u, err := url.Parse(parseMix[i])
		if err != nil {
			b.Fatal(err)
		}
		netSink = u
		if i++; i == len(parseMix) {
			i = 0
		}
	}
}

func TestParseAllocs(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("allocation counts differ under -race")
	}
	for _, s := range parseMix {
		if strings.Contains(s, "%") {
			continue
		}
		n := testing.AllocsPerRun(100, func() { sink, _ = Parse(s) })
		if n > 1 {
			t.Errorf("Parse(%q) allocates %v times, want at most 1", s, n)
		}
	}
}
