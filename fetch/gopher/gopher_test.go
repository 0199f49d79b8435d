package gopher_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/urlfetch/urlfetch/fetch"
	"github.com/urlfetch/urlfetch/fetch/fetchtest"
	"github.com/urlfetch/urlfetch/fetch/gopher"
	"github.com/urlfetch/urlfetch/internal/misbehaving"
	"github.com/urlfetch/urlfetch/uri"
)

// Acceptance 1: each URL maps to exactly these bytes on the wire, and the
// trace shows them (RFC 1738 sections 3.4.1-3.4.3 and 3.4.9). The fake
// server is the only way to see the bytes themselves.
func TestRequestLine_FakeServer(t *testing.T) {
	s := newFakeServer(t)
	tests := []struct{ path, sent string }{
		{"", "\r\n"},
		{"/", "\r\n"},
		{"/1", "\r\n"},
		{"/1/", "/\r\n"},
		{"/00about", "0about\r\n"},
		{"/0/0about", "/0about\r\n"},
		{"/0/a%20b%2Fc%25", "/a b/c%\r\n"},
		{"/%30x", "x\r\n"},
		{"/9/x%09words", "/x\twords\r\n"},
		{"/7/s%09x%20y", "/s\tx y\r\n"},
		{"/7/s%09", "/s\t\r\n"},
		{"/7/s%09%09!", "/s\t\t!\r\n"},
		{"/7/s%09w%09+", "/s\tw\t+\r\n"},
		{"/7/s%09+", "/s\t+\r\n"}, // for type 7 one %09 is always the search
		{"/0/x%09+", "/x\t+\r\n"},
		{"/0/x%09%09+", "/x\t+\r\n"},
		{"/0/x%09w%09+", "/x\tw\t+\r\n"},
		{"/0/x%09%09+text/plain%20En_US", "/x\t+text/plain En_US\r\n"},
		{"/0/f%09+%091%0D%0A+-1%0D%0Aa%20b%0D%0A.%0D%0A", "/f\t+\t1\r\n+-1\r\na b\r\n.\r\n"},
	}
	for _, tt := range tests {
		c, log := newClient(t, &gopher.Driver{})
		req := strings.SplitN(tt.sent, "\r\n", 2)[0]
		reply := "+2\r\nok"
		if strings.Contains(req, "\t!") {
			reply = "+-2\r\n+INFO: 0ok\t/ok\texample.org\t70\t+\r\n"
		}
		s.Reply(req, reply)
		if _, err := c.Fetch(context.Background(), s.URL(tt.path)); err != nil {
			t.Errorf("Fetch(%q): %v", tt.path, err)
			continue
		}
		got := s.Got()
		if last := got[len(got)-1]; last != tt.sent {
			t.Errorf("Fetch(%q) sent %q, want %q", tt.path, last, tt.sent)
		}
		var traced string
		for _, l := range log.Lines() {
			if q, ok := strings.CutPrefix(l, "> "); ok {
				u, err := strconv.Unquote(q)
				if err != nil {
					t.Errorf("Fetch(%q) traced %s, want a quoted line", tt.path, l)
				}
				traced += u
			}
		}
		if traced != tt.sent {
			t.Errorf("Fetch(%q) traced %q, want %q", tt.path, traced, tt.sent)
		}
	}
}

// Acceptance 2: RFC 1436 text ends at its "." line with ".." un-stuffed;
// text sent as it is (no stuffing, no "." line) comes out as sent; the
// Meta says which end the text had. Real servers give only the second
// form, so the first is scripted.
func TestText_FakeServer(t *testing.T) {
	s := newFakeServer(t)
	big := strings.Repeat("x", 200<<10) + "\n"
	tests := []struct {
		name, reply, want, end string
	}{
		{"stuffed", "a\r\n..dots\r\n...three\r\n.\r\n", "a\r\n.dots\r\n..three\r\n", "dot"},
		{"raw", "a\n..two\n.one\n", "a\n..two\n.one\n", "close"},
		{"proven raw, then the end line", ".one\n..two\n.\n", ".one\n..two\n", "dot"},
		{"held to the close", "..two\nx\n", "..two\nx\n", "close"},
		{"held to the end line", "..two\nx\n.\n", ".two\nx\n", "dot"},
		{"bytes after the end line", "a\n.\nb\n", "a\n", "dot"},
		{"end line at the close", "a\n.", "a\n", "dot"},
		{"empty", "", "", "close"},
		{"long line", big + "..z\n.\n", big + ".z\n", "dot"},
		{"dots within a line", "a..b\n.\n", "a..b\n", "dot"},
		// More held than maxHeld: the RFC's rule decides.
		{"held past the bound", "..x\n" + strings.Repeat("y\n", 600<<10) + "..z\n", ".x\n" + strings.Repeat("y\n", 600<<10) + ".z\n", "close"},
	}
	c, _ := newClient(t, &gopher.Driver{})
	for i, tt := range tests {
		sel := "/t" + strconv.Itoa(i)
		s.Reply(sel, tt.reply)
		resp, body, err := fetchBody(t, c, s.URL("/0"+sel))
		if err != nil {
			t.Errorf("%s: %v", tt.name, err)
			continue
		}
		if body != tt.want {
			t.Errorf("%s: body %q, want %q", tt.name, short(body), short(tt.want))
		}
		if got := resp.Meta.Get("Gopher-End"); got != tt.end {
			t.Errorf("%s: Gopher-End %q, want %q", tt.name, got, tt.end)
		}
	}
}

