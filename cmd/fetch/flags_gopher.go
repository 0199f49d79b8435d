package main

import (
	"github.com/urfave/cli/v2"
	"github.com/urlfetch/urlfetch/fetch"
	"github.com/urlfetch/urlfetch/fetch/gopher"
)

// The gopher driver's options: the words of a type-7 search whose URL
// carries none (RFC 1738 section 3.4.2).
func init() {
	driverOptions = append(driverOptions, driverOption{
		flags: []cli.Flag{
			&cli.StringFlag{Name: "search", Usage: "search for `WORDS` when a gopher type-7 URL carries no search (gopher://host/7/selector)"},
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
			return nil
		},
	})
}
