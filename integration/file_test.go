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
	checkBigFile(t, fileURLOf(env(t, "BIG_FILE")))
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
		Caps:    fetchtest.Caps{Resume: true, NoServer: true},
	})
}
