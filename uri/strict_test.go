package uri

import (
	"fmt"
	"strings"
	"testing"
)

// Issue 25, point 1: Strict, one row (at least) per rule, from the
// grammar of RFC 1738 section 5 and the scheme sections.

// want is one departure expected: its offset, section and a fragment of
// its rule.
type want struct {
	off     int
	section string
	rule    string
}

func TestStrict(t *testing.T) {
	tests := []struct {
		in   string
		want []want
	}{
		// Section 2.2: unsafe characters; only printable ASCII.
		{"http://h/~joe/", []want{{9, "2.2", `unsafe character '~'`}}},
		{"ftp://h/{a}|b\\c^d[e]", []want{{8, "2.2", "'{'"}, {10, "2.2", "'}'"}, {11, "2.2", "'|'"}, {13, "2.2", `'\\'`}, {15, "2.2", "'^'"}, {17, "2.2", "'['"}, {19, "2.2", "']'"}}},
		{"http://h/straße?q=ü", []want{{13, "2.2", `"ß" is an IRI's`}, {19, "2.2", `"ü"`}}},
		{"ftp://jöran@h/", []want{{7, "2.2", `"ö"`}}},
		{"ftp://u:pä~ss@h/", []want{{9, "2.2", "the password holds a character to encode"}}}, // shown nowhere
		{"gopher://h/0日本語", []want{{12, "2.2", `"日本語"`}}},

		// Section 3.1: the host.
		{"http://bücher.example/", []want{{7, "3.1", "in Unicode or escapes"}}},
		{"http://b%C3%BCcher.example/", []want{{7, "3.1", "in Unicode or escapes"}}},
		{"http://a_b.example/", []want{{8, "3.1", `'_' in a host name`}}},
		{"http://-a.example/", []want{{7, "3.1", `begins with "-"`}}},
		{"http://a-.example/", []want{{8, "3.1", `ends with "-"`}}},
		{"http://a.b-/", []want{{10, "3.1", `ends with "-"`}}},
		{"http://a.example.1com/", []want{{17, "3.1", "last label of a host name begins with a digit"}}},
		{"http://10.0.0.1a/", []want{{14, "3.1", "last label"}}},
		{"http://h.example./", []want{{16, "3.1", `not "."`}}},
		{"http://[::1]:8080/", []want{{7, "3.1", "IPv6"}}},
		{"ftp://u%3A:p%40@h/", nil}, // ":" and "@" encoded, as section 3.1 says

		// Section 5: port = digits.
		{"http://h:/", []want{{8, "5", `":" without a port`}}},

		// A user or password where the scheme has none.
		{"gopher://u@h/", []want{{9, "3.4", "gopher URL has no user"}}},
		{"nntp://u:p@h/g", []want{{7, "3.7", "nntp URL has no user"}}},
		{"wais://u@h/db", []want{{7, "3.9", "wais URL has no user"}}},

		// URLs without "//host" of a scheme that has one.
		{"http:foo", []want{{5, "3.3", `begins "http://"`}}},
		{"ftp:foo", []want{{4, "3.2", `begins "ftp://"`}}},
		{"telnet:h", []want{{7, "3.8", `begins "telnet://"`}}},

		// Section 3.2.2: "/" and ";" are reserved in a cwd or name.
		{"ftp://h/a;b/c", []want{{9, "3.2.2", `';' is reserved`}}},
		{"ftp://h/a/b;type=a", nil},
		{"ftp://h/a?b:c@d&e=f", nil}, // fsegment has "?" ":" "@" "&" "="

		// Section 3.3: http.
		{"http://h?q", []want{{8, "3.3", `the search follows a "/"`}}},
		{"http://h/a?b/c?d", []want{{12, "3.3", `'/' is reserved and has no place in an http search`}, {14, "3.3", `'?' is reserved`}}},
		{"https://h/a?b/c", []want{{13, "3.3", `'/' is reserved`}}},

		// Section 3.5: mailto.
		{"mailto:a@x,b@y", []want{{10, "3.5", "one address"}}},
		{"mailto:a@x?subject=hi", []want{{10, "3.5", "header fields"}}},
		{"mailto:", []want{{7, "3.5", "names an address"}}},
		{"mailto://x", []want{{7, "3.5", `without "//"`}}},

		// Section 3.6: news.
		{"news:comp.lang.c++", []want{{16, "3.6", `'+' in a news group name`}, {17, "3.6", `'+'`}}},
		{"news:1comp", []want{{5, "3.6", "begins with a letter"}}},
		{"news:comp%2Elang", []want{{9, "3.6", "an escape in a news group name"}}},
		{"news:alt.foo_bar", []want{{12, "3.6", `'_' in a news group name`}}},
		{"news:%3C1234@h.example%3E", []want{{5, "3.6", `without its enclosing "<" and ">"`}}},
		{"news:12@34@h.example", []want{{7, "3.6", `'@' is reserved and has no place in a message-id's unique part`}}},
		{"news:1234@h_x.example", []want{{11, "3.1", `'_' in a host name`}}},
		{"news:@h.example", []want{{5, "3.6", "unique part"}}},
		{"news://h/comp.lang.go", []want{{5, "3.6", "names no host"}}},
		{"news:", []want{{5, "3.6", "names a group"}}},
		{"snews:comp.lang.c++", []want{{17, "3.6", "'+'"}, {18, "3.6", "'+'"}}},

		// Section 3.7: nntp.
		{"nntp://h/", []want{{8, "3.7", "names a group"}}},
		{"nntp://h/comp.lang.go/x1", []want{{22, "3.7", "article number is decimal digits"}}},
		{"nntp://h/g/1/2", []want{{12, "3.7", "decimal digits"}}},
		{"nntp://h/g/", []want{{10, "3.7", "without an article number"}}},
		{"nntp://h/g?x", []want{{10, "3.7", `'?' in a news group name`}}},

		// Section 3.8: telnet.
		{"telnet://h/x", []want{{11, "3.8", "ends after the host"}}},
		{"telnet://h/?x", []want{{11, "3.8", "ends after the host"}}},
		{"rlogin://u@h/x", []want{{13, "3.8", "ends after the host"}}},

		// Section 3.9: wais.
		{"wais://h", []want{{8, "3.9", "names a database after"}}},
		{"wais://h/", []want{{9, "3.9", "names a database"}}},
		{"wais://h/db/TEXT", []want{{11, "3.9", "not two parts"}}},
		{"wais://h/db/TEXT/a/b", []want{{18, "3.9", `"/" in the wpath is encoded`}}},
		{"wais://h/db/TEXT/id?x", []want{{19, "3.9", "document URL has no search"}}},
		{"wais://h/d;b", []want{{10, "3.9", `';' is reserved`}}},
		{"wais://h/db?a/b", []want{{13, "3.9", `'/' is reserved`}}},

		// Section 3.10: file.
		{"file:/etc/motd", []want{{5, "3.10", `begins "file://"`}}},
		{"file://h:21/etc/motd", []want{{8, "3.10", "not a port"}}},
		{"file:///a;b", []want{{9, "3.10", `';' is reserved`}}},

		// Section 3.11: prospero.
		{"prospero://h", []want{{12, "3.11", "hsoname"}}},
		{"prospero://h/name;field", []want{{18, "3.11", "<field>=<value>"}}},
		{"prospero://h/name;f=a=b", []want{{21, "3.11", `'=' is reserved and has no place in a prospero field value`}}},

		// Several departures, in order; the fragment is not checked.
		{"http://a_b.example:/~x/ü?a/b#{frag}~", []want{{8, "3.1", "'_'"}, {18, "5", "port"}, {20, "2.2", "'~'"}, {23, "2.2", `"ü"`}, {27, "3.3", `'/'`}}},
	}
	for _, tt := range tests {
		u, err := Parse(tt.in)
		if err != nil {
			t.Errorf("Parse(%q): %v", tt.in, err)
			continue
		}
		got := u.Strict()
		if !matchDepartures(got, tt.want) {
			t.Errorf("Parse(%q).Strict() =\n%s\nwant\n%s", tt.in, showDepartures(got), showWants(tt.want))
		}
		checkDepartures(t, u, got)
	}
}

