package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/urlfetch/urlfetch/internal/buildflags"
	"github.com/urlfetch/urlfetch/internal/recordcheck"
	"github.com/urlfetch/urlfetch/uri"
)

// The tests here run the built binary, as a user does.

var fetchBin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "fetch-bin-")
	if err != nil {
		panic(err)
	}
	fetchBin = filepath.Join(dir, "fetch")
	// -buildvcs: -V names the commit, which GOFLAGS may turn off.
	build := exec.Command("go", "build", "-buildvcs=true", "-tags", buildflags.Tags(), "-o", fetchBin, ".")
	build.Stderr = os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "building fetch:", err)
		os.Exit(2)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

type result struct {
	stdout, stderr string
	code           int
}

// fetchCmd runs the binary in dir with args and returns what it printed.
func fetchCmd(t *testing.T, dir, stdin string, args ...string) result {
	t.Helper()
	cmd := exec.Command(fetchBin, args...)
	cmd.Dir = dir
	cmd.Stdin = strings.NewReader(stdin)
	cmd.Env = append(os.Environ(), "NETRC=/nonexistent-netrc-for-tests")
	return runCmd(t, cmd)
}

// runCmd runs cmd, the binary, and returns what it printed. With --json
// among its arguments, each line of its standard output must be a record
// of records.schema.json (issue 22, point 1: every record the tests make
// is checked).
func runCmd(t *testing.T, cmd *exec.Cmd) result {
	t.Helper()
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("running fetch %v: %v", cmd.Args[1:], err)
	}
	if slices.Contains(cmd.Args, "--json") && !subcommand(cmd.Args[1:]) {
		if err := recordcheck.Check(out.Bytes()); err != nil {
			t.Errorf("fetch %q: %v", cmd.Args[1:], err)
		}
	}
	return result{out.String(), errb.String(), code}
}

// subcommand reports whether args run one of the subcommands (parse,
// resolve, extract), whose --json is no record, rather than fetch URLs.
func subcommand(args []string) bool {
	for _, a := range args {
		if !strings.HasPrefix(a, "-") {
			return a == "parse" || a == "resolve" || a == "extract"
		}
	}
	return false
}

func fileURL(path string) string {
	return (&uri.File{Path: path}).String()
}

func TestDocumentToStdout(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "a file #1%.txt")
	os.WriteFile(p, []byte("hello, world\n"), 0o644)
	r := fetchCmd(t, dir, "", fileURL(p))
	if r.code != 0 || r.stdout != "hello, world\n" {
		t.Fatalf("fetch %s = %d %q %q", fileURL(p), r.code, r.stdout, r.stderr)
	}
}

func TestOutputFile(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "src.bin")
	data := bytes.Repeat([]byte{0, 1, 2, 0xff}, 10000)
	os.WriteFile(src, data, 0o644)

	r := fetchCmd(t, dir, "", "-o", "out.bin", fileURL(src))
	got, err := os.ReadFile(filepath.Join(dir, "out.bin"))
	if r.code != 0 || err != nil || !bytes.Equal(got, data) {
		t.Fatalf("fetch -o out.bin: code %d, %v, %d bytes; stderr %q", r.code, err, len(got), r.stderr)
	}
	// -O names the file after the URL, in --dir.
	os.Mkdir(filepath.Join(dir, "d"), 0o755)
	r = fetchCmd(t, dir, "", "-O", "--dir", "d", fileURL(src))
	if _, err := os.Stat(filepath.Join(dir, "d", "src.bin")); r.code != 0 || err != nil {
		t.Fatalf("fetch -O --dir d: code %d, %v, stderr %q", r.code, err, r.stderr)
	}
	// No temporary file is left beside the output.
	entries, _ := os.ReadDir(filepath.Join(dir, "d"))
	if len(entries) != 1 {
		t.Errorf("--dir d holds %d entries, want 1", len(entries))
	}
}

