package nntp_test

import (
	"context"
	"fmt"
	"io"
	"log"
	"os"

	"github.com/urlfetch/urlfetch/fetch"
	"github.com/urlfetch/urlfetch/fetch/nntp"
)

// A group's newest articles, then the first of them: news: URLs name no
// server, so the Driver's Server says which one to ask. Both fetches use
// one connection, which Close ends with QUIT.
func Example() {
	d := &nntp.Driver{Server: "news.example.org", MaxEntries: 20}
	c := &fetch.Client{}
	c.Register("news", d)
	c.Register("nntp", d)
	defer c.Close()
	ctx := context.Background()

	resp, err := c.Fetch(ctx, "news:comp.lang.go")
	if err != nil {
		log.Fatal(err)
	}
	var first string
	for e, err := range resp.Entries() {
		if err != nil {
			log.Print(err) // a line the server garbled; the listing goes on
			continue
		}
		fmt.Printf("%6s %s %s\n", e.Name, e.Time.Format("2006-01-02"), e.Title)
		if first == "" {
			first = e.URL // news:<message-id>
		}
	}
	resp.Body.Close()

	resp, err = c.Fetch(ctx, first)
	if err != nil {
		log.Fatal(err)
	}
	defer resp.Body.Close()
	fmt.Println("Subject:", resp.Meta.Get("Subject"))
	io.Copy(os.Stdout, resp.Body) // the whole article, as message/rfc822
}
