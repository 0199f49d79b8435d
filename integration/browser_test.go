//go:build integration

package integration

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"image/png"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"golang.org/x/net/websocket"
)

// Issue 28, point 4: fetch serve in a real browser, Debian's chromium,
// headless. --dump-dom and --screenshot show what it makes of a page; to
// follow links and submit a form the test drives it over the Chrome
// DevTools Protocol, a few JSON messages over a WebSocket
// (golang.org/x/net/websocket: the design card's x/net, where a CDP
// library such as chromedp would bring a large dependency for five
// calls).

// chromiumPath is Debian's chromium, which integration/servers/servers
// installs with the servers' packages (as root, as CI runs make test).
func chromiumPath(t testing.TB) string {
	t.Helper()
	p, err := exec.LookPath("chromium")
	if err != nil {
		t.Fatalf("no chromium (integration/servers/servers start installs it as root: apt-get install chromium): %v", err)
	}
	return p
}

// chromiumCommand is chromium with the flags of every run (headless, as
// root, quiet on the network but for what the test asks, a profile of
// its own) and then args, in a process group of its own, which the
// test's end kills whole: chromium's helpers (zygote, renderers,
// crashpad) outlive a kill of the browser alone and write on in its
// profile, which t.TempDir's cleanup then could not remove ("directory
// not empty"). The profile is removed once they are gone.
func chromiumCommand(t testing.TB, args ...string) *exec.Cmd {
	t.Helper()
	profile := t.TempDir()
	cmd := exec.Command(chromiumPath(t), append([]string{"--no-sandbox", "--headless", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--user-data-dir=" + profile, "--window-size=1024,768"}, args...)...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	t.Cleanup(func() {
		if cmd.Process != nil {
			syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		}
		// A helper killed may still be leaving; t.TempDir's own
		// cleanup, after this one, finds the directory empty.
		deadline := time.Now().Add(10 * time.Second)
		for {
			err := os.RemoveAll(profile)
			if err == nil || time.Now().After(deadline) {
				break
			}
			time.Sleep(50 * time.Millisecond)
		}
	})
	return cmd
}

// runChromium runs chromium with args after the common ones, and returns
// its standard output.
func runChromium(t testing.TB, args ...string) []byte {
	t.Helper()
	cmd := chromiumCommand(t, args...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	done := make(chan error, 1)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("chromium %q: %v\n%s", args, err, errb.String())
		}
	case <-time.After(90 * time.Second):
		cmd.Process.Kill()
		<-done
		t.Fatalf("chromium %q did not finish:\n%s", args, errb.String())
	}
	return out.Bytes()
}

// checkPNG decodes a screenshot and checks that it shows something: a
// page of text has many colours (anti-aliased glyphs), a blank one one.
func checkPNG(t testing.TB, b []byte) {
	t.Helper()
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("the screenshot is no PNG: %v", err)
	}
	r := img.Bounds()
	colours := map[[4]uint32]bool{}
	dark := 0
	for y := r.Min.Y; y < r.Max.Y; y += 2 {
		for x := r.Min.X; x < r.Max.X; x += 2 {
			cr, cg, cb, ca := img.At(x, y).RGBA()
			colours[[4]uint32{cr, cg, cb, ca}] = true
			if cr+cg+cb < 3*0x4000 {
				dark++
			}
		}
	}
	if r.Dx() < 200 || r.Dy() < 200 || len(colours) < 16 || dark < 100 {
		t.Errorf("the screenshot looks blank: %v, %d colours, %d dark pixels", r, len(colours), dark)
	}
}

// Point 4, the browser's own views: --dump-dom of the portal's gopher
// menu, --screenshot of it, and the gateway as the browser's proxy for an
// http URL (a browser sends no gopher or ftp URL to a proxy any more; curl
// and fetch do, see TestServeProxyClients).
func TestServeBrowserDumpAndScreenshot(t *testing.T) {
	s := startServe(t)
	menu := s.url + pygopherd(t).url("/1/")
	dom := string(runChromium(t, "--dump-dom", menu))
	for _, want := range []string{`<h1>` + pygopherd(t).url("/1/") + `</h1>`, `<a class="entry" href="/` + pygopherd(t).url("/0/hello.txt%09%09+") + `">hello.txt</a>`, `<form class="search" method="post" action="/` + pygopherd(t).url("/7/search") + `">`} {
		if !strings.Contains(dom, want) {
			t.Errorf("the menu's DOM lacks %q:\n%s", want, dom)
		}
	}
	if strings.Contains(dom, "<script") {
		t.Errorf("the menu's DOM holds a script:\n%s", dom)
	}

	shot := filepath.Join(t.TempDir(), "menu.png")
	runChromium(t, "--screenshot="+shot, menu)
	b, err := os.ReadFile(shot)
	if err != nil {
		t.Fatal(err)
	}
	checkPNG(t, b)

	proxied := "http://" + addr(t, "HTTP") + "/dir/"
	dom = string(runChromium(t, "--proxy-server=http://"+s.addr, "--proxy-bypass-list=<-loopback>", "--dump-dom", proxied))
	if !strings.Contains(dom, "Index of /dir/") {
		t.Errorf("%s with the gateway as proxy: %s", proxied, dom)
	}
	if !strings.Contains(s.stderr(), " GET "+proxied+" 200 ") {
		t.Errorf("%s did not go through the gateway:\n%s", proxied, s.stderr())
	}
}