func short(s string) string {
	if len(s) > 80 {
		return s[:40] + "..." + s[len(s)-30:]
	}
	return s
}

// Acceptance 2: binary types are raw bytes to the close, a "." line and
// "..", CR and NUL included.
func TestBinary_FakeServer(t *testing.T) {
	s := newFakeServer(t)
	data := "GIF89a..\r\n.\r\n\x00\xff" + strings.Repeat("\x00..\r\n.\r\n", 1000)
	s.Reply("/b", data)
	c, _ := newClient(t, &gopher.Driver{})
	for _, typ := range []string{"4", "5", "6", "9", "g", "I", "s", "Z"} {
		resp, body, err := fetchBody(t, c, s.URL("/"+typ+"/b"))
		if err != nil || body != data {
			t.Errorf("type %s: %d bytes, %v; want the %d bytes sent", typ, len(body), err, len(data))
			continue
		}
		if resp.Meta.Get("Gopher-End") != "close" {
			t.Errorf("type %s: Meta %v, want Gopher-End close", typ, resp.Meta)
		}
		want := map[string]string{"4": "application/mac-binhex40", "6": "text/x-uuencode", "g": "image/gif", "I": "image/gif", "s": "application/octet-stream"}[typ]
		if want != "" && resp.Type != want {
			t.Errorf("type %s: Type %q, want %q", typ, resp.Type, want)
		}
	}
}

// Acceptance 3: a reply that is only "3" items is ErrNotFound with the
// server's text, for any type; a document that merely begins with such a
// line is a document.
func TestErrorItem_FakeServer(t *testing.T) {
	s := newFakeServer(t)
	gone := "3Gone fishing\t\terror.host\t1\r\niback soon\tfake\t(NULL)\t0\r\n.\r\n"
	s.Reply("/gone", gone)
	s.Reply("/gone\tx", gone)
	s.Reply("/doc", "3\tcolumns\tof\tdata\r\nand more lines\r\n")
	c, _ := newClient(t, &gopher.Driver{})
	for _, typ := range []string{"0", "1", "9", "7"} {
		u := s.URL("/" + typ + "/gone")
		if typ == "7" {
			u += "%09x"
		}
		_, _, err := fetchBody(t, c, u)
		if !errors.Is(err, fetch.ErrNotFound) || !strings.Contains(err.Error(), `gopher: "/gone": Gone fishing`) {
			t.Errorf("type %s: error %v, want ErrNotFound with the server's text", typ, err)
		}
	}
	if _, body, err := fetchBody(t, c, s.URL("/0/doc")); err != nil || !strings.HasPrefix(body, "3\tcolumns") {
		t.Errorf("a document beginning with a \"3\" line: %q, %v", body, err)
	}
}

