package uri

import (
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
)

func TestFTPView(t *testing.T) {
	tests := []struct {
		in   string
		want FTP
	}{
		// RFC 1738 section 3.2.2's three examples.
		{"ftp://myname@host.dom/%2Fetc/motd", FTP{Login: Login{User: "myname", HasUser: true, Host: "host.dom"}, Dirs: []string{"/etc"}, Name: "motd"}},
		{"ftp://myname@host.dom/etc/motd", FTP{Login: Login{User: "myname", HasUser: true, Host: "host.dom"}, Dirs: []string{"etc"}, Name: "motd"}},
		{"ftp://myname@host.dom//etc/motd", FTP{Login: Login{User: "myname", HasUser: true, Host: "host.dom"}, Dirs: []string{"", "etc"}, Name: "motd"}},
		// Section 3.1: empty user, no user, empty password.
		{"ftp://@host.com/", FTP{Login: Login{HasUser: true, Host: "host.com"}}},
		{"ftp://host.com/", FTP{Login: Login{Host: "host.com"}}},
		{"ftp://foo:@host.com/", FTP{Login: Login{User: "foo", HasUser: true, HasPassword: true, Host: "host.com"}}},
		{"ftp://host.com", FTP{Login: Login{Host: "host.com"}}},
		// Typecodes.
		{"ftp://info.cern.ch/pub/www/doc;type=d", FTP{Login: Login{Host: "info.cern.ch"}, Dirs: []string{"pub", "www"}, Name: "doc", Type: 'd'}},
		{"ftp://h/a/;type=D", FTP{Login: Login{Host: "h"}, Dirs: []string{"a"}, Type: 'd'}},
		{"ftp://h/f.txt;type=a", FTP{Login: Login{Host: "h"}, Name: "f.txt", Type: 'a'}},
		{"ftp://u:p%40w@h:2121/x;type=i", FTP{Login: Login{User: "u", HasUser: true, Password: "p@w", HasPassword: true, Host: "h", Port: 2121}, Name: "x", Type: 'i'}},
		// Encoded reserved characters are data.
		{"ftp://h/a%3Bb/c%20d%23e%25", FTP{Login: Login{Host: "h"}, Dirs: []string{"a;b"}, Name: "c d#e%"}},
		{"ftp://h/dir;type=a/file", FTP{Login: Login{Host: "h"}, Dirs: []string{"dir;type=a"}, Name: "file"}},
	}
	for _, tt := range tests {
		got, err := MustParse(tt.in).FTP()
		if err != nil {
			t.Errorf("Parse(%q).FTP() error: %v", tt.in, err)
			continue
		}
		if !reflect.DeepEqual(*got, tt.want) {
			t.Errorf("Parse(%q).FTP() = %+v, want %+v", tt.in, *got, tt.want)
		}
	}
}

