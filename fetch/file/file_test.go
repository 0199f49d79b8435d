package file_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/urlfetch/urlfetch/fetch"
	"github.com/urlfetch/urlfetch/fetch/fetchtest"
	"github.com/urlfetch/urlfetch/fetch/file"
	"github.com/urlfetch/urlfetch/uri"
)

func newClient() *fetch.Client {
	c := &fetch.Client{NetrcFile: "-"}
	c.Register("file", &file.Driver{})
	return c
}

// fileURL builds the file URL of a local path with the uri package.
func fileURL(p string) string {
	return (&uri.File{Path: filepath.ToSlash(p)}).String()
}

// plainDir returns a temporary directory whose path needs no encoding in
// a URL, so that tests can write URLs for it by hand.
func plainDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for seg := range strings.SplitSeq(filepath.ToSlash(dir), "/") {
		if uri.Escape(seg, uri.ComponentFileSegment) != seg {
			t.Fatalf("TempDir() = %q: segment %q needs encoding", dir, seg)
		}
	}
	return dir
}

func writeFile(t *testing.T, p, content string) string {
	t.Helper()
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// get fetches rawURL and reads the whole Body.
func get(t *testing.T, c *fetch.Client, rawURL string) (*fetch.Response, string, error) {
	t.Helper()
	resp, err := c.Fetch(t.Context(), rawURL)
	if err != nil {
		return nil, "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("Fetch(%q): reading Body: %v", rawURL, err)
	}
	return resp, string(b), nil
}

func TestOddNames(t *testing.T) {
	dir := plainDir(t)
	tests := []struct {
		name    string
		encoded string // written by hand
	}{
		{"a b.txt", "a%20b.txt"},
		{"100%.txt", "100%25.txt"},
		{"a#b.txt", "a%23b.txt"},
		{"semi;colon.txt", "semi;colon.txt"},
		{"semi;colon.txt", "semi%3Bcolon.txt"},
		{"what?.txt", "what?.txt"},
		{"what?.txt", "what%3F.txt"},
		{"+plus&eq=.txt", "+plus&eq=.txt"},
		{"naïve 日本.txt", "na%C3%AFve%20%E6%97%A5%E6%9C%AC.txt"},
		{"Naïve", "Na%c3%afve"},
	}
	c := newClient()
	for _, tt := range tests {
		p := writeFile(t, filepath.Join(dir, tt.name), "content of "+tt.name)
		slash := filepath.ToSlash(dir)
		for _, u := range []string{
			fileURL(p),
			"file://" + slash + "/" + tt.encoded,
			"file://localhost" + slash + "/" + tt.encoded,
			"file:" + slash + "/" + tt.encoded,
		} {
			resp, body, err := get(t, c, u)
			if err != nil {
				t.Errorf("Fetch(%q) error = %v, want nil", u, err)
				continue
			}
			if want := "content of " + tt.name; body != want || resp.Kind != fetch.Document {
				t.Errorf("Fetch(%q) = %v %q, want document %q", u, resp.Kind, body, want)
			}
		}
	}
}

func TestListing(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "a b.txt"), "hello")
	writeFile(t, filepath.Join(dir, "empty"), "")
	writeFile(t, filepath.Join(dir, "100%#;"), "odd")
	if err := os.Mkdir(filepath.Join(dir, "sub dir"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, "sub dir", "inner.txt"), "inner")
	if err := os.Symlink("a b.txt", filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("nowhere/at all", filepath.Join(dir, "dangling")); err != nil {
		t.Fatal(err)
	}
	want := map[string]struct {
		typ    fetch.EntryType
		size   int64
		target string
		body   string // of the entry's URL; "" for a directory
		err    error  // of fetching the entry's URL
	}{
		"a b.txt":  {fetch.EntryFile, 5, "", "hello", nil},
		"empty":    {fetch.EntryFile, 0, "", "", nil},
		"100%#;":   {fetch.EntryFile, 3, "", "odd", nil},
		"sub dir":  {fetch.EntryDir, -1, "", "", nil},
		"link":     {fetch.EntryLink, -1, "a b.txt", "hello", nil},
		"dangling": {fetch.EntryLink, -1, "nowhere/at all", "", fetch.ErrNotFound},
	}
	c := newClient()
	slash := filepath.ToSlash(dir)
	for _, u := range []string{fileURL(dir), fileURL(dir) + "/", "file://localhost" + slash + "/", "file:" + slash} {
		resp, err := c.Fetch(t.Context(), u)
		if err != nil {
			t.Fatalf("Fetch(%q) error = %v", u, err)
		}
		if resp.Kind != fetch.Listing || resp.Type != file.ListingType || resp.Length != -1 {
			t.Errorf("Fetch(%q) = %v %q length %d, want a listing %q of unknown length", u, resp.Kind, resp.Type, resp.Length, file.ListingType)
		}
		host := ""
		if strings.HasPrefix(u, "file://localhost/") {
			host = "localhost"
		}
		seen := map[string]bool{}
		for e, err := range resp.Entries() {
			if err != nil {
				t.Errorf("Fetch(%q).Entries() error = %v", u, err)
				continue
			}
			w, ok := want[e.Name]
			if !ok || seen[e.Name] {
				t.Errorf("Fetch(%q): unexpected entry %+v", u, e)
				continue
			}
			seen[e.Name] = true
			p := slash + "/" + e.Name
			if w.typ == fetch.EntryDir {
				p += "/"
			}
			info, err := os.Lstat(filepath.Join(dir, e.Name))
			if err != nil {
				t.Fatal(err)
			}
			wantURL := (&uri.File{Host: host, Path: p}).String()
			if e.Type != w.typ || e.Size != w.size || e.Target != w.target || e.Title != "" || e.URL != wantURL || !e.Time.Equal(info.ModTime()) {
				t.Errorf("Fetch(%q) entry %q = {%v %d %q %q %v}, want {%v %d %q %q %v}", u, e.Name,
					e.Type, e.Size, e.Target, e.URL, e.Time, w.typ, w.size, w.target, wantURL, info.ModTime())
			}
			// Walk: every entry's URL fetches the entry.
			eresp, body, err := get(t, c, e.URL)
			switch {
			case w.err != nil:
				if !errors.Is(err, w.err) {
					t.Errorf("Fetch(%q) error = %v, want %v", e.URL, err, w.err)
				}
			case err != nil:
				t.Errorf("Fetch(%q) error = %v, want nil", e.URL, err)
			case w.typ == fetch.EntryDir && eresp.Kind != fetch.Listing:
				t.Errorf("Fetch(%q).Kind = %v, want listing", e.URL, eresp.Kind)
			case w.typ != fetch.EntryDir && body != w.body:
				t.Errorf("Fetch(%q) body = %q, want %q", e.URL, body, w.body)
			}
		}
		if len(seen) != len(want) {
			t.Errorf("Fetch(%q) listed %d of the %d entries: %v", u, len(seen), len(want), seen)
		}
		resp.Body.Close()
	}
	// No path at all is the root directory.
	resp, err := c.Fetch(t.Context(), "file://localhost")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	for e, err := range resp.Entries() {
		if err != nil || !strings.HasPrefix(e.URL, "file://localhost/") || strings.Count(e.URL, "/") > 4 {
			t.Errorf("Fetch(%q) entry %q, %v; want a URL in file://localhost/", "file://localhost", e.URL, err)
		}
	}
}

