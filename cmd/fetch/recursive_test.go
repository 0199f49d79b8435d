package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// recursiveSource makes a small tree to mirror: two files, one in a
// directory below.
func recursiveSource(t *testing.T) string {
	t.Helper()
	src := filepath.Join(t.TempDir(), "src")
	if err := os.MkdirAll(filepath.Join(src, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	for name, content := range map[string]string{"a.txt": "alpha\n", "sub/b.txt": "beta\n"} {
		if err := os.WriteFile(filepath.Join(src, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return src
}

// kinds counts the records of a --json output by kind.
func kinds(t *testing.T, out string) map[string]int {
	t.Helper()
	n := map[string]int{}
	for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
		var rec struct{ Kind string }
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		n[rec.Kind]++
	}
	return n
}

// -r --json gives a record per file saved (document), per listing, and a
// mirror record of the totals; with -N, a skipped record per unchanged
// file. Every record is one of the schema's (runCmd checks them).
func TestRecursiveRecords(t *testing.T) {
	src := recursiveSource(t)
	dir := t.TempDir()
	r := fetchCmd(t, dir, "", "-r", "--json", "--dir", "out", fileURL(src)+"/")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	if k := kinds(t, r.stdout); k["document"] != 2 || k["listing"] != 2 || k["mirror"] != 1 {
		t.Errorf("records %v, want 2 documents, 2 listings, 1 mirror", k)
	}
	saved := filepath.Join(dir, "out", "file", filepath.FromSlash(strings.TrimPrefix(src, "/")), "sub", "b.txt")
	if b, err := os.ReadFile(saved); err != nil || string(b) != "beta\n" {
		t.Errorf("%s: %q, %v", saved, b, err)
	}
	if !regexp.MustCompile(`^fetch: 2 files and 2 listings saved, [0-9]+ B in [0-9.]+m?s\n$`).MatchString(r.stderr) {
		t.Errorf("standard error %q, want the summary line", r.stderr)
	}

	r = fetchCmd(t, dir, "", "-r", "-N", "--json", "--dir", "out", fileURL(src)+"/")
	if k := kinds(t, r.stdout); r.code != 0 || k["skipped"] != 2 || k["document"] != 0 {
		t.Errorf("-N: exit %d, records %v; want 2 skipped, no document", r.code, k)
	}
	if !strings.Contains(r.stderr, "2 unchanged, not fetched (-N)") {
		t.Errorf("-N: standard error %q", r.stderr)
	}

	// A file that cannot be read: an error record, the exit code of its
	// class, and the walk goes on.
	os.Chmod(filepath.Join(src, "a.txt"), 0)
	defer os.Chmod(filepath.Join(src, "a.txt"), 0o644)
	if os.Geteuid() != 0 {
		r = fetchCmd(t, dir, "", "-r", "--json", "--dir", "again", fileURL(src)+"/")
		if k := kinds(t, r.stdout); r.code == 0 || k["error"] != 1 || k["document"] != 1 {
			t.Errorf("an unreadable file: exit %d, records %v; want a failure, 1 error and 1 document", r.code, k)
		}
	}
}

// The options of -r are refused without it, and -r refuses what it has
// no use for; --schemes and --proto-redir set one thing.
func TestRecursiveUsage(t *testing.T) {
	for _, args := range [][]string{
		{"-l", "3", "file:///tmp/"},
		{"--accept", "*.txt", "file:///tmp/"},
		{"-r", "-o", "x", "file:///tmp/"},
		{"-r", "-O", "file:///tmp/"},
		{"-r", "-l", "many", "file:///tmp/"},
		{"-r", "--schemes", "+ftp", "--proto-redir", "=ftp", "file:///tmp/"},
		{"-r", "--accept", "[", "file:///tmp/"},
	} {
		r := fetchCmd(t, t.TempDir(), "", args...)
		if r.code != exitUsage || strings.Count(r.stderr, "\n") != 1 {
			t.Errorf("fetch %q: exit %d, %q; want %d and one line", args, r.code, r.stderr, exitUsage)
		}
	}
}

// On a terminal a recursive run shows its whole progress under the
// transfers' bars, files and bytes done of those known and how many run,
// and ends with its summary line. A FIFO in the tree holds a transfer.
func TestRecursiveProgress(t *testing.T) {
	src := recursiveSource(t)
	_, w := fifoSource(t, src)
	out, err := os.Create(filepath.Join(t.TempDir(), "stdout"))
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	run := startOnPty(t, t.TempDir(), out, "-r", fileURL(src)+"/")
	total := regexp.MustCompile(`^total +[0-9]+ of [0-9]+ files, ` + size + ` of ` + size + ` known, 1 running$`)
	if !shows(run.term, total, 10*time.Second) {
		t.Fatalf("no total line matching %v while the FIFO held its transfer; the terminal shows %q", total, run.term.String())
	}
	w.WriteString("through the fifo\n")
	w.Close()
	code, lines := run.wait(t)
	summary := regexp.MustCompile(`^fetch: 3 files and 2 listings saved, ` + size + ` in [0-9.]+m?s$`)
	if code != 0 || len(lines) == 0 || !summary.MatchString(lines[len(lines)-1]) {
		t.Errorf("exit %d, screen %q; want 0 and the summary line last", code, lines)
	}
}