func TestGopherView(t *testing.T) {
	tests := []struct {
		in      string
		want    Gopher
		request string
	}{
		{"gopher://h", Gopher{Host: "h", Type: '1'}, ""},
		{"gopher://h/", Gopher{Host: "h", Type: '1'}, ""},
		{"gopher://h/1", Gopher{Host: "h", Type: '1'}, ""},
		{"gopher://h:70/00about", Gopher{Host: "h", Port: 70, Type: '0', Selector: "0about"}, "0about"},
		{"gopher://h/0/a%20file", Gopher{Host: "h", Type: '0', Selector: "/a file"}, "/a file"},
		{"gopher://h/7/search%09two%20words", Gopher{Host: "h", Type: '7', Selector: "/search", Search: "two words", HasSearch: true}, "/search\ttwo words"},
		{"gopher://h/7/s%09w%09+", Gopher{Host: "h", Type: '7', Selector: "/s", Search: "w", HasSearch: true, Plus: "+", HasPlus: true}, "/s\tw\t+"},
		{"gopher://h/7/s%09%09$", Gopher{Host: "h", Type: '7', Selector: "/s", HasSearch: true, Plus: "$", HasPlus: true}, "/s\t\t$"},
		// Section 3.4.3: for a type other than 7, selector TAB Gopher+ string.
		{"gopher://h/0f%09%09!+ABSTRACT%20+SMELL", Gopher{Host: "h", Type: '0', Selector: "f", HasSearch: true, Plus: "!+ABSTRACT +SMELL", HasPlus: true}, "f\t!+ABSTRACT +SMELL"},
		{"gopher://h/0f%09+", Gopher{Host: "h", Type: '0', Selector: "f", Plus: "+", HasPlus: true}, "f\t+"},
		{"gopher://h/1d%09$", Gopher{Host: "h", Type: '1', Selector: "d", Plus: "$", HasPlus: true}, "d\t$"},
		{"gopher://h/0f%09%09+application/postscript%20Es_ES", Gopher{Host: "h", Type: '0', Selector: "f", HasSearch: true, Plus: "+application/postscript Es_ES", HasPlus: true}, "f\t+application/postscript Es_ES"},
		// Section 3.4.9: a filled-in form, sent verbatim.
		{"gopher://h/1form%09%09+%091%0D%0A+-1%0D%0Aask_item1_value%0D%0Aask_item2_value%0D%0A.%0D%0A",
			Gopher{Host: "h", Type: '1', Selector: "form", HasSearch: true, Plus: "+\t1\r\n+-1\r\nask_item1_value\r\nask_item2_value\r\n.\r\n", HasPlus: true},
			"form\t+\t1\r\n+-1\r\nask_item1_value\r\nask_item2_value\r\n.\r\n"},
		{"gopher://h/%30sel", Gopher{Host: "h", Type: '0', Selector: "sel"}, "sel"},
		{"gopher://h/0a?b;c", Gopher{Host: "h", Type: '0', Selector: "a?b;c"}, "a?b;c"},
	}
	for _, tt := range tests {
		got, err := MustParse(tt.in).Gopher()
		if err != nil {
			t.Errorf("Parse(%q).Gopher() error: %v", tt.in, err)
			continue
		}
		if !reflect.DeepEqual(*got, tt.want) {
			t.Errorf("Parse(%q).Gopher() = %+v, want %+v", tt.in, *got, tt.want)
		}
		if r := got.Request(); r != tt.request {
			t.Errorf("Parse(%q).Gopher().Request() = %q, want %q", tt.in, r, tt.request)
		}
	}
}

