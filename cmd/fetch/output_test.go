package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/urlfetch/urlfetch/fetch"
	"github.com/urlfetch/urlfetch/internal/recordcheck"
)

// Issue 22: output a program can trust and a person can read. These run
// the command on file: URLs (real files, named as hostile servers name
// theirs); integration/output_test.go runs the same against the real
// servers.

// hostileNames are names a hostile server gives its files: an OSC that
// retitles the window and a clear-screen, an 8-bit CSI (U+009B) that
// some terminals obey, and a right-to-left override that shows
// "exe.txt" as "txt.exe".
var hostileNames = []string{
	"esc-\x1b]0;owned\a\x1b[2J.txt",
	"c1-\u009b31mred.txt",
	"bidi-\u202etxt.exe",
}

// hostileDir makes a directory of files with hostileNames and one plain
// file, and returns it.
func hostileDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for _, n := range append([]string{"plain.txt"}, hostileNames...) {
		if err := os.WriteFile(filepath.Join(dir, n), []byte("x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// records decodes --json output into generic records, failing the test
// on a line that is no JSON object.
func records(t *testing.T, out string) []map[string]any {
	t.Helper()
	var recs []map[string]any
	for _, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		if line == "" {
			continue
		}
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("--json line %q: %v", line, err)
		}
		recs = append(recs, m)
	}
	return recs
}

// Point 1: one record per event, each with its kind and the URL as given;
// entries name their listing; the record that ends a URL says what came
// of it, or the error with its exit code.
func TestJSONRecords(t *testing.T) {
	dir := hostileDir(t)
	sub := filepath.Join(dir, "sub")
	os.Mkdir(sub, 0o755)
	os.WriteFile(filepath.Join(sub, "one.txt"), []byte("12345"), 0o644)
	work := t.TempDir()
	gone := fileURL(filepath.Join(dir, "gone.txt"))
	r := fetchCmd(t, work, "", "--json", "-P", "2", fileURL(dir)+"/", fileURL(sub)+"/", gone)
	if r.code != exitNotFound {
		t.Errorf("exit %d, want %d (the missing file): %s", r.code, exitNotFound, r.stderr)
	}
	recs := records(t, r.stdout)
	ends := map[string]map[string]any{} // input -> the record that ends it
	entries := map[string]int{}
	for _, m := range recs {
		in, _ := m["input"].(string)
		switch m["kind"] {
		case "entry":
			if m["listing"] != in {
				t.Errorf("entry %v: listing %v, want %q", m["name"], m["listing"], in)
			}
			if ends[in] != nil {
				t.Errorf("entry %v after the record that ended %s", m["name"], in)
			}
			entries[in]++
		default:
			if ends[in] != nil {
				t.Errorf("two records end %s: %v and %v", in, ends[in], m)
			}
			ends[in] = m
		}
	}
	if len(ends) != 3 {
		t.Fatalf("records end %d URLs, want 3: %s", len(ends), r.stdout)
	}
	for in, want := range map[string]float64{fileURL(dir) + "/": 5, fileURL(sub) + "/": 1} {
		end := ends[in]
		if end["kind"] != "listing" || end["entries"] != want || float64(entries[in]) != want ||
			end["exit_code"] != 0.0 || end["url"] != in || end["attempts"] != 1.0 {
			t.Errorf("%s: %d entry records, end %v; want %v entries", in, entries[in], end, want)
		}
		if d, ok := end["duration"].(float64); !ok || d <= 0 || d > 60 {
			t.Errorf("%s: duration %v", in, end["duration"])
		}
	}
	e := ends[gone]
	if e["kind"] != "error" || e["class"] != "not_found" || e["exit_code"] != float64(exitNotFound) ||
		!strings.Contains(e["message"].(string), "no such file") || strings.Contains(e["message"].(string), gone) {
		t.Errorf("the missing file's record = %v", e)
	}
	// The error is still said on standard error for a person.
	if !strings.Contains(r.stderr, "fetch: "+gone+": ") {
		t.Errorf("stderr = %q, want the error line", r.stderr)
	}
}

// Point 1: a document goes to -o (never to standard output with --json),
// and its record says where, how many bytes, and what came back.
func TestJSONDocumentRecord(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "page.html")
	os.WriteFile(src, []byte("<p>hello</p>\n"), 0o644)
	r := fetchCmd(t, dir, "", "--json", "-o", "out.html", fileURL(src))
	recs := records(t, r.stdout)
	if r.code != 0 || len(recs) != 1 {
		t.Fatalf("exit %d, %d records: %s %s", r.code, len(recs), r.stdout, r.stderr)
	}
	m := recs[0]
	if m["kind"] != "document" || m["output"] != "out.html" || m["bytes"] != 13.0 || m["length"] != 13.0 ||
		!strings.HasPrefix(m["media"].(string), "text/html") || m["modified"] == nil || m["input"] != fileURL(src) {
		t.Errorf("record = %v", m)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "out.html")); string(b) != "<p>hello</p>\n" {
		t.Errorf("out.html = %q", b)
	}
}

