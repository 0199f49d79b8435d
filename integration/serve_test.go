//go:build integration

package integration

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/urlfetch/urlfetch/fetch"
	"github.com/urlfetch/urlfetch/fetch/all"
	"github.com/urlfetch/urlfetch/fetch/fetchtest"
	"github.com/urlfetch/urlfetch/internal/gateway"
	"github.com/urlfetch/urlfetch/internal/recordcheck"
)

// Issue 28: fetch serve, the gateway and portal, against the real
// servers: through curl -x and the command's own --gateway as a proxy's
// clients, through plain HTTP as a portal's.

// served is a running fetch serve.
type served struct {
	url  string // "http://127.0.0.1:PORT/"
	addr string // "127.0.0.1:PORT"
	cmd  *exec.Cmd
	mu   sync.Mutex
	log  strings.Builder // its standard error
}

func (s *served) stderr() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.log.String()
}

// startServe runs the fetch command's serve on a loopback port of its
// own, trusting the test CA, with the harness's news server; the test's
// end stops it by its PID.
func startServe(t testing.TB, args ...string) *served {
	t.Helper()
	args = append([]string{"serve", "--listen", "127.0.0.1:0", "--cacert", env(t, "TLS_CA"), "--news-server", addr(t, "NNTP")}, args...)
	cmd := exec.Command(fetchBin, args...)
	cmd.Env = append(os.Environ(), "NETRC=/nonexistent")
	pipe, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	s := &served{cmd: cmd}
	at := make(chan string, 1)
	done := make(chan struct{})
	go func() {
		defer close(done)
		sc := bufio.NewScanner(pipe)
		re := regexp.MustCompile(` at (http://(127\.0\.0\.1:\d+)/) `)
		for sc.Scan() {
			s.mu.Lock()
			s.log.WriteString(sc.Text() + "\n")
			s.mu.Unlock()
			if m := re.FindStringSubmatch(sc.Text()); m != nil {
				select {
				case at <- m[1]:
				default:
				}
			}
		}
	}()
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGTERM)
		werr := make(chan error, 1)
		go func() { <-done; werr <- cmd.Wait() }()
		select {
		case err := <-werr:
			if err != nil {
				t.Errorf("fetch serve ended with %v:\n%s", err, s.stderr())
			}
		case <-time.After(15 * time.Second):
			cmd.Process.Kill()
			t.Errorf("fetch serve did not end on SIGTERM:\n%s", s.stderr())
		}
	})
	select {
	case s.url = <-at:
		s.addr = strings.TrimSuffix(strings.TrimPrefix(s.url, "http://"), "/")
	case <-time.After(20 * time.Second):
		t.Fatalf("fetch serve did not say where it serves:\n%s", s.stderr())
	}
	return s
}

// curlVia runs curl -x through the gateway for rawURL and returns its
// standard output; extra are more curl arguments.
func curlVia(t testing.TB, s *served, rawURL string, extra ...string) []byte {
	t.Helper()
	out := filepath.Join(t.TempDir(), "curl.out")
	args := append([]string{"-sS", "--fail", "--max-time", "120", "-x", s.url, "-o", out}, extra...)
	cmd := exec.Command("curl", append(args, rawURL)...)
	if msg, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("curl -x %s %s: %v: %s\n%s", s.url, rawURL, err, msg, s.stderr())
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// fetchVia runs the fetch command with --gateway SCHEME=the gateway.
func fetchVia(t testing.TB, s *served, rawURL string, extra ...string) cmdResult {
	t.Helper()
	scheme, _, _ := strings.Cut(rawURL, ":")
	return runFetch(t, t.TempDir(), append([]string{"--gateway", scheme + "=" + s.url, "-o", "-"}, append(extra, rawURL)...)...)
}

// httpGet is a plain HTTP GET (the portal), its status and body.
func httpGet(t testing.TB, rawURL string, header http.Header) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest("GET", rawURL, nil)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range header {
		req.Header[k] = v
	}
	resp, err := (&http.Client{Timeout: 2 * time.Minute}).Do(req)
	if err != nil {
		t.Fatalf("GET %s: %v", rawURL, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("GET %s: %v", rawURL, err)
	}
	return resp, b
}

var (
	acceptHTML = http.Header{"Accept": {"text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"}}
	acceptJSON = http.Header{"Accept": {"application/json"}}
)

// Points 1 and 4: the same paths through curl -x, fetch --gateway and the
// portal: a gopher menu (the server's bytes), a document, a type-7
// search, an FTP listing and an FTP document, against what the servers
// serve directly.
func TestServeProxyClients(t *testing.T) {
	s := startServe(t)
	py := pygopherd(t)
	menu := rawGopher(t, py.addr, "")
	search := py.url("/7/search%09urlfetch%20gateway")
	cases := []struct {
		name, url string
		check     func([]byte) error
	}{
		{"gopher menu", py.url("/1/"), equalTo(menu)},
		{"gopher document", py.url("/0/hello.txt"), equalTo(py.served(t, "hello.txt"))},
		{"gopher binary", py.url("/9/binary.bin"), sha256Is(env(t, "BINARY_SHA256"))},
		{"gopher search", search, holds("0result for urlfetch\t", "0result for gateway\t")},
		{"ftp listing", ftpBase(t) + "/", holds("readme.txt", "binary.bin", "hostile")},
		{"ftp document", ftpBase(t) + "/readme.txt", equalTo(string(anonFile(t, "readme.txt")))},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if err := c.check(curlVia(t, s, c.url)); err != nil {
				t.Errorf("curl -x: %v", err)
			}
			r := fetchVia(t, s, c.url)
			if r.code != 0 {
				t.Fatalf("fetch --gateway: exit %d: %s", r.code, r.stderr)
			}
			if err := c.check([]byte(r.stdout)); err != nil {
				t.Errorf("fetch --gateway: %v", err)
			}
			resp, body := httpGet(t, s.url+c.url, nil)
			if resp.StatusCode != 200 {
				t.Fatalf("portal: %d %s", resp.StatusCode, body)
			}
			if err := c.check(body); err != nil {
				t.Errorf("portal: %v", err)
			}
		})
	}
	// Each went through the gateway, and the log says so.
	for _, c := range cases {
		if !strings.Contains(s.stderr(), " "+c.url+" 200 ") {
			t.Errorf("the log has no line for %s:\n%s", c.url, s.stderr())
		}
	}
}

