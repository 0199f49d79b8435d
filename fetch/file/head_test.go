package file_test

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/urlfetch/urlfetch/fetch"
	"github.com/urlfetch/urlfetch/fetch/fetchtest"
)

// head asks for rawURL's metadata (fetch.Request.Head).
func head(t *testing.T, rawURL string) (*fetch.Response, error) {
	t.Helper()
	return fetchtest.Head(t, newClient(), rawURL)
}

// Issue 22, point 2: a Head is the file's stat: its size and time, a
// directory a Listing whose entries are not read.
func TestHead(t *testing.T) {
	dir := t.TempDir()
	p := writeFile(t, filepath.Join(dir, "data"), "\x00\x01binary")
	when := time.Date(1994, 12, 20, 10, 0, 0, 0, time.UTC)
	if err := os.Chtimes(p, when, when); err != nil {
		t.Fatal(err)
	}
	resp, err := head(t, fileURL(p))
	if err != nil || resp.Kind != fetch.Document || resp.Length != 8 || !resp.Modified.Equal(when) || resp.Type != "application/octet-stream" {
		t.Errorf("Head(file) = %+v, %v; want a document of 8 bytes, %v, sniffed application/octet-stream", resp, err, when)
	}
	if err := os.Chtimes(dir, when, when); err != nil {
		t.Fatal(err)
	}
	resp, err = head(t, fileURL(dir)+"/")
	if err != nil || resp.Kind != fetch.Listing || resp.Length != -1 || !resp.Modified.Equal(when) {
		t.Errorf("Head(directory) = %+v, %v; want a listing of %v", resp, err, when)
	}
	if _, err := head(t, fileURL(filepath.Join(dir, "missing"))); !errors.Is(err, fetch.ErrNotFound) {
		t.Errorf("Head(missing) = %v, want ErrNotFound", err)
	}
}

// A file the user may not read fails under Head as under a fetch.
func TestHeadDenied(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root reads every file")
	}
	p := writeFile(t, filepath.Join(t.TempDir(), "denied"), "x")
	if err := os.Chmod(p, 0); err != nil {
		t.Fatal(err)
	}
	if _, err := head(t, fileURL(p)); !errors.Is(err, fetch.ErrAuth) {
		t.Errorf("Head(unreadable) = %v, want ErrAuth", err)
	}
}
