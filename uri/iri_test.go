package uri

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

// Issue 21, point 5: a host in Unicode is an IRI host (RFC 3987), kept as
// written for people and converted to A-labels (IDNA) for the wire.

func TestParseIRI(t *testing.T) {
	tests := []struct {
		in   string
		want URL
	}{
		{"http://bücher.example/", URL{Scheme: "http", Authority: true, Host: "bücher.example", Path: "/"}},
		{"http://b%C3%BCcher.example/", URL{Scheme: "http", Authority: true, Host: "b%C3%BCcher.example", Path: "/"}},
		{"http://BÜCHER.example:8080/straße?q=ü#ä", URL{Scheme: "http", Authority: true, Host: "BÜCHER.example", Port: 8080, Path: "/straße", RawQuery: "q=ü", Fragment: "ä", HasFragment: true}},
		{"ftp://jöran:pässe@例え.テスト/ディレクトリ/ファイル", URL{Scheme: "ftp", Authority: true, User: "jöran", HasUser: true, Password: "pässe", HasPassword: true, Host: "例え.テスト", Path: "/ディレクトリ/ファイル"}},
		{"gopher://bücher.example/0Straße", URL{Scheme: "gopher", Authority: true, Host: "bücher.example", Path: "/0Straße"}},
		{"news:grüße.test", URL{Scheme: "news", Path: "grüße.test"}},
		{"mailto:jöran@bücher.example", URL{Scheme: "mailto", Path: "jöran@bücher.example"}},
		{"http://a_b.bücher.example./", URL{Scheme: "http", Authority: true, Host: "a_b.bücher.example.", Path: "/"}},
		{"http://bücher。example/", URL{Scheme: "http", Authority: true, Host: "bücher。example", Path: "/"}},
		{"http://x/\U0001F600\U000E1000\uE000", URL{Scheme: "http", Authority: true, Host: "x", Path: "/\U0001F600\U000E1000\uE000"}},
	}
	for _, tt := range tests {
		got, err := Parse(tt.in)
		if err != nil {
			t.Errorf("Parse(%q) error: %v", tt.in, err)
			continue
		}
		if !reflect.DeepEqual(*got, tt.want) {
			t.Errorf("Parse(%q) = %+v, want %+v", tt.in, *got, tt.want)
		}
		if got.String() != tt.in {
			t.Errorf("Parse(%q).String() = %q, want the input", tt.in, got.String())
		}
	}
}

func TestParseIRIErrors(t *testing.T) {
	tests := []struct {
		in     string
		offset int
		reason string // a fragment of the reason
	}{
		// IDNA refuses the label: its offset.
		{"http://⒈.com/", 7, `label "⒈" is not a valid international domain name (IDNA: disallowed rune U+2488)`},
		{"http://a.ü-.com/", 9, `label "ü-" is not a valid international domain name`},
		{"http://a.\u0301b.com/", 9, "not a valid international domain name"},
		{"http://x.b%C3%BC-.com/", 9, `label "bü-"`},
		{"https://ex\u200dample.bücher.example/", 8, "not a valid international domain name"},
		{"http://x%C3/", 7, `label "x\xc3" is not UTF-8`},
		{"http://%C3%BC%41/", 13, `encoded bytes are not allowed in a host name but for UTF-8 beyond ASCII (write 'A' as itself)`},
		{"http://１.２.３.４５６/", 7, `maps to "1.2.3.456": invalid IPv4 address`},
		{"http://bücher..example/", 15, "empty label"},
		// Characters RFC 3987 does not let stand unencoded, with the
		// whole UTF-8 sequence as the advice.
		{"http://x/a\u200eb", 10, "bidirectional formatting character '\\u200e' (encode it as %E2%80%8E)"},
		{"http://x/a\u202eb", 10, "bidirectional formatting character"},
		{"http://x/\u0085", 9, "control character '\\u0085' (encode it as %C2%85)"},
		{"http://x/\ufffd", 9, "character '\\ufffd' (encode it as %EF%BF%BD)"},
		{"http://x/\ufdd0", 9, "(encode it as %EF%B7%90)"},
		{"http://x/\U0001FFFE", 9, "(encode it as %F0%9F%BF%BE)"},
		{"http://x/\U000E0001", 9, "(encode it as %F3%A0%80%81)"},
		{"http://x/\xc3", 9, "non-ASCII byte 0xC3 that is not UTF-8 (encode it as %C3)"},
		{"http://x/\xed\xa0\x80", 9, "non-ASCII byte 0xED that is not UTF-8"}, // a surrogate
		{"http://bücher.example:8ü/", 24, "not a decimal number"},
		{"ftp://h/ü;type=ü", 16, "unknown ftp typecode"},
		{"hüttp://x/", 1, "in scheme"},
		{"http://[::ü]/", 8, "invalid IPv6"},
	}
	for _, tt := range tests {
		_, err := Parse(tt.in)
		var e *Error
		if !errors.As(err, &e) {
			t.Errorf("Parse(%q) error = %v, want *Error", tt.in, err)
			continue
		}
		if e.Offset != tt.offset || !strings.Contains(e.Reason, tt.reason) {
			t.Errorf("Parse(%q) = offset %d reason %q, want offset %d reason containing %q", tt.in, e.Offset, e.Reason, tt.offset, tt.reason)
		}
	}
}