func equalTo(want string) func([]byte) error {
	return func(b []byte) error {
		if string(b) != want {
			return fmt.Errorf("got %q, want %q", b, want)
		}
		return nil
	}
}

func holds(want ...string) func([]byte) error {
	return func(b []byte) error {
		for _, w := range want {
			if !strings.Contains(string(b), w) {
				return fmt.Errorf("%q lacks %q", b, w)
			}
		}
		return nil
	}
}

func sha256Is(want string) func([]byte) error {
	return func(b []byte) error {
		sum := sha256.Sum256(b)
		if got := hex.EncodeToString(sum[:]); got != want {
			return fmt.Errorf("%d bytes with sha256 %s, want %s", len(b), got, want)
		}
		return nil
	}
}

// Point 2: the 64 MiB file through the gateway from gopher and FTP,
// every byte, as curl -x gets it.
func TestServeBigFiles(t *testing.T) {
	s := startServe(t)
	for _, u := range []string{pygopherd(t).url("/9/big.bin"), ftpBase(t) + "/big.bin"} {
		out := filepath.Join(t.TempDir(), "big")
		cmd := exec.Command("curl", "-sS", "--fail", "--max-time", "120", "-x", s.url, "-o", out, u)
		if msg, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("curl -x %s: %v: %s", u, err, msg)
		}
		f, err := os.Open(out)
		if err != nil {
			t.Fatal(err)
		}
		sum, n, err := sha256Of(f)
		f.Close()
		if err != nil || sum != env(t, "BIG_SHA256") || n != 64<<20 {
			t.Errorf("%s through the gateway: %d bytes, sha256 %s, %v", u, n, sum, err)
		}
	}
}

// Point 2: a range is answered with 206 where the scheme resumes (FTP's
// REST), with the whole document where it cannot (gopher); HEAD asks for
// the metadata alone (FTP SIZE, MDTM).
func TestServeRanges(t *testing.T) {
	s := startServe(t)
	want := anonFile(t, "binary.bin")
	resp, body := httpGet(t, s.url+ftpBase(t)+"/binary.bin", http.Header{"Range": {"bytes=1000-"}})
	if resp.StatusCode != http.StatusPartialContent || resp.Header.Get("Content-Range") != "bytes 1000-1023/1024" || string(body) != string(want[1000:]) {
		t.Errorf("FTP with Range bytes=1000-: %d %q, %d bytes", resp.StatusCode, resp.Header.Get("Content-Range"), len(body))
	}
	resp, body = httpGet(t, s.url+pygopherd(t).url("/9/binary.bin"), http.Header{"Range": {"bytes=1000-"}})
	if resp.StatusCode != http.StatusOK || len(body) != 1024 {
		t.Errorf("gopher with Range bytes=1000-: %d, %d bytes; want 200 and the whole file", resp.StatusCode, len(body))
	}
	req, _ := http.NewRequest("HEAD", s.url+ftpBase(t)+"/big.bin", nil)
	hresp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	hresp.Body.Close()
	if hresp.StatusCode != 200 || hresp.ContentLength != 64<<20 || hresp.Header.Get("Last-Modified") == "" {
		t.Errorf("HEAD of big.bin: %d, length %d, Last-Modified %q", hresp.StatusCode, hresp.ContentLength, hresp.Header.Get("Last-Modified"))
	}
}

