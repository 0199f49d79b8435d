package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/urlfetch/urlfetch/fetch"
)

func TestReadURLs(t *testing.T) {
	in := "# comment\n\n  ftp://h/a  \n<URL:gopher://h/1/>\n< http://h/b >\n\t# indented comment\nnews:c\n"
	got, bad, err := readURLs("-", strings.NewReader(in))
	want := []string{"ftp://h/a", "gopher://h/1/", "http://h/b", "news:c"}
	if err != nil || len(bad) != 0 || !slices.Equal(got, want) {
		t.Errorf("readURLs = %q, %v, %v; want %q", got, bad, err, want)
	}
	// A line that is no URL is that line's error; the others are read.
	got, bad, err = readURLs("-", strings.NewReader("ftp://h/a\n<URL:>\nftp://h/b\n"))
	if err != nil || len(bad) != 1 || !strings.Contains(bad[0].Error(), "-:2:") || !errors.Is(bad[0], fetch.ErrURL) || !slices.Equal(got, []string{"ftp://h/a", "ftp://h/b"}) {
		t.Errorf("an empty wrapper: %q, %v, %v; want the other URLs and an ErrURL naming line 2", got, bad, err)
	}
	// Issue 23, point 6: a line over 1 MiB, without and with its LF.
	for _, tail := range []string{"\nftp://h/c\n", ""} {
		long := "ftp://h/" + strings.Repeat("x", maxURLLine)
		got, bad, err = readURLs("-", strings.NewReader("ftp://h/a\n"+long+tail))
		wantURLs := []string{"ftp://h/a"}
		if tail != "" {
			wantURLs = append(wantURLs, "ftp://h/c")
		}
		if err != nil || len(bad) != 1 || !strings.Contains(bad[0].Error(), "-:2: a line of more than") || !slices.Equal(got, wantURLs) {
			t.Errorf("a line over 1 MiB (then %q): %q, %v, %v; want %q and an error naming line 2", tail, got, bad, err, wantURLs)
		}
	}
	// A line of exactly the limit is a line.
	exact := "ftp://h/" + strings.Repeat("y", maxURLLine-len("ftp://h/"))
	if got, bad, _ := readURLs("-", strings.NewReader(exact+"\n")); len(bad) != 0 || len(got) != 1 || got[0] != exact {
		t.Errorf("a line of %d bytes: %d URLs, %v", maxURLLine, len(got), bad)
	}
	if _, _, err := readURLs("/nonexistent/urls.txt", nil); err == nil {
		t.Error("a missing file: no error")
	}
}

// Writers of later URLs wait for the earlier ones to be done, whatever
// order the goroutines run in; a URL that writes nothing hands its turn
// on too.
func TestTurnsKeepOrder(t *testing.T) {
	var out strings.Builder
	tu := newTurns(&out)
	var wg sync.WaitGroup
	for i := 9; i >= 0; i-- { // started in reverse
		wg.Go(func() {
			w := tu.writer(i)
			if i != 4 {
				for j := 0; j < 3; j++ {
					fmt.Fprintf(w, "%d", i)
					time.Sleep(time.Millisecond)
				}
			}
			tu.done(i)
		})
	}
	wg.Wait()
	if got, want := out.String(), "000111222333555666777888999"; got != want {
		t.Errorf("output %q, want %q", got, want)
	}
}

