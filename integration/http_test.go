//go:build integration

package integration

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/urlfetch/urlfetch/fetch"
	"github.com/urlfetch/urlfetch/fetch/fetchtest"
	fetchhttp "github.com/urlfetch/urlfetch/fetch/http"
	"github.com/urlfetch/urlfetch/internal/misbehaving"
)

func httpBase(t testing.TB) string { return "http://" + addr(t, "HTTP") }

func TestHTTPSmallFile(t *testing.T) {
	want, err := os.ReadFile(filepath.Join(env(t, "HTTP_ROOT"), "hello.txt"))
	if err != nil {
		t.Fatal(err)
	}
	resp, body := get(t, client(t), httpBase(t)+"/hello.txt")
	if !bytes.Equal(body, want) {
		t.Errorf("body = %q, want %q", body, want)
	}
	if resp.Type != "text/plain" || resp.Length != int64(len(want)) || resp.Modified.IsZero() {
		t.Errorf("Type %q Length %d Modified %v; want text/plain, %d, a time", resp.Type, resp.Length, resp.Modified, len(want))
	}
	if resp.Meta.Get("Server") != "nginx" {
		t.Errorf("Meta Server = %q, want the header from nginx", resp.Meta.Get("Server"))
	}
}

// The 64 MiB file through the command: the bytes by SHA-256, and the
// process's peak RSS, which a streaming transfer keeps small.
func TestHTTPBigFileStreams(t *testing.T) {
	checkBigFile(t, httpBase(t)+"/big.bin")
}

func TestHTTPDirectoryIndex(t *testing.T) {
	resp, body := get(t, client(t), httpBase(t)+"/dir/")
	if !strings.HasPrefix(resp.Type, "text/html") || !bytes.Contains(body, []byte(`href="a.txt"`)) || !bytes.Contains(body, []byte(`href="sub/"`)) {
		t.Errorf("/dir/ = %q: %s", resp.Type, body)
	}
}

func TestHTTPRedirects(t *testing.T) {
	want, _ := os.ReadFile(filepath.Join(env(t, "HTTP_ROOT"), "hello.txt"))
	c := client(t)
	for _, path := range []string{"/redirect/301", "/redirect/302", "/redirect/path-only", "/redirect/relative", "/redirect/chain"} {
		resp, body := get(t, c, httpBase(t)+path+"#frag")
		if !bytes.Equal(body, want) {
			t.Errorf("%s: body %q, want hello.txt", path, body)
		}
		if got := resp.URL.Path; got != "/hello.txt" {
			t.Errorf("%s: final URL %s, want its path /hello.txt", path, resp.URL)
		}
		if resp.URL.Fragment != "frag" {
			t.Errorf("%s: final URL %s lost the fragment", path, resp.URL)
		}
	}
}

func TestHTTPRedirectLoop(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	start := time.Now()
	_, err := client(t).Fetch(ctx, httpBase(t)+"/redirect/loop")
	if !errors.Is(err, fetch.ErrProtocol) || !strings.Contains(err.Error(), "10 redirects") {
		t.Errorf("redirect loop: error %v, want ErrProtocol after 10 redirects", err)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("redirect loop took %v", d)
	}
}

func TestHTTPStatusErrors(t *testing.T) {
	tests := []struct {
		path string
		kind error
		text string
	}{
		{"/missing.txt", fetch.ErrNotFound, "404 Not Found"},
		{"/status/410", fetch.ErrNotFound, "410 Gone"},
		{"/status/401", fetch.ErrAuth, "401 Unauthorized"},
		{"/status/403", fetch.ErrAuth, "403 Forbidden"},
		{"/status/500", nil, "500 Internal Server Error"},
		{"/status/503", nil, "503 Service"},
	}
	c := client(t)
	for _, tt := range tests {
		_, err := c.Fetch(context.Background(), httpBase(t)+tt.path)
		if err == nil || !strings.Contains(err.Error(), tt.text) {
			t.Errorf("%s: error %v, want one with %q", tt.path, err, tt.text)
			continue
		}
		if tt.kind != nil && !errors.Is(err, tt.kind) {
			t.Errorf("%s: error %v, want kind %v", tt.path, err, tt.kind)
		}
		var se *fetchhttp.StatusError
		if !errors.As(err, &se) {
			t.Errorf("%s: error %v does not wrap *http.StatusError", tt.path, err)
		}
	}
	// The command's exit codes.
	if r := runFetch(t, t.TempDir(), httpBase(t)+"/missing.txt"); r.code != 4 {
		t.Errorf("fetch of a 404: exit %d, want 4; %s", r.code, r.stderr)
	}
	if r := runFetch(t, t.TempDir(), httpBase(t)+"/status/403"); r.code != 5 {
		t.Errorf("fetch of a 403: exit %d, want 5; %s", r.code, r.stderr)
	}
}

