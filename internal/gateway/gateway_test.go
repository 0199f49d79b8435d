package gateway

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/urlfetch/urlfetch/fetch"
	"github.com/urlfetch/urlfetch/fetch/all"
	"github.com/urlfetch/urlfetch/internal/recordcheck"
)

// startGateway serves a gateway on 127.0.0.1:0 for the test, with every
// built-in driver; configure, if set, changes the Client before New.
func startGateway(t *testing.T, configure func(c *fetch.Client)) *Server {
	t.Helper()
	c := &fetch.Client{ConnectTimeout: 5 * time.Second, IdleTimeout: 5 * time.Second}
	ds := all.NewDrivers()
	ds.Register(c)
	if configure != nil {
		configure(c)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s, err := New(Config{Client: c, Drivers: ds, Listener: ln})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Serve(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("Serve: %v", err)
		}
		c.Close()
	})
	return s
}

// gopherServer is a scripted gopher server on 127.0.0.1:0 that answers
// each request line with the reply its function gives, and keeps the
// lines it was sent.
type gopherServer struct {
	addr string
	mu   sync.Mutex
	got  []string
}

func newGopherServer(t *testing.T, reply func(lines []string) (string, int)) *gopherServer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	g := &gopherServer{addr: ln.Addr().String()}
	var wg sync.WaitGroup
	t.Cleanup(func() { ln.Close(); wg.Wait() })
	wg.Go(func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			wg.Go(func() {
				defer c.Close()
				c.SetDeadline(time.Now().Add(5 * time.Second))
				br := bufio.NewReader(c)
				var lines []string
				for {
					l, err := br.ReadString('\n')
					if err != nil {
						return
					}
					lines = append(lines, l)
					text, more := reply(lines)
					if more > 0 {
						continue // a form's data block follows
					}
					g.mu.Lock()
					g.got = append(g.got, lines...)
					g.mu.Unlock()
					io.WriteString(c, text)
					return
				}
			})
		}
	})
	return g
}

func (g *gopherServer) lines() []string {
	g.mu.Lock()
	defer g.mu.Unlock()
	return append([]string(nil), g.got...)
}

// get sends a request to the gateway and returns the reply and its body.
func get(t *testing.T, method, target string, header http.Header, body io.Reader) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(method, target, body)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range header {
		req.Header[k] = v
	}
	resp, err := noRedirects.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, target, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s %s: reading the body: %v", method, target, err)
	}
	return resp, string(b)
}

// noRedirects is an HTTP client that shows redirects rather than follow
// them.
var noRedirects = &http.Client{
	Timeout:       20 * time.Second,
	CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
}