func TestHostLimit(t *testing.T) {
	h := newHostLimit(2)
	var now, peak atomic.Int32
	var wg sync.WaitGroup
	for range 10 {
		wg.Go(func() {
			release, err := h.acquire(context.Background(), "a:21")
			if err != nil {
				t.Error(err)
				return
			}
			n := now.Add(1)
			for p := peak.Load(); n > p && !peak.CompareAndSwap(p, n); p = peak.Load() {
			}
			time.Sleep(2 * time.Millisecond)
			now.Add(-1)
			release()
		})
	}
	wg.Wait()
	if peak.Load() != 2 {
		t.Errorf("peak %d at once on one host, want 2", peak.Load())
	}
	// Another host is not held up, and a cancelled wait ends.
	r1, _ := h.acquire(context.Background(), "a:21")
	r2, _ := h.acquire(context.Background(), "a:21")
	if _, err := h.acquire(context.Background(), "b:21"); err != nil {
		t.Errorf("another host: %v", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if _, err := h.acquire(ctx, "a:21"); err == nil {
		t.Error("a third slot on a host limited to 2")
	}
	r1()
	r2()
}

func TestHostKeyAndDelay(t *testing.T) {
	for raw, want := range map[string]string{
		"ftp://H.example/a":      "h.example:21",
		"ftp://h.example:2121/a": "h.example:2121",
		"gopher://h.example/1/":  "h.example:70",
		"news:comp.lang.go":      "news:",
	} {
		if got := hostKey(raw); got != want {
			t.Errorf("hostKey(%q) = %q, want %q", raw, got, want)
		}
	}
	var got []time.Duration
	for n := 1; n <= 8; n++ {
		got = append(got, retryDelay(n))
	}
	want := []time.Duration{1e9, 2e9, 4e9, 8e9, 16e9, 30e9, 30e9, 30e9}
	if !slices.Equal(got, want) {
		t.Errorf("retry delays %v, want %v", got, want)
	}
}

// Documents on standard output wait for their turn while holding their
// place in the per-server limit: with more URLs of one server than
// places, the earliest must still get one (a deadlock before the places
// were taken in order), and the output keeps the URLs' order.
func TestParallelStdoutWithPerHostLimit(t *testing.T) {
	cl := &fetch.Client{NetrcFile: "-"}
	cl.Register("x", fetch.DriverFunc(func(ctx context.Context, req *fetch.Request) (*fetch.Response, error) {
		// Later URLs answer first.
		n := strings.TrimPrefix(req.URL.Path, "/")
		d, _ := time.ParseDuration(n + "ms")
		time.Sleep(30*time.Millisecond - d)
		return &fetch.Response{Kind: fetch.Document, Length: -1, Body: io.NopCloser(strings.NewReader(n + "\n"))}, nil
	}))
	var urls []string
	var want strings.Builder
	for i := range 12 {
		urls = append(urls, fmt.Sprintf("x://h/%d", i))
		fmt.Fprintf(&want, "%d\n", i)
	}
	o := &options{parallel: 6, perHost: 2, client: cl}
	var out, errs strings.Builder
	done := make(chan int)
	go func() { done <- fetchAll(context.Background(), o, urls, nil, &out, &errs) }()
	select {
	case code := <-done:
		if code != exitOK || out.String() != want.String() {
			t.Errorf("exit %d, output %q (errors %q); want %q", code, out.String(), errs.String(), want.String())
		}
	case <-time.After(10 * time.Second):
		t.Fatal("fetchAll is stuck")
	}
}

// --retry tries again after an HTTP 503 (a server that fails once on
// demand is an in-process fake: no real one does), and not after a 404.
func TestFakeServerRetryAfter503(t *testing.T) {
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := hits.Add(1)
		switch {
		case r.URL.Path == "/missing":
			http.NotFound(w, r)
		case n == 1:
			http.Error(w, "busy", http.StatusServiceUnavailable)
		default:
			io.WriteString(w, "hello\n")
		}
	}))
	defer srv.Close()
	r := fetchCmd(t, t.TempDir(), "", "--retry", "2", srv.URL+"/doc")
	if r.code != exitOK || r.stdout != "hello\n" || !strings.Contains(r.stderr, "503 Service Unavailable; trying again in 1s (retry 1 of 2)") || hits.Load() != 2 {
		t.Errorf("exit %d, stdout %q, stderr %q, %d requests; want the document after one retry", r.code, r.stdout, r.stderr, hits.Load())
	}
	hits.Store(0)
	r = fetchCmd(t, t.TempDir(), "", "--retry", "2", srv.URL+"/missing")
	if r.code != exitNotFound || strings.Contains(r.stderr, "trying again") || hits.Load() != 1 {
		t.Errorf("404: exit %d, stderr %q, %d requests; want exit %d and no retry", r.code, r.stderr, hits.Load(), exitNotFound)
	}
}

// With fitProcs (as main sets it) the command runs Go code on as many
// threads as it runs transfers at once, at most the CPUs.
func TestUseProcs(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(0))
	defer func(old bool) { fitProcs = old }(fitProcs)
	fitProcs = true
	for parallel, want := range map[int]int{1: 1, 2: min(2, runtime.NumCPU()), 1000: runtime.NumCPU()} {
		useProcs(parallel)
		if got := runtime.GOMAXPROCS(0); got != want {
			t.Errorf("useProcs(%d): GOMAXPROCS %d, want %d", parallel, got, want)
		}
	}
	fitProcs = false
	runtime.GOMAXPROCS(3)
	useProcs(1)
	if got := runtime.GOMAXPROCS(0); got != 3 {
		t.Errorf("useProcs without fitProcs changed GOMAXPROCS to %d", got)
	}
}

// Issue 23, point 6: one -i line over 1 MiB is that line's failure (exit
// 3, naming the line); the other URLs are still fetched.
func TestInputFileLongLine(t *testing.T) {
	dir := t.TempDir()
	doc := filepath.Join(dir, "doc.txt")
	os.WriteFile(doc, []byte("fetched\n"), 0o644)
	list := filepath.Join(dir, "urls.txt")
	os.WriteFile(list, []byte("ftp://h/"+strings.Repeat("x", 2<<20)+"\n"+fileURL(doc)+"\n"), 0o644)
	r := fetchCmd(t, dir, "", "-i", list)
	if r.code != exitURL || r.stdout != "fetched\n" || !strings.Contains(r.stderr, "urls.txt:1: a line of more than") {
		t.Errorf("fetch -i with a 2 MiB line: exit %d, stdout %q, stderr %.200q; want exit %d, the other URL fetched, and line 1 named", r.code, r.stdout, r.stderr, exitURL)
	}
}