// Point 5: --json keeps a hostile name's characters exactly, escaped so
// that no control character reaches the output raw.
func TestJSONHostileNames(t *testing.T) {
	dir := hostileDir(t)
	r := fetchCmd(t, dir, "", "--json", fileURL(dir)+"/")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	for _, c := range []string{"\x1b", "\a", "\u009b", "\u202e"} {
		if strings.Contains(r.stdout, c) {
			t.Errorf("--json output holds %q raw:\n%q", c, r.stdout)
		}
	}
	got := map[string]bool{}
	for _, m := range records(t, r.stdout) {
		if m["kind"] == "entry" {
			got[m["name"].(string)] = true
		}
	}
	for _, n := range hostileNames {
		if !got[n] {
			t.Errorf("no entry named %q exactly; got %v", n, got)
		}
	}
}

// Point 5: a listing shown on a terminal has every control character of
// its names escaped, as ls shows them; the same listing into a pipe or a
// file keeps the names' bytes (ls does the same), and --raw keeps the
// listing's.
func TestListingOnTerminalEscaped(t *testing.T) {
	dir := hostileDir(t)
	run := startOnPty(t, dir, nil, fileURL(dir)+"/")
	code := run.finish(t)
	term := run.term.String()
	if code != 0 {
		t.Fatalf("exit %d: %q", code, term)
	}
	for _, c := range []string{"\x1b", "\a", "\u009b", "\u202e"} {
		if strings.Contains(term, c) {
			t.Errorf("the terminal got %q raw:\n%q", c, term)
		}
	}
	for _, want := range []string{`esc-\e]0;owned\x07\e[2J.txt`, `c1-\u009b31mred.txt`, `bidi-\u202etxt.exe`, "plain.txt"} {
		if !strings.Contains(term, want) {
			t.Errorf("the terminal shows no %q:\n%s", want, term)
		}
	}
	r := fetchCmd(t, dir, "", fileURL(dir)+"/")
	for _, n := range hostileNames {
		if !strings.Contains(r.stdout, n) {
			t.Errorf("the listing into a pipe lacks %q as it is:\n%q", n, r.stdout)
		}
	}
}

// Point 5: binary to a terminal is refused, curl's rule, unless -o -.
func TestBinaryToTerminal(t *testing.T) {
	dir := t.TempDir()
	bin := filepath.Join(dir, "blob.bin")
	os.WriteFile(bin, []byte("GIF89a\x00\x01\x1b[2J\x00"), 0o644)
	run := startOnPty(t, dir, nil, fileURL(bin))
	code := run.finish(t)
	term := run.term.String()
	if code != exitFailure || strings.Contains(term, "\x1b[2J") || !strings.Contains(term, "binary output can mess up the terminal") ||
		!strings.Contains(term, fileURL(bin)) {
		t.Errorf("binary to a terminal: exit %d, terminal %q", code, term)
	}
	run = startOnPty(t, dir, nil, "-o", "-", fileURL(bin))
	if code := run.finish(t); code != 0 || !strings.Contains(run.term.String(), "GIF89a") {
		t.Errorf("-o - to a terminal: exit %d, terminal %q", code, run.term.String())
	}
	// Text goes to the terminal as ever, and binary to a pipe.
	txt := filepath.Join(dir, "a.txt")
	os.WriteFile(txt, []byte("plain text\n"), 0o644)
	run = startOnPty(t, dir, nil, fileURL(txt))
	if code := run.finish(t); code != 0 || !strings.Contains(run.term.String(), "plain text") {
		t.Errorf("text to a terminal: exit %d, terminal %q", code, run.term.String())
	}
	if r := fetchCmd(t, dir, "", fileURL(bin)); r.code != 0 || r.stdout != "GIF89a\x00\x01\x1b[2J\x00" {
		t.Errorf("binary to a pipe: exit %d, %q %s", r.code, r.stdout, r.stderr)
	}
}