// A user or password on http is a departure (section 3.3) even where a
// Parse of the future takes it: made by hand here, as Parse refuses it.
func TestStrictHTTPLogin(t *testing.T) {
	u := &URL{Scheme: "http", Authority: true, User: "joe", HasUser: true, Password: "pw", HasPassword: true, Host: "h", Path: "/"}
	got := u.Strict()
	if len(got) != 1 || got[0].Offset != 7 || got[0].Section != "3.3" || strings.Contains(got[0].String(), "pw") {
		t.Errorf("Strict(%s) = %s, want one departure at 7, section 3.3, without the password", u.Redacted(), showDepartures(got))
	}
}

// URLs that must stay clean: the spec's own examples and one of each form
// of each scheme's grammar.
func TestStrictClean(t *testing.T) {
	for _, in := range []string{
		"ftp://@host.com/",
		"ftp://host.com/",
		"ftp://foo:@host.com/",
		"ftp://myname@host.dom/%2Fetc/motd",
		"ftp://myname@host.dom//etc/motd",
		"ftp://info.cern.ch/pub/www/doc;type=d",
		"ftp://user:pass@host:2121/a/b/c;type=i",
		"ftp://host/a%3Bb/c%2Fd?:@&=",
		"ftp://h/%7Euser/",
		"FTP://H.EXAMPLE/x",
		"http://host",
		"http://host/",
		"http://host:8080/a/b;c?d=e&f=g",
		"http://127.0.0.1/",
		"http://ds.internic.net/instructions/overview.html#WARNING",
		"http://info.cern.ch/albert/bertram/marie%2Dclaude",
		"http://h/?",
		"http://h/?q=a%2Fb%3F;:@&=",
		"http://xn--bcher-kva.example/stra%C3%9Fe",
		"http://a-b.c-d.example/",
		"http://9a.example/",
		"http://x/",
		"https://h/a?b",
		"gopher://host",
		"gopher://host/",
		"gopher://host:7070/00about",
		"gopher://host/7search%09words%20here",
		"gopher://host.dom/0file%09%09!+ABSTRACT%20+SMELL",
		"gopher://host.dom/1form%09%09+%091%0D%0A+-1%0D%0Aask_item1_value%0D%0Aask_item2_value%0D%0A.%0D%0A",
		"gopher://h/0a?b;c/d:e@f&g=h",
		"mailto:user@host.dom",
		"mailto:a%25b@host.dom",
		"news:comp.infosystems.www.misc",
		"news:*",
		"news:12345667123@info.cern.ch",
		"news:a;b/c?d:e&f=g@h.example",
		"nntp://news.host:119/comp.lang.go/42",
		"nntp://news.host/comp.lang.go",
		"telnet://user:secret@host:2323/",
		"telnet://host",
		"telnet://@h/",
		"wais://quake.think.com/wais-discussion-archives?lynch",
		"wais://host:210/db",
		"wais://host/db?some+words;:@&=",
		"wais://host/db/TEXT/0%20%2Fdocid",
		"file:///etc/motd",
		"file://localhost/etc/motd",
		"file://vms.host.edu/disk$user/my/notes/note12345.txt",
		"file://h/a?b:c@d&e=f",
		"prospero://host.dom//pros/name",
		"prospero://host.dom//pros/name;OBJECT-VERSION=3",
		"prospero://h/a?b:c@d&e=f;x?:@&=v?:@&",
		"magic://a/b/c//d/e/f",
		"g:h",
		"x-new+scheme.v1://host/path?q#frag",
		"urn:isbn:0451450523",
		"http://h/#{not}~checked",
	} {
		u, err := Parse(in)
		if err != nil {
			t.Errorf("Parse(%q): %v", in, err)
			continue
		}
		if got := u.Strict(); len(got) != 0 {
			t.Errorf("Parse(%q).Strict() =\n%s\nwant none", in, showDepartures(got))
		}
	}
}