func TestFailedFetchLeavesNoFile(t *testing.T) {
	dir := t.TempDir()
	r := fetchCmd(t, dir, "", "-o", "out", fileURL(filepath.Join(dir, "missing")))
	if r.code != exitNotFound {
		t.Errorf("exit code = %d, want %d (not found); stderr %q", r.code, exitNotFound, r.stderr)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 0 {
		t.Errorf("a failed fetch left %v behind", entries)
	}
}

// A transfer that stops mid-way (a FIFO whose writer stalls) must not
// leave its partial bytes under the output name.
func TestTimeoutMidTransferLeavesNoFile(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	done := make(chan struct{})
	defer close(done)
	go func() {
		w, err := os.OpenFile(fifo, os.O_WRONLY, 0)
		if err != nil {
			return
		}
		w.Write([]byte("partial data"))
		<-done
		w.Close()
	}()
	start := time.Now()
	r := fetchCmd(t, dir, "", "--timeout", "1s", "-o", "out", fileURL(fifo))
	if r.code != exitTimeout {
		t.Errorf("exit code = %d, want %d (timeout); stderr %q", r.code, exitTimeout, r.stderr)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("fetch took %v to time out after 1s", d)
	}
	if _, err := os.Stat(filepath.Join(dir, "out")); err == nil {
		t.Error("the partial transfer was left as out")
	}
	matches, _ := filepath.Glob(filepath.Join(dir, ".out.part-*"))
	if len(matches) != 0 {
		t.Errorf("temporary files left: %v", matches)
	}
}

func TestExitCodes(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"http://h/a b"}, exitURL, "offset 10"},
		{[]string{"x-nothing://h/"}, exitUnsupported, `no driver for scheme "x-nothing"`},
		{[]string{"file://elsewhere.example/etc/motd"}, exitUnsupported, "elsewhere.example"},
		{[]string{fileURL(filepath.Join(dir, "nope"))}, exitNotFound, "nope"},
		{[]string{}, exitUsage, "no URL"},
		{[]string{"--no-such-flag", "file:///"}, exitUsage, "no-such-flag"},
		{[]string{"-o", "a", "-O", "file:///"}, exitUsage, "exclude"},
		{[]string{"ftp://joe:hunter2@h/a b"}, exitURL, "joe:***@h"},
	}
	for _, tt := range tests {
		r := fetchCmd(t, dir, "", tt.args...)
		if r.code != tt.code || !strings.Contains(r.stderr, tt.msg) {
			t.Errorf("fetch %q: exit %d stderr %q; want exit %d and %q", tt.args, r.code, r.stderr, tt.code, tt.msg)
		}
		if strings.Contains(r.stderr+r.stdout, "hunter2") {
			t.Errorf("fetch %q printed the password", tt.args)
		}
		if lines := strings.Count(strings.TrimSpace(r.stderr), "\n"); tt.code != exitUsage && lines > 0 {
			t.Errorf("fetch %q: error takes %d lines, want one: %q", tt.args, lines+1, r.stderr)
		}
	}
	// Several URLs: each failure reported, the highest code wins.
	ok := filepath.Join(dir, "ok")
	os.WriteFile(ok, []byte("x"), 0o644)
	r := fetchCmd(t, dir, "", fileURL(filepath.Join(dir, "nope")), fileURL(ok), "x-nothing://h/")
	if r.code != exitUnsupported || r.stdout != "x" || strings.Count(r.stderr, "fetch:") != 2 {
		t.Errorf("three URLs: exit %d stdout %q stderr %q", r.code, r.stdout, r.stderr)
	}
}