// Point 4, a user's path: chromium opens a gopher menu through the
// portal, follows a link to a document, follows a menu's link to an FTP
// listing, submits a type-7 search, and the test reads each page's DOM
// and takes a screenshot of the results.
func TestServeBrowserBrowses(t *testing.T) {
	s := startServe(t)
	py := pygopherd(t)
	b := startBrowser(t)

	// The menu.
	b.navigate(t, s.url+py.url("/1/"))
	b.waitFor(t, `document.readyState === "complete" && document.querySelectorAll("a.entry").length > 5`)
	if n := b.eval(t, `document.scripts.length`); n != float64(0) {
		t.Errorf("the menu runs %v scripts", n)
	}
	// The style sheet is the one the policy allows by its hash: were it
	// refused, the body would have the browser's 8px margin.
	if m := b.eval(t, `getComputedStyle(document.body).marginLeft`); m != "30px" {
		t.Errorf("the body's margin is %v: the page's style was not applied under its policy", m)
	}

	// A link to a document.
	b.eval(t, `[...document.querySelectorAll("a.entry")].find(a => a.textContent === "hello.txt").click(); true`)
	b.waitFor(t, `location.href.includes("hello.txt") && document.readyState === "complete"`)
	if text := b.eval(t, `document.body.innerText`); !strings.Contains(fmt.Sprint(text), strings.TrimSpace(py.served(t, "hello.txt"))) {
		t.Errorf("the document shows %q", text)
	}

	// A menu's link to an FTP listing.
	b.navigate(t, s.url+py.url("/1/html"))
	b.waitFor(t, `document.readyState === "complete" && document.querySelectorAll("a.entry").length > 0`)
	b.eval(t, `[...document.querySelectorAll("a.entry")].find(a => a.textContent === "the test bed's FTP server").click(); true`)
	b.waitFor(t, `location.href.includes("ftp://") && document.readyState === "complete" && document.querySelector("h1") !== null`)
	listing := fmt.Sprint(b.eval(t, `document.documentElement.outerHTML`))
	for _, want := range []string{"<h1>ftp://127.0.0.1:18021", `href="/ftp://127.0.0.1:18021/readme.txt">readme.txt</a>`, `<td class="size">1024</td>`} {
		if !strings.Contains(listing, want) {
			t.Errorf("the FTP listing's DOM lacks %q:\n%s", want, listing)
		}
	}

	// A type-7 search, submitted from the menu's form.
	b.navigate(t, s.url+py.url("/1/"))
	b.waitFor(t, `document.readyState === "complete" && document.querySelector("form.search") !== null`)
	b.eval(t, `const f = document.querySelector("form.search"); f.querySelector("input").value = "browser words"; f.querySelector("button").click(); true`)
	b.waitFor(t, `location.href.includes("%09browser%20words") && document.readyState === "complete" && document.querySelector("table") !== null`)
	results := fmt.Sprint(b.eval(t, `document.documentElement.outerHTML`))
	for _, want := range []string{"query: browser words", ">result for browser</a>", ">result for words</a>"} {
		if !strings.Contains(results, want) {
			t.Errorf("the search results' DOM lacks %q:\n%s", want, results)
		}
	}
	shot := b.screenshot(t)
	checkPNG(t, shot)
	path := filepath.Join(t.TempDir(), "search.png")
	os.WriteFile(path, shot, 0o644)
	t.Logf("the search results: %s", path)

	// The gateway saw it all: the POST of the words, the 303, the GET;
	// the FTP URL as the menu gave it (pygopherd drops the last "/" of a
	// .Links path).
	for _, want := range []string{" POST " + py.url("/7/search") + " 303 ", " GET " + py.url("/7/search%09browser%20words") + " 200 ", " GET ftp://127.0.0.1:18021 200 "} {
		if !strings.Contains(s.stderr(), want) {
			t.Errorf("the gateway's log lacks %q:\n%s", want, s.stderr())
		}
	}
}

