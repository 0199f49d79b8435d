//go:build integration

package integration

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/urlfetch/urlfetch/internal/outfile"
	"github.com/urlfetch/urlfetch/internal/warc/warctest"
)

// Recursive retrieval (issue 27) against the real servers: every file a
// walk saves is checked byte for byte (SHA-256) against the server's
// source tree, and a second run with -N is shown by the servers' own
// logs to transfer nothing.

// mirrorRun is what one run of fetch -r --json did.
type mirrorRun struct {
	cmdResult
	sum     mirrorTotals
	records []map[string]any
}

// mirrorTotals is the mirror record that ends a recursive run.
type mirrorTotals struct {
	Files, Listings, Bytes, Unchanged, Resumed, Failed int64
	NotFollowed                                        map[string]int64 `json:"not_followed"`
	ExitCode                                           int              `json:"exit_code"`
}

// runMirror runs fetch -r --json with args in dir and reads its records;
// the run must succeed.
func runMirror(t *testing.T, dir string, args ...string) mirrorRun {
	t.Helper()
	r := runFetch(t, dir, append([]string{"-r", "--json", "-q"}, args...)...)
	m := mirrorRun{cmdResult: r}
	for _, line := range strings.Split(strings.TrimSpace(r.stdout), "\n") {
		var rec map[string]any
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatalf("fetch -r --json printed %q: %v", line, err)
		}
		m.records = append(m.records, rec)
		if rec["kind"] == "mirror" {
			json.Unmarshal([]byte(line), &m.sum)
		}
	}
	if r.code != 0 {
		t.Fatalf("fetch -r %q: exit %d\n%s", args, r.code, lastLines(r.stderr, 20))
	}
	t.Logf("fetch -r %q: %+v; peak RSS %.1f MiB", args, m.sum, float64(r.maxRSS)/(1<<20))
	return m
}

