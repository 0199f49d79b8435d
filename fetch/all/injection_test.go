package all_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/urlfetch/urlfetch/fetch"
	"github.com/urlfetch/urlfetch/fetch/ftp"
	"github.com/urlfetch/urlfetch/fetch/gopher"
	fetchhttp "github.com/urlfetch/urlfetch/fetch/http"
	"github.com/urlfetch/urlfetch/fetch/mailto"
	"github.com/urlfetch/urlfetch/fetch/telnet"
	"github.com/urlfetch/urlfetch/fetch/wais"
	"github.com/urlfetch/urlfetch/uri"
)

// Issue 12, point 3: RFC 1738 section 6. For every driver, every URL
// component that reaches a protocol line is tried with each of the
// encoded bytes that would end or cut the line. The URL must fail with
// ErrUnsafe (ErrURL where the URL syntax itself refuses the bytes) before
// any byte is sent: the dial path is never called and the recorder,
// where every connection of the Client goes, accepts nothing.

// taints are the encoded bytes tried in every component, with what they
// decode to.
var taints = []struct{ enc, dec string }{
	{"%0D%0A", "\r\n"},
	{"%0D", "\r"},
	{"%0A", "\n"},
	{"%00", "\x00"},
}

// An injectCase is one component of one scheme. In url, {X} stands for
// the encoded taint and {A} for the recorder's host:port. setup, if set,
// configures the Client before the fetch with the decoded taint: for
// values that come from the driver's settings rather than the URL.
type injectCase struct {
	scheme, component string
	url               string
	want              error // ErrUnsafe when nil
	setup             func(c *fetch.Client, taint string)
	// noControl: the URL is refused without its taint too (its syntax
	// allows no such component), so there is no clean twin to send.
	noControl bool
	// only, if set, limits the case to these encoded taints.
	only []string
}