func TestListing(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "one.txt"), []byte("12345"), 0o644)
	os.Mkdir(filepath.Join(dir, "sub dir"), 0o755)
	r := fetchCmd(t, dir, "", "--urls", fileURL(dir)+"/")
	if r.code != 0 || !strings.Contains(r.stdout, "one.txt") || !strings.Contains(r.stdout, "sub dir") || !strings.Contains(r.stdout, "sub%20dir/") {
		t.Fatalf("listing = %d %q %q", r.code, r.stdout, r.stderr)
	}
	r = fetchCmd(t, dir, "", "--json", fileURL(dir)+"/")
	var n int
	for _, line := range strings.Split(strings.TrimSpace(r.stdout), "\n") {
		var e struct {
			Kind, Name, URL, Type string
			Size                  int64
		}
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			t.Fatalf("--json line %q: %v", line, err)
		}
		if e.Kind != "entry" {
			continue
		}
		if e.Name == "one.txt" && (e.Size != 5 || e.Type != "file" || !strings.HasPrefix(e.URL, "file://")) {
			t.Errorf("entry %+v", e)
		}
		n++
	}
	if n != 2 {
		t.Errorf("--json printed %d entries, want 2", n)
	}
}

// --json without -o or -O reads a document and counts it, writing its
// bytes nowhere (issue 22, point 1: kind "document", its media type in
// "media", no output).
func TestDocumentJSON(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "page.html")
	os.WriteFile(p, []byte("<html></html>"), 0o644)
	r := fetchCmd(t, dir, "", "--json", fileURL(p))
	var m struct {
		URL, Kind, Media, Output string
		Length, Bytes            int64
	}
	if err := json.Unmarshal([]byte(r.stdout), &m); err != nil || r.code != 0 {
		t.Fatalf("--json = %d %q %v", r.code, r.stdout, err)
	}
	if m.Kind != "document" || m.Length != 13 || m.Bytes != 13 || m.Output != "" || !strings.HasPrefix(m.Media, "text/html") {
		t.Errorf("--json metadata = %+v", m)
	}
}

func TestParseCommand(t *testing.T) {
	r := fetchCmd(t, "", "", "parse", "ftp://joe:pw@host/%2Fetc/motd;type=a")
	for _, want := range []string{"scheme       ftp", `user         "joe"`, "password     ***", "port         21 (default)", `ftp.dirs     ["/etc"]`, `ftp.name     "motd"`, `ftp.type     "a"`} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("fetch parse: missing %q in\n%s", want, r.stdout)
		}
	}
	if strings.Contains(r.stdout, ":pw@") || strings.Contains(r.stdout, `"pw"`) {
		t.Errorf("fetch parse shows the password:\n%s", r.stdout)
	}
	r = fetchCmd(t, "", "", "parse", "--json", "gopher://h/7/s%09two%20words")
	var p struct {
		Scheme string
		View   struct {
			Type, Selector, Search, Request string
		}
	}
	if err := json.Unmarshal([]byte(r.stdout), &p); err != nil {
		t.Fatalf("parse --json: %v: %q", err, r.stdout)
	}
	if p.View.Type != "7" || p.View.Selector != "/s" || p.View.Search != "two words" || p.View.Request != "/s\ttwo words" {
		t.Errorf("parse --json view = %+v", p.View)
	}
	r = fetchCmd(t, "", "", "parse", "http://h/a b")
	if r.code != exitURL || !strings.Contains(r.stderr, "          ^") || !strings.Contains(r.stderr, "did you mean: http://h/a%20b") {
		t.Errorf("parse of a bad URL: %d %q", r.code, r.stderr)
	}
}

func TestResolveCommand(t *testing.T) {
	r := fetchCmd(t, "", "", "resolve", "magic://a/b/c//d/e/f", "g", "/g", "//g", "../g", "g:h")
	want := "magic://a/b/c//d/e/g\nmagic://a/g\nmagic://g\nmagic://a/b/c//d/g\ng:h\n"
	if r.code != 0 || r.stdout != want {
		t.Errorf("fetch resolve = %d %q, want %q", r.code, r.stdout, want)
	}
}