// TestListingFormat checks the raw lines of a listing: the Body is
// fetch.ListingType, one JSON object (a fetch.Entry) a line (issue 19:
// one format for the listings drivers build themselves).
func TestListingFormat(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, filepath.Join(dir, "line\nbreak and space"), "x")
	if err := os.Mkdir(filepath.Join(dir, "d"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("../a b/c", filepath.Join(dir, "l")); err != nil {
		t.Fatal(err)
	}
	resp, body, err := get(t, newClient(), fileURL(dir))
	if err != nil {
		t.Fatal(err)
	}
	if resp.Type != fetch.ListingType {
		t.Errorf("Type = %q, want %q", resp.Type, fetch.ListingType)
	}
	base := fileURL(dir) + "/"
	want := map[string]string{
		`{"name":"line\nbreak and space","url":"` + base + `line%0Abreak%20and%20space","type":"file","size":1,"time":"T"}`: "",
		`{"name":"d","url":"` + base + `d/","type":"dir","size":-1,"time":"T"}`:                                             "",
		`{"name":"l","url":"` + base + `l","type":"link","size":-1,"time":"T","target":"../a b/c"}`:                         "",
	}
	stamp := regexp.MustCompile(`"time":"[^"]+Z"`)
	lines := strings.Split(strings.TrimSuffix(body, "\n"), "\n")
	if len(lines) != 3 {
		t.Errorf("listing body = %q, want 3 lines", body)
	}
	for _, l := range lines {
		if _, ok := want[stamp.ReplaceAllString(l, `"time":"T"`)]; !ok {
			t.Errorf("listing line %q is none of %q", l, slices.Collect(maps.Keys(want)))
		}
	}
}

// TestListingBatches lists a directory larger than one ReadDir batch and
// stops another listing early.
func TestListingBatches(t *testing.T) {
	dir := t.TempDir()
	const n = 600
	for i := range n {
		writeFile(t, filepath.Join(dir, strings.Repeat("x", i%50)+"-"+strconv.Itoa(i)), "")
	}
	c := newClient()
	resp, err := c.Fetch(t.Context(), fileURL(dir))
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	var names []string
	for e, err := range resp.Entries() {
		if err != nil {
			t.Fatalf("Entries() error = %v", err)
		}
		seen[e.Name] = true
		names = append(names, e.Name)
	}
	resp.Body.Close()
	if len(seen) != n {
		t.Errorf("listed %d distinct entries, want %d", len(seen), n)
	}
	// Issue 22, point 4: sorted by name across the batches, as ls does,
	// not in the order the directory keeps them.
	if !slices.IsSorted(names) {
		t.Errorf("entries not sorted by name: %q ...", names[:min(20, len(names))])
	}

	resp, err = c.Fetch(t.Context(), fileURL(dir))
	if err != nil {
		t.Fatal(err)
	}
	got := 0
	for range resp.Entries() {
		if got++; got == 10 {
			break
		}
	}
	if err := resp.Body.Close(); err != nil || got != 10 {
		t.Errorf("listing stopped after %d entries: Close() = %v, want 10 and nil", got, err)
	}
}

// TestListingBadLines feeds the parser of a real listing lines no driver
// wrote: each bad one is an ErrProtocol error and the listing goes on.
func TestListingBadLines(t *testing.T) {
	dir := t.TempDir()
	resp, err := newClient().Fetch(t.Context(), fileURL(dir))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	resp.Body = io.NopCloser(strings.NewReader(strings.Join([]string{
		`{"name":"ok","url":"file:///ok","type":"file","size":3,"time":"2024-05-01T12:00:00Z"}`,
		`file 3 2024-05-01T12:00:00Z ok`,
		`{"name":"x","type":"blob","size":3}`,
		`{"name":"x","type":"file","size":"3"}`,
		`{"name":"x","type":"file","size":3,"time":"yesterday"}`,
		`{"name":"x"`,
		`{"name":"d","url":"file:///d/","type":"dir","size":-1,"time":"2024-05-01T12:00:00.25Z"}`,
	}, "\n") + "\n"))
	var names []string
	bad := 0
	for e, err := range resp.Entries() {
		if err != nil {
			if !errors.Is(err, fetch.ErrProtocol) {
				t.Errorf("Entries() error = %v, want ErrProtocol", err)
			}
			bad++
			continue
		}
		names = append(names, e.Name)
	}
	if bad != 5 || strings.Join(names, ",") != "ok,d" {
		t.Errorf("Entries() = %q and %d errors, want [ok d] and 5 errors", names, bad)
	}
}

func TestEmptyFile(t *testing.T) {
	dir := t.TempDir()
	for name, typ := range map[string]string{
		"empty":      "text/plain; charset=utf-8", // what sniffing no bytes gives
		"empty.html": "text/html; charset=utf-8",
	} {
		u := fileURL(writeFile(t, filepath.Join(dir, name), ""))
		resp, body, err := get(t, newClient(), u)
		if err != nil {
			t.Fatalf("Fetch(%q) error = %v", u, err)
		}
		if body != "" || resp.Length != 0 || resp.Type != typ || resp.Kind != fetch.Document {
			t.Errorf("Fetch(%q) = %v %q length %d body %q, want an empty document %q", u, resp.Kind, resp.Type, resp.Length, body, typ)
		}
	}
}

func TestMediaType(t *testing.T) {
	dir := t.TempDir()
	big := "%PDF-1.4\n" + strings.Repeat("0123456789abcdef", 100) // beyond the sniffed 512 bytes
	tests := []struct {
		name, content, want string
	}{
		{"page.html", "plain words", "text/html; charset=utf-8"}, // the extension wins
		{"picture.png", "not a picture", "image/png"},
		{"page", "<!DOCTYPE html><title>x</title>", "text/html; charset=utf-8"},
		{"picture", "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", "image/png"},
		{"notes", "just some words\n", "text/plain; charset=utf-8"},
		{"binary", "\x00\x01\x02\x03", "application/octet-stream"},
		{"document", big, "application/pdf"},
	}
	c := newClient()
	for _, tt := range tests {
		u := fileURL(writeFile(t, filepath.Join(dir, tt.name), tt.content))
		resp, body, err := get(t, c, u)
		if err != nil {
			t.Fatalf("Fetch(%q) error = %v", u, err)
		}
		if resp.Type != tt.want {
			t.Errorf("Fetch(%q).Type = %q, want %q", u, resp.Type, tt.want)
		}
		if body != tt.content || resp.Length != int64(len(tt.content)) {
			t.Errorf("Fetch(%q) = %d bytes (Length %d), want the whole %d: sniffing must not eat the body", u, len(body), resp.Length, len(tt.content))
		}
	}
}

func TestModified(t *testing.T) {
	p := writeFile(t, filepath.Join(t.TempDir(), "old.txt"), "x")
	mtime := time.Date(2001, 2, 3, 4, 5, 6, 0, time.UTC)
	if err := os.Chtimes(p, mtime, mtime); err != nil {
		t.Fatal(err)
	}
	resp, _, err := get(t, newClient(), fileURL(p))
	if err != nil {
		t.Fatal(err)
	}
	if !resp.Modified.Equal(mtime) {
		t.Errorf("Fetch(%q).Modified = %v, want %v", fileURL(p), resp.Modified, mtime)
	}
}

func TestOffset(t *testing.T) {
	dir := t.TempDir()
	u := fileURL(writeFile(t, filepath.Join(dir, "digits.txt"), "0123456789"))
	tests := []struct {
		offset     int64
		wantOffset int64
		want       string
	}{
		{4, 4, "456789"},
		{10, 10, ""},          // complete already
		{11, 0, "0123456789"}, // beyond the end: start again
		{-3, 0, "0123456789"},
		{0, 0, "0123456789"},
	}
	c := newClient()
	for _, tt := range tests {
		req, err := c.NewRequest(u)
		if err != nil {
			t.Fatal(err)
		}
		req.Offset = tt.offset
		resp, err := c.Do(t.Context(), req)
		if err != nil {
			t.Fatalf("Do(%q with Offset %d) error = %v", u, tt.offset, err)
		}
		b, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil || string(b) != tt.want || resp.Offset != tt.wantOffset || resp.Length != int64(len(tt.want)) {
			t.Errorf("Do(%q with Offset %d) = %q, %v (Offset %d, Length %d), want %q (Offset %d, Length %d)",
				u, tt.offset, b, err, resp.Offset, resp.Length, tt.want, tt.wantOffset, len(tt.want))
		}
	}
	// A listing has no offset.
	req, _ := c.NewRequest(fileURL(dir))
	req.Offset = 5
	resp, err := c.Do(t.Context(), req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.Offset != 0 {
		t.Errorf("Do(%q with Offset 5).Offset = %d, want 0", fileURL(dir), resp.Offset)
	}
}

func TestNotFound(t *testing.T) {
	dir := plainDir(t)
	writeFile(t, filepath.Join(dir, "plain.txt"), "x")
	if err := os.Mkdir(filepath.Join(dir, "a"), 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(dir, "a", "b"), "x")
	slash := filepath.ToSlash(dir)
	tests := []struct {
		url  string
		want string // in the message
	}{
		{fileURL(filepath.Join(dir, "missing.txt")), slash + "/missing.txt"},
		{fileURL(filepath.Join(dir, "no dir", "x")), slash + "/no dir/x"},
		// ENOTDIR: a file where the path needs a directory. No such file
		// can exist, so it is not found.
		{fileURL(filepath.Join(dir, "plain.txt", "child")), slash + "/plain.txt/child"},
		// "%2F" is data, not a separator: a name with "/" in it cannot
		// exist, though a/b does.
		{"file://" + slash + "/a%2Fb", "a%2Fb"},
	}
	c := newClient()
	for _, tt := range tests {
		_, _, err := get(t, c, tt.url)
		if !errors.Is(err, fetch.ErrNotFound) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("Fetch(%q) error = %v, want ErrNotFound naming %q", tt.url, err, tt.want)
		}
	}
}

// TestPermissionDenied needs the kernel to refuse: as root, which
// bypasses file modes, it runs the fetches on a thread whose file system
// user is nobody (Linux), or is skipped.
func TestPermissionDenied(t *testing.T) {
	dir := t.TempDir()
	// Let anyone reach the directory, so that only the modes below refuse.
	for _, d := range []string{dir, filepath.Dir(dir)} {
		if err := os.Chmod(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	open := writeFile(t, filepath.Join(dir, "open.txt"), "anyone may read this")
	secret := writeFile(t, filepath.Join(dir, "secret.txt"), "nobody may read this")
	locked := filepath.Join(dir, "locked")
	if err := os.Mkdir(locked, 0o755); err != nil {
		t.Fatal(err)
	}
	inner := writeFile(t, filepath.Join(locked, "inner.txt"), "behind a locked directory")
	for p, mode := range map[string]os.FileMode{secret: 0, locked: 0} {
		if err := os.Chmod(p, mode); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.Chmod(p, 0o755) }) // so that TempDir can be removed
	}
	// probe fetches without t: as nobody it runs on a thread of its own.
	probe := func() (fails []string) {
		c := newClient()
		if _, err := readAll(c, fileURL(open)); err != nil {
			fails = append(fails, fmt.Sprintf("Fetch(%q) error = %v, want nil", fileURL(open), err))
		}
		for _, p := range []string{secret, locked, inner} {
			u := fileURL(p)
			_, err := readAll(c, u)
			if !errors.Is(err, fetch.ErrAuth) || !strings.Contains(err.Error(), p) {
				fails = append(fails, fmt.Sprintf("Fetch(%q) error = %v, want ErrAuth naming %s", u, err, p))
			}
		}
		return fails
	}
	var fails []string
	if os.Geteuid() != 0 {
		fails = probe()
	} else if !asNobody(func() { fails = probe() }) {
		t.Skip("running as root, which reads every file, and this system cannot drop the file system user of one thread")
	}
	for _, f := range fails {
		t.Error(f)
	}
}

// readAll fetches rawURL and reads the whole Body.
func readAll(c *fetch.Client, rawURL string) (string, error) {
	resp, err := c.Fetch(context.Background(), rawURL)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return string(b), err
}

func TestOtherHost(t *testing.T) {
	tests := []struct {
		url, host, ftp string
	}{
		{"file://otherhost/x", "otherhost", "ftp://otherhost/x"},
		{"file://vms.host.edu/disk$user/my%20notes/note;1.txt", "vms.host.edu", "ftp://vms.host.edu/disk$user/my%20notes/note%3B1.txt"},
		{"file://10.0.0.1/", "10.0.0.1", "ftp://10.0.0.1/"},
	}
	for _, tt := range tests {
		var traced []string
		c := newClient()
		c.Trace = func(dir fetch.Direction, line string) { traced = append(traced, line) }
		_, err := c.Fetch(t.Context(), tt.url)
		if !errors.Is(err, fetch.ErrUnsupported) {
			t.Errorf("Fetch(%q) error = %v, want ErrUnsupported", tt.url, err)
			continue
		}
		for _, want := range []string{"lives on " + tt.host, "not on this machine", tt.ftp} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("Fetch(%q) error = %q, want it to say %q", tt.url, err, want)
			}
		}
		if len(traced) > 0 {
			t.Errorf("Fetch(%q) traced %q; want no file touched", tt.url, traced)
		}
	}
	// Any case of localhost is this machine.
	p := writeFile(t, filepath.Join(plainDir(t), "here.txt"), "here")
	u := "file://LocalHost" + filepath.ToSlash(p)
	if _, body, err := get(t, newClient(), u); err != nil || body != "here" {
		t.Errorf("Fetch(%q) = %q, %v; want %q", u, body, err, "here")
	}
}