// sha256File is the hex SHA-256 of a file.
func sha256File(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// safePath is where a mirror saves the file at rel (slash-separated) of a
// source tree: each element made safe as the layout makes it.
func safePath(rel string) string {
	parts := strings.Split(rel, "/")
	for i, p := range parts {
		parts[i] = outfile.SanitizeName(p)
	}
	return path.Join(parts...)
}

// sourceFiles are the regular files under root, slash-separated paths
// relative to it, but those skip leaves out.
func sourceFiles(t *testing.T, root string, skip func(rel string) bool) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		rel = filepath.ToSlash(rel)
		if d.Type().IsRegular() && (skip == nil || !skip(rel)) {
			out = append(out, rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// checkMirrored checks that each of files (paths under src) was saved
// under dst with the same bytes, and returns how many were.
func checkMirrored(t *testing.T, src, dst string, files []string) {
	t.Helper()
	for _, rel := range files {
		got := filepath.Join(dst, filepath.FromSlash(safePath(rel)))
		if _, err := os.Stat(got); err != nil {
			t.Errorf("%s was not saved: %v", rel, err)
			continue
		}
		if a, b := sha256File(t, filepath.Join(src, rel)), sha256File(t, got); a != b {
			t.Errorf("%s: sha256 %s saved, %s at the source", rel, b, a)
		}
	}
}

// savedFiles are the files a mirror holds under dir, listings left out.
func savedFiles(t *testing.T, dir string) []string {
	return sourceFiles(t, dir, func(rel string) bool {
		b := path.Base(rel)
		return b == ".listing" || b == ".gophermap"
	})
}

// vsftpd's whole anonymous tree: every file, the 64 MiB one included, in
// flat memory; a listing beside each directory; the symbolic link not
// followed. Then -N: no RETR in vsftpd's log, every file unchanged.
func TestMirrorFTPTree(t *testing.T) {
	src := env(t, "FTP_ANON_ROOT")
	base := ftpBase(t)
	hostDir := strings.TrimPrefix(base, "ftp://")
	dir := t.TempDir()
	first := runMirror(t, dir, "-l", "inf", "-P", "4", base+"/")
	files := sourceFiles(t, src, nil)
	checkMirrored(t, src, filepath.Join(dir, hostDir), files)
	if saved := savedFiles(t, dir); len(saved) != len(files) {
		t.Errorf("%d files saved, %d at the source", len(saved), len(files))
	}
	if first.sum.Files != int64(len(files)) || first.sum.Failed != 0 || first.sum.NotFollowed["symlink"] < 1 {
		t.Errorf("totals %+v: want %d files, no failure, the symbolic link not followed", first.sum, len(files))
	}
	for _, d := range []string{"", "a/b/c", "mirror/deeper/deepest", "emptydir"} {
		if _, err := os.Stat(filepath.Join(dir, hostDir, d, ".listing")); err != nil {
			t.Errorf("no .listing for %q: %v", d, err)
		}
	}
	if _, err := os.Lstat(filepath.Join(dir, hostDir, "mirror", "mirror-link")); err == nil {
		t.Errorf("the symbolic link mirror/mirror-link was followed")
	}
	if first.maxRSS <= 0 || first.maxRSS >= 64<<20 {
		t.Errorf("peak RSS %d bytes, want under 64 MiB", first.maxRSS)
	}

	logPath := env(t, "FTP_LOG")
	from := logSize(t, logPath)
	second := runMirror(t, dir, "-N", "-l", "inf", "-P", "4", base+"/")
	if second.sum.Files != 0 || second.sum.Unchanged != int64(len(files)) {
		t.Errorf("-N: totals %+v, want no file and %d unchanged", second.sum, len(files))
	}
	// The log of the second run: the names no other test fetches.
	b, _ := os.ReadFile(logPath)
	for _, name := range []string{"mirror-one.txt", "mirror-two.bin", "mirror-three.txt"} {
		if bytes.Contains(b[from:], []byte(`"RETR `+name+`"`)) {
			t.Errorf("-N: vsftpd's log shows RETR %s in the second run", name)
		}
	}
	if !bytes.Contains(b[from:], []byte(`"LIST"`)) {
		t.Errorf("-N: vsftpd's log shows no LIST in the second run: the log proves nothing")
	}
}

// An interrupted run (the 64 MiB file cut off after 5 MiB by a relay in
// front of nginx: the server is real, the cut is what no server does on
// demand) leaves a partial file, which the next run continues with a
// Range request where it stopped, rather than fetching it again.
func TestMirrorResume(t *testing.T) {
	relay := cutRelay(t, addr(t, "HTTP"), 5<<20, 1)
	raw := "http://" + relay.addr + "/big.bin"
	dir := t.TempDir()
	cut := runFetch(t, dir, "-r", "-q", raw)
	if cut.code == 0 {
		t.Fatalf("the run through the cutting relay succeeded")
	}
	part := filepath.Join(dir, relay.addr, ".big.bin.partial")
	fi, err := os.Stat(part)
	if err != nil || fi.Size() == 0 || fi.Size() >= 5<<20 {
		t.Fatalf("after the cut: partial file %v, %v; want up to 5 MiB\n%s", fi, err, cut.stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, relay.addr, "big.bin")); err == nil {
		t.Fatalf("big.bin has its name after the cut")
	}
	logPath := env(t, "HTTP_ACCESS_LOG")
	from := logSize(t, logPath)
	m := runMirror(t, dir, raw)
	if m.sum.Resumed != 1 || m.sum.Files != 1 || m.sum.Bytes != 64<<20-fi.Size() {
		t.Errorf("totals %+v: want big.bin continued from byte %d", m.sum, fi.Size())
	}
	if sum := sha256File(t, filepath.Join(dir, relay.addr, "big.bin")); sum != env(t, "BIG_SHA256") {
		t.Errorf("big.bin continued: sha256 %s, want %s", sum, env(t, "BIG_SHA256"))
	}
	b, _ := os.ReadFile(logPath)
	if !bytes.Contains(b[from:], []byte(`"GET /big.bin HTTP/1.1" 206`)) {
		t.Errorf("nginx's access log shows no 206 for the run that continued big.bin:\n%s", b[from:])
	}
}

// A directory of 100,000 entries: its 7 MB listing streams through the
// walk (saved whole as .listing), in flat memory.
func TestMirrorHugeFTPDirectory(t *testing.T) {
	dir := t.TempDir()
	m := runMirror(t, dir, "-P", "4", "--accept", "entry-00000?", ftpLocal(t, env(t, "FTP_PASSWORD"))+"/huge/")
	if m.sum.Files != 10 || m.sum.NotFollowed["rejected"] != 99_990 || m.sum.Failed != 0 {
		t.Errorf("totals %+v: want 10 files, 99990 left out by --accept", m.sum)
	}
	listing, err := os.ReadFile(filepath.Join(dir, strings.TrimPrefix(ftpBase(t), "ftp://"), "huge", ".listing"))
	if n := bytes.Count(listing, []byte("\n")); err != nil || n != 100_000 {
		t.Errorf(".listing: %d lines, %v; want 100000", n, err)
	}
	if m.maxRSS <= 0 || m.maxRSS >= 64<<20 {
		t.Errorf("peak RSS %d bytes, want under 64 MiB", m.maxRSS)
	}
}

// Both gopher servers' menus, whole, with the cross-link of /mirror into
// the FTP site followed under --schemes +ftp: every document the menus
// list is the file the server serves, the FTP files are vsftpd's, and
// the search is not followed.
func TestMirrorGopher(t *testing.T) {
	for _, s := range gopherServers(t) {
		t.Run(s.name, func(t *testing.T) {
			dir := t.TempDir()
			m := runMirror(t, dir, "-P", "2", "--schemes", "+ftp", s.url("/"))
			hostDir := filepath.Join(dir, s.addr)
			root := s.root
			want := []string{"hello.txt", "dots.txt", "0about", "binary.bin", "big.bin", "dir/inner.txt",
				"mirror/first.txt", "mirror/bytes.bin", "mirror/deeper/second.txt"}
			if s.name == "pygopherd" {
				want = append(want, "hostile/plain.txt", "hostile/esc-\x1b]0;owned\a\x1b[2J.txt")
			}
			for _, rel := range want {
				got := filepath.Join(hostDir, filepath.FromSlash(safePath(rel)))
				b, err := os.ReadFile(got)
				if err != nil {
					t.Errorf("%s was not saved: %v", rel, err)
					continue
				}
				src, _ := os.ReadFile(filepath.Join(root, rel))
				if s.crlf && (strings.HasSuffix(rel, ".txt") || rel == "0about") {
					// gophernicus sends text with CRLF line ends.
					b = bytes.ReplaceAll(b, []byte("\r\n"), []byte("\n"))
				}
				if sha256.Sum256(b) != sha256.Sum256(src) {
					t.Errorf("%s: the saved bytes differ from the server's file", rel)
				}
			}
			for _, menu := range []string{"", "dir", "mirror", "mirror/deeper"} {
				if _, err := os.Stat(filepath.Join(hostDir, menu, ".gophermap")); err != nil {
					t.Errorf("no .gophermap for %q: %v", menu, err)
				}
			}
			// The cross-link: vsftpd's a/ tree, under ftp/.
			ftpDir := filepath.Join(dir, "ftp", strings.TrimPrefix(ftpBase(t), "ftp://"))
			checkMirrored(t, env(t, "FTP_ANON_ROOT"), ftpDir, []string{"a/b/c/file.txt"})
			for _, saved := range savedFiles(t, dir) {
				if strings.Contains(saved, "search") {
					t.Errorf("the search was followed: %s saved", saved)
				}
			}
			if m.sum.Failed != 0 {
				t.Errorf("totals %+v: want no failure", m.sum)
			}
		})
	}
}

// nginx's /mirror/ pages: every page and requisite their links lead to
// below /mirror/, and the FTP site under --schemes +ftp; not the page
// above the start, the other host or the mail address. Then -N: nginx's
// access log shows HEAD requests and no GET of /mirror/.
func TestMirrorHTTP(t *testing.T) {
	base := httpBase(t)
	hostDir := strings.TrimPrefix(base, "http://")
	dir := t.TempDir()
	m := runMirror(t, dir, "--schemes", "+ftp", base+"/mirror/")
	src := env(t, "HTTP_ROOT")
	pages := []string{"mirror/index.html", "mirror/page2.html", "mirror/style.css", "mirror/sub/index.html",
		"mirror/sub/deep.html", "mirror/sub/notes.txt", "mirror/img/bytes.bin"}
	checkMirrored(t, src, filepath.Join(dir, hostDir), pages)
	saved := savedFiles(t, filepath.Join(dir, hostDir))
	slices.Sort(saved)
	want := slices.Clone(pages)
	slices.Sort(want)
	if !slices.Equal(saved, want) {
		t.Errorf("saved %q, want %q", saved, want)
	}
	checkMirrored(t, env(t, "FTP_ANON_ROOT"), filepath.Join(dir, "ftp", strings.TrimPrefix(ftpBase(t), "ftp://")), []string{"a/b/c/file.txt"})
	nf := m.sum.NotFollowed
	if nf["parent"] < 1 || nf["host"] < 1 || nf["scheme"] < 1 || m.sum.Failed != 0 {
		t.Errorf("totals %+v: want the page above, the other host and mailto: not followed, no failure", m.sum)
	}

	logPath := env(t, "HTTP_ACCESS_LOG")
	from := logSize(t, logPath)
	second := runMirror(t, dir, "-N", base+"/mirror/")
	if second.sum.Files != 0 || second.sum.Unchanged < int64(len(pages)) {
		t.Errorf("-N: totals %+v, want no file, every page unchanged", second.sum)
	}
	b, _ := os.ReadFile(logPath)
	if bytes.Contains(b[from:], []byte(`"GET /mirror/`)) {
		t.Errorf("-N: nginx's access log shows a GET of /mirror/ in the second run:\n%s", b[from:])
	}
	if !bytes.Contains(b[from:], []byte(`"HEAD /mirror/sub/deep.html`)) {
		t.Errorf("-N: nginx's access log shows no HEAD of /mirror/sub/deep.html: the links of unchanged pages were not followed")
	}
}

// An INN group: each article saved is the article the server serves;
// a second run with -N fetches none again.
func TestMirrorNews(t *testing.T) {
	group := "nntp://" + addr(t, "NNTP") + "/urlfetch.test"
	dir := t.TempDir()
	m := runMirror(t, dir, group)
	if m.sum.Files != 4 || m.sum.Listings != 1 {
		t.Errorf("totals %+v: want 4 articles and the group's listing", m.sum)
	}
	c := client(t)
	for _, n := range []string{"1", "2", "3", "4"} {
		saved, err := os.ReadFile(filepath.Join(dir, addr(t, "NNTP"), "urlfetch.test", n))
		if err != nil {
			t.Errorf("article %s was not saved: %v", n, err)
			continue
		}
		_, served := get(t, c, group+"/"+n)
		if !bytes.Equal(saved, served) {
			t.Errorf("article %s: %d bytes saved, the server serves %d", n, len(saved), len(served))
		}
	}
	second := runMirror(t, dir, "-N", group)
	if second.sum.Files != 0 || second.sum.Unchanged != 4 {
		t.Errorf("-N: totals %+v, want no article fetched, 4 unchanged", second.sum)
	}
}

// --warc-file with -r: a gopher mirror with its cross-link into the FTP
// site, and nginx's pages, each archived whole: a warcinfo record naming
// the tool; a resource record per gopher and FTP document and listing
// (listings as their raw bytes), its block the saved file; a request and
// a response record per page, the response's payload the saved page.
// Without -r: one article, as a resource record. gowarc reads every
// record back and checks its digests.
func TestMirrorWARC(t *testing.T) {
	dir := t.TempDir()
	g := gophernicus(t)
	runMirror(t, dir, "--warc-file", "gopher", "--schemes", "+ftp", g.url("/1/mirror/"))
	recs := warctest.Read(t, filepath.Join(dir, "gopher.warc.gz"))
	if len(recs) == 0 || recs[0].Type != "warcinfo" || !bytes.Contains(recs[0].Block, []byte("software: urlfetch fetch ")) {
		t.Fatalf("the first record is not a warcinfo naming the tool: %+v", recs[:min(1, len(recs))])
	}
	blocks := map[string][]byte{}
	for _, r := range recs[1:] {
		if r.Type != "resource" {
			t.Errorf("record of %s: type %s, want resource", r.Target, r.Type)
		}
		blocks[r.Target] = r.Block
	}
	ftp := ftpBase(t)
	for url, file := range map[string]string{
		g.url("/1/mirror/"):          filepath.Join(g.addr, "mirror", ".gophermap"),
		g.url("/0/mirror/first.txt"): filepath.Join(g.addr, "mirror", "first.txt"),
		g.url("/9/mirror/bytes.bin"): filepath.Join(g.addr, "mirror", "bytes.bin"),
		ftp + "/a/":                  filepath.Join("ftp", strings.TrimPrefix(ftp, "ftp://"), "a", ".listing"),
		ftp + "/a/b/c/file.txt":      filepath.Join("ftp", strings.TrimPrefix(ftp, "ftp://"), "a", "b", "c", "file.txt"),
	} {
		saved, err := os.ReadFile(filepath.Join(dir, file))
		if err != nil {
			t.Errorf("%s: %v", file, err)
			continue
		}
		if b, ok := blocks[url]; !ok || !bytes.Equal(b, saved) {
			t.Errorf("%s: archived %v (%d bytes), want the %d bytes of %s", url, ok, len(b), len(saved), file)
		}
	}
	if n := len(savedFiles(t, dir)) - 1; len(recs)-1 < n { // the WARC file itself is one of them
		t.Errorf("%d records for %d files saved", len(recs)-1, n)
	}

	hdir := t.TempDir()
	base := httpBase(t)
	runMirror(t, hdir, "--warc-file", "pages.warc.gz", base+"/mirror/")
	recs = warctest.Read(t, filepath.Join(hdir, "pages.warc.gz"))
	responses := map[string][]byte{}
	requests := 0
	for _, r := range recs[1:] {
		switch r.Type {
		case "request":
			requests++
		case "response":
			_, payload, _ := bytes.Cut(r.Block, []byte("\r\n\r\n"))
			responses[r.Target] = payload
			if !bytes.HasPrefix(r.Block, []byte("HTTP/1.1 200 OK\r\n")) {
				t.Errorf("response of %s begins %q", r.Target, r.Block[:min(20, len(r.Block))])
			}
		}
	}
	hostDir := strings.TrimPrefix(base, "http://")
	for _, p := range []string{"mirror/index.html", "mirror/page2.html", "mirror/sub/notes.txt", "mirror/img/bytes.bin"} {
		saved, _ := os.ReadFile(filepath.Join(hdir, hostDir, p))
		if got, ok := responses[base+"/"+p]; !ok || !bytes.Equal(got, saved) {
			if p != "mirror/index.html" || !bytes.Equal(responses[base+"/mirror/"], saved) {
				t.Errorf("%s: no response record with the saved page as its payload", p)
			}
		}
	}
	if requests != len(responses) || requests == 0 {
		t.Errorf("%d request records, %d response records", requests, len(responses))
	}

	adir := t.TempDir()
	article := "nntp://" + addr(t, "NNTP") + "/urlfetch.test/2"
	r := runFetch(t, adir, "-q", "--warc-file", "news", "-o", "art.txt", article)
	if r.code != 0 {
		t.Fatalf("fetch --warc-file: exit %d: %s", r.code, r.stderr)
	}
	recs = warctest.Read(t, filepath.Join(adir, "news.warc.gz"))
	saved, _ := os.ReadFile(filepath.Join(adir, "art.txt"))
	if len(recs) != 2 || recs[1].Type != "resource" || recs[1].Target != article || !bytes.Equal(recs[1].Block, saved) {
		t.Errorf("without -r: records %d; want warcinfo and the article as a resource record", len(recs))
	}
}