var injectCases = []injectCase{
	// ftp: USER, PASS, one CWD per segment, TYPE and RETR/NLST/LIST name.
	{scheme: "ftp", component: "user", url: "ftp://us{X}er:pw@{A}/f.txt"},
	{scheme: "ftp", component: "password", url: "ftp://user:p{X}w@{A}/f.txt"},
	{scheme: "ftp", component: "user without password", url: "ftp://us{X}er@{A}/f.txt"},
	{scheme: "ftp", component: "first CWD segment", url: "ftp://{A}/d{X}1/d2/f.txt"},
	{scheme: "ftp", component: "second CWD segment", url: "ftp://{A}/d1/d{X}2/f.txt"},
	{scheme: "ftp", component: "%2F (absolute) CWD segment", url: "ftp://{A}/%2Fetc{X}/f.txt"},
	{scheme: "ftp", component: "name", url: "ftp://{A}/d1/f{X}.txt"},
	{scheme: "ftp", component: "name with ;type=a", url: "ftp://{A}/d1/f{X}.txt;type=a"},
	{scheme: "ftp", component: "directory of ;type=d", url: "ftp://{A}/d{X}1/;type=d"},
	{scheme: "ftp", component: "name of ;type=d", url: "ftp://{A}/d1/n{X};type=d"},
	{scheme: "ftp", component: "typecode", url: "ftp://{A}/f.txt;type=a{X}", want: fetch.ErrURL},
	{scheme: "ftp", component: "segment with --ftp-method singlecwd", url: "ftp://{A}/d1/d{X}2/f.txt",
		setup: func(c *fetch.Client, _ string) { c.Driver("ftp").(*ftp.Driver).CWDMethod = ftp.CWDWhole }},
	{scheme: "ftp", component: "segment with --ftp-method nocwd", url: "ftp://{A}/d1/d{X}2/f.txt",
		setup: func(c *fetch.Client, _ string) { c.Driver("ftp").(*ftp.Driver).CWDMethod = ftp.CWDNone }},
	{scheme: "ftp", component: "AnonymousPassword setting", url: "ftp://{A}/f.txt",
		setup: func(c *fetch.Client, x string) {
			c.Driver("ftp").(*ftp.Driver).AnonymousPassword = "me" + x + "@example.org"
		}},

	// gopher: the one request line, selector TAB search TAB gopher+.
	{scheme: "gopher", component: "selector (type 0)", url: "gopher://{A}/0sel{X}ector"},
	{scheme: "gopher", component: "selector (type 1)", url: "gopher://{A}/1dir{X}"},
	{scheme: "gopher", component: "selector (type 9)", url: "gopher://{A}/9bin{X}.zip"},
	{scheme: "gopher", component: "search (type 7)", url: "gopher://{A}/7find%09two{X}words"},
	{scheme: "gopher", component: "search of another type", url: "gopher://{A}/0sel%09sea{X}rch"},
	{scheme: "gopher", component: "search before a gopher+ string", url: "gopher://{A}/7find%09wo{X}rds%09+"},
	{scheme: "gopher", component: "gopher+ string", url: "gopher://{A}/0sel%09%09+{X}x"},
	{scheme: "gopher", component: "gopher+ string after one %09", url: "gopher://{A}/0sel%09+{X}"},
	{scheme: "gopher", component: "gopher+ view", url: "gopher://{A}/0sel%09%09+text/plain{X}"},
	{scheme: "gopher", component: "gopher+ attributes", url: "gopher://{A}/0sel%09%09!+ABSTRACT{X}"},
	{scheme: "gopher", component: "gopher+ all attributes", url: "gopher://{A}/1dir%09%09${X}"},
	{scheme: "gopher", component: "gopher+ form request", url: "gopher://{A}/0form%09%09?{X}",
		setup: func(c *fetch.Client, _ string) {
			c.Driver("gopher").(*gopher.Driver).Ask = func(context.Context, gopher.Question) (string, error) { return "ann", nil }
		}},
	// Section 3.4.9's filled-in form is the one place a decoded CR LF
	// may go out; anything past its final "." line may not.
	{scheme: "gopher", component: "filled-in form with a byte after its end", url: "gopher://{A}/0form%09%09+%091%0D%0A+-1%0D%0Aann%0D%0A.%0D%0A{X}"},
	// Inside the form's data block a CR LF is the form's own line end,
	// so "a%0D%0Ann" is two answers, not an injection: only the lone
	// bytes are tried there.
	{scheme: "gopher", component: "filled-in form answer", url: "gopher://{A}/0form%09%09+%091%0D%0A+-1%0D%0Aa{X}nn%0D%0A.%0D%0A",
		only: []string{"%0D", "%0A", "%00"}},
	{scheme: "gopher", component: "Search setting (type 7 without a search)", url: "gopher://{A}/7find",
		setup: func(c *fetch.Client, x string) { c.Driver("gopher").(*gopher.Driver).Search = "two" + x + "words" }},
	{scheme: "gopher", component: "Ask answer (type 7 without a search)", url: "gopher://{A}/7find",
		setup: func(c *fetch.Client, x string) {
			c.Driver("gopher").(*gopher.Driver).Ask = func(context.Context, gopher.Question) (string, error) { return "two" + x + "words", nil }
		}},

	// news: (the configured server) and nntp: GROUP, ARTICLE, AUTHINFO.
	{scheme: "news", component: "message-id", url: "news:id{X}x@example.org"},
	{scheme: "news", component: "message-id in <>", url: "news:%3Cid{X}x@example.org%3E"},
	{scheme: "news", component: "group", url: "news:comp.lang{X}go"},
	{scheme: "news", component: "wildmat", url: "news:comp.*{X}"},
	{scheme: "nntp", component: "group", url: "nntp://{A}/comp{X}lang"},
	{scheme: "nntp", component: "group with an article", url: "nntp://{A}/comp{X}lang/1"},
	{scheme: "nntp", component: "article number", url: "nntp://{A}/comp.lang/1{X}", want: fetch.ErrURL},
	{scheme: "nntp", component: "user", url: "nntp://us{X}er:pw@{A}/comp.lang"},
	{scheme: "nntp", component: "password", url: "nntp://user:p{X}w@{A}/comp.lang"},
	{scheme: "nntp", component: "user of the group list", url: "nntp://us{X}er@{A}/"},

	// mailto: RCPT and the header fields the driver writes.
	{scheme: "mailto", component: "address", url: "mailto:a{X}b@example.org"},
	{scheme: "mailto", component: "second address", url: "mailto:ok@example.org,a{X}b@example.org"},
	{scheme: "mailto", component: "to field", url: "mailto:ok@example.org?to=a{X}b@example.org"},
	{scheme: "mailto", component: "cc field", url: "mailto:ok@example.org?cc=a{X}b@example.org"},
	{scheme: "mailto", component: "bcc field", url: "mailto:ok@example.org?bcc=a{X}b@example.org"},
	{scheme: "mailto", component: "subject field", url: "mailto:ok@example.org?subject=Hi{X}Bcc:%20evil@example.org"},
	{scheme: "mailto", component: "in-reply-to field", url: "mailto:ok@example.org?in-reply-to=%3Ca{X}b@x%3E"},
	{scheme: "mailto", component: "references field", url: "mailto:ok@example.org?references=%3Ca{X}b@x%3E"},
	{scheme: "mailto", component: "keywords field", url: "mailto:ok@example.org?keywords=a{X}b"},
	{scheme: "mailto", component: "comments field", url: "mailto:ok@example.org?comments=a{X}b"},
	{scheme: "mailto", component: "a field the driver ignores", url: "mailto:ok@example.org?x-mailer=a{X}b"},
	{scheme: "mailto", component: "field name", url: "mailto:ok@example.org?sub{X}ject=hi"},
	{scheme: "mailto", component: "From setting", url: "mailto:ok@example.org",
		setup: func(c *fetch.Client, x string) { c.Driver("mailto").(*mailto.Driver).From = "me" + x + "@example.org" }},
	{scheme: "mailto", component: "Subject setting", url: "mailto:ok@example.org",
		setup: func(c *fetch.Client, x string) { c.Driver("mailto").(*mailto.Driver).Subject = "hi" + x + "there" }},
	{scheme: "mailto", component: "LocalName setting (EHLO)", url: "mailto:ok@example.org",
		setup: func(c *fetch.Client, x string) {
			c.Driver("mailto").(*mailto.Driver).LocalName = "client" + x + ".example.org"
		}},

	// wais: the database, search and type are strings to a C server.
	{scheme: "wais", component: "database", url: "wais://{A}/db{X}"},
	{scheme: "wais", component: "database of a search", url: "wais://{A}/db{X}?words"},
	{scheme: "wais", component: "search", url: "wais://{A}/db?two{X}words"},
	{scheme: "wais", component: "wtype", url: "wais://{A}/db/TE{X}XT/0123"},
	{scheme: "wais", component: "database of a document", url: "wais://{A}/d{X}b/TEXT/0123"},
	{scheme: "wais", component: "Search setting", url: "wais://{A}/db",
		setup: func(c *fetch.Client, x string) { c.Driver("wais").(*wais.Driver).Search = "two" + x + "words" }},

	// telnet: with Login the driver types the user and password.
	{scheme: "telnet", component: "user (Login)", url: "telnet://us{X}er:pw@{A}/",
		setup: func(c *fetch.Client, _ string) { c.Driver("telnet").(*telnet.Driver).Login = true }},
	{scheme: "telnet", component: "password (Login)", url: "telnet://user:p{X}w@{A}/",
		setup: func(c *fetch.Client, _ string) { c.Driver("telnet").(*telnet.Driver).Login = true }},
	{scheme: "rlogin", component: "user (handed to rlogin)", url: "rlogin://us{X}er@{A}/"},
	{scheme: "tn3270", component: "user (handed to c3270)", url: "tn3270://us{X}er@{A}/"},

	// http: the host cannot carry them at all; the user and password
	// (Basic authorization, RFC 7617: no control characters), from the
	// URL or the Client's Login (-u), and the user's header fields (-H)
	// are refused.
	{scheme: "http", component: "user", url: "http://us{X}er:pw@{A}/"},
	{scheme: "http", component: "password", url: "http://user:p{X}w@{A}/"},
	{scheme: "http", component: "Login user", url: "http://{A}/",
		setup: func(c *fetch.Client, x string) { c.Login = url.UserPassword("us"+x+"er", "pw") }},
	{scheme: "http", component: "Login password", url: "http://{A}/",
		setup: func(c *fetch.Client, x string) { c.Login = url.UserPassword("user", "p"+x+"w") }},
	{scheme: "http", component: "Header value", url: "http://{A}/",
		setup: func(c *fetch.Client, x string) {
			c.Driver("http").(*fetchhttp.Driver).Header = http.Header{"X-Test": {"a" + x + "X-Evil: b"}}
		}},
	{scheme: "http", component: "Header name", url: "http://{A}/",
		setup: func(c *fetch.Client, x string) {
			c.Driver("http").(*fetchhttp.Driver).Header = http.Header{"X" + x + "Test": {"a"}}
		}},
	{scheme: "http", component: "host", url: "http://ho{X}st/", want: fetch.ErrURL, noControl: true},
}