// Acceptance 3: every kind of menu line becomes an entry with its URL;
// malformed lines are errors naming their line number, and the listing
// goes on.
func TestMenu_FakeServer(t *testing.T) {
	s := newFakeServer(t)
	menu := strings.Join([]string{
		"iWelcome\tfake\t(NULL)\t0",
		"0About us\t/about us.txt\texample.org\t70\t+",
		"1Files\t/files\texample.org\t7070",
		"+Files mirror\t/files\tmirror.example.org\t70",
		"7Search\t/find\texample.org\t70\t+",
		"9Tarball\t/a.tar\texample.org\t70\t?",
		"hWeb site\tURL:http://example.org/x?y=1\texample.org\t70",
		"hA page\t/page.html\texample.org\t70",
		"8Library\tguest\tlib.example.org\t23",
		"TMainframe\t\tibm.example.org\t2323",
		"3Something went wrong\terror.host\t1",
		"0too few fields\t/x",
		"0bad port\t/x\texample.org\tseventy",
		"0bad host\t/x\t(NULL)\t70",
		"",
		"1Tabs\t/a\tb\texample.org\t70",
		"gPicture\t/p%.gif\t::1\t70",
		"gBracketed\t/q.gif\t[::1]\t7000",
		"1Last\t/last\texample.org\t70",
	}, "\r\n") + "\r\n.\r\n"
	s.Reply("/m", menu)
	c, _ := newClient(t, &gopher.Driver{})
	resp, err := c.Fetch(context.Background(), s.URL("/1/m"))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var got []string
	for e, err := range resp.Entries() {
		if err != nil {
			got = append(got, "error: "+err.Error())
			continue
		}
		got = append(got, fmt.Sprintf("%v %q %s %s", e.Type, e.Name, e.URL, e.Media))
	}
	want := []string{
		`info "Welcome"  `,
		`file "About us" gopher://example.org/0/about%20us.txt%09%09+ text/plain`,
		`dir "Files" gopher://example.org:7070/1/files application/gopher-menu`,
		`dir "Files mirror" gopher://mirror.example.org/1/files application/gopher-menu`,
		`search "Search" gopher://example.org/7/find application/gopher-menu`,
		`file "Tarball" gopher://example.org/9/a.tar%09%09? application/octet-stream`,
		`link "Web site" http://example.org/x?y=1 `,
		`file "A page" gopher://example.org/h/page.html text/html`,
		`session "Library" telnet://guest@lib.example.org/ `,
		`session "Mainframe" tn3270://ibm.example.org:2323/ `,
		`error "Something went wrong"  `,
		`error: gopher: menu line 12: "0too few fields\t/x": 2 fields, want type and display string, selector, host and port separated by TABs`,
		`error: gopher: menu line 13: "0bad port\t/x\texample.org\tseventy": bad port "seventy"`,
		`error: gopher: menu line 14: no valid URL for host "(NULL)": uri: "gopher://(NULL)/0/x": at offset 9: invalid character '(' in host name`,
		`error: gopher: menu line 15: empty line`,
		`error: gopher: menu line 16: "1Tabs\t/a\tb\texample.org\t70": bad port "example.org"`,
		`file "Picture" gopher://[::1]/g/p%25.gif image/gif`,
		`file "Bracketed" gopher://[::1]:7000/g/q.gif image/gif`,
		`dir "Last" gopher://example.org/1/last application/gopher-menu`,
	}
	if len(got) != len(want) {
		t.Errorf("%d entries, want %d", len(got), len(want))
	}
	for i := range max(len(got), len(want)) {
		var g, w string
		if i < len(got) {
			g = got[i]
		}
		if i < len(want) {
			w = want[i]
		}
		if g != w {
			t.Errorf("entry %d:\n got %s\nwant %s", i+1, g, w)
		}
	}
}