// The request line reaches nginx as the URL writes it: query unchanged,
// %2F unchanged, no fragment. /echo answers its request line; the access
// log confirms.
func TestHTTPRequestLineAsWritten(t *testing.T) {
	c := client(t)
	tests := []struct{ path, want string }{
		{"/echo?q=a%20b&x=%2f+y", "GET /echo?q=a%20b&x=%2f+y HTTP/1.1\n"},
		{"/echo/a%2Fb/c", "GET /echo/a%2Fb/c HTTP/1.1\n"},
		{"/echo/frag#section-2", "GET /echo/frag HTTP/1.1\n"},
		{"/echo/empty?", "GET /echo/empty? HTTP/1.1\n"},
		{"/echo/~user/%7Ex;p=1", "GET /echo/~user/%7Ex;p=1 HTTP/1.1\n"},
	}
	for _, tt := range tests {
		_, body := get(t, c, httpBase(t)+tt.path)
		if string(body) != tt.want {
			t.Errorf("GET %s: server saw %q, want %q", tt.path, body, tt.want)
		}
	}
	log, err := os.ReadFile(env(t, "HTTP_ACCESS_LOG"))
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(log, []byte("section-2")) {
		t.Error("nginx's access log shows the fragment: it was sent")
	}
	if !bytes.Contains(log, []byte(`"GET /echo/a%2Fb/c HTTP/1.1"`)) {
		t.Error("nginx's access log lacks the %2F request line as written")
	}
}

func TestHTTPResume(t *testing.T) {
	whole, err := os.ReadFile(filepath.Join(env(t, "HTTP_ROOT"), "binary.bin"))
	if err != nil {
		t.Fatal(err)
	}
	c := client(t)
	req, err := c.NewRequest(httpBase(t) + "/binary.bin")
	if err != nil {
		t.Fatal(err)
	}
	req.Offset = 1000
	resp, err := c.Do(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil || resp.Offset != 1000 || !bytes.Equal(b, whole[1000:]) {
		t.Errorf("resume at 1000: Offset %d, %d bytes, %v; want %d bytes from 1000", resp.Offset, len(b), err, len(whole)-1000)
	}
	if resp.Meta.Get("Content-Range") == "" {
		t.Error("no Content-Range in Meta")
	}
}

// http_proxy is honoured by all.NewClient: with the harness's squid as
// proxy, the request goes through it (squid's access log names the URL).
func TestHTTPThroughProxy(t *testing.T) {
	t.Setenv("http_proxy", "http://"+addr(t, "SQUID"))
	t.Setenv("no_proxy", "")
	c2 := client(t)
	// squid logs a URL with its query cut off ("hello.txt?"): count
	// the lines for the file before and after.
	target := httpBase(t) + "/hello.txt?via=squid"
	logged := func() int {
		log, _ := os.ReadFile(env(t, "SQUID_ACCESS_LOG"))
		return bytes.Count(log, []byte(" "+httpBase(t)+"/hello.txt?"))
	}
	before := logged()
	_, body := get(t, c2, target)
	if want, _ := os.ReadFile(filepath.Join(env(t, "HTTP_ROOT"), "hello.txt")); !bytes.Equal(body, want) {
		t.Errorf("through squid: body %q", body)
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		if logged() > before {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("squid's access log does not show %s", target)
		}
		time.Sleep(100 * time.Millisecond)
	}

	// The absolute form names the authority as the URL does: a URL
	// without a port goes as it is, not with ":80" added. (squid cannot
	// resolve example.org here and answers with an error: the request
	// line is what is checked.)
	r := runFetch(t, t.TempDir(), "-v", "--gateway", "http=http://"+addr(t, "SQUID"), "http://example.org/hello.txt")
	if !strings.Contains(r.stderr, "> GET http://example.org/hello.txt HTTP/1.1\n") || strings.Contains(r.stderr, "example.org:80") {
		t.Errorf("an http URL without a port through squid: the request line should be GET http://example.org/hello.txt; stderr:\n%s", r.stderr)
	}
}

func TestHTTPConformance(t *testing.T) {
	want, _ := os.ReadFile(filepath.Join(env(t, "HTTP_ROOT"), "hello.txt"))
	base := httpBase(t)
	fetchtest.Run(t, fetchtest.Opt{
		Scheme: "http",
		Driver: &fetchhttp.Driver{},
		Found: []fetchtest.Case{
			{URL: base + "/hello.txt", Want: string(want), Type: "text/plain"},
			{URL: base + "/big.bin", SHA256: env(t, "BIG_SHA256")},
		},
		Missing: base + "/missing.txt",
		Denied:  base + "/status/403",
		Redirect: func(_ testing.TB, target string) string {
			return base + "/redirect/to?to=" + target
		},
		Broken: func(t testing.TB) string {
			return misbehaving.Serve(t, misbehaving.HTTP, misbehaving.CloseMidTransfer).URL()
		},
		// A GET transfers; a Head is a HEAD.
		Transfers: func(line string) bool { return strings.HasPrefix(line, "GET ") },
		Caps:      fetchtest.Caps{Resume: true, NoProtocolLines: true},
	})
}
