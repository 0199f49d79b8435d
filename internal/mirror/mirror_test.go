package mirror

import (
	"bufio"
	"context"
	"crypto/sha256"
	"fmt"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/urlfetch/urlfetch/fetch"
	"github.com/urlfetch/urlfetch/fetch/all"
	"github.com/urlfetch/urlfetch/uri"
)

func TestLayoutPath(t *testing.T) {
	l := Layout{Primary: "ftp"}
	for _, tc := range []struct {
		url     string
		listing bool
		want    string
	}{
		{"ftp://h/pub/a.txt", false, "h/pub/a.txt"},
		{"ftp://h:2121/pub/", true, "h:2121/pub/.listing"},
		{"ftp://h:21/pub/x", true, "h/pub/x/.listing"},
		{"ftp://h/", true, "h/.listing"},
		{"ftp://h/%2E%2E/%2E/etc", false, "h/index/index/etc"},
		{"ftp://h/a%2Fb/c", false, "h/a_b/c"},
		{"ftp://h/.hidden", false, "h/hidden"},
		{"ftp://h/esc%1B%5B2J", false, "h/esc_[2J"},
		{"gopher://h/", true, "gopher/h/.gophermap"},
		{"gopher://h/1/dir", true, "gopher/h/dir/.gophermap"},
		{"gopher://h/0/dir/a.txt%09%09+", false, "gopher/h/dir/a.txt"},
		{"gopher://h:7070/9/../../x", false, "gopher/h:7070/index/index/x"},
		{"http://h/", false, "http/h/index.html"},
		{"http://h/a/b?x=1", false, "http/h/a/b?x=1"},
		{"http://h:8080/a/", false, "http/h:8080/a/index.html"},
		{"nntp://h/comp.lang.go/12", false, "nntp/h/comp.lang.go/12"},
		{"nntp://h/comp.lang.go", true, "nntp/h/comp.lang.go/.listing"},
		{"news:comp.lang.go", true, "news/comp.lang.go/.listing"},
		{"news:abc@example.org", false, "news/abc@example.org"},
		{"file:///tmp/x/y.txt", false, "file/tmp/x/y.txt"},
	} {
		u := uri.MustParse(tc.url)
		got, err := l.Path(u, tc.listing)
		if err != nil || got != tc.want {
			t.Errorf("Path(%q, %v) = %q, %v; want %q", tc.url, tc.listing, got, err, tc.want)
		}
	}
	cut := Layout{Primary: "ftp", NoHost: true, CutDirs: 2}
	if got, _ := cut.Path(uri.MustParse("ftp://h/a/b/c/d.txt"), false); got != "c/d.txt" {
		t.Errorf("with -nH --cut-dirs 2: %q, want c/d.txt", got)
	}
}

// The queue keeps at most its cap in memory, spills the rest to a file,
// and gives every item back once, in order.
func TestFrontierSpills(t *testing.T) {
	f := newFrontier(10, t.TempDir())
	defer f.release()
	const n = 100_000
	for i := range n {
		if err := f.push(item{URL: fmt.Sprint("ftp://h/", i), Depth: i}); err != nil {
			t.Fatal(err)
		}
		if len(f.mem) > 10 {
			t.Fatalf("%d items in memory, cap 10", len(f.mem))
		}
	}
	if f.spilled != n-10 {
		t.Errorf("%d items spilled, want %d", f.spilled, n-10)
	}
	for i := range n {
		it, ok, err := f.take()
		if err != nil || !ok || it.Depth != i {
			t.Fatalf("take %d = %v, %v, %v", i, it.Depth, ok, err)
		}
		if i%1000 == 0 {
			// What an item leads to comes after what was queued before.
			f.push(item{URL: "late", Depth: -1})
		}
		f.done()
	}
	late := 0
	for {
		it, ok, err := f.take()
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			break
		}
		if it.Depth != -1 {
			t.Fatalf("item %d after the late ones", it.Depth)
		}
		late++
		f.done()
	}
	if late != n/1000 {
		t.Errorf("%d late items, want %d", late, n/1000)
	}
}

func TestHTMLLinks(t *testing.T) {
	page := `<html><head><base href="/b/"><link rel=stylesheet href="s.css"><script src="j.js"></script></head>
<body><a href="x.html#f">x</a> <a href="#top">top</a> <a name="n">no link</a> <A HREF=" y.html ">y</A>
<img src="i.png"><iframe src="f.html"></iframe><area href="m.html"><object data="o.swf"></object>`
	var got []string
	err := htmlLinks(strings.NewReader(page), func(ref string, base bool) error {
		if base {
			ref = "base:" + ref
		}
		got = append(got, ref)
		return nil
	})
	want := []string{"base:/b/", "s.css", "j.js", "x.html#f", "y.html", "i.png", "f.html", "m.html", "o.swf"}
	if err != nil || !slices.Equal(got, want) {
		t.Errorf("htmlLinks = %q, %v; want %q", got, err, want)
	}
}

