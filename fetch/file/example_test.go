package file_test

import (
	"context"
	"fmt"
	"io"
	"log"
	"os"
	"path/filepath"
	"slices"

	"github.com/urlfetch/urlfetch/fetch"
	"github.com/urlfetch/urlfetch/fetch/file"
	"github.com/urlfetch/urlfetch/uri"
)

func Example() {
	dir, err := os.MkdirTemp("", "example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	os.WriteFile(filepath.Join(dir, "read me.txt"), []byte("hello, world\n"), 0o644)
	os.Mkdir(filepath.Join(dir, "src"), 0o755)

	c := &fetch.Client{}
	c.Register("file", &file.Driver{})
	ctx := context.Background()

	// A file: its URL is built with the uri package, which encodes the space.
	doc := (&uri.File{Path: filepath.ToSlash(dir) + "/read me.txt"}).String()
	resp, err := c.Fetch(ctx, doc)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(resp.Kind, resp.Type, resp.Length)
	io.Copy(os.Stdout, resp.Body)
	resp.Body.Close()

	// A directory: a listing whose entries carry their own URLs.
	resp, err = c.Fetch(ctx, (&uri.File{Path: filepath.ToSlash(dir) + "/"}).String())
	if err != nil {
		log.Fatal(err)
	}
	defer resp.Body.Close()
	var lines []string
	for e, err := range resp.Entries() {
		if err != nil {
			log.Fatal(err)
		}
		rel := e.URL[len(resp.URL.String()):]
		lines = append(lines, fmt.Sprintf("%-4v %2d %s", e.Type, e.Size, rel))
	}
	slices.Sort(lines) // a listing comes in the file system's order
	for _, l := range lines {
		fmt.Println(l)
	}
	// Output:
	// document text/plain; charset=utf-8 13
	// hello, world
	// dir  -1 src/
	// file 13 read%20me.txt
}
