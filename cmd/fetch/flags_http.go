package main

import (
	"github.com/urfave/cli/v2"
	"github.com/urlfetch/urlfetch/fetch"
	"github.com/urlfetch/urlfetch/fetch/all"
)

// httpOptions are the http driver's options, with curl's names.
func httpOptions() driverOption {
	return driverOption{
		title: "http and https",
		flags: []cli.Flag{
			&cli.BoolFlag{Name: "compressed", Usage: "ask http and https servers for a gzip-compressed body (Accept-Encoding: gzip) and decode it: the output is the same document, fewer bytes cross the network; a body that does not decode fails (exit 8)"},
		},
		configure: func(c *cli.Context, _ *fetch.Client, ds *all.Drivers) error {
			ds.HTTP.Compressed = c.Bool("compressed")
			return nil
		},
	}
}
