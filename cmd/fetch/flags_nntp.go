package main

import (
	"github.com/urfave/cli/v2"
	"github.com/urlfetch/urlfetch/fetch"
	"github.com/urlfetch/urlfetch/fetch/all"
	"github.com/urlfetch/urlfetch/fetch/nntp"
)

// nntpOptions are the news driver's options: the server of news: URLs,
// which name none (RFC 1738 section 3.6), from --news-server or
// $NNTPSERVER as lynx and the newsreaders of its time read it; and how
// many articles a group listing shows.
func nntpOptions() driverOption {
	return driverOption{
		title: "news and nntp",
		flags: []cli.Flag{
			&cli.StringFlag{Name: "news-server", EnvVars: []string{"NNTPSERVER"}, Usage: "fetch news: and snews: URLs from `HOST[:PORT]` (port 119 by default, 563 for snews:)"},
			&cli.IntFlag{Name: "max-entries", Value: nntp.DefaultMaxEntries, Usage: "list the newest `N` articles of a news group, newest first (0: every article)"},
		},
		configure: func(c *cli.Context, _ *fetch.Client, ds *all.Drivers) error {
			return configureNNTP(c, ds.NNTP)
		},
	}
}

// configureNNTP sets the news driver's server and listing size from its
// options.
func configureNNTP(c *cli.Context, d *nntp.Driver) error {
	if s := c.String("news-server"); s != "" {
		if _, _, err := fetch.SplitAddr(s, nntp.DefaultPort); err != nil {
			return cli.Exit("--news-server (or NNTPSERVER): "+err.Error(), exitUsage)
		}
		d.Server = s
	}
	switch n := c.Int("max-entries"); {
	case n < 0:
		return cli.Exit("--max-entries: want 0 (every article) or more", exitUsage)
	case n == 0:
		d.MaxEntries = -1
	default:
		d.MaxEntries = n
	}
	return nil
}
