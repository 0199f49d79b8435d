package telnet_test

import (
	"context"
	"io"
	"log"
	"os"

	"github.com/urlfetch/urlfetch/fetch"
	"github.com/urlfetch/urlfetch/fetch/telnet"
)

// A telnet URL opens a session: log in at the server's prompts, run a
// command, and print the conversation until the server closes it.
func Example() {
	c := &fetch.Client{}
	c.Register("telnet", &telnet.Driver{Login: true})
	resp, err := c.Fetch(context.Background(), "telnet://guest:guest@bbs.example.org/")
	if err != nil {
		log.Fatal(err)
	}
	defer resp.Body.Close()
	// The Conn takes what a keyboard would type; the Body is the screen.
	if _, err := io.WriteString(resp.Conn, "who\nlogout\n"); err != nil {
		log.Fatal(err)
	}
	if _, err := io.Copy(os.Stdout, resp.Body); err != nil {
		log.Fatal(err)
	}
}