// proxyGet sends target whole to the gateway, as a proxy's client does:
// "GET gopher://host/1/ HTTP/1.1" (net/http's client sends no URL of a
// scheme it does not know to a proxy).
func proxyGet(t *testing.T, s *Server, target string, header http.Header) (*http.Response, string) {
	t.Helper()
	c, err := net.Dial("tcp", strings.TrimSuffix(strings.TrimPrefix(s.URL(), "http://"), "/"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(20 * time.Second))
	req := "GET " + target + " HTTP/1.1\r\nHost: gateway\r\nConnection: close\r\n"
	for k, vs := range header {
		for _, v := range vs {
			req += k + ": " + v + "\r\n"
		}
	}
	if _, err := io.WriteString(c, req+"\r\n"); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatalf("GET %s through the gateway: %v", target, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("GET %s through the gateway: %v", target, err)
	}
	return resp, string(b)
}

var (
	html     = http.Header{"Accept": {"text/html,application/xhtml+xml,*/*;q=0.8"}}
	jsonOnly = http.Header{"Accept": {"application/json"}}
)

// hostileMenu is a menu as a hostile server writes one for a web
// gateway: display strings that are HTML, that end attributes, that hold
// terminal controls and a right-to-left override; "h" items whose URL
// is javascript: and data:; an info line of markup; a telnet item.
func hostileMenu(host, port string) string {
	item := func(typ, display, sel string) string {
		return typ + display + "\t" + sel + "\t" + host + "\t" + port + "\r\n"
	}
	return item("0", `<script>alert("display")</script>`, "/a") +
		item("0", `"><img src=x onerror=alert(1)>`, "/b") +
		item("0", "esc-\x1b]0;owned\x07\x1b[2J.txt", "/c") +
		item("0", "c1-\u009b31mred.txt", "/d") +
		item("9", "bidi-\u202etxt.exe", "/e") +
		item("h", "javascript link", "URL:javascript:alert(document.domain)") +
		item("h", "data link", "URL:data:text/html,<script>alert(1)</script>") +
		item("i", "<b>bold</b> & <i>info</i>", "") +
		item("8", "a telnet session", "guest") +
		item("7", "Search <here>", "/search") +
		".\r\n"
}

// Issue 28, point 3: whatever a hostile server puts in a menu reaches the
// page as text: no element of its own, no attribute ended, no
// javascript: or data: link, its controls visible; and the page runs no
// script.
func TestHostileMenu_Hostile(t *testing.T) {
	var g *gopherServer
	g = newGopherServer(t, func([]string) (string, int) {
		host, port, _ := net.SplitHostPort(g.addr)
		return hostileMenu(host, port), 0
	})
	s := startGateway(t, nil)
	menu := "gopher://" + g.addr + "/1/"
	for _, mode := range []string{"portal", "gateway"} {
		t.Run(mode, func(t *testing.T) {
			var resp *http.Response
			var body string
			if mode == "portal" {
				resp, body = get(t, "GET", s.URL()+menu, html, nil)
			} else {
				resp, body = proxyGet(t, s, menu, html)
			}
			if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html") {
				t.Fatalf("status %d, type %q: %s", resp.StatusCode, resp.Header.Get("Content-Type"), body)
			}
			csp := resp.Header.Get("Content-Security-Policy")
			if !strings.HasPrefix(csp, "default-src 'none'; style-src 'sha256-") || strings.Contains(csp, "script-src") || strings.Contains(csp, "unsafe") {
				t.Errorf("Content-Security-Policy %q", csp)
			}
			for _, bad := range []string{"<script", "<img", "<b>", "<i>", "\x1b", "\u009b", "\u202e", `"><img`, "javascript:alert(document.domain)\"", "href=\"javascript", "href=\"data"} {
				if strings.Contains(body, bad) {
					t.Errorf("the page holds %q:\n%s", bad, body)
				}
			}
			for _, want := range []string{
				"&lt;script&gt;alert(&#34;display&#34;)&lt;/script&gt;",
				"&#34;&gt;&lt;img src=x onerror=alert(1)&gt;",
				`esc-\e]0;owned\x07\e[2J.txt`,
				`c1-\u009b31mred.txt`,
				`bidi-\u202etxt.exe`,
				"&lt;b&gt;bold&lt;/b&gt; &amp; &lt;i&gt;info&lt;/i&gt;",
				"javascript:alert(document.domain)", // shown, not linked
				"telnet://guest@",                   // shown, not linked
			} {
				if !strings.Contains(body, want) {
					t.Errorf("the page lacks %q:\n%s", want, body)
				}
			}
			for _, m := range regexp.MustCompile(`(href|action)="([^"]*)"`).FindAllStringSubmatch(body, -1) {
				ok := strings.HasPrefix(m[2], "/gopher://") || m[2] == "/"
				if mode == "gateway" {
					ok = strings.HasPrefix(m[2], "gopher://")
				}
				if !ok {
					t.Errorf("%s=%q: a link that does not go back through the gateway", m[1], m[2])
				}
			}
		})
	}
}

// Issue 28, point 3: schemes that read or send what is the user's, and
// sessions, are refused whatever the client asks, before anything is
// fetched, in every format; a refusal in JSON is a record of the schema.
func TestRefusedSchemes(t *testing.T) {
	s := startGateway(t, func(c *fetch.Client) { c.AllowSchemes = nil })
	for _, u := range []string{"file:///etc/passwd", "mailto:someone@example.org", "telnet://127.0.0.1:18023/", "rlogin://h/", "tn3270://h/", "mid:a@b", "cid:a@b", "imap://h/"} {
		resp, body := get(t, "GET", s.URL()+"?url="+url.QueryEscape(u), html, nil)
		if resp.StatusCode != http.StatusForbidden && resp.StatusCode != http.StatusNotImplemented {
			t.Errorf("%s: status %d, want 403: %s", u, resp.StatusCode, body)
		}
		resp, body = get(t, "GET", s.URL()+"?json&url="+url.QueryEscape(u), nil, nil)
		if resp.StatusCode < 400 || !strings.Contains(body, `"kind":"error"`) {
			t.Errorf("%s as JSON: %d %s", u, resp.StatusCode, body)
		}
		if err := recordcheck.Check([]byte(body)); err != nil {
			t.Errorf("%s: %v", u, err)
		}
	}
	// The policy's own refusal names the scheme.
	resp, body := get(t, "GET", s.URL()+"file:///etc/passwd", nil, nil)
	if resp.StatusCode != http.StatusForbidden || !strings.Contains(body, "may not use file: URLs") {
		t.Errorf("file:///etc/passwd: %d %q", resp.StatusCode, body)
	}
}

