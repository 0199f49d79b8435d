package outfile

import (
	"os"
	"path/filepath"
	"testing"
)

// Where /proc cannot name an unnamed file, a temporary name and a rename
// do the same.
func TestAtomicFileWithoutTmpfile(t *testing.T) {
	defer func(old func() bool) { procFD = old }(procFD)
	procFD = func() bool { return false }
	testAtomicFile(t)
}

// On Linux the unfinished file has no name at all: a fetch killed
// mid-transfer leaves nothing in the directory.
func TestAtomicFileUnnamed(t *testing.T) {
	if !procFD() {
		t.Skip("no /proc/self/fd")
	}
	dir := t.TempDir()
	a, err := Create(filepath.Join(dir, "out"))
	if err != nil {
		t.Fatal(err)
	}
	defer a.Abort()
	if a.tmp != "" {
		t.Skipf("no O_TMPFILE here: temporary name %s", a.tmp)
	}
	a.WriteString("partial")
	if des, _ := os.ReadDir(dir); len(des) != 0 {
		t.Errorf("the directory holds %d entries during the transfer, want none", len(des))
	}
}