// Acceptance 5: the Gopher+ reply header is honoured; a failed reply is an
// error with the server's text and its kind by error code. pygopherd and
// gophernicus send only "+N", "+-1", "+-2" and "--2" with code 1.
func TestPlusHeader_FakeServer(t *testing.T) {
	s := newFakeServer(t)
	s.Reply("/exact\t+", "+5\r\nhello and more")
	s.Reply("/short\t+", "+10\r\nhello")
	s.Reply("/dot\t+", "+-1\r\nab\r\n..c\r\n.\r\n")
	s.Reply("/nodot\t+", "+-1\r\nab\r\n")
	s.Reply("/close\t+", "+-2\r\n.\r\n..x\r\n")
	s.Reply("/gone\t+", "--1\r\n1 Admin <a@example.org>\r\nIt is gone.\r\n.\r\n")
	s.Reply("/busy\t+", "--2\r\n2 Admin <a@example.org>\r\nToo busy.\r\n")
	s.Reply("/moved\t+", "--1\r\n3 0New home\t/new\texample.org\t70\r\n.\r\n")
	s.Reply("/plain\t+", "no header here\r\n")
	menu := "0A\t/a\texample.org\t70\t+\r\n"
	s.Reply("/menu\t+", "+"+strconv.Itoa(len(menu))+"\r\n"+menu+"junk after the length")
	c, _ := newClient(t, &gopher.Driver{})
	tests := []struct {
		path, body, end string
		length          int64
		err             error
		text            string
	}{
		{"/0/exact%09%09+", "hello", "length", 5, nil, ""},
		{"/9/exact%09%09+", "hello", "length", 5, nil, ""},
		// A connection that breaks before the reply ends: ErrConnect
		// (issue 19: one rule of a broken connection).
		{"/9/short%09%09+", "hello", "", 10, fetch.ErrConnect, "after 5 of the 10 bytes"},
		{"/0/dot%09%09+", "ab\r\n.c\r\n", "dot", -1, nil, ""},
		{"/0/nodot%09%09+", "ab\r\n", "", -1, fetch.ErrConnect, `before the "." line`},
		{"/0/close%09%09+", ".\r\n..x\r\n", "close", -1, nil, ""},
		{"/0/gone%09%09+", "", "", 0, fetch.ErrNotFound, `gopher: "/gone": It is gone. (Gopher+ error 1, Admin <a@example.org>)`},
		{"/0/busy%09%09+", "", "", 0, fetch.ErrProtocol, "Too busy."},
		{"/0/moved%09%09+", "", "", 0, fetch.ErrNotFound, "moved to gopher://example.org/0/new"},
		{"/0/plain%09%09+", "no header here\r\n", "close", -1, nil, ""},
		{"/1/menu%09%09+", menu, "length", -1, nil, ""},
	}
	for _, tt := range tests {
		ctx := context.Background()
		resp, err := c.Fetch(ctx, s.URL(tt.path))
		if tt.body == "" && tt.err != nil {
			if !errors.Is(err, tt.err) || !strings.Contains(fmt.Sprint(err), tt.text) {
				t.Errorf("Fetch(%q) error = %v, want %v with %q", tt.path, err, tt.err, tt.text)
			}
			continue
		}
		if err != nil {
			t.Errorf("Fetch(%q): %v", tt.path, err)
			continue
		}
		b, rerr := io.ReadAll(resp.Body)
		resp.Body.Close()
		if string(b) != tt.body || resp.Length != tt.length {
			t.Errorf("Fetch(%q) = %q (Length %d), want %q (%d)", tt.path, b, resp.Length, tt.body, tt.length)
		}
		switch {
		case tt.err != nil && (!errors.Is(rerr, tt.err) || !strings.Contains(fmt.Sprint(rerr), tt.text)):
			t.Errorf("Fetch(%q): read error %v, want %v with %q", tt.path, rerr, tt.err, tt.text)
		case tt.err == nil && rerr != nil:
			t.Errorf("Fetch(%q): read error %v", tt.path, rerr)
		case tt.err == nil && resp.Meta.Get("Gopher-End") != tt.end:
			t.Errorf("Fetch(%q): Gopher-End %q, want %q", tt.path, resp.Meta.Get("Gopher-End"), tt.end)
		}
	}
}

// Acceptance 8: a menu line over 64 KiB is an error naming the line, read
// past with bounded memory, and the menu goes on.
func TestLongLine_FakeServer(t *testing.T) {
	s := newFakeServer(t)
	s.Reply("/m", "0"+strings.Repeat("x", 3*gopher.MaxLine)+"\t/x\th\t70\r\n0ok\t/ok\texample.org\t70\r\n.\r\n")
	c, _ := newClient(t, &gopher.Driver{})
	resp, err := c.Fetch(context.Background(), s.URL("/1/m"))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var got []string
	for e, err := range resp.Entries() {
		if err != nil {
			got = append(got, err.Error())
			if !errors.Is(err, fetch.ErrProtocol) {
				t.Errorf("error %v, want ErrProtocol", err)
			}
			continue
		}
		got = append(got, e.URL)
	}
	want := []string{"gopher: menu line 1 is longer than 65536 bytes", "gopher://example.org/0/ok"}
	if !slices.Equal(got, want) {
		t.Errorf("entries %q, want %q", got, want)
	}
}

