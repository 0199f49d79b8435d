package uri

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

// specURLs holds every example URL of the two seed specifications (RFC
// 1738 draft 06 and RFC 1630, with the examples restored in
// shared/spec/README.md) that is valid, plus one of each form of every
// scheme the draft's BNF defines.
var specURLs = []string{
	// RFC 1738 draft, section 3.1.
	"ftp://@host.com/",
	"ftp://host.com/",
	"ftp://foo:@host.com/",
	// Section 3.2.2.
	"ftp://myname@host.dom/%2Fetc/motd",
	"ftp://myname@host.dom/etc/motd",
	"ftp://myname@host.dom//etc/motd",
	// Section 3.4.7 and 3.4.8, as complete URLs.
	"gopher://host.dom/0file%09%09!+ABSTRACT%20+SMELL",
	"gopher://host.dom/0file%09%09+application/postscript%20Es_ES",
	// Section 3.4.9.
	"gopher://host.dom/1form%09%09+%091%0D%0A+-1%0D%0Aask_item1_value%0D%0Aask_item2_value%0D%0A.%0D%0A",
	// Section 3.6.
	"news:comp.infosystems.www.misc",
	"news:*",
	// Section 3.10.
	"file://vms.host.edu/disk$user/my/notes/note12345.txt",
	// Section 3.11.
	"prospero://host.dom//pros/name",
	"prospero://host.dom//pros/name;OBJECT-VERSION=3",
	// Appendix and references.
	"ftp://info.cern.ch/pub/www/doc;type=d",
	"ftp://ds.internic.net/rfc",
	"http://ds.internic.net/instructions/overview.html#WARNING",
	"ftp://ds.internic.net/rfc/rfc1436.txt",
	"ftp://boombox.micro.umn.edu/pub/gopher/gopher_protocol/Gopher+/Gopher+.txt",
	"gopher://boombox.micro.umn.edu/11/gopher/gopher_protocol",
	"ftp://info.cern.ch/pub/www/doc/http-spec.txt.Z",
	"ftp://quake.think.com/pub/wais/doc/protspec.txt",
	"wais://quake.think.com/wais-discussion-archives?lynch",
	"ftp://prospero.isi.edu/pub/prospero/doc/prospero-protocol.PS.Z",
	"ftp://uu.psi.com/wp/nir.txt",
	// RFC 1630 examples restored in shared/spec/README.md.
	"http://info.cern.ch/albert/bertram/marie-claude",
	"http://info.cern.ch/albert/bertram/marie%2Dclaude",
	"http://info.cern.ch/albert/bertram%2Fmarie-claude",
	"magic://a/b/c//d/e/f",
	"magic://a/b/c//d/e/",
	"g:h",
	// One of each BNF form.
	"http://host",
	"http://host/",
	"http://host:8080/a/b;c?d=e&f=g",
	"https://[::1]:8443/x",
	"http://127.0.0.1/",
	"ftp://user:pass@host:2121/a/b/c;type=i",
	"ftp://host/dir/;type=d",
	"ftp://host/a%3Bb/c%2Fd?:@&=",
	"gopher://host",
	"gopher://host/",
	"gopher://host/1",
	"gopher://host:7070/00about",
	"gopher://host/7search%09words%20here",
	"gopher://host/9bin/file%20name.zip",
	"mailto:user@host.dom",
	"mailto:a%25b@host.dom",
	"mailto:a@x,b@y?subject=hi%20there&cc=c@z&body=line",
	"news:12345667123@info.cern.ch",
	"news:x@[127.0.0.1]",
	"nntp://news.host:119/comp.lang.go/42",
	"nntp://news.host/comp.lang.go",
	"telnet://user:secret@host:2323/",
	"telnet://host",
	"wais://host:210/db",
	"wais://host/db?some+words",
	"wais://host/db/TEXT/0%20%2Fdocid",
	"file:///etc/motd",
	"file://localhost/etc/motd",
	"file://host/",
	"rlogin://user@host",
	"tn3270://host:23",
	"x-new+scheme.v1://host/path?q#frag",
	"urn:isbn:0451450523",
	"http://host/#",
	"http://host/?",
	"http://host:/",
	"ftp://h.example./x",
}

func TestParseRoundTrip(t *testing.T) {
	for _, in := range specURLs {
		u, err := Parse(in)
		if err != nil {
			t.Errorf("Parse(%q) error: %v", in, err)
			continue
		}
		if got := u.String(); got != in {
			t.Errorf("Parse(%q).String() = %q, want the input", in, got)
		}
	}
}