// Point 5: what a server wrote into an error (its reply, a name) reaches
// standard error escaped.
func TestErrorLineEscaped(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"550 \x1b]0;owned\a\x1b[2J no", `fetch: ftp://h/x: 550 \e]0;owned\x07\e[2J no`},
		{"bad \u009b31m and \u202e", `fetch: ftp://h/x: bad \u009b31m and \u202e`},
		{"not utf-8 \xff\xfe", `fetch: ftp://h/x: not utf-8 \xff\xfe`},
	} {
		got := errorLine(&fetch.Error{Op: "fetch", URL: "ftp://h/x", Err: errors.New(tt.in)})
		if got != tt.want {
			t.Errorf("errorLine(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// Point 3: two URLs of one run never write one file: the second gets a
// numbered name and a note; --no-clobber skips it instead, and a file
// that is there already. --dir is made when missing.
func TestOutputNamesOfARun(t *testing.T) {
	src := t.TempDir()
	for _, d := range []string{"a", "b", "c"} {
		os.Mkdir(filepath.Join(src, d), 0o755)
		os.WriteFile(filepath.Join(src, d, "index"), []byte(d+"\n"), 0o644)
	}
	urls := []string{fileURL(filepath.Join(src, "a", "index")), fileURL(filepath.Join(src, "b", "index")), fileURL(filepath.Join(src, "c", "index"))}
	work := t.TempDir()
	r := fetchCmd(t, work, "", append([]string{"-P", "3", "-O", "--dir", "new/deeper"}, urls...)...)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	out := filepath.Join(work, "new", "deeper")
	for name, want := range map[string]string{"index": "a\n", "index.1": "b\n", "index.2": "c\n"} {
		if b, err := os.ReadFile(filepath.Join(out, name)); err != nil || string(b) != want {
			t.Errorf("%s = %q, %v; want %q", name, b, err, want)
		}
	}
	if !strings.Contains(r.stderr, urls[1]+": saving as new/deeper/index.1: new/deeper/index is "+urls[0]+"'s in this run") {
		t.Errorf("stderr = %q, want a note for the numbered name", r.stderr)
	}

	// --no-clobber: what is there stays, what an earlier URL writes too.
	os.WriteFile(filepath.Join(out, "index"), []byte("mine\n"), 0o644)
	os.Remove(filepath.Join(out, "index.1"))
	r = fetchCmd(t, work, "", append([]string{"--json", "-O", "--dir", "new/deeper", "--no-clobber"}, urls[:2]...)...)
	if b, _ := os.ReadFile(filepath.Join(out, "index")); r.code != 0 || string(b) != "mine\n" {
		t.Errorf("--no-clobber: exit %d, index = %q: %s", r.code, b, r.stderr)
	}
	if _, err := os.Stat(filepath.Join(out, "index.1")); err == nil {
		t.Errorf("--no-clobber wrote index.1")
	}
	recs := records(t, r.stdout)
	if len(recs) != 2 || recs[0]["kind"] != "skipped" || recs[1]["kind"] != "skipped" ||
		!strings.Contains(recs[0]["message"].(string), "exists") || !strings.Contains(recs[1]["message"].(string), "in this run") {
		t.Errorf("--no-clobber records = %v", recs)
	}
}

// Point 3: -R gives the file the resource's time; replacing a file keeps
// its permissions; --create-dirs makes -o's directories.
func TestOutputFileTimeAndMode(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "src.txt")
	os.WriteFile(src, []byte("data\n"), 0o644)
	when := time.Date(2001, 2, 3, 4, 5, 6, 0, time.UTC)
	os.Chtimes(src, when, when)

	r := fetchCmd(t, dir, "", "-R", "--create-dirs", "-o", "x/y/out.txt", fileURL(src))
	fi, err := os.Stat(filepath.Join(dir, "x", "y", "out.txt"))
	if r.code != 0 || err != nil || !fi.ModTime().Equal(when) {
		t.Fatalf("-R --create-dirs: exit %d, %v, mtime %v; want %v: %s", r.code, err, fi, when, r.stderr)
	}
	r = fetchCmd(t, dir, "", "-o", "plain.txt", fileURL(src))
	if fi, _ := os.Stat(filepath.Join(dir, "plain.txt")); r.code != 0 || fi.ModTime().Equal(when) {
		t.Errorf("without -R the file has the resource's time")
	}

	secret := filepath.Join(dir, "secret.txt")
	os.WriteFile(secret, []byte("old"), 0o600)
	if r := fetchCmd(t, dir, "", "-o", "secret.txt", fileURL(src)); r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	fi, _ = os.Stat(secret)
	if b, _ := os.ReadFile(secret); fi.Mode().Perm() != 0o600 || string(b) != "data\n" {
		t.Errorf("replaced file: mode %v, %q; want 0600 and the new bytes", fi.Mode().Perm(), b)
	}
}

// Point 4: --raw writes a listing as its driver's bytes; -h shows sizes
// as ls -h; a link shows its target once.
func TestRawAndRenderedListing(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "big"), bytes.Repeat([]byte("x"), 1536), 0o644)
	os.Symlink("big", filepath.Join(dir, "ln"))
	r := fetchCmd(t, dir, "", "--raw", fileURL(dir)+"/")
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	if r.code != 0 || len(lines) != 2 || !strings.HasPrefix(lines[0], `{"name":"big",`) || !strings.Contains(lines[1], `"target":"big"`) {
		t.Errorf("--raw = %d %q", r.code, r.stdout)
	}
	r = fetchCmd(t, dir, "", "-h", fileURL(dir)+"/")
	if r.code != 0 || !strings.Contains(r.stdout, " 1.5K ") || !strings.Contains(r.stdout, "ln -> big\n") || strings.Count(r.stdout, "ln") != 1 {
		t.Errorf("-h listing = %d %q", r.code, r.stdout)
	}
}