// Point 2: the records a client that accepts JSON gets are those of
// fetch --json for the same URL (but their timing), every one of the
// schema: a gopher menu, an FTP directory, a news group, a WAIS search,
// a document's head, a missing file.
func TestServeJSONIsFetchJSON(t *testing.T) {
	s := startServe(t)
	for _, u := range []string{
		pygopherd(t).url("/1/hostile"),
		ftpBase(t) + "/hostile/",
		"news:urlfetch.test",
		zebraDB(t) + "?flamingo",
		pygopherd(t).url("/0/hello.txt"),
		ftpBase(t) + "/no-such-file.txt",
	} {
		resp, body := httpGet(t, s.url+"?url="+url.QueryEscape(u), acceptJSON)
		if err := recordcheck.Check(body); err != nil {
			t.Errorf("%s: %v", u, err)
		}
		r := runFetch(t, t.TempDir(), "--json", "--news-server", addr(t, "NNTP"), u)
		got, want := comparable(t, body), comparable(t, []byte(r.stdout))
		if got != want {
			t.Errorf("%s: the gateway (%d) gives\n%s\nfetch --json (exit %d) gives\n%s", u, resp.StatusCode, got, r.code, want)
		}
	}
}

// comparable is a run's records without what differs between two runs
// (how long they took) and where fetch wrote (the gateway writes its
// reply).
func comparable(t testing.TB, out []byte) string {
	t.Helper()
	var b strings.Builder
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		delete(m, "duration")
		delete(m, "output")
		delete(m, "meta") // FTP's and NNTP's reply texts name times and counts
		j, _ := json.Marshal(m)
		b.Write(j)
		b.WriteByte('\n')
	}
	return b.String()
}

// Point 3: hostile names from the real servers reach the page as text:
// issue 22's terminal controls (pygopherd's and vsftpd's hostile/) made
// visible, the HTML of pygopherd's html/ escaped, its javascript: and
// data: items shown, not linked; the page runs no script.
func TestServeHostileNames(t *testing.T) {
	s := startServe(t)
	py := pygopherd(t)
	for _, u := range []string{py.url("/1/hostile"), ftpBase(t) + "/hostile/", py.url("/1/html")} {
		resp, body := httpGet(t, s.url+u, acceptHTML)
		page := string(body)
		if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Security-Policy"), "default-src 'none'; style-src 'sha256-") {
			t.Fatalf("%s: %d, policy %q: %s", u, resp.StatusCode, resp.Header.Get("Content-Security-Policy"), page)
		}
		for _, bad := range []string{"\x1b", "\u009b", "\u202e", "<script", `"onmouseover`, "<!--.txt", `href="javascript`, `href="data`, `href="/javascript`, `href="/data`} {
			if strings.Contains(page, bad) {
				t.Errorf("%s: the page holds %q:\n%s", u, bad, page)
			}
		}
		for _, m := range regexp.MustCompile(`(href|action)="([^"]*)"`).FindAllStringSubmatch(page, -1) {
			if !strings.HasPrefix(m[2], "/gopher://") && !strings.HasPrefix(m[2], "/ftp://") && !strings.HasPrefix(m[2], "/http://") && m[2] != "/" {
				t.Errorf("%s: %s=%q leads elsewhere than through the gateway", u, m[1], m[2])
			}
		}
	}
	_, body := httpGet(t, s.url+py.url("/1/hostile"), acceptHTML)
	for _, want := range []string{`esc-\e]0;owned\x07\e[2J.txt`, `c1-\u009b31mred.txt`, `bidi-\u202etxt.exe`} {
		if !strings.Contains(string(body), want) {
			t.Errorf("the hostile menu's page lacks %q:\n%s", want, body)
		}
	}
	_, body = httpGet(t, s.url+py.url("/1/html"), acceptHTML)
	for _, want := range []string{
		"&lt;script&gt;alert(&#34;display&#34;)&lt;/script&gt;",
		"&lt;script&gt;alert(1)&lt;!--.txt",
		"&#34;onmouseover=&#34;alert(2)&#34; x=&#39;.txt",
		"&amp;amp;&amp;lt;b&amp;gt;.txt",
		"javascript:alert(document.domain)",
		`href="/http://127.0.0.1:18080/hello.txt"`,
	} {
		if !strings.Contains(string(body), want) {
			t.Errorf("the html menu's page lacks %q:\n%s", want, body)
		}
	}
}

