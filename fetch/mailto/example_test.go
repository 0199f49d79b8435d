package mailto_test

import (
	"context"
	"fmt"
	"log"
	"strings"

	"github.com/urlfetch/urlfetch/fetch"
	"github.com/urlfetch/urlfetch/fetch/mailto"
)

// Sending a message to a mailto URL of RFC 6068 through the SMTP server of
// example.org, logged in as ann (the password from netrc, or the Client's
// Prompt). The message has no header of its own: the driver writes one
// with the URL's subject.
func Example() {
	c := &fetch.Client{}
	c.Register("mailto", &mailto.Driver{
		Server:   "smtp.example.org:587",
		From:     "Ann <ann@example.org>",
		Username: "ann",
	})
	req, err := c.NewRequest("mailto:bob@example.org?subject=Lunch&cc=cy@example.org")
	if err != nil {
		log.Fatal(err)
	}
	req.Input = strings.NewReader("Noon at the usual place?\n")
	resp, err := c.Do(context.Background(), req)
	if err != nil {
		log.Fatal(err)
	}
	defer resp.Body.Close()
	fmt.Println(resp.Kind, resp.Meta.Get("Reply"), resp.Meta.Values("Recipient"))
}