func TestUnsafeAndInvalid(t *testing.T) {
	dir := plainDir(t)
	tests := []struct {
		url  string
		kind error
	}{
		{"file://" + filepath.ToSlash(dir) + "/a%00b", fetch.ErrUnsafe},
		{"file:relative/path", fetch.ErrURL},
	}
	for _, tt := range tests {
		_, err := newClient().Fetch(t.Context(), tt.url)
		if !errors.Is(err, tt.kind) {
			t.Errorf("Fetch(%q) error = %v, want %v", tt.url, err, tt.kind)
		}
	}
}

func TestReadAfterCancel(t *testing.T) {
	u := fileURL(writeFile(t, filepath.Join(t.TempDir(), "f.txt"), "some bytes"))
	ctx, cancel := context.WithCancel(t.Context())
	resp, err := newClient().Fetch(ctx, u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	cancel()
	if n, err := resp.Body.Read(make([]byte, 4)); !errors.Is(err, context.Canceled) {
		t.Errorf("Body.Read after cancel() = %d, %v; want context.Canceled", n, err)
	}
}

func TestTrace(t *testing.T) {
	p := writeFile(t, filepath.Join(t.TempDir(), "t.html"), "<p>")
	var lines []string
	c := newClient()
	c.Trace = func(dir fetch.Direction, line string) { lines = append(lines, string(dir)+" "+line) }
	if _, _, err := get(t, c, fileURL(p)); err != nil {
		t.Fatal(err)
	}
	want := []string{"* open " + p, "* type text/html; charset=utf-8 from the extension"}
	if strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Errorf("trace = %q, want %q", lines, want)
	}
}