func TestInjectionRefusedBeforeAnyByte(t *testing.T) {
	rec := newRecorder(t, nil)
	seen := map[string]bool{}
	for _, tc := range injectCases {
		seen[tc.scheme] = true
		for _, x := range taints {
			if tc.only != nil && !slices.Contains(tc.only, x.enc) {
				continue
			}
			rawURL := strings.ReplaceAll(rec.expand(tc.url), "{X}", x.enc)
			t.Run(tc.scheme+"/"+tc.component+"/"+x.enc, func(t *testing.T) {
				c, dl, tl := recordingClient(t, rec)
				if tc.setup != nil {
					tc.setup(c, x.dec)
				}
				want := tc.want
				if want == nil {
					want = fetch.ErrUnsafe
				}
				_, err := fetchAll(c, rawURL)
				if !errors.Is(err, want) {
					t.Errorf("Fetch(%q) = %v; want an error of kind %v", rawURL, err, want)
				}
				if d := dl.all(); len(d) > 0 {
					t.Errorf("Fetch(%q) dialed %q", rawURL, d)
				}
				for _, rc := range rec.accepted(t) {
					t.Errorf("Fetch(%q): the recorder accepted a connection from %s and got %q", rawURL, rc.remote, rc.bytes(t))
				}
				for _, line := range tl.Lines() {
					if strings.ContainsAny(line, "\r\n\x00") {
						t.Errorf("Fetch(%q): trace line %q holds the decoded bytes", rawURL, line)
					}
				}
			})
		}
	}
	for _, s := range []string{"ftp", "gopher", "news", "nntp", "mailto", "wais", "telnet", "rlogin", "tn3270", "http"} {
		if !seen[s] {
			t.Errorf("no injection case for scheme %s", s)
		}
	}
}