// Acceptance 8: a menu that never ends is an error once it passes
// MaxMenuSize, read with flat memory; without a bound, the context's
// deadline ends it.
func TestEndlessMenu_FakeServer(t *testing.T) {
	s := newFakeServer(t)
	s.ReplyFunc("/m", func(c net.Conn) {
		line := []byte("0An item that repeats forever\t/again\texample.org\t70\r\n")
		chunk := []byte(strings.Repeat(string(line), 1000))
		for {
			if _, err := c.Write(chunk); err != nil {
				return
			}
		}
	})
	const bound = 32 << 20
	c, _ := newClient(t, &gopher.Driver{MaxMenuSize: bound})
	start := time.Now()
	resp, err := c.Fetch(context.Background(), s.URL("/1/m"))
	if err != nil {
		t.Fatal(err)
	}
	var n int
	var lastErr error
	var peak uint64
	var ms runtime.MemStats
	for _, err := range resp.Entries() {
		if err != nil {
			lastErr = err
			break
		}
		if n++; n%50000 == 0 {
			runtime.ReadMemStats(&ms)
			peak = max(peak, ms.HeapInuse)
		}
	}
	resp.Body.Close()
	if !errors.Is(lastErr, fetch.ErrProtocol) || !strings.Contains(lastErr.Error(), "has not ended") {
		t.Errorf("after %d entries: %v, want ErrProtocol saying the menu has not ended", n, lastErr)
	}
	if n < bound/60 || time.Since(start) > 20*time.Second {
		t.Errorf("%d entries in %v", n, time.Since(start))
	}
	if peak > 16<<20 {
		t.Errorf("heap in use reached %d bytes reading a %d-byte menu; want it flat", peak, bound)
	}

	c, _ = newClient(t, &gopher.Driver{MaxMenuSize: -1})
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	resp, err = c.Fetch(ctx, s.URL("/1/m"))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	lastErr = nil
	for _, err := range resp.Entries() {
		if err != nil {
			lastErr = err
			break
		}
	}
	if !errors.Is(lastErr, context.DeadlineExceeded) || fetch.Class(lastErr) != fetch.ErrTimeout {
		t.Errorf("unbounded endless menu: %v, want the deadline", lastErr)
	}
}

// Acceptance 8: a server that stalls, before its reply or within it, is
// ErrTimeout after the idle timeout.
func TestStall_FakeServer(t *testing.T) {
	s := newFakeServer(t)
	s.Stall("/never")
	s.ReplyFunc("/half", func(c net.Conn) {
		io.WriteString(c, "0One\t/one\texample.org\t70\r\n0Tw")
		<-s.ctx.Done()
	})
	c, _ := newClient(t, &gopher.Driver{})
	c.IdleTimeout = 200 * time.Millisecond
	start := time.Now()
	_, err := c.Fetch(context.Background(), s.URL("/0/never"))
	if !errors.Is(err, fetch.ErrTimeout) || time.Since(start) > 3*time.Second {
		t.Errorf("stalled before replying: %v after %v, want ErrTimeout", err, time.Since(start))
	}
	resp, err := c.Fetch(context.Background(), s.URL("/1/half"))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var got []string
	for e, err := range resp.Entries() {
		if err != nil {
			if !errors.Is(err, fetch.ErrTimeout) {
				t.Errorf("stalled menu: %v, want ErrTimeout", err)
			}
			got = append(got, "timeout")
			continue
		}
		got = append(got, e.Name)
	}
	if !slices.Equal(got, []string{"One", "timeout"}) {
		t.Errorf("stalled menu gave %q", got)
	}
}

// Acceptance 4: a type-7 URL without a search is not sent; Search and
// Ask supply the words.
func TestSearchRequired(t *testing.T) {
	c, log := noDial(t, &gopher.Driver{})
	_, err := c.Fetch(context.Background(), "gopher://example.org/7/find")
	if !errors.Is(err, gopher.ErrSearchRequired) || !errors.Is(err, fetch.ErrUnsupported) || !strings.Contains(err.Error(), "a search is required") {
		t.Errorf("error %v, want ErrSearchRequired", err)
	}
	if l := log.Lines(); len(l) != 0 {
		t.Errorf("traced %q, want nothing", l)
	}

	s := newFakeServer(t)
	s.Reply("/find\tgo gophers", "iok\tfake\t(NULL)\t0\r\n.\r\n")
	c, _ = newClient(t, &gopher.Driver{Search: "go gophers"})
	if _, _, err := fetchBody(t, c, s.URL("/7/find")); err != nil {
		t.Errorf("with Driver.Search: %v", err)
	}
	var asked []gopher.Question
	c, _ = newClient(t, &gopher.Driver{Ask: func(ctx context.Context, q gopher.Question) (string, error) {
		asked = append(asked, q)
		return "go gophers", nil
	}})
	if _, _, err := fetchBody(t, c, s.URL("/7/find")); err != nil {
		t.Errorf("with Driver.Ask: %v", err)
	}
	if len(asked) != 1 || asked[0].Kind != "Search" || !strings.Contains(asked[0].Prompt, s.URL("/7/find")) {
		t.Errorf("asked %+v, want one Search question naming the URL", asked)
	}
	want := []string{"/find\tgo gophers\r\n", "/find\tgo gophers\r\n"}
	if got := s.Got(); !slices.Equal(got, want) {
		t.Errorf("sent %q, want %q", got, want)
	}
	c, _ = noDial(t, &gopher.Driver{Ask: func(context.Context, gopher.Question) (string, error) {
		return "", context.Canceled
	}})
	if _, err := c.Fetch(context.Background(), "gopher://example.org/7/find"); !errors.Is(err, context.Canceled) {
		t.Errorf("Ask failing: %v, want its error", err)
	}
}