// Issue 28, point 3: the port policy applies to every URL.
func TestPortPolicy(t *testing.T) {
	s := startGateway(t, nil)
	resp, body := get(t, "GET", s.URL()+"gopher://127.0.0.1:25/1/", nil, nil)
	if resp.StatusCode != http.StatusForbidden || !strings.Contains(body, "port 25 belongs to another protocol") {
		t.Errorf("gopher to port 25: %d %q", resp.StatusCode, body)
	}
}

// Issue 28, point 3: no request makes the gateway fetch from itself:
// not by its address, nor by another name of it, nor after a redirect,
// nor through a gateway setting that names it; a request that comes back
// to it through another proxy is answered 508.
func TestNoLoop(t *testing.T) {
	var self string
	redirect := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, self+"gopher://127.0.0.1:1/", http.StatusFound)
	}))
	defer redirect.Close()
	s := startGateway(t, nil)
	self = s.URL()
	_, port, _ := net.SplitHostPort(strings.TrimSuffix(strings.TrimPrefix(self, "http://"), "/"))
	for _, u := range []string{
		"http://127.0.0.1:" + port + "/",
		"http://localhost:" + port + "/gopher://127.0.0.1:1/",
		"http://0.0.0.0:" + port + "/",
		"gopher://127.0.0.1:" + port + "/1/",
		"http://127.0.0.1:" + port + "/?url=http%3A%2F%2F127.0.0.1%3A" + port + "%2F",
		redirect.URL + "/",
	} {
		resp, body := get(t, "GET", self+"?url="+url.QueryEscape(u), nil, nil)
		if resp.StatusCode != http.StatusForbidden || !strings.Contains(body, "it is this gateway") {
			t.Errorf("%s: %d %q, want 403 naming the gateway itself", u, resp.StatusCode, body)
		}
	}

	// A gateway setting (gopher_proxy) that names the gateway itself.
	chained := startGateway(t, nil)
	chained.client.Gateway = (&fetch.Gateways{ByScheme: map[string]string{"gopher": chained.URL()}}).Gateway
	resp, body := get(t, "GET", chained.URL()+"gopher://127.0.0.1:1/1/", nil, nil)
	if resp.StatusCode != http.StatusForbidden || !strings.Contains(body, "it is this gateway") {
		t.Errorf("through itself as gopher's gateway: %d %q", resp.StatusCode, body)
	}

	// Through another proxy, the Via field says it came back.
	resp, body = get(t, "GET", self+"gopher://127.0.0.1:1/", http.Header{"Via": {"1.1 " + s.via + ", 1.1 squid"}}, nil)
	if resp.StatusCode != http.StatusLoopDetected {
		t.Errorf("with its own Via: %d %q, want 508", resp.StatusCode, body)
	}
}

// Issue 28, point 2: a type-7 item is a search form; the words come
// back as a POST, and the gateway sends the client to the search's URL
// with the words after %09 (RFC 1738 section 3.4.2).
func TestSearchForm(t *testing.T) {
	g := newGopherServer(t, func(lines []string) (string, int) {
		return "iyou searched\tfake\t(NULL)\t0\r\n.\r\n", 0
	})
	s := startGateway(t, nil)
	search := "gopher://" + g.addr + "/7/find"
	resp, body := get(t, "GET", s.URL()+search, html, nil)
	if resp.StatusCode != 200 || !strings.Contains(body, `<form class="ask" method="post" action="/`+search+`">`) || !strings.Contains(body, `name="search"`) {
		t.Fatalf("the search page: %d %s", resp.StatusCode, body)
	}
	if got := g.lines(); len(got) != 0 {
		t.Errorf("the page sent %q to the server", got)
	}
	resp, body = get(t, "POST", s.URL()+search, http.Header{"Content-Type": {"application/x-www-form-urlencoded"}}, strings.NewReader("search=two+words"))
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/"+search+"%09two%20words" {
		t.Fatalf("POST words: %d, Location %q: %s", resp.StatusCode, resp.Header.Get("Location"), body)
	}
	resp, body = get(t, "GET", s.URL()+strings.TrimPrefix(resp.Header.Get("Location"), "/"), html, nil)
	if resp.StatusCode != 200 || !strings.Contains(body, "you searched") {
		t.Errorf("the results: %d %s", resp.StatusCode, body)
	}
	if got := g.lines(); len(got) != 1 || got[0] != "/find\ttwo words\r\n" {
		t.Errorf("the server got %q, want the selector, TAB and the words", got)
	}
}