func TestOtherViews(t *testing.T) {
	check := func(in string, got any, err error, want any) {
		t.Helper()
		if err != nil {
			t.Errorf("view of %q: %v", in, err)
			return
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("view of %q = %+v, want %+v", in, got, want)
		}
	}
	in := "http://h:8080/a/b;c?d=e"
	h, err := MustParse(in).HTTP()
	check(in, h, err, &HTTP{Login: Login{Host: "h", Port: 8080}, Path: "/a/b;c", Search: "d=e", HasSearch: true})
	if h.RequestURI() != "/a/b;c?d=e" {
		t.Errorf("RequestURI() = %q", h.RequestURI())
	}
	in = "https://h"
	h, err = MustParse(in).HTTP()
	check(in, h, err, &HTTP{Secure: true, Login: Login{Host: "h"}})
	if h.RequestURI() != "/" {
		t.Errorf("RequestURI() = %q, want /", h.RequestURI())
	}
	// RFC 1738 gives http URLs no login; every client takes one, and so
	// does the view, decoded.
	in = "http://joe:p%40ss%3Aword@h/x"
	h, err = MustParse(in).HTTP()
	check(in, h, err, &HTTP{Login: Login{User: "joe", HasUser: true, Password: "p@ss:word", HasPassword: true, Host: "h"}, Path: "/x"})
	in = "https://joe@h:8443"
	h, err = MustParse(in).HTTP()
	check(in, h, err, &HTTP{Secure: true, Login: Login{User: "joe", HasUser: true, Host: "h", Port: 8443}})

	in = "mailto:a%25b@host.dom"
	m, err := MustParse(in).Mailto()
	check(in, m, err, &Mailto{To: []string{"a%b@host.dom"}})
	in = "mailto:a@x,b@y?to=c@z&subject=Hello%20there&body=line%0D%0Atwo"
	m, err = MustParse(in).Mailto()
	check(in, m, err, &Mailto{To: []string{"a@x", "b@y", "c@z"}, Fields: []Field{{"subject", "Hello there"}, {"body", "line\r\ntwo"}}})
	if m.Get("Subject") != "Hello there" {
		t.Errorf("Get(Subject) = %q", m.Get("Subject"))
	}

	in = "news:comp.infosystems.www.misc"
	n, err := MustParse(in).News()
	check(in, n, err, &News{Group: "comp.infosystems.www.misc"})
	in = "news:12345667123@info.cern.ch"
	n, err = MustParse(in).News()
	check(in, n, err, &News{MessageID: "12345667123@info.cern.ch"})
	in = "news:*"
	n, err = MustParse(in).News()
	check(in, n, err, &News{Group: "*"})
	if !n.All() {
		t.Error("news:* All() = false")
	}

	in = "nntp://news.host:119/comp.lang.go/42"
	nn, err := MustParse(in).NNTP()
	check(in, nn, err, &NNTP{Login: Login{Host: "news.host", Port: 119}, Group: "comp.lang.go", Article: 42})
	in = "nntp://news.host/comp.lang.go"
	nn, err = MustParse(in).NNTP()
	check(in, nn, err, &NNTP{Login: Login{Host: "news.host"}, Group: "comp.lang.go"})

	in = "telnet://user:secret@host:2323/"
	tn, err := MustParse(in).Telnet()
	check(in, tn, err, &Telnet{Scheme: "telnet", Login: Login{User: "user", HasUser: true, Password: "secret", HasPassword: true, Host: "host", Port: 2323}})
	in = "tn3270://host"
	tn, err = MustParse(in).Telnet()
	check(in, tn, err, &Telnet{Scheme: "tn3270", Login: Login{Host: "host"}})

	in = "wais://quake.think.com/wais-discussion-archives?lynch+kahle"
	w, err := MustParse(in).WAIS()
	check(in, w, err, &WAIS{Login: Login{Host: "quake.think.com"}, Database: "wais-discussion-archives", Search: "lynch kahle", HasSearch: true})
	in = "wais://h:2210/db/TEXT/0%20%2Fdoc%00id"
	w, err = MustParse(in).WAIS()
	check(in, w, err, &WAIS{Login: Login{Host: "h", Port: 2210}, Database: "db", WType: "TEXT", WPath: "0 /doc\x00id"})
	in = "wais://h/db"
	w, err = MustParse(in).WAIS()
	check(in, w, err, &WAIS{Login: Login{Host: "h"}, Database: "db"})

	in = "file://vms.host.edu/disk$user/my/notes/note12345.txt"
	f, err := MustParse(in).File()
	check(in, f, err, &File{Host: "vms.host.edu", Path: "/disk$user/my/notes/note12345.txt"})
	if f.Local() {
		t.Errorf("File(%q).Local() = true", in)
	}
	in = "file://localhost/tmp/a%20b"
	f, err = MustParse(in).File()
	check(in, f, err, &File{Host: "localhost", Path: "/tmp/a b"})
	if !f.Local() {
		t.Errorf("File(%q).Local() = false", in)
	}
	in = "file:/etc/motd"
	f, err = MustParse(in).File()
	check(in, f, err, &File{Path: "/etc/motd"})

	in = "prospero://host.dom//pros/name;OBJECT-VERSION=3;x=y%3Bz"
	p, err := MustParse(in).Prospero()
	check(in, p, err, &Prospero{Host: "host.dom", HSOName: "/pros/name", Fields: []Field{{"OBJECT-VERSION", "3"}, {"x", "y;z"}}})
}