// RFC 1738 section 6: a decoded CR, LF or NUL never reaches the wire, but
// in the filled-in form of section 3.4.9, and only in its shape.
func TestInject(t *testing.T) {
	c, log := noDial(t, &gopher.Driver{})
	for _, path := range []string{
		"/0/a%0D%0Ab", "/0/a%00", "/0/a%0A", "/7/s%09a%0D%0Ab", "/0/a%09%09+%0D%0A",
		"/0/a%09%09!%0A+ADMIN", "/0/a%09+%091%0D%0A+-1%0D%0Ax%0D%0A", // no "." line
		"/0/a%09+%091%0D%0A+-1%0D%0Ax%0Ay%0D%0A.%0D%0A",    // a bare LF
		"/0/a%09+%091%0D%0A+-1%0D%0A.%0D%0Ax%0D%0A.%0D%0A", // an early "."
		"/0/a%09+%092%0D%0A+-1%0D%0Ax%0D%0A.%0D%0A",        // not TAB 1
		"/0/a%09+%091%0D%0A+-1%0D%0Ax%00%0D%0A.%0D%0A",     // NUL
	} {
		_, err := c.Fetch(context.Background(), "gopher://example.org"+path)
		if !errors.Is(err, fetch.ErrUnsafe) || strings.ContainsAny(err.Error(), "\r\n") {
			t.Errorf("Fetch(%q) error = %q, want ErrUnsafe on one line", path, err)
		}
	}
	if l := log.Lines(); len(l) != 0 {
		t.Errorf("traced %q, want nothing", l)
	}
	d := &gopher.Driver{Search: "a\r\nb"}
	c, _ = noDial(t, d)
	if _, err := c.Fetch(context.Background(), "gopher://example.org/7/s"); !errors.Is(err, fetch.ErrUnsafe) {
		t.Errorf("Driver.Search with CR LF: %v, want ErrUnsafe", err)
	}
}

// Acceptance 5: the +ASK form of a "?" item, with the kinds of question
// pygopherd's form does not have: a password (masked in the trace), a
// multi-line answer, a note, an answer that needs dot-stuffing.
func TestForm_FakeServer(t *testing.T) {
	s := newFakeServer(t)
	attrs := "+-1\r\n+INFO: 0Form\t/f\texample.org\t70\t?\r\n+ASK:\r\n" +
		" Note: Fill this in\r\n Ask: Name?\tnobody\r\n AskP: Password?\r\n AskL: Address?\r\n" +
		" Choose: Colour?\tred\tblue\r\n Ask: Dots?\r\n.\r\n"
	s.Reply("/f\t!", attrs)
	s.Reply("/f\t+\t1", "+-1\r\nThanks.\r\n.\r\n")
	answers := map[string]string{"Name?": "", "Password?": "hunter2", "Address?": "1 Main St\n.Springfield\n", "Colour?": "blue", "Dots?": ".hidden"}
	var asked []string
	d := &gopher.Driver{Ask: func(ctx context.Context, q gopher.Question) (string, error) {
		asked = append(asked, q.Kind+" "+q.String())
		a := answers[q.Prompt]
		if a == "" {
			a = q.Default
		}
		return a, nil
	}}
	c, log := newClient(t, d)
	_, body, err := fetchBody(t, c, s.URL("/0/f%09%09?"))
	if err != nil || body != "Thanks.\r\n" {
		t.Fatalf("form: %q, %v", body, err)
	}
	wantAsked := []string{"Note Fill this in", "Ask Name? [nobody]", "AskP Password?", "AskL Address?", "Choose Colour? (red, blue)", "Ask Dots?"}
	if !slices.Equal(asked, wantAsked) {
		t.Errorf("asked %q, want %q", asked, wantAsked)
	}
	got := s.Got()
	wantSent := "/f\t+\t1\r\n+-1\r\nnobody\r\nhunter2\r\n2\r\n1 Main St\r\n..Springfield\r\nblue\r\n..hidden\r\n.\r\n"
	if len(got) != 2 || got[0] != "/f\t!\r\n" || got[1] != wantSent {
		t.Errorf("sent %q, want the attribute request and %q", got, wantSent)
	}
	for _, l := range log.Lines() {
		if strings.Contains(l, "hunter2") {
			t.Errorf("traced %q: it shows the password", l)
		}
	}

	d.Ask = func(ctx context.Context, q gopher.Question) (string, error) { return "a\r\nb", nil }
	if _, _, err := fetchBody(t, c, s.URL("/0/f%09%09?")); !errors.Is(err, fetch.ErrUnsafe) {
		t.Errorf("an answer with CR LF: %v, want ErrUnsafe", err)
	}
	s.Reply("/g\t!", "+-2\r\n+INFO: 0G\t/g\texample.org\t70\t?\r\n+ASK:\r\n ChooseF: Send a file\r\n")
	if _, _, err := fetchBody(t, c, s.URL("/0/g%09%09?")); !errors.Is(err, fetch.ErrUnsupported) {
		t.Errorf("ChooseF: %v, want ErrUnsupported", err)
	}
	s.Reply("/h\t!", "+-2\r\n+INFO: 0H\t/h\texample.org\t70\t?\r\n+ADMIN:\r\n Admin: x <x@y>\r\n")
	if _, _, err := fetchBody(t, c, s.URL("/0/h%09%09?")); !errors.Is(err, fetch.ErrProtocol) || !strings.Contains(err.Error(), "+ASK") {
		t.Errorf("no +ASK block: %v, want ErrProtocol", err)
	}
}

