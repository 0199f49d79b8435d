package outfile

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// The output file appears under its name only on Commit, with exactly
// the bytes written, and replaces a file or a planted symbolic link there
// without writing through it; Abort leaves nothing. No temporary file is
// left in the directory either way.
func TestAtomicFile(t *testing.T) { testAtomicFile(t) }

func testAtomicFile(t *testing.T) {
	t.Helper()
	entries := func(dir string) []string {
		des, err := os.ReadDir(dir)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, de := range des {
			names = append(names, de.Name())
		}
		return names
	}
	write := func(path, data string) *File {
		a, err := Create(path)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := a.WriteString(data); err != nil {
			t.Fatal(err)
		}
		return a
	}
	check := func(path, want string) {
		t.Helper()
		fi, err := os.Lstat(path)
		if err != nil || !fi.Mode().IsRegular() {
			t.Fatalf("%s: %v, mode %v; want a regular file", path, err, fi.Mode())
		}
		if b, _ := os.ReadFile(path); string(b) != want {
			t.Errorf("%s holds %q, want %q", path, b, want)
		}
	}

	// A new name.
	dir := t.TempDir()
	out := filepath.Join(dir, "out.txt")
	a := write(out, "first")
	if names := entries(dir); slices.Contains(names, "out.txt") {
		t.Errorf("before Commit the directory holds %q", names)
	}
	if err := a.Commit(); err != nil {
		t.Fatal(err)
	}
	check(out, "first")
	if err := a.Commit(); err == nil {
		t.Error("a second Commit succeeded")
	}
	a.Abort() // after Commit: nothing
	check(out, "first")

	// An existing file is replaced.
	a = write(out, "second")
	check(out, "first")
	if err := a.Commit(); err != nil {
		t.Fatal(err)
	}
	check(out, "second")

	// A planted symbolic link is replaced, its target untouched.
	target := filepath.Join(t.TempDir(), "target")
	if err := os.WriteFile(target, []byte("victim"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.txt")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	a = write(link, "third")
	if err := a.Commit(); err != nil {
		t.Fatal(err)
	}
	check(link, "third")
	check(target, "victim")

	// Abort leaves nothing, not even under a name it never had.
	a = write(filepath.Join(dir, "aborted.txt"), "partial")
	a.Abort()
	if names, want := entries(dir), []string{"link.txt", "out.txt"}; !slices.Equal(names, want) {
		t.Errorf("the directory holds %q, want %q", names, want)
	}
}