func TestViewErrors(t *testing.T) {
	tests := []struct {
		in     string
		view   func(*URL) error
		reason string
	}{
		{"http://h/", func(u *URL) error { _, err := u.FTP(); return err }, "not a ftp or ftps URL"},
		{"ftp://h/", func(u *URL) error { _, err := u.Gopher(); return err }, "not a gopher URL"},
		{"http:foo", func(u *URL) error { _, err := u.HTTP(); return err }, `without "//host"`},
		{"mailto:", func(u *URL) error { _, err := u.Mailto(); return err }, "no address"},
		{"news:", func(u *URL) error { _, err := u.News(); return err }, "no group"},
		{"news://h/g", func(u *URL) error { _, err := u.News(); return err }, "name no host"},
		{"nntp://h/", func(u *URL) error { _, err := u.NNTP(); return err }, "no newsgroup"},
		{"nntp://h/g/x1", func(u *URL) error { _, err := u.NNTP(); return err }, "not a positive decimal"},
		{"telnet://h/x", func(u *URL) error { _, err := u.Telnet(); return err }, "no path"},
		{"wais://h/", func(u *URL) error { _, err := u.WAIS(); return err }, "no database"},
		{"wais://h/db/TEXT", func(u *URL) error { _, err := u.WAIS(); return err }, "both /wtype/wpath"},
		{"file:etc", func(u *URL) error { _, err := u.File(); return err }, "absolute path"},
		{"prospero://h/x;y", func(u *URL) error { _, err := u.Prospero(); return err }, `has no "="`},
	}
	for _, tt := range tests {
		err := tt.view(MustParse(tt.in))
		if err == nil || !strings.Contains(err.Error(), tt.reason) {
			t.Errorf("view of %q: error %v, want one containing %q", tt.in, err, tt.reason)
		}
	}
}

// canonical URLs: a view's String gives them back exactly.
func TestBuildParseCanonical(t *testing.T) {
	type stringer interface{ String() string }
	view := func(u *URL) (stringer, error) {
		switch u.Scheme {
		case "ftp":
			return u.FTP()
		case "http", "https":
			return u.HTTP()
		case "gopher":
			return u.Gopher()
		case "mailto":
			return u.Mailto()
		case "news":
			return u.News()
		case "nntp":
			return u.NNTP()
		case "telnet", "rlogin", "tn3270":
			return u.Telnet()
		case "wais":
			return u.WAIS()
		case "file":
			return u.File()
		case "prospero":
			return u.Prospero()
		}
		return nil, nil
	}
	for _, in := range []string{
		"ftp://myname@host.dom/%2Fetc/motd",
		"ftp://myname@host.dom//etc/motd",
		"ftp://@host.com/",
		"ftp://foo:@host.com/",
		"ftp://info.cern.ch/pub/www/doc;type=d",
		"ftp://u:p%40w@h:2121/a%3Bb/c%20d%23e%25;type=i",
		"http://h:8080/a/b;c?d=e",
		"https://h",
		"http://joe:p%40ss%3Aword@h/x?y",
		"https://@h/",
		"gopher://h/",
		"gopher://h/00about",
		"gopher://h/7/search%09two%20words",
		"gopher://h/0f%09%09!+ABSTRACT%20+SMELL",
		"gopher://h/0f%09+",
		"gopher://h/1form%09%09+%091%0D%0A+-1%0D%0Aask_item1_value%0D%0Aask_item2_value%0D%0A.%0D%0A",
		"mailto:a%25b@host.dom",
		"mailto:a@x,b@y?subject=Hello%20there&body=line%0D%0Atwo",
		"news:comp.infosystems.www.misc",
		"news:12345667123@info.cern.ch",
		"news:*",
		"nntp://news.host:119/comp.lang.go/42",
		"telnet://user:secret@host:2323/",
		"wais://h/db?two+words",
		"wais://h:2210/db/TEXT/0%20%2Fdoc%00id",
		"file://vms.host.edu/disk$user/my/notes/note12345.txt",
		"file:///tmp/a%20b",
		"prospero://host.dom//pros/name;OBJECT-VERSION=3",
	} {
		v, err := view(MustParse(in))
		if err != nil {
			t.Errorf("view of %q: %v", in, err)
			continue
		}
		if got := v.String(); got != in {
			t.Errorf("build(parse(%q)) = %q", in, got)
		}
	}
}

// awkward returns a string of bytes that every component finds hard.
func awkward(r *rand.Rand) string {
	const hard = "/;?:@=&%# \t\r\n+$-_.!*'(),{}|\\^~[]<>\"`"
	n := r.IntN(12)
	b := make([]byte, n)
	for i := range b {
		switch r.IntN(4) {
		case 0:
			b[i] = hard[r.IntN(len(hard))]
		case 1:
			b[i] = byte(0x80 + r.IntN(0x80))
		case 2:
			b[i] = byte(r.IntN(0x20))
		default:
			b[i] = byte('a' + r.IntN(26))
		}
	}
	return string(b)
}

