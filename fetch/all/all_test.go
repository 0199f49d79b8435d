package all_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/urlfetch/urlfetch/fetch"
	"github.com/urlfetch/urlfetch/fetch/all"
	"github.com/urlfetch/urlfetch/uri"
)

func TestSchemes(t *testing.T) {
	c := all.NewClient()
	for _, s := range []string{"file", "http", "https"} {
		if c.Driver(s) == nil {
			t.Errorf("all.NewClient has no driver for %s", s)
		}
	}
}

// Drivers.Register gives each scheme the driver of its field, one driver
// to the schemes of one protocol, and registers the schemes Register does.
func TestDriversRegister(t *testing.T) {
	d := all.NewDrivers()
	c := &fetch.Client{}
	d.Register(c)
	for _, tt := range []struct {
		scheme string
		want   fetch.Driver
	}{
		{"file", d.File}, {"ftp", d.FTP}, {"gopher", d.Gopher},
		{"http", d.HTTP}, {"https", d.HTTP}, {"mailto", d.Mailto},
		{"news", d.NNTP}, {"nntp", d.NNTP}, {"snews", d.NNTP}, {"nntps", d.NNTP},
		{"telnet", d.Telnet}, {"rlogin", d.Telnet}, {"tn3270", d.Telnet},
		{"wais", d.WAIS},
	} {
		if got := c.Driver(tt.scheme); got != tt.want {
			t.Errorf("Driver(%q) = %T %p, want the Drivers' %T %p", tt.scheme, got, got, tt.want, tt.want)
		}
	}
	if got, want := c.Schemes(), all.NewClient().Schemes(); !slices.Equal(got, want) {
		t.Errorf("Schemes() = %q, want all.NewClient's %q", got, want)
	}
}

// An http.Client gains the file: scheme through fetch.Transport.
func TestHTTPClientFetchesFileURL(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "hello world.txt")
	if err := os.WriteFile(p, []byte("hello through net/http\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tr := &http.Transport{}
	tr.RegisterProtocol("file", &fetch.Transport{Client: all.NewClient()})
	hc := &http.Client{Transport: tr}

	rawURL := (&uri.File{Path: p}).String()
	resp, err := hc.Get(rawURL)
	if err != nil {
		t.Fatalf("http.Client.Get(%q): %v", rawURL, err)
	}
	b, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil || resp.StatusCode != 200 || string(b) != "hello through net/http\n" {
		t.Fatalf("http.Client.Get(%q) = %d %q %v", rawURL, resp.StatusCode, b, err)
	}
	if ct := resp.Header.Get("Content-Type"); ct != "text/plain; charset=utf-8" {
		t.Errorf("Content-Type = %q", ct)
	}
	if resp.ContentLength != 23 {
		t.Errorf("ContentLength = %d, want 23", resp.ContentLength)
	}

	resp, err = hc.Get((&uri.File{Path: filepath.Join(dir, "missing")}).String())
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNotFound {
		t.Errorf("missing file: status %d, want 404", resp.StatusCode)
	}
}

func ExampleNewClient() {
	dir, _ := os.MkdirTemp("", "example")
	defer os.RemoveAll(dir)
	os.WriteFile(filepath.Join(dir, "motd"), []byte("Welcome.\n"), 0o644)

	c := all.NewClient()
	defer c.Close()
	resp, err := c.Fetch(context.Background(), "file://"+filepath.ToSlash(dir)+"/motd")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer resp.Body.Close()
	io.Copy(os.Stdout, resp.Body)
	fmt.Println(resp.Kind, resp.Type, resp.Length)
	// Output:
	// Welcome.
	// document text/plain; charset=utf-8 9
}
