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

// parseMix is a realistic mix of URLs of every scheme, none with escapes
// but the gopher search.
var parseMix = []string{
	"http://www.example.com/index.html",
	"https://go.dev/doc/effective_go?lang=en#names",
	"ftp://ftp.example.org/pub/linux/kernel/v6.x/linux-6.1.tar.xz",
	"ftp://anonymous:guest@ftp.example.org:2121/incoming/report.txt;type=a",
	"gopher://gopher.floodgap.com/1/world",
	"gopher://gopher.example.org:7070/7/search%09veronica",
	"mailto:someone@example.com",
	"news:comp.infosystems.www.misc",
	"news:12345667123@info.cern.ch",
	"nntp://news.example.com:119/comp.lang.go/4242",
	"telnet://user@bbs.example.com:2323/",
	"wais://quake.think.com/wais-discussion-archives?lynch",
	"file:///usr/share/doc/README",
	"prospero://host.dom//pros/name;OBJECT-VERSION=3",
}

// sink keeps the benchmarked result alive, so the URL escapes to the heap
// as it does in real use.
var sink *URL

func BenchmarkParse(b *testing.B) {
	b.Run("uri", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			u, err := Parse(parseMix[i%len(parseMix)])
			if err != nil {
				b.Fatal(err)
			}
			sink = u
		}
	})
	b.Run("net-url", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			if _, err := url.Parse(parseMix[i%len(parseMix)]); err != nil {
				b.Fatal(err)
			}
		}
	})
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