// browser is a headless chromium driven over the DevTools Protocol.
type browser struct {
	ws *websocket.Conn
	mu sync.Mutex
	id int
}

// startBrowser starts chromium with a DevTools port of its own and
// connects to its first page; the test's end stops it.
func startBrowser(t *testing.T) *browser {
	t.Helper()
	cmd := chromiumCommand(t, "--remote-debugging-port=0", "--remote-allow-origins=*", "about:blank")
	pipe, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() }) // before chromiumCommand's, which ends the helpers
	listening := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(pipe)
		re := regexp.MustCompile(`DevTools listening on ws://([^/]+)/`)
		for sc.Scan() {
			if m := re.FindStringSubmatch(sc.Text()); m != nil {
				select {
				case listening <- m[1]:
				default:
				}
			}
		}
	}()
	var host string
	select {
	case host = <-listening:
	case <-time.After(60 * time.Second):
		t.Fatal("chromium did not open its DevTools port")
	}
	var targets []struct{ Type, WebSocketDebuggerURL string }
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		resp, err := http.Get("http://" + host + "/json/list")
		if err == nil {
			err = json.NewDecoder(resp.Body).Decode(&targets)
			resp.Body.Close()
		}
		if err == nil && len(targets) > 0 && targets[0].Type == "page" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no page in chromium's targets: %v %v", targets, err)
		}
	}
	ws, err := websocket.Dial(targets[0].WebSocketDebuggerURL, "", "http://127.0.0.1/")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	b := &browser{ws: ws}
	b.call(t, "Page.enable", nil)
	return b
}

// call sends one DevTools command and returns its result, skipping the
// events that come before it.
func (b *browser) call(t testing.TB, method string, params any) json.RawMessage {
	t.Helper()
	b.mu.Lock()
	defer b.mu.Unlock()
	b.id++
	b.ws.SetDeadline(time.Now().Add(60 * time.Second))
	if err := websocket.JSON.Send(b.ws, map[string]any{"id": b.id, "method": method, "params": params}); err != nil {
		t.Fatalf("%s: %v", method, err)
	}
	for {
		var m struct {
			ID     int
			Result json.RawMessage
			Error  *struct{ Message string }
		}
		if err := websocket.JSON.Receive(b.ws, &m); err != nil {
			t.Fatalf("%s: %v", method, err)
		}
		if m.ID != b.id {
			continue // an event
		}
		if m.Error != nil {
			t.Fatalf("%s: %s", method, m.Error.Message)
		}
		return m.Result
	}
}

func (b *browser) navigate(t testing.TB, url string) {
	t.Helper()
	b.call(t, "Page.navigate", map[string]any{"url": url})
}

// eval evaluates a JavaScript expression in the page (DevTools runs it
// whatever the page's policy) and returns its value.
func (b *browser) eval(t testing.TB, expr string) any {
	t.Helper()
	var r struct {
		Result           struct{ Value any }
		ExceptionDetails *struct{ Text string }
	}
	if err := json.Unmarshal(b.call(t, "Runtime.evaluate", map[string]any{"expression": expr, "returnByValue": true}), &r); err != nil {
		t.Fatal(err)
	}
	if r.ExceptionDetails != nil {
		t.Fatalf("%s: %s", expr, r.ExceptionDetails.Text)
	}
	return r.Result.Value
}

// waitFor polls until expr is true in the page.
func (b *browser) waitFor(t testing.TB, expr string) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for {
		var r struct{ Result struct{ Value any } }
		json.Unmarshal(b.call(t, "Runtime.evaluate", map[string]any{"expression": expr, "returnByValue": true}), &r)
		if r.Result.Value == true {
			return
		}
		if time.Now().After(deadline) {
			var page struct{ Result struct{ Value any } }
			json.Unmarshal(b.call(t, "Runtime.evaluate", map[string]any{"expression": "location.href + '\\n' + document.documentElement.outerHTML", "returnByValue": true}), &page)
			t.Fatalf("waiting for %s: the page is\n%v", expr, page.Result.Value)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// screenshot takes a PNG of the page.
func (b *browser) screenshot(t testing.TB) []byte {
	t.Helper()
	var r struct{ Data string }
	if err := json.Unmarshal(b.call(t, "Page.captureScreenshot", map[string]any{"format": "png"}), &r); err != nil {
		t.Fatal(err)
	}
	png, err := base64.StdEncoding.DecodeString(r.Data)
	if err != nil {
		t.Fatal(err)
	}
	return png
}