func TestHumanSize(t *testing.T) {
	for _, tt := range []struct {
		n    int64
		want string
	}{
		{0, "0"}, {1023, "1023"}, {1024, "1.0K"}, {1025, "1.1K"}, {1536, "1.5K"}, {10239, "10K"},
		{10240, "10K"}, {10241, "11K"}, {1048575, "1.0M"}, {1048576, "1.0M"}, {5 << 30, "5.0G"}, {1<<63 - 1, "8.0E"},
	} {
		if got := humanSize(tt.n); got != tt.want {
			t.Errorf("humanSize(%d) = %q, want %q", tt.n, got, tt.want)
		}
	}
}

func TestConnectTo(t *testing.T) {
	rules := []connectRule{}
	for _, v := range []string{"example.org:443:127.0.0.1:18443", "[::1]:80:[::1]:8080", "ftp.example.org::127.0.0.1:", ":119::18119"} {
		r, err := parseConnectTo(v)
		if err != nil {
			t.Fatalf("parseConnectTo(%q): %v", v, err)
		}
		rules = append(rules, r)
	}
	for _, tt := range []struct{ in, want string }{
		{"example.org:443", "127.0.0.1:18443"},
		{"EXAMPLE.org:443", "127.0.0.1:18443"},
		{"example.org:80", "example.org:80"},
		{"[::1]:80", "[::1]:8080"},
		{"ftp.example.org:21", "127.0.0.1:21"},
		{"news.example.org:119", "news.example.org:18119"},
	} {
		if got := rewrite(rules, tt.in); got != tt.want {
			t.Errorf("rewrite(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	for _, bad := range []string{"example.org:443", "a:b:c:d", "a:1:b:99999"} {
		if _, err := parseConnectTo(bad); err == nil {
			t.Errorf("parseConnectTo(%q) = nil error", bad)
		}
	}
}

// Point 5 and 6: an FTP server's reply quoted in an error reaches
// standard error escaped. A fake server: no real one sends ESC in its
// replies.
func TestHostileReplyEscaped_FakeServer(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				c.SetDeadline(time.Now().Add(10 * time.Second))
				io.WriteString(c, "220 hello\r\n")
				sc := bufio.NewScanner(c)
				for sc.Scan() {
					switch cmd, _, _ := strings.Cut(sc.Text(), " "); strings.ToUpper(cmd) {
					case "USER":
						io.WriteString(c, "331 password\r\n")
					case "PASS":
						io.WriteString(c, "230 in\r\n")
					case "QUIT":
						io.WriteString(c, "221 bye\r\n")
						return
					default:
						io.WriteString(c, "550 \x1b]0;owned\a\x1b[2J\u009b31m no such \u202efile\r\n")
					}
				}
			}()
		}
	}()
	url := "ftp://" + ln.Addr().String() + "/x.txt"
	r := fetchCmd(t, t.TempDir(), "", url)
	if r.code == 0 || !strings.Contains(r.stderr, `550 \e]0;owned\x07\e[2J\u009b31m no such \u202efile`) {
		t.Errorf("exit %d, stderr %q; want the reply escaped", r.code, r.stderr)
	}
	for _, c := range []string{"\x1b", "\a", "\u009b", "\u202e"} {
		if strings.Contains(r.stderr, c) {
			t.Errorf("stderr holds %q raw: %q", c, r.stderr)
		}
	}
}