// Gopher+ section 2.7: a server that returns all attributes for a
// selection has them picked; a reply too long is an error.
func TestAttributes_FakeServer(t *testing.T) {
	s := newFakeServer(t)
	s.Reply("/d\t$+VIEWS", "+-1\r\n+INFO: 0A\t/a\texample.org\t70\t+\r\n+ADMIN:\r\n Admin: x <x@y>\r\n+VIEWS:\r\n text/plain: <1k>\r\n"+
		"+INFO: 0B\t/b\texample.org\t70\t+\r\n+VIEWS:\r\n text/plain En_US: <2k>\r\n application/pdf: <9k>\r\n.\r\n")
	c, _ := newClient(t, &gopher.Driver{})
	resp, body, err := fetchBody(t, c, s.URL("/1/d%09%09$+VIEWS"))
	if err != nil {
		t.Fatal(err)
	}
	if got := resp.Meta.Values("Gopher-Views"); !slices.Equal(got, []string{"text/plain: <1k>", "text/plain En_US: <2k>", "application/pdf: <9k>"}) {
		t.Errorf("Gopher-Views = %q", got)
	}
	if resp.Meta.Get("Gopher-Admin") != "" || len(resp.Meta.Values("Gopher-Info")) != 2 {
		t.Errorf("Meta = %v, want +ADMIN left out and both +INFO kept", resp.Meta)
	}
	want := "A (text)\n  URL: gopher://example.org/0/a%09%09+\n  Views:\n    text/plain: <1k>\n\n" +
		"B (text)\n  URL: gopher://example.org/0/b%09%09+\n  Views:\n    text/plain En_US: <2k>\n    application/pdf: <9k>\n"
	if body != want {
		t.Errorf("printed:\n%s\nwant:\n%s", body, want)
	}

	s.Reply("/big\t!", "+-2\r\n+INFO: 0Big\t/big\texample.org\t70\r\n+ABSTRACT:\r\n"+strings.Repeat(" words words words\r\n", 1000))
	c, _ = newClient(t, &gopher.Driver{MaxAttributeSize: 4096})
	if _, _, err := fetchBody(t, c, s.URL("/0/big%09%09!")); !errors.Is(err, fetch.ErrProtocol) || !strings.Contains(err.Error(), "longer than 4096") {
		t.Errorf("attributes over the bound: %v, want ErrProtocol", err)
	}
}

// Types that name no Gopher document are refused before any connection.
func TestUnfetchableTypes(t *testing.T) {
	c, _ := noDial(t, &gopher.Driver{})
	for path, want := range map[string]string{
		"/8guest":  "telnet://guest@example.org:7070/",
		"/T":       "tn3270://example.org:7070/",
		"/2/cso":   "CSO",
		"/i/x":     "a line of a menu",
		"/3/error": "a line of a menu",
	} {
		_, err := c.Fetch(context.Background(), "gopher://example.org:7070"+path)
		if !errors.Is(err, fetch.ErrUnsupported) || !strings.Contains(err.Error(), want) {
			t.Errorf("Fetch(%q) = %v, want ErrUnsupported with %q", path, err, want)
		}
	}
}

