package main

import (
	"strings"

	"github.com/urfave/cli/v2"
	"github.com/urlfetch/urlfetch/fetch"
	"github.com/urlfetch/urlfetch/fetch/all"
	"github.com/urlfetch/urlfetch/uri"
)

// midOptions are the mid driver's options: the body of mail mid: URLs are
// looked up in (RFC 1630: "access to a body of mail already received"),
// from --mailbox or $MAIL, the variable that names a user's mailbox on
// Unix; and the message cid: URLs resolve against. A news server
// (--news-server, $NNTPSERVER) also makes a message-id the mailbox lacks
// an ARTICLE for it: message-ids are one space for mail and news.
func midOptions() driverOption {
	return driverOption{
		title: "mid and cid",
		flags: []cli.Flag{
			&cli.StringFlag{Name: "mailbox", EnvVars: []string{"MAIL"}, Usage: "look mid: URLs up in `MAILBOX`: a Maildir directory, an mbox file, or an IMAP mailbox imaps://USER@HOST/INBOX (password from ~/.netrc or asked for)"},
			&cli.StringFlag{Name: "message", Usage: "resolve cid: URLs against the message in `FILE` (default: the message the last mid: URL named)"},
		},
		configure: func(c *cli.Context, _ *fetch.Client, ds *all.Drivers) error {
			box := c.String("mailbox")
			if lower := strings.ToLower(box); strings.HasPrefix(lower, "imap://") || strings.HasPrefix(lower, "imaps://") {
				u, err := uri.Parse(box)
				if err != nil {
					return cli.Exit("--mailbox: "+err.Error(), exitUsage)
				}
				if !u.Authority || u.Host == "" {
					return cli.Exit("--mailbox: an IMAP mailbox is imaps://USER@HOST[:PORT]/MAILBOX", exitUsage)
				}
			}
			ds.MID.Mailbox = box
			ds.MID.Message = c.String("message")
			// The news options come first (driverOptions' order).
			ds.MID.NewsFallback = ds.NNTP.Server != ""
			return nil
		},
	}
}