// writeCounter counts the Write calls a listing makes of standard output.
type writeCounter struct {
	bytes.Buffer
	calls int
}

func (w *writeCounter) Write(p []byte) (int, error) {
	w.calls++
	return w.Buffer.Write(p)
}

// A listing that does not go to a terminal is written in blocks, as stdio
// buffers a pipe: 2,000 entries of a real directory in a handful of
// writes, not a write a line.
func TestListingWrittenInBlocks(t *testing.T) {
	dir := t.TempDir()
	for i := range 2000 {
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("entry-%04d", i)), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var out writeCounter
	var errb bytes.Buffer
	if code := run(context.Background(), []string{"fetch", "-q", "file://" + dir + "/"}, nil, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	if lines := strings.Count(out.String(), "\n"); lines != 2000 {
		t.Fatalf("%d lines, want 2000", lines)
	}
	if !strings.Contains(out.String(), "entry-1999") {
		t.Errorf("the last entry is missing: %q", out.String()[out.Len()-200:])
	}
	if out.calls > out.Len()/(32<<10)+2 {
		t.Errorf("%d writes for %d bytes, want a few blocks", out.calls, out.Len())
	}

	// The same with --json: 2,000 entry records and the listing's, in
	// a few writes, the listing's last.
	out = writeCounter{}
	if code := run(context.Background(), []string{"fetch", "-q", "--json", "file://" + dir + "/"}, nil, &out, &errb); code != 0 {
		t.Fatalf("--json: exit %d: %s", code, errb.String())
	}
	if err := recordcheck.Check(out.Bytes()); err != nil {
		t.Error(err)
	}
	lines := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(lines) != 2001 || !strings.Contains(lines[2000], `"kind":"listing"`) || !strings.Contains(lines[1999], `"kind":"entry"`) {
		t.Fatalf("--json: %d records, the last %q; want 2,000 entries, then the listing", len(lines), lines[len(lines)-1])
	}
	if out.calls > out.Len()/(32<<10)+2 {
		t.Errorf("--json: %d writes for %d bytes, want a few blocks", out.calls, out.Len())
	}
}