func TestParse(t *testing.T) {
	tests := []struct {
		in   string
		want URL
	}{
		{"ftp://@host.com/", URL{Scheme: "ftp", Authority: true, HasUser: true, Host: "host.com", Path: "/"}},
		{"ftp://host.com/", URL{Scheme: "ftp", Authority: true, Host: "host.com", Path: "/"}},
		{"ftp://foo:@host.com/", URL{Scheme: "ftp", Authority: true, User: "foo", HasUser: true, HasPassword: true, Host: "host.com", Path: "/"}},
		{"FTP://u%3Ax:p%40ss@host:21/a?b", URL{Scheme: "ftp", Authority: true, User: "u%3Ax", HasUser: true, Password: "p%40ss", HasPassword: true, Host: "host", Port: 21, Path: "/a?b"}},
		{"http://h:80/p?q#f", URL{Scheme: "http", Authority: true, Host: "h", Port: 80, Path: "/p", RawQuery: "q", Fragment: "f", HasFragment: true}},
		{"http://h?q", URL{Scheme: "http", Authority: true, Host: "h", RawQuery: "q"}},
		{"http://[fe80::1]:8080/", URL{Scheme: "http", Authority: true, Host: "fe80::1", Port: 8080, Path: "/"}},
		{"gopher://h/7sel?x", URL{Scheme: "gopher", Authority: true, Host: "h", Path: "/7sel?x"}},
		{"mailto:joe@example.com", URL{Scheme: "mailto", Path: "joe@example.com"}},
		{"news:*", URL{Scheme: "news", Path: "*"}},
		{"file:///tmp/x", URL{Scheme: "file", Authority: true, Path: "/tmp/x"}},
		{"Web+X://h/p", URL{Scheme: "web+x", Authority: true, Host: "h", Path: "/p"}},
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
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		in     string
		offset int
		reason string // a fragment of the reason
	}{
		// The seed's illegal examples (RFC 1630, Example 3).
		{"fxqn:/us/va/reston/cnri/ietf/24/asdf%*.fred", 36, `"%" not followed by two hex digits`},
		{"news:12345667123%asdghfh@info.cern.ch", 16, `"%" not followed by two hex digits`},
		{"http://h/a%2", 10, `"%" not followed`},
		{"http://h/a b", 10, "unencoded space"},
		{"http://h/a\tb", 10, "control byte"},
		{"http://h/caf\xe9", 12, "non-ASCII byte 0xE9 that is not UTF-8 (encode it as %E9)"}, // Latin-1: UTF-8 is an IRI (iri_test.go)
		{"http://h/a\"b", 10, "unsafe character"},
		{"http://h/a<b>", 10, "unsafe character"},
		{"http://h/a#b#c", 12, `second "#"`},
		{"http://h:65536/", 9, "out of range"},
		{"http://h:0/", 9, "out of range"},
		{"http://h:8x/", 10, "not a decimal number"},
		{"prospero://u@h/x", 11, "may not carry a user"},
		{"ftp://h/file;type=x", 18, "unknown ftp typecode"},
		{"ftp://h/file;type=", 18, "unknown ftp typecode"},
		{"news:abc@", 9, "without a host"},
		{"ftp:///x", 6, "missing host"},
		{"ftp://h%41/", 7, "encoded bytes are not allowed"},
		{"ftp://a..b/", 8, "empty label"},
		{"ftp://300.1.1.1/", 6, "invalid IPv4"},
		{"http://[::1/", 7, `"[" without "]"`},
		{"http://[zz::1]/", 8, "invalid IPv6"},
		{"ftp://u@v@h/", 7, `'@' in user`},
		{"ftp://u:p:q@h/", 9, `':' in user`},
		{"/relative/path", -1, "missing scheme"},
		{":x", 0, "empty scheme"},
		{"ht tp://h/", 2, "in scheme"},
		{"", -1, "missing scheme"},
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

func TestErrorMasksPassword(t *testing.T) {
	_, err := Parse("ftp://joe:hunter2@host/a b")
	if err == nil {
		t.Fatal("Parse accepted a space")
	}
	if msg := err.Error(); strings.Contains(msg, "hunter2") || !strings.Contains(msg, "joe:***@host") {
		t.Errorf("error %q shows the password or not the masked URL", msg)
	}
	u := MustParse("ftp://joe:hunter2@host/x")
	if got, want := u.Redacted(), "ftp://joe:***@host/x"; got != want {
		t.Errorf("Redacted() = %q, want %q", got, want)
	}
}

func TestHostport(t *testing.T) {
	tests := []struct{ in, want string }{
		{"ftp://h/", "h:21"},
		{"http://h:8080/", "h:8080"},
		{"http://h:/", "h:80"},
		{"gopher://[::1]/", "[::1]:70"},
		{"wais://h/db", "h:210"},
		{"prospero://h/x", "h:1525"},
	}
	for _, tt := range tests {
		if got := MustParse(tt.in).Hostport(); got != tt.want {
			t.Errorf("Parse(%q).Hostport() = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestSchemeTable(t *testing.T) {
	want := map[string]int{"ftp": 21, "http": 80, "https": 443, "gopher": 70, "nntp": 119,
		"telnet": 23, "wais": 210, "prospero": 1525, "mailto": 0, "news": 0, "file": 0}
	for name, port := range want {
		s, ok := LookupScheme(name)
		if !ok || s.DefaultPort != port {
			t.Errorf("LookupScheme(%q) = %+v, %v; want port %d", name, s, ok, port)
		}
	}
	for _, name := range []string{"mailto", "news"} {
		if s, _ := LookupScheme(name); s.Internet {
			t.Errorf("LookupScheme(%q).Internet = true, want false", name)
		}
	}
	if _, ok := LookupScheme("x-unknown"); ok {
		t.Error(`LookupScheme("x-unknown") found a scheme`)
	}
}

func TestSchemeIndex(t *testing.T) {
	for i, s := range schemes {
		if got := schemeIndex(s.Name); got != i {
			t.Errorf("schemeIndex(%q) = %d, want %d", s.Name, got, i)
		}
	}
}

func TestPortLeadingZeros(t *testing.T) {
	u := MustParse("http://h:0080/")
	if u.Port != 80 || u.String() != "http://h:0080/" {
		t.Errorf("Parse(%q) = port %d, String %q", "http://h:0080/", u.Port, u.String())
	}
	if !Equal("http://h:0080/", "http://h/") {
		t.Error("http://h:0080/ should equal http://h/")
	}
	if _, err := Parse("http://h:000080/"); err == nil {
		t.Error("Parse accepted a 6-digit port")
	}
}