// Steps the server chooses cannot be checked before connecting: the
// password asked for after FTP's 331 or NNTP's 480, the answers to a
// Gopher+ +ASK form the server sends. The driver must refuse the value
// when it gets it, and the tainted line must not reach the wire.
func TestInjectionInServerChosenSteps(t *testing.T) {
	t.Run("ftp password asked after 331", func(t *testing.T) {
		rec := newRecorder(t, func(c *recConn) {
			fmt.Fprintf(c, "220 recorder\r\n")
			for {
				l := c.line()
				switch {
				case l == "":
					return
				case strings.HasPrefix(l, "USER "):
					fmt.Fprintf(c, "331 password please\r\n")
				case strings.HasPrefix(l, "QUIT"):
					fmt.Fprintf(c, "221 bye\r\n")
					return
				default:
					fmt.Fprintf(c, "530 log in first\r\n")
				}
			}
		})
		for _, x := range taints {
			c, _, _ := recordingClient(t, rec)
			c.Prompt = func(context.Context, string) (string, error) { return "pw" + x.dec + "DELE precious", nil }
			rawURL := rec.expand("ftp://user@{A}/f.txt")
			_, err := fetchAll(c, rawURL)
			if !errors.Is(err, fetch.ErrUnsafe) {
				t.Errorf("%s: Fetch(%q) with the prompt's password = %v; want ErrUnsafe", x.enc, rawURL, err)
			}
			conns := rec.accepted(t)
			if len(conns) != 1 {
				t.Fatalf("%s: %d connections, want 1", x.enc, len(conns))
			}
			got := conns[0].bytes(t)
			if !bytes.HasPrefix(got, []byte("USER user\r\n")) {
				t.Errorf("%s: the server got %q; want USER user first", x.enc, got)
			}
			if bytes.Contains(got, []byte("PASS")) || bytes.Contains(got, []byte("DELE")) {
				t.Errorf("%s: the tainted password went out: the server got %q", x.enc, got)
			}
		}
	})

	t.Run("nntp password asked after 480", func(t *testing.T) {
		rec := newRecorder(t, func(c *recConn) {
			fmt.Fprintf(c, "200 recorder\r\n")
			for {
				l := c.line()
				switch {
				case l == "":
					return
				case strings.HasPrefix(l, "CAPABILITIES"):
					fmt.Fprintf(c, "101 capabilities\r\nVERSION 2\r\nREADER\r\nOVER\r\n.\r\n")
				case strings.HasPrefix(l, "QUIT"):
					fmt.Fprintf(c, "205 bye\r\n")
					return
				default:
					fmt.Fprintf(c, "480 authentication required\r\n")
				}
			}
		})
		for _, x := range taints {
			c, _, _ := recordingClient(t, rec)
			c.Prompt = func(context.Context, string) (string, error) { return "pw" + x.dec + "POST", nil }
			rawURL := rec.expand("nntp://user@{A}/comp.lang.go/1")
			_, err := fetchAll(c, rawURL)
			if !errors.Is(err, fetch.ErrUnsafe) {
				t.Errorf("%s: Fetch(%q) with the prompt's password = %v; want ErrUnsafe", x.enc, rawURL, err)
			}
			c.Close() // QUIT on any connection kept idle
			conns := rec.accepted(t)
			if len(conns) != 1 {
				t.Fatalf("%s: %d connections, want 1", x.enc, len(conns))
			}
			got := conns[0].bytes(t)
			if !bytes.Contains(got, []byte("GROUP comp.lang.go\r\n")) {
				t.Errorf("%s: the server got %q; want the GROUP it answered 480", x.enc, got)
			}
			if bytes.Contains(got, []byte("AUTHINFO")) || bytes.Contains(got, []byte("POST")) {
				t.Errorf("%s: the tainted password went out: the server got %q", x.enc, got)
			}
		}
	})

	t.Run("gopher+ +ASK answer", func(t *testing.T) {
		var rec *recorder
		rec = newRecorder(t, func(c *recConn) {
			if l := c.line(); l != "form\t!\r\n" {
				return
			}
			fmt.Fprintf(c, "+-2\r\n+INFO: 0Form\tform\t%s\t%d\t+\r\n+ASK:\r\n Ask: Your name?\r\n", rec.host, rec.port)
			c.Conn.(interface{ CloseWrite() error }).CloseWrite()
		})
		for _, x := range taints {
			c, _, _ := recordingClient(t, rec)
			c.Driver("gopher").(*gopher.Driver).Ask = func(context.Context, gopher.Question) (string, error) {
				return "ann" + x.dec + "QUIT", nil
			}
			rawURL := rec.expand("gopher://{A}/0form%09%09?")
			_, err := fetchAll(c, rawURL)
			if !errors.Is(err, fetch.ErrUnsafe) {
				t.Errorf("%s: Fetch(%q) with the answer = %v; want ErrUnsafe", x.enc, rawURL, err)
			}
			conns := rec.accepted(t)
			if len(conns) != 1 {
				t.Fatalf("%s: %d connections, want only the one that fetched the form", x.enc, len(conns))
			}
			if got := conns[0].bytes(t); string(got) != "form\t!\r\n" {
				t.Errorf("%s: the server got %q; want only the form's request", x.enc, got)
			}
		}
	})
}

