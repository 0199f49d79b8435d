package wais_test

import (
	"context"
	"fmt"
	"io"
	"log"
	"os"

	"github.com/urlfetch/urlfetch/fetch"
	"github.com/urlfetch/urlfetch/fetch/wais"
)

// A search, then the first hit's document. The example needs a WAIS or
// Z39.50 server, so it is not run.
func Example() {
	c := &fetch.Client{}
	c.Register("wais", &wais.Driver{})
	ctx := context.Background()

	resp, err := c.Fetch(ctx, "wais://wais.example.org/harness?ochre+aardvark")
	if err != nil {
		log.Fatal(err)
	}
	var first string
	for e, err := range resp.Entries() {
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("%6d bytes  %s  (%s)\n", e.Size, e.Name, e.Title)
		if first == "" {
			first = e.URL
		}
	}
	resp.Body.Close()
	if first == "" {
		return
	}

	doc, err := c.Fetch(ctx, first)
	if err != nil {
		log.Fatal(err)
	}
	defer doc.Body.Close()
	io.Copy(os.Stdout, doc.Body)
}
