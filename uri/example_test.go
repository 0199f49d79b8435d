package uri_test

import (
	"fmt"

	"github.com/urlfetch/urlfetch/uri"
)

func ExampleParse() {
	u, err := uri.Parse("ftp://joe:secret@ftp.example.org:2121/pub/%2Fetc/motd;type=a#top")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(u.Scheme, u.User, u.Host, u.Port, u.Path, u.Fragment)
	fmt.Println(u.Redacted())

	_, err = uri.Parse("news:12345667123%asdghfh@info.cern.ch")
	fmt.Println(err)
	// Output:
	// ftp joe ftp.example.org 2121 /pub/%2Fetc/motd;type=a top
	// ftp://joe:***@ftp.example.org:2121/pub/%2Fetc/motd;type=a#top
	// uri: "news:12345667123%asdghfh@info.cern.ch": at offset 16: "%" not followed by two hex digits (encode "%" as %25)
}

func ExampleURL_FTP() {
	f, _ := uri.MustParse("ftp://myname@host.dom/%2Fetc/motd;type=a").FTP()
	for _, d := range f.Dirs {
		fmt.Printf("CWD %s\n", d)
	}
	fmt.Printf("TYPE %c\nRETR %s\n", f.Type-'a'+'A', f.Name)

	f.Name = "motd;v2 #1"
	fmt.Println(f)
	// Output:
	// CWD /etc
	// TYPE A
	// RETR motd
	// ftp://myname@host.dom/%2Fetc/motd%3Bv2%20%231;type=a
}

func ExampleURL_HTTP() {
	h, _ := uri.MustParse("http://info.cern.ch:8080/hypertext/WWW?query#frag").HTTP()
	fmt.Println(h.Host, h.Port, h.RequestURI())
	// Output: info.cern.ch 8080 /hypertext/WWW?query
}

func ExampleURL_Gopher() {
	g, _ := uri.MustParse("gopher://gopher.example.org/7/search%09gopher%20plus").Gopher()
	fmt.Printf("type %c, request %q\n", g.Type, g.Request()+"\r\n")

	g, _ = uri.MustParse("gopher://gopher.example.org/0about%09%09!+ABSTRACT").Gopher()
	fmt.Printf("type %c, request %q\n", g.Type, g.Request()+"\r\n")
	// Output:
	// type 7, request "/search\tgopher plus\r\n"
	// type 0, request "about\t!+ABSTRACT\r\n"
}

func ExampleURL_Mailto() {
	m, _ := uri.MustParse("mailto:a%25b@example.org,c@example.net?subject=Hello%20there").Mailto()
	fmt.Println(m.To, m.Get("subject"))
	// Output: [a%b@example.org c@example.net] Hello there
}

func ExampleURL_News() {
	n, _ := uri.MustParse("news:12345667123@info.cern.ch").News()
	fmt.Printf("ARTICLE <%s>\n", n.MessageID)
	n, _ = uri.MustParse("news:comp.infosystems.www.misc").News()
	fmt.Println("group", n.Group)
	// Output:
	// ARTICLE <12345667123@info.cern.ch>
	// group comp.infosystems.www.misc
}

func ExampleURL_NNTP() {
	n, _ := uri.MustParse("nntp://news.example.org/comp.lang.go/42").NNTP()
	fmt.Printf("GROUP %s\nARTICLE %d\n", n.Group, n.Article)
	// Output:
	// GROUP comp.lang.go
	// ARTICLE 42
}

func ExampleURL_Telnet() {
	t, _ := uri.MustParse("telnet://guest:guest@bbs.example.org:2323/").Telnet()
	fmt.Println(t.Host, t.Port, t.User)
	// Output: bbs.example.org 2323 guest
}

func ExampleURL_WAIS() {
	w, _ := uri.MustParse("wais://quake.think.com/wais-discussion-archives?lynch+kahle").WAIS()
	fmt.Printf("search %q in %s\n", w.Search, w.Database)
	w, _ = uri.MustParse("wais://quake.think.com/db/TEXT/0%201%20doc").WAIS()
	fmt.Printf("document %q of type %s\n", w.WPath, w.WType)
	// Output:
	// search "lynch kahle" in wais-discussion-archives
	// document "0 1 doc" of type TEXT
}

func ExampleURL_File() {
	f, _ := uri.MustParse("file://localhost/tmp/a%20b.txt").File()
	fmt.Println(f.Local(), f.Path)
	// Output: true /tmp/a b.txt
}

func ExampleURL_Prospero() {
	p, _ := uri.MustParse("prospero://host.dom//pros/name;OBJECT-VERSION=3").Prospero()
	fmt.Println(p.HSOName, p.Fields)
	// Output: /pros/name [{OBJECT-VERSION 3}]
}

func ExampleEqual() {
	fmt.Println(uri.Equal("http://info.cern.ch/albert/bertram/marie-claude",
		"HTTP://info.cern.ch:80/albert/bertram/marie%2Dclaude"))
	fmt.Println(uri.Equal("http://info.cern.ch/albert/bertram/marie-claude",
		"http://info.cern.ch/albert/bertram%2Fmarie-claude"))
	// Output:
	// true
	// false
}

func ExampleEscape() {
	fmt.Println(uri.Escape("motd;v2/old", uri.ComponentFTPSegment))
	fmt.Println(uri.Escape("two words", uri.ComponentWAISSearch))
	// Output:
	// motd%3Bv2%2Fold
	// two+words
}