// TestBuildParseProperty builds URLs from generated components holding
// awkward bytes and checks that parsing them gives the components back.
func TestBuildParseProperty(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 3000; i++ {
		login := Login{Host: "host.example", HasUser: r.IntN(2) == 0}
		if login.HasUser {
			login.User = awkward(r)
			login.HasPassword = r.IntN(2) == 0
			if login.HasPassword {
				login.Password = awkward(r)
			}
		}
		f := &FTP{Login: login, Name: awkward(r), Type: "\x00aid"[r.IntN(4)]}
		for j := r.IntN(4); j > 0; j-- {
			f.Dirs = append(f.Dirs, awkward(r))
		}
		roundTrip(t, f.String(), f, func(u *URL) (any, error) { return u.FTP() })

		// An http login, which RFC 1738 does not give but clients take.
		h := &HTTP{Secure: r.IntN(2) == 0, Login: login, Path: "/p"}
		roundTrip(t, h.String(), h, func(u *URL) (any, error) { return u.HTTP() })

		// A TAB cannot be part of a selector or search: it separates them.
		noTab := func(s string) string { return strings.ReplaceAll(s, "\t", "") }
		g := &Gopher{Host: "h", Type: "017I9g"[r.IntN(6)], Selector: noTab(awkward(r))}
		if g.Type == '7' {
			g.Search, g.HasSearch = noTab(awkward(r)), true
		}
		if g.Selector == "" && g.Type == '1' {
			g.Selector = "x"
		}
		roundTrip(t, g.String(), g, func(u *URL) (any, error) { return u.Gopher() })

		w := &WAIS{Login: Login{Host: "h"}, Database: "d" + awkward(r), WType: "TEXT", WPath: awkward(r) + "x"}
		roundTrip(t, w.String(), w, func(u *URL) (any, error) { return u.WAIS() })
		ws := &WAIS{Login: Login{Host: "h"}, Database: "d", Search: awkward(r), HasSearch: true}
		roundTrip(t, ws.String(), ws, func(u *URL) (any, error) { return u.WAIS() })

		m := &Mailto{To: []string{"a" + awkward(r) + "@h"}, Fields: []Field{{"subject", awkward(r)}}}
		roundTrip(t, m.String(), m, func(u *URL) (any, error) { return u.Mailto() })

		fl := &File{Path: "/" + awkward(r) + "/" + awkward(r)}
		roundTrip(t, fl.String(), fl, func(u *URL) (any, error) { return u.File() })

		p := &Prospero{Host: "h", HSOName: awkward(r), Fields: []Field{{"a" + awkward(r), awkward(r)}}}
		roundTrip(t, p.String(), p, func(u *URL) (any, error) { return u.Prospero() })

		n := &News{MessageID: "m" + awkward(r) + "x@host.example"}
		roundTrip(t, n.String(), n, func(u *URL) (any, error) { return u.News() })
	}
}

