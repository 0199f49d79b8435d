//go:build integration

package integration

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/urlfetch/urlfetch/fetch/fetchtest"
	"github.com/urlfetch/urlfetch/fetch/file"
	"github.com/urlfetch/urlfetch/uri"
)

func fileURLOf(path string) string { return (&uri.File{Path: path}).String() }

// The file driver on the harness's own content: the generated 64 MiB file
// through the command, by SHA-256 and peak RSS.
func TestFileBigFileStreams(t *testing.T) {
	dir := t.TempDir()
	r := runFetch(t, dir, "-O", fileURLOf(env(t, "BIG_FILE")))
	if r.code != 0 {
		t.Fatalf("fetch -O big.bin: exit %d: %s", r.code, r.stderr)
	}
	f, err := os.Open(filepath.Join(dir, "big.bin"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if sum, _, err := sha256Of(f); err != nil || sum != env(t, "BIG_SHA256") {
		t.Errorf("big.bin sha256 %s, %v; want %s", sum, err, env(t, "BIG_SHA256"))
	}
	t.Logf("peak RSS of fetch for 64 MiB from a file: %.1f MiB", float64(r.maxRSS)/(1<<20))
	if r.maxRSS >= 40<<20 {
		t.Errorf("peak RSS = %d bytes, want under 40 MiB", r.maxRSS)
	}
}

func TestFileConformance(t *testing.T) {
	root := env(t, "HTTP_ROOT")
	hello, err := os.ReadFile(filepath.Join(root, "hello.txt"))
	if err != nil {
		t.Fatal(err)
	}
	fetchtest.Run(t, fetchtest.Opt{
		Scheme: "file",
		Driver: &file.Driver{},
		Found: []fetchtest.Case{
			{URL: fileURLOf(filepath.Join(root, "hello.txt")), Want: string(hello)},
			{URL: fileURLOf(filepath.Join(root, "with space.txt"))},
			{URL: fileURLOf(env(t, "BIG_FILE")), SHA256: env(t, "BIG_SHA256")},
		},
		Missing: fileURLOf(filepath.Join(root, "missing.txt")),
		Listing: fileURLOf(filepath.Join(root, "dir")) + "/",
		Inject:  []string{fileURLOf(root) + "/a%00b"},
		Caps:    fetchtest.Caps{Resume: true},
	})
}