// askBlock is the +ASK form the scripted server offers.
const askBlock = "+INFO: 0Form <b>\t/form\tHOST\tPORT\t+\r\n+ASK:\r\n Note: Tell us <who> you are\r\n Ask: Your name?\tnobody\r\n AskP: Secret word?\r\n Choose: Colour\tred\tgreen\t<blue>\r\n AskL: Remarks\r\n"

// Issue 28, point 2: a Gopher+ "?" item is an HTML form of its +ASK
// questions, server text escaped; its answers go back as RFC 1738 section
// 3.4.9 says, only for a form the gateway showed.
func TestAskForm_FakeServer(t *testing.T) {
	g := newGopherServer(t, func(lines []string) (string, int) {
		switch {
		case lines[0] == "/form\t!\r\n":
			return "+-1\r\n" + askBlock + ".\r\n", 0
		case lines[0] == "/form\t+\t1\r\n" && lines[len(lines)-1] != ".\r\n":
			return "", 1
		case lines[0] == "/form\t+\t1\r\n":
			return "+-2\r\nthank you\r\n", 0
		}
		return "3unexpected\tfake\t(NULL)\t0\r\n", 0
	})
	s := startGateway(t, nil)
	form := "gopher://" + g.addr + "/0/form%09%09?"
	resp, body := get(t, "GET", s.URL()+form, html, nil)
	if resp.StatusCode != 200 {
		t.Fatalf("the form page: %d %s", resp.StatusCode, body)
	}
	for _, want := range []string{"Tell us &lt;who&gt; you are", `name="a1" type="text" value="nobody"`, `name="a2" type="password"`, "<option>&lt;blue&gt;</option>", `<textarea name="a4"`} {
		if !strings.Contains(body, want) {
			t.Errorf("the form page lacks %q:\n%s", want, body)
		}
	}
	token := regexp.MustCompile(`name="token" value="([0-9a-f]+)"`).FindStringSubmatch(body)
	if token == nil {
		t.Fatalf("no token in the form:\n%s", body)
	}
	answers := url.Values{"a1": {"Ann"}, "a2": {"s3cret"}, "a3": {"<blue>"}, "a4": {"line one\r\n.line two"}}
	post := http.Header{"Content-Type": {"application/x-www-form-urlencoded"}}

	// Without the token, nothing is sent.
	before := len(g.lines())
	resp, body = get(t, "POST", s.URL()+form, post, strings.NewReader(answers.Encode()))
	if resp.StatusCode != http.StatusForbidden || len(g.lines()) != before {
		t.Errorf("answers without the token: %d %q; the server got %q", resp.StatusCode, body, g.lines()[before:])
	}

	answers.Set("token", token[1])
	resp, body = get(t, "POST", s.URL()+form, post, strings.NewReader(answers.Encode()))
	if resp.StatusCode != 200 || body != "thank you\r\n" {
		t.Fatalf("answers: %d %q", resp.StatusCode, body)
	}
	got := strings.Join(g.lines()[before:], "")
	want := "/form\t!\r\n" + "/form\t+\t1\r\n+-1\r\nAnn\r\ns3cret\r\n<blue>\r\n2\r\nline one\r\n..line two\r\n.\r\n"
	if got != want {
		t.Errorf("the server got\n%q\nwant\n%q", got, want)
	}

	// A choice the form did not offer is no answer.
	answers.Set("a3", "purple")
	resp, _ = get(t, "POST", s.URL()+form, post, strings.NewReader(answers.Encode()))
	if resp.StatusCode != http.StatusBadRequest {
		t.Errorf("a choice not offered: %d, want 400", resp.StatusCode)
	}
}