func roundTrip(t *testing.T, s string, want any, view func(*URL) (any, error)) {
	t.Helper()
	u, err := Parse(s)
	if err != nil {
		t.Fatalf("Parse(%q) of a built URL: %v", s, err)
	}
	if u.String() != s {
		t.Fatalf("Parse(%q).String() = %q", s, u.String())
	}
	got, err := view(u)
	if err != nil {
		t.Fatalf("view of built %q: %v", s, err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("view of built %q = %+v, want %+v", s, got, want)
	}
}

func TestEscapeUnescape(t *testing.T) {
	tests := []struct {
		in   string
		c    Component
		want string
	}{
		{"a/b;c", ComponentFTPSegment, "a%2Fb%3Bc"},
		{"a?b:c@d&e=f", ComponentFTPSegment, "a?b:c@d&e=f"},
		{"us:er@x/y", ComponentUser, "us%3Aer%40x%2Fy"},
		{"100%", ComponentHTTPSegment, "100%25"},
		{"a\tb\r\n", ComponentGopher, "a%09b%0D%0A"},
		{"/sel;x?y", ComponentGopher, "/sel;x?y"},
		{"two words+more", ComponentWAISSearch, "two+words%2Bmore"},
		{"caf\u00e9 #1", ComponentFragment, "caf%C3%A9%20%231"},
		{"{}|\\^[]~", ComponentHTTPSegment, "%7B%7D%7C%5C%5E%5B%5D~"},
		{"a,b?c", ComponentMailto, "a%2Cb%3Fc"},
	}
	for _, tt := range tests {
		got := Escape(tt.in, tt.c)
		if got != tt.want {
			t.Errorf("Escape(%q, %d) = %q, want %q", tt.in, tt.c, got, tt.want)
		}
		back, err := Unescape(got)
		if tt.c == ComponentWAISSearch {
			back = unescapePlus(got)
		}
		if err != nil || back != tt.in {
			t.Errorf("Unescape(%q) = %q, %v, want %q", got, back, err, tt.in)
		}
	}
	if _, err := Unescape("a%zz"); err == nil || err.(*Error).Offset != 1 {
		t.Errorf("Unescape(%q) error = %v, want offset 1", "a%zz", err)
	}
	if got, _ := Unescape("%2f%2F"); got != "//" {
		t.Errorf("Unescape(%q) = %q", "%2f%2F", got)
	}
}

func TestEqual(t *testing.T) {
	tests := []struct {
		a, b string
		want bool
	}{
		// RFC 1630's examples 1 and 2 (shared/spec/README.md).
		{"http://info.cern.ch/albert/bertram/marie-claude", "http://info.cern.ch/albert/bertram/marie%2Dclaude", true},
		{"http://info.cern.ch/albert/bertram/marie-claude", "http://info.cern.ch/albert/bertram%2Fmarie-claude", false},
		{"HTTP://INFO.CERN.CH/x", "http://info.cern.ch/x", true},
		{"http://h/%7e", "http://h/~", true},
		{"http://h/%2f", "http://h/%2F", true},
		{"http://h/%3b", "http://h/;", false},
		{"http://h:80/", "http://h/", true},
		{"http://h:/", "http://h/", true},
		{"http://h", "http://h/", true},
		{"ftp://h:21/a", "ftp://h/a", true},
		{"ftp://h:2121/a", "ftp://h/a", false},
		{"ftp://h/a", "ftp://h/A", false},
		{"gopher://h/0a%20b", "gopher://h/0a%20b", true},
		{"http://h/a?b=%41", "http://h/a?b=A", true},
		{"http://h/a?b=%2B", "http://h/a?b=+", false},
		{"http://h/a%zz", "http://h/a%zz", false},
		{"news:a@b.c", "NEWS:a@b.c", true},
	}
	for _, tt := range tests {
		if got := Equal(tt.a, tt.b); got != tt.want {
			t.Errorf("Equal(%q, %q) = %v, want %v", tt.a, tt.b, got, tt.want)
		}
	}
}

// Issue 7: a News built with a message-id lacking "@" must not panic.
func TestNewsStringWithoutAt(t *testing.T) {
	if got := (&News{MessageID: "odd id"}).String(); got != "news:odd%20id" {
		t.Errorf("News{MessageID: %q}.String() = %q", "odd id", got)
	}
}

// The TLS schemes have the views of their cleartext ones, and build URLs
// of their own scheme again: a listing's entries stay on TLS.
func TestTLSSchemeViews(t *testing.T) {
	u := MustParse("ftps://u@h/a/b.txt")
	f, err := u.FTP()
	if err != nil || !f.Secure || f.Name != "b.txt" || u.PortNumber() != 990 {
		t.Fatalf("ftps view = %+v, %v; port %d", f, err, u.PortNumber())
	}
	if got := f.String(); got != "ftps://u@h/a/b.txt" {
		t.Errorf("ftps String() = %q", got)
	}
	n, err := MustParse("nntps://h/comp.lang.go/7").NNTP()
	if err != nil || !n.Secure || n.String() != "nntps://h/comp.lang.go/7" {
		t.Errorf("nntps view = %+v, %v", n, err)
	}
	s, err := MustParse("snews:comp.lang.go").News()
	if err != nil || !s.Secure || s.String() != "snews:comp.lang.go" {
		t.Errorf("snews view = %+v, %v", s, err)
	}
	if p := DefaultPort("snews"); p != 563 {
		t.Errorf("DefaultPort(snews) = %d, want 563", p)
	}
}