// A gopher URL's type character is never sent: it says how to read the
// reply. Whatever byte it decodes to, only the selector line goes out.
func TestInjectionGopherTypeNeverSent(t *testing.T) {
	rec := newRecorder(t, func(c *recConn) {
		c.line()
		c.Conn.(interface{ CloseWrite() error }).CloseWrite()
	})
	for _, x := range taints[1:] { // one byte each
		c, _, _ := recordingClient(t, rec)
		rawURL := rec.expand("gopher://{A}/" + x.enc + "sel")
		if _, err := fetchAll(c, rawURL); err != nil && !errors.Is(err, fetch.ErrNotFound) {
			t.Errorf("Fetch(%q) = %v", rawURL, err)
		}
		conns := rec.accepted(t)
		if len(conns) != 1 {
			t.Fatalf("Fetch(%q): %d connections, want 1", rawURL, len(conns))
		}
		if got := conns[0].bytes(t); string(got) != "sel\r\n" {
			t.Errorf("Fetch(%q) sent %q; want %q", rawURL, got, "sel\r\n")
		}
	}
}

// Without Login the user of a telnet URL is advisory (RFC 1738 section
// 3.8): the session opens and the user is never typed, so its bytes never
// reach the server.
func TestInjectionTelnetUserNotTypedWithoutLogin(t *testing.T) {
	rec := newRecorder(t, func(c *recConn) {
		c.Conn.(interface{ CloseWrite() error }).CloseWrite()
	})
	for _, x := range taints {
		c, _, _ := recordingClient(t, rec)
		rawURL := rec.expand("telnet://us" + x.enc + "er:pw@{A}/")
		_, err := fetchAll(c, rawURL)
		if err != nil {
			t.Errorf("Fetch(%q) = %v", rawURL, err)
		}
		for _, rc := range rec.accepted(t) {
			if got := rc.bytes(t); bytes.Contains(got, []byte("us")) || bytes.Contains(got, []byte("pw")) {
				t.Errorf("Fetch(%q) without Login sent %q", rawURL, got)
			}
		}
	}
}