// Issue 28, point 2: a client that accepts JSON gets the records of
// fetch --json, each a record of the schema: a listing's entries and
// its end, a document's head.
func TestJSONRecords_FakeServer(t *testing.T) {
	var g *gopherServer
	g = newGopherServer(t, func(lines []string) (string, int) {
		host, port, _ := net.SplitHostPort(g.addr)
		if lines[0] == "/doc\r\n" {
			return "text\r\n", 0
		}
		return hostileMenu(host, port), 0
	})
	s := startGateway(t, nil)
	resp, body := get(t, "GET", s.URL()+"gopher://"+g.addr+"/1/", jsonOnly, nil)
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != jsonType {
		t.Fatalf("%d %q: %s", resp.StatusCode, resp.Header.Get("Content-Type"), body)
	}
	if err := recordcheck.Check([]byte(body)); err != nil {
		t.Error(err)
	}
	lines := strings.Split(strings.TrimSuffix(body, "\n"), "\n")
	var last map[string]any
	json.Unmarshal([]byte(lines[len(lines)-1]), &last)
	if len(lines) != 11 || last["kind"] != "listing" || last["entries"] != float64(10) {
		t.Errorf("%d records, last %v; want 10 entries and the listing record", len(lines), last)
	}
	if strings.ContainsAny(body, "\x1b\u009b\u202e") {
		t.Errorf("the records hold terminal controls raw: %q", body)
	}
	resp, body = get(t, "GET", s.URL()+"?json&url="+url.QueryEscape("gopher://"+g.addr+"/0/doc"), nil, nil)
	// As fetch --json: the document read and counted, not sent.
	if resp.StatusCode != 200 || !strings.HasPrefix(body, `{"kind":"document"`) || !strings.Contains(body, `"bytes":6,`) || strings.Count(body, "\n") != 1 {
		t.Errorf("a document's record: %d %q", resp.StatusCode, body)
	}
	if err := recordcheck.Check([]byte(body)); err != nil {
		t.Error(err)
	}
}

// Issue 28, point 2: a range request is answered with 206 and its
// Content-Range where the scheme resumes (here HTTP), HEAD with the head
// alone.
func TestRange_FakeServer(t *testing.T) {
	content := strings.Repeat("0123456789", 100)
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.ServeContent(w, r, "x.txt", time.Unix(1e9, 0), strings.NewReader(content))
	}))
	defer up.Close()
	s := startGateway(t, nil)
	resp, body := get(t, "GET", s.URL()+up.URL+"/x.txt", http.Header{"Range": {"bytes=990-"}}, nil)
	if resp.StatusCode != http.StatusPartialContent || resp.Header.Get("Content-Range") != "bytes 990-999/1000" || body != "0123456789" {
		t.Errorf("Range bytes=990-: %d %q %q", resp.StatusCode, resp.Header.Get("Content-Range"), body)
	}
	resp, body = get(t, "HEAD", s.URL()+up.URL+"/x.txt", nil, nil)
	if resp.StatusCode != 200 || resp.ContentLength != 1000 || body != "" || resp.Header.Get("Last-Modified") == "" {
		t.Errorf("HEAD: %d, length %d, %q", resp.StatusCode, resp.ContentLength, body)
	}
	if csp := resp.Header.Get("Content-Security-Policy"); !strings.HasPrefix(csp, "sandbox;") {
		t.Errorf("a document's policy %q, want it sandboxed", csp)
	}
}

// Issue 28, point 1: a client that asks for a tunnel to a gopher server
// (curl -x does) gets the gopher reply through it; a TLS handshake gets
// nothing.
func TestTunnel_FakeServer(t *testing.T) {
	g := newGopherServer(t, func(lines []string) (string, int) { return "bytes for " + lines[0], 0 })
	s := startGateway(t, nil)
	tunnel := func(first string) string {
		c, err := net.Dial("tcp", strings.TrimSuffix(strings.TrimPrefix(s.URL(), "http://"), "/"))
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		c.SetDeadline(time.Now().Add(10 * time.Second))
		io.WriteString(c, "CONNECT "+g.addr+" HTTP/1.1\r\nHost: "+g.addr+"\r\n\r\n")
		br := bufio.NewReader(c)
		status, _ := br.ReadString('\n')
		if !strings.HasPrefix(status, "HTTP/1.1 200 ") {
			t.Fatalf("CONNECT: %q", status)
		}
		for {
			l, err := br.ReadString('\n')
			if err != nil || l == "\r\n" {
				break
			}
		}
		io.WriteString(c, first)
		b, _ := io.ReadAll(br)
		return string(b)
	}
	if got := tunnel("/x\tsome words\r\n"); got != "bytes for /x\tsome words\r\n" {
		t.Errorf("through the tunnel: %q", got)
	}
	if got := tunnel("\x16\x03\x01\x02\x00"); got != "" {
		t.Errorf("a TLS handshake got %q", got)
	}
}

func TestPathSafe(t *testing.T) {
	for s, want := range map[string]bool{
		"gopher://h/1/":         true,
		"gopher://h/1/a/../b":   false,
		"gopher://h/1/a/%2E%2E": false,
		"gopher://h/1/.":        false,
		"wais://h/db?words":     true,
	} {
		if got := pathSafe(s); got != want {
			t.Errorf("pathSafe(%q) = %v, want %v", s, got, want)
		}
	}
}