func TestExtractCommand(t *testing.T) {
	text := "Yes, Jim, I found it under <URL:ftp://info.cern.ch/pub/www/doc\n   ;type=d> but see http://x.example/a.\n"
	r := fetchCmd(t, "", text, "extract")
	want := "ftp://info.cern.ch/pub/www/doc;type=d\nhttp://x.example/a\n"
	if r.code != 0 || r.stdout != want {
		t.Errorf("fetch extract = %d %q, want %q", r.code, r.stdout, want)
	}
	r = fetchCmd(t, "", text, "extract", "--json")
	if !strings.Contains(r.stdout, `"start":27`) {
		t.Errorf("fetch extract --json = %q", r.stdout)
	}
}

func TestHelpAndVersion(t *testing.T) {
	r := fetchCmd(t, "", "", "--help")
	for _, want := range []string{"file:///", "http://", "ftp://", "gopher://", "news:", "nntp://", "wais://", "mailto:", "telnet://", "Exit codes:", "--allow-port", "--netrc-file"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("--help lacks %q", want)
		}
	}
	for _, flag := range []string{"--version", "-V"} {
		r := fetchCmd(t, "", "", flag)
		for _, want := range []string{"fetch v", "(commit ", runtime.Version(), "schemes: cid file ftp ftps gopher http https mailto mid news nntp"} {
			if r.code != 0 || !strings.Contains(r.stdout, want) {
				t.Errorf("%s = %d %q, want %q in it", flag, r.code, r.stdout, want)
			}
		}
	}
}

func TestOutputName(t *testing.T) {
	tests := []struct{ in, want string }{
		{"ftp://h/pub/file.tar.gz;type=i", "file.tar.gz"},
		{"ftp://h/pub/..;type=i", "index"},
		{"ftp://h/a%2F..%2F..%2Fetc%2Fpasswd", "passwd"},
		{"http://h/dir/", "dir"},
		{"http://h/", "index"},
		{"http://h/a%00b%0Ac", "a_b_c"},
		{"gopher://h/9/files/big%20one.zip", "big one.zip"},
		{"file:///tmp/..%5C..%5Cx", "x"},
		{"news:abc@example.org", "abc@example.org"},
		// Issue 12: shortened to 255 bytes with a hash of the whole name.
		{"http://h/" + strings.Repeat("a", 300), strings.Repeat("a", 242) + "~9835fa6bf4e2"},
	}
	for _, tt := range tests {
		if got := outputName(uri.MustParse(tt.in)); got != tt.want {
			t.Errorf("outputName(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestOutputToDevice(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "x")
	os.WriteFile(p, []byte("data"), 0o644)
	if r := fetchCmd(t, dir, "", "-o", "/dev/null", fileURL(p)); r.code != 0 {
		t.Errorf("fetch -o /dev/null: exit %d %q", r.code, r.stderr)
	}
}

// -O never writes through a symbolic link planted in the target
// directory: the link is replaced, its target left alone.
func TestRemoteNameReplacesPlantedSymlink(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "src")
	os.Mkdir(src, 0o755)
	p := filepath.Join(src, "victim.txt")
	os.WriteFile(p, []byte("fetched"), 0o644)
	outside := filepath.Join(dir, "outside.txt")
	os.WriteFile(outside, []byte("precious"), 0o644)
	target := filepath.Join(dir, "target")
	os.Mkdir(target, 0o755)
	if err := os.Symlink(outside, filepath.Join(target, "victim.txt")); err != nil {
		t.Fatal(err)
	}
	r := fetchCmd(t, dir, "", "-O", "--dir", target, fileURL(p))
	if r.code != 0 {
		t.Fatalf("fetch -O: exit %d %q", r.code, r.stderr)
	}
	if b, _ := os.ReadFile(outside); string(b) != "precious" {
		t.Errorf("the symlink's target was overwritten: %q", b)
	}
	fi, err := os.Lstat(filepath.Join(target, "victim.txt"))
	if err != nil || !fi.Mode().IsRegular() {
		t.Errorf("target/victim.txt is %v, %v; want a regular file", fi, err)
	}
}