// http: the path and search go out exactly as the URL writes them
// (section 3.3), so an encoded CR LF or NUL stays encoded on the wire:
// three bytes "%0D", never the byte. The fragment never goes out.
func TestInjectionHTTPStaysEncoded(t *testing.T) {
	rec := newRecorder(t, func(c *recConn) {
		for {
			l := c.line()
			if l == "" || l == "\r\n" {
				break
			}
		}
		fmt.Fprintf(c, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok")
	})
	for _, x := range append(taints, struct{ enc, dec string }{"%0d%0a", "\r\n"}) {
		c, _, _ := recordingClient(t, rec)
		path := "/a" + x.enc + "Set-Cookie:%20x=1" + x.enc + x.enc + "b?q=" + x.enc + "Host:%20evil"
		rawURL := rec.expand("http://{A}" + path + "#frag" + x.enc + "ment")
		b, err := fetchAll(c, rawURL)
		if err != nil || string(b) != "ok" {
			t.Errorf("Fetch(%q) = %q, %v", rawURL, b, err)
		}
		conns := rec.accepted(t)
		if len(conns) != 1 {
			t.Fatalf("Fetch(%q): %d connections, want 1", rawURL, len(conns))
		}
		got := string(conns[0].bytes(t))
		head, _, _ := strings.Cut(got, "\r\n\r\n")
		lines := strings.Split(head, "\r\n")
		if want := "GET " + path + " HTTP/1.1"; lines[0] != want {
			t.Errorf("Fetch(%q): request line %q, want %q", rawURL, lines[0], want)
		}
		if strings.ContainsAny(head, "\x00") || strings.Contains(got, "frag") {
			t.Errorf("Fetch(%q) sent %q", rawURL, got)
		}
		for _, l := range lines[1:] {
			name, _, _ := strings.Cut(l, ":")
			if name != "Host" && name != "User-Agent" {
				t.Errorf("Fetch(%q): header line %q; want only Host and User-Agent", rawURL, l)
			}
		}
	}
}

// mailto: the body of an RFC 6068 URL is data, not a line: its lines end
// in %0D%0A by design. It goes out inside DATA, where a line holding only
// "." would end the message and let the rest run as commands, and where
// a bare CR or LF is not a line end (RFC 5321 section 2.3.8) that every
// server reads alike (SMTP smuggling). So the driver sends it with every
// line end CR LF and every line that starts with "." dot-stuffed: the
// message ends at the one "." line the driver writes. A NUL is refused.
func TestInjectionMailtoBodyIsData(t *testing.T) {
	type session struct {
		cmds []string
		data string
	}
	sessions := make(chan session, 16)
	rec := newRecorder(t, func(c *recConn) {
		var s session
		defer func() { sessions <- s }()
		fmt.Fprintf(c, "220 recorder ESMTP\r\n")
		for {
			l := c.line()
			if l == "" {
				return
			}
			s.cmds = append(s.cmds, strings.TrimSuffix(l, "\r\n"))
			switch verb, _, _ := strings.Cut(strings.ToUpper(strings.TrimSpace(l)), " "); verb {
			case "EHLO", "HELO", "MAIL", "RCPT", "RSET", "NOOP":
				fmt.Fprintf(c, "250 ok\r\n")
			case "DATA":
				fmt.Fprintf(c, "354 go on\r\n")
				var data strings.Builder
				for {
					dl := c.line()
					if dl == "" {
						return
					}
					if dl == ".\r\n" {
						break
					}
					data.WriteString(dl)
				}
				s.data = data.String()
				fmt.Fprintf(c, "250 queued as REC1\r\n")
			case "QUIT":
				fmt.Fprintf(c, "221 bye\r\n")
				return
			default:
				fmt.Fprintf(c, "500 what\r\n")
			}
		}
	})
	for _, x := range taints {
		c, _, _ := recordingClient(t, rec)
		smuggled := "one" + x.enc + "." + x.enc + "MAIL%20FROM:%3Cevil@example.org%3E" + x.enc + "RCPT%20TO:%3Cvictim@example.org%3E" + x.enc + "DATA" + x.enc + "." + x.enc + "two"
		rawURL := "mailto:ok@example.org?subject=s&body=" + smuggled
		if strings.Contains(x.dec, "\x00") {
			// A NUL has no place in a message body at all (RFC 5322
			// section 3.5): refused before connecting.
			if _, err := fetchAll(c, rawURL); !errors.Is(err, fetch.ErrUnsafe) {
				t.Errorf("Fetch(%q) = %v, want ErrUnsafe", rawURL, err)
			}
			continue
		}
		if _, err := fetchAll(c, rawURL); err != nil {
			t.Errorf("Fetch(%q) = %v", rawURL, err)
			continue
		}
		rec.accepted(t)
		var s session
		for len(s.cmds) == 0 { // skip the recorder's own connections
			s = <-sessions
		}
		var verbs []string
		for _, cmd := range s.cmds {
			v, _, _ := strings.Cut(cmd, " ")
			verbs = append(verbs, strings.TrimSuffix(v, ":FROM"))
		}
		if got := strings.Join(verbs, " "); got != "EHLO MAIL RCPT DATA QUIT" {
			t.Errorf("Fetch(%q): commands %q; want EHLO MAIL RCPT DATA QUIT", rawURL, s.cmds)
		}
		for _, cmd := range s.cmds {
			if strings.Contains(cmd, "evil") || strings.Contains(cmd, "victim") {
				t.Errorf("Fetch(%q): the body ran as command %q", rawURL, cmd)
			}
		}
		_, body, _ := strings.Cut(s.data, "\r\n\r\n")
		if !strings.Contains(body, "MAIL FROM:<evil@example.org>") {
			t.Errorf("Fetch(%q): the body %q lost its text", rawURL, body)
		}
		for i := 0; i < len(s.data); i++ {
			switch {
			case s.data[i] == '\r' && (i+1 == len(s.data) || s.data[i+1] != '\n'):
				t.Errorf("Fetch(%q): a bare CR at byte %d of the message: %q", rawURL, i, s.data)
			case s.data[i] == '\n' && (i == 0 || s.data[i-1] != '\r'):
				t.Errorf("Fetch(%q): a bare LF at byte %d of the message: %q", rawURL, i, s.data)
			}
		}
	}
}

// file: no protocol line, but the path reaches a system call, where a
// NUL would end it early: refused. CR and LF are bytes a file name may
// hold, and such a file is fetched.
func TestInjectionFile(t *testing.T) {
	c, dl, _ := recordingClient(t, newRecorder(t, nil))
	dir := t.TempDir()
	name := filepath.Join(dir, "a\r\nb")
	if err := os.WriteFile(name, []byte("crlf name"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "a"), []byte("cut here"), 0o644); err != nil {
		t.Fatal(err)
	}
	base := (&uri.File{Path: filepath.ToSlash(dir)}).String()
	for _, raw := range []string{base + "/a%00b", base + "/a%00", base + "/a%00/../a", "file://localhost" + strings.TrimPrefix(base, "file://") + "/a%00b"} {
		if _, err := fetchAll(c, raw); !errors.Is(err, fetch.ErrUnsafe) {
			t.Errorf("Fetch(%q) = %v; want ErrUnsafe", raw, err)
		}
	}
	raw := base + "/a%0D%0Ab"
	if b, err := fetchAll(c, raw); err != nil || string(b) != "crlf name" {
		t.Errorf("Fetch(%q) = %q, %v; want the file named a CR LF b", raw, b, err)
	}
	if d := dl.all(); len(d) > 0 {
		t.Errorf("file URLs dialed %q", d)
	}
}

// Each case without its taint is a URL the driver sends: it connects to
// the recorder (rlogin and tn3270 hand off to a program and connect to
// nothing), so the refusals above come from the taint alone.
func TestInjectionCasesWithoutTaintConnect(t *testing.T) {
	// The recorder hangs up at once: every fetch fails, and fast.
	rec := newRecorder(t, func(c *recConn) { c.Conn.(interface{ CloseWrite() error }).CloseWrite() })
	for _, tc := range injectCases {
		if tc.noControl {
			continue
		}
		rawURL := strings.ReplaceAll(rec.expand(tc.url), "{X}", "")
		t.Run(tc.scheme+"/"+tc.component, func(t *testing.T) {
			c, _, _ := recordingClient(t, rec)
			if tc.setup != nil {
				tc.setup(c, "")
			}
			_, err := fetchAll(c, rawURL)
			if errors.Is(err, fetch.ErrUnsafe) || errors.Is(err, fetch.ErrURL) {
				t.Errorf("Fetch(%q) = %v; want it sent", rawURL, err)
			}
			c.Close()
			conns := rec.accepted(t)
			handoff := tc.scheme == "rlogin" || tc.scheme == "tn3270"
			if handoff != (len(conns) == 0) {
				t.Errorf("Fetch(%q) made %d connections (err %v)", rawURL, len(conns), err)
			}
		})
	}
}
