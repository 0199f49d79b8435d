package main

import (
	"context"
	"fmt"
	"os"

	"github.com/urfave/cli/v2"
	"github.com/urlfetch/urlfetch/fetch"
	"github.com/urlfetch/urlfetch/fetch/gopher"
	"golang.org/x/term"
)

// The gopher driver's options: the words of a type-7 search whose URL
// carries none (RFC 1738 section 3.4.2).
func init() {
	driverOptions = append(driverOptions, driverOption{
		flags: []cli.Flag{
			&cli.StringFlag{Name: "search", Usage: "search for `WORDS` when a gopher type-7 URL (gopher://host/7/selector) or a wais database URL (wais://host/db) carries no search"},
		},
		configure: func(c *cli.Context, cl *fetch.Client) error {
			d, ok := cl.Driver("gopher").(*gopher.Driver)
			if !ok {
				if c.IsSet("search") {
					return cli.Exit("--search: no gopher driver of this package is registered", exitUsage)
				}
				return nil
			}
			d.Search = c.String("search")
			if d.Ask == nil {
				d.Ask = terminalAsk()
			}
			return nil
		},
	})
}

// terminalAsk asks a search's words and a +ASK form's questions on the
// terminal, a password without echo. Without a terminal it is nil, and
// the driver's errors say to use --search or a filled-in URL.
func terminalAsk() func(context.Context, gopher.Question) (string, error) {
	probe, err := os.OpenFile("/dev/tty", os.O_RDWR, 0)
	if err != nil {
		return nil
	}
	probe.Close()
	return func(ctx context.Context, q gopher.Question) (string, error) {
		tty, err := os.OpenFile("/dev/tty", os.O_RDWR, 0)
		if err != nil {
			return "", err
		}
		defer tty.Close()
		if q.Kind == "AskP" {
			fmt.Fprintf(tty, "%s: ", q)
			pw, err := term.ReadPassword(int(tty.Fd()))
			fmt.Fprintln(tty)
			return string(pw), err
		}
		return gopher.LinePrompter(tty, tty)(ctx, q)
	}
}