// Point 2: news groups and articles: a group is a page of its articles,
// linked; an article a page of its header fields and its text, escaped.
func TestServeNews(t *testing.T) {
	s := startServe(t)
	_, body := httpGet(t, s.url+"news:urlfetch.test", acceptHTML)
	if !strings.Contains(string(body), `href="/news:hello@urlfetch.test"`) && !strings.Contains(string(body), `href="/nntp://`) {
		t.Errorf("the group's page links no article:\n%s", body)
	}
	resp, body := httpGet(t, s.url+"news:hello@urlfetch.test", acceptHTML)
	page := string(body)
	if resp.StatusCode != 200 || !strings.Contains(page, "<dt>Subject:</dt><dd>Hello from the urlfetch test bed</dd>") || !strings.Contains(page, "<dt>From:</dt><dd>urlfetch tester &lt;tester@urlfetch.test&gt;</dd>") {
		t.Errorf("the article's page: %d\n%s", resp.StatusCode, page)
	}
	// Without text/html, the article as the server sent it.
	resp, body = httpGet(t, s.url+"news:hello@urlfetch.test", nil)
	if resp.Header.Get("Content-Type") != "message/rfc822" || !strings.Contains(string(body), "Subject: Hello from the urlfetch test bed") {
		t.Errorf("the article raw: %q %q", resp.Header.Get("Content-Type"), body)
	}
}

// Point 2: WAIS results (zebra) are a page of hits linked through the
// gateway.
func TestServeWAIS(t *testing.T) {
	s := startServe(t)
	resp, body := httpGet(t, s.url+zebraDB(t)+"?flamingo", acceptHTML)
	if resp.StatusCode != 200 || !strings.Contains(string(body), `href="/wais://`) {
		t.Errorf("WAIS results: %d\n%s", resp.StatusCode, body)
	}
}

// inProcessGateway is a gateway in this process, its Client's trace kept,
// for tests that look at what it sent.
func inProcessGateway(t *testing.T) (*gateway.Server, *fetchtest.TraceLog) {
	t.Helper()
	c := &fetch.Client{ConnectTimeout: 10 * time.Second, IdleTimeout: 30 * time.Second}
	ds := all.NewDrivers()
	ds.Register(c)
	c.TLSConfig = testTLS(t)
	ds.NNTP.Server = addr(t, "NNTP")
	log := &fetchtest.TraceLog{}
	c.Trace = log.Add
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s, err := gateway.New(gateway.Config{Client: c, Drivers: ds, Listener: ln})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Serve(ctx) }()
	t.Cleanup(func() {
		cancel()
		<-done
		c.Close()
	})
	return s, log
}

// Point 2: a Gopher+ form (pygopherd's form.txt, +ASK) is an HTML form of
// its questions; the answers go back as RFC 1738 section 3.4.9 says:
// selector TAB + TAB 1, the +-1 data block of the answers, the . line.
func TestServeAskForm(t *testing.T) {
	s, trace := inProcessGateway(t)
	form := pygopherd(t).url("/0/form.txt%09%09?")
	_, body := httpGet(t, s.URL()+form, acceptHTML)
	page := string(body)
	for _, want := range []string{"What is your name?", `value="nobody"`, "<option>green</option>"} {
		if !strings.Contains(page, want) {
			t.Fatalf("the form's page lacks %q:\n%s", want, page)
		}
	}
	token := regexp.MustCompile(`name="token" value="([0-9a-f]+)"`).FindStringSubmatch(page)
	if token == nil {
		t.Fatalf("no token:\n%s", page)
	}
	answers := url.Values{"token": {token[1]}, "a0": {"Bob"}, "a1": {"green"}}
	resp, err := http.PostForm(s.URL()+form, answers)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	// pygopherd answers a submitted form with the plain document.
	if resp.StatusCode != 200 || string(b) != pygopherd(t).served(t, "form.txt") {
		t.Errorf("the answers' reply: %d %q", resp.StatusCode, b)
	}
	sent := strings.Join(trace.Lines(), "\n")
	for _, want := range []string{`> "/form.txt\t!\r\n"`, `> "/form.txt\t+\t1\r\n"`, `> "+-1\r\n"`, `> "Bob\r\n"`, `> "green\r\n"`, `> ".\r\n"`} {
		if !strings.Contains(sent, want) {
			t.Errorf("the trace lacks %s:\n%s", want, sent)
		}
	}
}