// Acceptance 6: the conformance suite, against the fake server (the real
// servers run it too, in the integration tests).
func TestConformance_FakeServer(t *testing.T) {
	s := newFakeServer(t)
	host, port := s.hostPort()
	s.Reply("/hello.txt", "Hello, gopher.\r\n..and a stuffed dot\r\n.\r\n")
	bin := strings.Repeat("\x00\x01..\r\n.\r\n\xff", 512)
	s.Reply("/bin", bin)
	s.Reply("/menu", fmt.Sprintf("iA menu\tfake\t(NULL)\t0\r\n0Hello\t/hello.txt\t%s\t%d\r\n8Telnet\t\texample.org\t23\r\n3An error line\t\terror.host\t1\r\n.\r\n", host, port))
	s.Stall("/stall")
	fetchtest.Run(t, fetchtest.Opt{
		Scheme: "gopher",
		Driver: &gopher.Driver{},
		Found: []fetchtest.Case{
			{URL: s.URL("/0/hello.txt"), Want: "Hello, gopher.\r\n.and a stuffed dot\r\n", Type: "text/plain"},
			{URL: s.URL("/9/bin"), Want: bin, Type: "application/octet-stream"},
			{URL: s.URL("/1/menu"), Kind: fetch.Listing, Type: gopher.MenuType},
		},
		Missing: s.URL("/0/missing"),
		Listing: s.URL("/1/menu"),
		Stall:   func(testing.TB) string { return s.URL("/0/stall") },
		Inject:  []string{s.URL("/0/a%0D%0Ab"), s.URL("/0/a%00"), s.URL("/7/s%09a%0Ab")},
		Broken: func(t testing.TB) string {
			return misbehaving.Serve(t, misbehaving.GopherPlus, misbehaving.CloseMidTransfer).URL()
		},
		Transfers: transfers,
		// The fixtures are plain Gopher: a Head asks the server nothing.
		Caps: fetchtest.Caps{MixedSchemes: true, HeadFromURL: true},
	})
}

// Issue 18: CheckFollow, the driver's word to the Client's policy, and
// the driver's own refusal to ask the user anything for a URL a server
// chose (a Request with a Hop), even when its settings could answer.
func TestServerChosenURLs(t *testing.T) {
	d := &gopher.Driver{}
	for _, tc := range []struct {
		url string
		ok  bool
	}{
		{"gopher://h/0/hello", true},
		{"gopher://h/", true},
		{"gopher://h/7/find%09words", true},
		{"gopher://h/0/a%09%09+", true},
		{"gopher://h/0/a%09%09!+ABSTRACT", true},
		{"gopher://h/0/a%09%09$", true},
		{"gopher://h/7/find", false},
		{"gopher://h/0/f%09%09?", false},
		{"gopher://h/0/f%09+%091%0D%0A+-1%0D%0Ax%0D%0A.%0D%0A", false},
		{"gopher://h/1/s%09%09+%0D%0AQUIT%0D%0A", false},
	} {
		err := d.CheckFollow(uri.MustParse(tc.url))
		if (err == nil) != tc.ok {
			t.Errorf("CheckFollow(%s) = %v; want ok %v", tc.url, err, tc.ok)
		}
	}

	s := newFakeServer(t)
	asked := 0
	d = &gopher.Driver{Search: "my words", Ask: func(context.Context, gopher.Question) (string, error) {
		asked++
		return "typed", nil
	}}
	c, _ := newClient(t, d)
	from := fetch.NewRequest(c, uri.MustParse("http://example.org/"))
	for _, path := range []string{"/7/find", "/0/f%09%09?"} {
		req := from.Follow(fetch.HopRedirect, uri.MustParse(s.URL(path)))
		_, err := d.Fetch(context.Background(), req)
		if !errors.Is(err, fetch.ErrUnsafe) {
			t.Errorf("Driver.Fetch(%s) chosen by a server: %v; want ErrUnsafe", path, err)
		}
	}
	if got := s.Got(); asked != 0 || len(got) != 0 {
		t.Errorf("asked %d times, sent %q; want nothing of the user's asked or sent", asked, got)
	}
}