func TestASCIIHost(t *testing.T) {
	tests := []struct{ in, want string }{
		{"example.com", "example.com"},
		{"Example.COM", "Example.COM"}, // ASCII labels as they are
		{"a_b.example", "a_b.example"},
		{"::1", "::1"},
		{"127.0.0.1", "127.0.0.1"},
		{"xn--bcher-kva.example", "xn--bcher-kva.example"},
		{"bücher.example", "xn--bcher-kva.example"},
		{"BÜCHER.Example", "xn--bcher-kva.Example"},
		{"b%C3%BCcher.example", "xn--bcher-kva.example"},
		{"b%c3%bccher.example", "xn--bcher-kva.example"},
		{"straße.de", "xn--strae-oqa.de"}, // IDNA 2008: ß is kept
		{"例え.テスト", "xn--r8jz45g.xn--zckzah"},
		{"bücher。example", "xn--bcher-kva.example"},
		{"ｂüｃｈｅｒ.example", "xn--bcher-kva.example"},
		{"a_b.bücher.example.", "a_b.xn--bcher-kva.example."},
		{"１．２．３．４", "1.2.3.4"},
	}
	for _, tt := range tests {
		got, err := ASCIIHost(tt.in)
		if err != nil || got != tt.want {
			t.Errorf("ASCIIHost(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
	for _, in := range []string{"⒈.com", "ü-.example", "x%C3", "bücher..example"} {
		if got, err := ASCIIHost(in); err == nil {
			t.Errorf("ASCIIHost(%q) = %q, want an error", in, got)
		} else if _, ok := err.(*Error); !ok {
			t.Errorf("ASCIIHost(%q) error %T, want *Error", in, err)
		}
	}
	if n := testing.AllocsPerRun(100, func() { ASCIIHost("www.example.com") }); n != 0 {
		t.Errorf("ASCIIHost of an ASCII host allocates %v times", n)
	}
}

func TestUnicodeHost(t *testing.T) {
	tests := []struct{ in, want string }{
		{"example.com", "example.com"},
		{"xn--bcher-kva.example", "bücher.example"},
		{"XN--BCHER-KVA.example", "bücher.example"},
		{"a.xn--r8jz45g.xn--zckzah", "a.例え.テスト"},
		{"b%C3%BCcher.example", "bücher.example"},
		{"bücher.example", "bücher.example"},
		{"xn--a.example", "xn--a.example"},                   // not an A-label: as it is
		{"xn--n3h.example", "☃.example"},                     // UTS #46 allows it
		{"xn--ls8h\u202e.example", "xn--ls8h\u202e.example"}, // not a valid label: as it is
		{"%41.example", "%41.example"},
		{"::1", "::1"},
	}
	for _, tt := range tests {
		if got := UnicodeHost(tt.in); got != tt.want {
			t.Errorf("UnicodeHost(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestURI(t *testing.T) {
	tests := []struct{ in, want string }{
		{"http://bücher.example/straße?q=ü#ä", "http://xn--bcher-kva.example/stra%C3%9Fe?q=%C3%BC#%C3%A4"},
		{"http://b%C3%BCcher.example/", "http://xn--bcher-kva.example/"},
		{"ftp://jöran:pässe@bücher.example:2121/ü;type=a", "ftp://j%C3%B6ran:p%C3%A4sse@xn--bcher-kva.example:2121/%C3%BC;type=a"},
		{"mailto:jöran@bücher.example", "mailto:j%C3%B6ran@b%C3%BCcher.example"},
		{"http://h/a%20b", "http://h/a%20b"},
		{"HTTP://[::1]:80/x", "http://[::1]:80/x"},
	}
	for _, tt := range tests {
		u := MustParse(tt.in)
		got, err := u.URI()
		if err != nil || got.String() != tt.want {
			t.Errorf("Parse(%q).URI() = %v, %v; want %q", tt.in, got, err, tt.want)
			continue
		}
		if u.String() != MustParse(tt.in).String() {
			t.Errorf("Parse(%q).URI() changed the URL", tt.in)
		}
		// The URI is all ASCII, parses, and its views decode to what
		// the IRI's do.
		for i := 0; i < len(got.String()); i++ {
			if got.String()[i] >= 0x80 {
				t.Errorf("Parse(%q).URI() = %q is not ASCII", tt.in, got)
				break
			}
		}
		v, err := Parse(got.String())
		if err != nil {
			t.Errorf("Parse(%q.URI() = %q): %v", tt.in, got, err)
			continue
		}
		if u.Scheme == "ftp" {
			a, _ := u.FTP()
			b, _ := v.FTP()
			b.Host = a.Host
			if !reflect.DeepEqual(a, b) {
				t.Errorf("FTP view of %q = %+v, of its URI %+v", tt.in, a, b)
			}
		}
	}
	bad := &URL{Scheme: "http", Authority: true, Host: "⒈.com", Path: "/"}
	if _, err := bad.URI(); err == nil {
		t.Errorf("URI() of a URL with host %q: no error", bad.Host)
	}
}

// The views of an IRI decode what they decode of its URI: the same bytes
// go on the wire either way.
func TestIRIViews(t *testing.T) {
	g, err := MustParse("gopher://bücher.example/0/Straße%20ä").Gopher()
	if err != nil || g.Selector != "/Straße ä" || g.Host != "bücher.example" {
		t.Errorf("Gopher view = %+v, %v", g, err)
	}
	m, err := MustParse("mailto:jöran@bücher.example").Mailto()
	if err != nil || len(m.To) != 1 || m.To[0] != "jöran@bücher.example" {
		t.Errorf("Mailto view = %+v, %v", m, err)
	}
	n, err := MustParse("news:grüße.test").News()
	if err != nil || n.Group != "grüße.test" {
		t.Errorf("News view = %+v, %v", n, err)
	}
	// A view builds the URI form: every byte beyond ASCII encoded.
	if s := g.String(); s != "gopher://bücher.example/0/Stra%C3%9Fe%20%C3%A4" {
		t.Errorf("Gopher.String() = %q", s)
	}
}

// SameHost: a name in Unicode, in percent-encoded UTF-8 and in its
// A-labels is one host, in any case; different names, and a name IDNA
// refuses against another, are not.
func TestSameHost(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		same bool
	}{
		{"bücher.example", "xn--bcher-kva.example", true},
		{"BÜCHER.example", "XN--BCHER-KVA.EXAMPLE", true},
		{"b%C3%BCcher.example", "bücher.example", true},
		{"Example.ORG", "example.org", true},
		{"[::1]", "[::1]", true},
		{"bücher.example", "bucher.example", false},
		{"xn--bcher-kva.example", "xn--bcher-kva.example.evil", false},
		{"a\u200Db.example", "ab.example", false}, // IDNA refuses a bare ZWJ: compared as written
		{"", "", true},
	} {
		if got := SameHost(tc.a, tc.b); got != tc.same {
			t.Errorf("SameHost(%q, %q) = %v, want %v", tc.a, tc.b, got, tc.same)
		}
		if got := SameHost(tc.b, tc.a); got != tc.same {
			t.Errorf("SameHost(%q, %q) = %v, want %v", tc.b, tc.a, got, tc.same)
		}
	}
	if got := HostKey("Bücher.Example"); got != "xn--bcher-kva.example" {
		t.Errorf("HostKey(Bücher.Example) = %q, want xn--bcher-kva.example", got)
	}
}
