package gopher_test

import (
	"context"
	"fmt"
	"io"
	"log"
	"os"
	"strings"

	"github.com/urlfetch/urlfetch/fetch"
	"github.com/urlfetch/urlfetch/fetch/gopher"
)

// A menu line becomes an entry whose URL is the item's own, encoded: the
// space in the selector, and the "+" that marks a Gopher+ item after an
// empty search (RFC 1738 sections 3.4.3 and 3.4.4).
func ExampleParseItem() {
	it, err := gopher.ParseItem("0Read me first\t/docs/read me.txt\tgopher.example.org\t70\t+")
	if err != nil {
		log.Fatal(err)
	}
	e, err := it.Entry()
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(it.Type, e.Type, e.Media)
	fmt.Println(e.Name)
	fmt.Println(e.URL)
	// Output:
	// text file text/plain
	// Read me first
	// gopher://gopher.example.org/0/docs/read%20me.txt%09%09+
}

// The reply to "selector TAB !" is a list of attribute blocks.
func ExampleParseAttributes() {
	reply := "+INFO: 0Salmon dogs\tsome selector\thost2\t70\t+\r\n" +
		"+ADMIN:\r\n Admin: Frodo Gophermeister <fng@bogus.edu>\r\n Mod-Date: August 15, 1992 <19920815185503>\r\n" +
		"+VIEWS:\r\n Text/plain: <10k>\r\n application/Postscript De_DE: <100k>\r\n" +
		"+ASK:\r\n Ask: How many volts?\r\n Choose: Deliver electric shock to administrator now?\tYes\tNot!\r\n"
	items, err := gopher.ParseAttributes(strings.NewReader(reply))
	if err != nil {
		log.Fatal(err)
	}
	a := items[0]
	it, _ := a.Item()
	mod, _ := a.Modified()
	fmt.Println(it.Display, mod.Format("2006-01-02 15:04:05"))
	fmt.Println(a.Get("+VIEWS").Lines)
	qs, _ := gopher.ParseAsk(a.Get("+ASK"))
	for _, q := range qs {
		fmt.Printf("%s: %s\n", q.Kind, q)
	}
	// Output:
	// Salmon dogs 1992-08-15 18:55:03
	// [Text/plain: <10k> application/Postscript De_DE: <100k>]
	// Ask: How many volts?
	// Choose: Deliver electric shock to administrator now? (Yes, Not!)
}

// A Client with the gopher driver, answering +ASK forms and search
// prompts on the terminal. (Not run: it needs a Gopher server.)
func Example_client() {
	tty, err := os.OpenFile("/dev/tty", os.O_RDWR, 0)
	if err != nil {
		log.Fatal(err)
	}
	defer tty.Close()
	c := &fetch.Client{}
	c.Register("gopher", &gopher.Driver{Ask: gopher.LinePrompter(tty, tty)})

	resp, err := c.Fetch(context.Background(), "gopher://gopher.floodgap.com/7/v2/vs")
	if err != nil {
		log.Fatal(err)
	}
	defer resp.Body.Close()
	for e, err := range resp.Entries() {
		if err != nil {
			log.Print(err)
			continue
		}
		fmt.Println(e.Type, e.Name, e.URL)
	}
	io.Copy(io.Discard, resp.Body)
}