func matchDepartures(got []Departure, ws []want) bool {
	if len(got) != len(ws) {
		return false
	}
	for i, w := range ws {
		if got[i].Offset != w.off || got[i].Section != w.section || !strings.Contains(got[i].Rule, w.rule) {
			return false
		}
	}
	return true
}

// checkDepartures checks what holds for every result of Strict (and
// FuzzStrict): in order, each within the URL, with a section, a rule and
// a fix; none showing a password; and a URL with none is all printable
// ASCII without an unsafe character outside its fragment and host.
func checkDepartures(t *testing.T, u *URL, ds []Departure) {
	t.Helper()
	s := u.String()
	prev := 0
	for _, d := range ds {
		if d.Offset < prev || d.Offset > len(s) || d.Section == "" || d.Rule == "" || d.Fix == "" {
			t.Fatalf("Parse(%q).Strict(): bad departure %+v (previous offset %d)", u.Redacted(), d, prev)
		}
		if p, _ := u.PasswordValue(); u.HasPassword && (strings.Contains(d.String(), u.Password) || strings.Contains(d.String(), p)) && len(p) >= 8 {
			t.Fatalf("Parse(%q).Strict(): %q shows the password", u.Redacted(), d)
		}
		prev = d.Offset
	}
	if len(ds) > 0 {
		return
	}
	body := s
	if u.HasFragment {
		body = s[:len(s)-len(u.Fragment)-1]
	}
	for i := 0; i < len(body); i++ {
		if c := body[i]; c >= 0x80 || is(c, cNational) && !(c == '[' || c == ']') {
			t.Fatalf("Parse(%q).Strict() is empty, but byte %d is %q", s, i, c)
		}
	}
}

func showDepartures(ds []Departure) string {
	var b strings.Builder
	for _, d := range ds {
		fmt.Fprintf(&b, "\t%s\n", d)
	}
	return b.String()
}

func showWants(ws []want) string {
	var b strings.Builder
	for _, w := range ws {
		fmt.Fprintf(&b, "\toffset %d: section %s: ...%s...\n", w.off, w.section, w.rule)
	}
	return b.String()
}