func TestConformance(t *testing.T) {
	dir := t.TempDir()
	hello := writeFile(t, filepath.Join(dir, "hello.html"), "<p>hello, world</p>\n")
	empty := writeFile(t, filepath.Join(dir, "empty"), "")
	odd := writeFile(t, filepath.Join(dir, "a b%#;ï.txt"), "odd\n")
	opt := fetchtest.Opt{
		Scheme: "file",
		Driver: &file.Driver{},
		Found: []fetchtest.Case{
			{URL: fileURL(hello), Want: "<p>hello, world</p>\n", Type: "text/html; charset=utf-8"},
			{URL: fileURL(empty), SHA256: fetchtest.EmptySHA256},
			{URL: fileURL(odd), Want: "odd\n", Type: "text/plain; charset=utf-8"},
		},
		Missing: fileURL(filepath.Join(dir, "missing")),
		Listing: fileURL(dir) + "/",
		Stall:   fifoStall(),
		Inject:  []string{fileURL(dir) + "/a%00b"},
		Invalid: []string{"file:relative/path"},
		Caps:    fetchtest.Caps{Resume: true, NoIdleTimeout: true, NoServer: true},
	}
	if os.Geteuid() > 0 {
		denied := writeFile(t, filepath.Join(dir, "denied"), "x")
		if err := os.Chmod(denied, 0); err != nil {
			t.Fatal(err)
		}
		opt.Denied = fileURL(denied)
	}
	fetchtest.Run(t, opt)
}