// fileURL is the file: URL of a local path.
func fileURL(p string) string { return (&uri.File{Path: p}).String() }

// newClient is a Client with every driver, as the command builds it.
func newClient(t *testing.T) *fetch.Client {
	c := all.NewClient()
	c.NetrcFile = "-"
	c.ConnectTimeout = 5 * time.Second
	c.IdleTimeout = 10 * time.Second
	t.Cleanup(func() { c.Close() })
	return c
}

// walk runs one walk and collects its events.
func walk(t *testing.T, o Options, urls ...string) (Summary, []Event) {
	t.Helper()
	var mu sync.Mutex
	var events []Event
	o.Report = func(e Event) {
		mu.Lock()
		events = append(events, e)
		mu.Unlock()
	}
	w, err := New(o)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	sum, err := w.Run(ctx, urls)
	if err != nil {
		t.Fatalf("Run: %v", err)
	}
	return sum, events
}

// writeTree makes files (path -> content) under dir.
func writeTree(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for p, content := range files {
		full := filepath.Join(dir, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// sums are the SHA-256 sums of the regular files under dir, by path,
// leaving out the listings.
func sums(t *testing.T, dir string) map[string][32]byte {
	t.Helper()
	m := map[string][32]byte{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() || d.Name() == ListingName {
			return err
		}
		b, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		m[filepath.ToSlash(rel)] = sha256.Sum256(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// A file: tree is mirrored whole, each file's bytes the source's; a
// symbolic link is not followed; a hostile name is made safe; a second
// run with -N fetches nothing, and a partial file left by an interrupted
// run is continued, not started again.
func TestWalkFileTree(t *testing.T) {
	src := t.TempDir()
	writeTree(t, src, map[string]string{
		"a.txt":                "first\n",
		"sub/b.txt":            "second\n",
		"sub/deeper/c.bin":     strings.Repeat("\x00\xff", 5000),
		"esc-\x1b[2J.txt":      "hostile\n",
		"sub/deeper/empty.txt": "",
	})
	if err := os.Symlink(src, filepath.Join(src, "sub", "loop")); err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	o := Options{Client: newClient(t), Dir: out, Parallel: 3}
	root := fileURL(src) + "/"
	sum, events := walk(t, o, root)
	if sum.Files != 5 || sum.Listings != 3 || sum.Failed != 0 || sum.Symlinks != 1 {
		t.Errorf("summary %+v, want 5 files, 3 listings, 1 symbolic link not followed, no failure; events %+v", sum, events)
	}
	base := "file" + src
	want := map[string][32]byte{}
	for rel, s := range sums(t, src) {
		rel = strings.ReplaceAll(rel, "\x1b", "_")
		want[base+"/"+rel] = s
	}
	got := sums(t, out)
	if !mapsEqual(got, want) {
		t.Errorf("mirrored files:\n%v\nwant\n%v", keys(got), keys(want))
	}
	for _, l := range []string{"", "/sub", "/sub/deeper"} {
		if _, err := os.Stat(filepath.Join(out, base+l, ListingName)); err != nil {
			t.Errorf("no listing: %v", err)
		}
	}

	// -N: nothing is fetched again.
	o.Timestamping = true
	sum, events = walk(t, o, root)
	if sum.Files != 0 || sum.Unchanged != 5 {
		t.Errorf("-N: summary %+v, want 0 files, 5 unchanged; events %+v", sum, events)
	}

	// A changed file is fetched again.
	newer := time.Now().Add(time.Hour)
	os.WriteFile(filepath.Join(src, "a.txt"), []byte("changed!\n"), 0o644)
	os.Chtimes(filepath.Join(src, "a.txt"), newer, newer)
	sum, _ = walk(t, o, root)
	if sum.Files != 1 || sum.Unchanged != 4 {
		t.Errorf("-N after a change: summary %+v, want 1 file, 4 unchanged", sum)
	}
	if b, _ := os.ReadFile(filepath.Join(out, base, "a.txt")); string(b) != "changed!\n" {
		t.Errorf("a.txt = %q after the change", b)
	}

	// An interrupted run: c.bin half written, under its partial name.
	c := filepath.Join(out, base, "sub", "deeper", "c.bin")
	full, _ := os.ReadFile(c)
	os.Remove(c)
	part := filepath.Join(filepath.Dir(c), ".c.bin"+partialSuffix)
	if err := os.WriteFile(part, full[:4000], 0o644); err != nil {
		t.Fatal(err)
	}
	sum, events = walk(t, o, root)
	if sum.Files != 1 || sum.Resumed != 1 {
		t.Errorf("after an interruption: summary %+v, want 1 file, resumed; events %+v", sum, events)
	}
	for _, e := range events {
		if e.Kind == Saved && (e.Offset != 4000 || e.Bytes != int64(len(full))-4000) {
			t.Errorf("resumed at %d, %d bytes; want at 4000, %d bytes", e.Offset, e.Bytes, len(full)-4000)
		}
	}
	if b, _ := os.ReadFile(c); string(b) != string(full) {
		t.Errorf("c.bin differs after resuming")
	}
	if _, err := os.Stat(part); err == nil {
		t.Errorf("the partial file is left after it was completed")
	}
}

// A symbolic link planted in the mirror's tree, leading out of it, is not
// followed: the file that would land beyond it fails instead.
func TestWalkPlantedSymlink(t *testing.T) {
	src := t.TempDir()
	writeTree(t, src, map[string]string{"d/x.txt": "x\n"})
	out, victim := t.TempDir(), t.TempDir()
	base := filepath.Join(out, "file"+src)
	if err := os.MkdirAll(base, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(victim, filepath.Join(base, "d")); err != nil {
		t.Fatal(err)
	}
	sum, _ := walk(t, Options{Client: newClient(t), Dir: out}, fileURL(src)+"/")
	if sum.Failed == 0 {
		t.Errorf("summary %+v: want the files beyond the link to fail", sum)
	}
	if des, _ := os.ReadDir(victim); len(des) != 0 {
		t.Errorf("%d files written through the planted link", len(des))
	}
}

// -l bounds the depth; no-parent keeps the walk below where it began;
// --accept chooses the files.
func TestWalkScope(t *testing.T) {
	src := t.TempDir()
	writeTree(t, src, map[string]string{
		"top.txt": "", "start/a.txt": "", "start/a.log": "", "start/1/b.txt": "", "start/1/2/c.txt": "", "start/1/2/3/d.txt": "",
	})
	out := t.TempDir()
	sum, _ := walk(t, Options{Client: newClient(t), Dir: out, Level: 2, Accept: []string{"*.txt"}}, fileURL(src)+"/start/")
	if sum.Files != 2 || sum.Listings != 3 || sum.TooDeep != 2 || sum.Rejected != 1 {
		t.Errorf("summary %+v, want 2 files (a.txt, 1/b.txt), 3 listings (., 1/, 1/2/), 2 too deep (1/2/c.txt, 1/2/3/), 1 rejected (a.log)", sum)
	}
}

// A gopher menu that links to itself under ever new selectors ends at
// the depth bound, whatever its depth, in flat memory, and says so.
func TestWalkGopherLoop_FakeServer(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	host, port, _ := net.SplitHostPort(ln.Addr().String())
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				sel, _ := bufio.NewReader(c).ReadString('\n')
				sel = strings.TrimRight(sel, "\r\n")
				var n int
				fmt.Sscanf(sel, "/loop/%d", &n)
				fmt.Fprintf(c, "iLevel %d\t\terror.host\t1\r\n1Deeper\t/loop/%d\t%s\t%s\r\n1Back to the top\t/loop/0\t%s\t%s\r\n0A file\t/file/%d\t%s\t%s\r\n.\r\n",
					n, n+1, host, port, host, port, n, host, port)
			}()
		}
	}()
	const levels = 1000
	var before runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	out := t.TempDir()
	sum, _ := walk(t, Options{Client: newClient(t), Dir: out, Level: levels, Parallel: 4, Accept: []string{"none"}, Parent: true},
		"gopher://"+ln.Addr().String()+"/1/loop/0")
	// The last menu's three items are deeper than the bound.
	if sum.Listings != levels+1 || sum.TooDeep != 3 {
		t.Errorf("summary %+v: want %d menus and 3 items not followed, deeper than -l %d", sum, levels+1, levels)
	}
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	if grew := int64(after.HeapInuse) - int64(before.HeapInuse); grew > 16<<20 {
		t.Errorf("the heap grew by %d MiB over %d levels", grew>>20, levels)
	}
}

func mapsEqual(a, b map[string][32]byte) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

func keys(m map[string][32]byte) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	return ks
}
