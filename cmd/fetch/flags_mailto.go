package main

import (
	"github.com/urfave/cli/v2"
	"github.com/urlfetch/urlfetch/fetch"
	"github.com/urlfetch/urlfetch/fetch/all"
	"github.com/urlfetch/urlfetch/fetch/mailto"
)

// mailtoOptions are the mailto driver's options: the SMTP server that
// sends the message (a mailto URL names none, RFC 1738 section 3.5), the
// sender, the subject, a file holding the message in place of standard
// input, and the user to log in as (its password from netrc for the
// server's host, or a prompt).
func mailtoOptions() driverOption {
	return driverOption{
		title: "mailto",
		flags: []cli.Flag{
			&cli.StringFlag{Name: "smtp-server", Value: mailto.DefaultServer, Usage: "send the messages of mailto: URLs through the SMTP server at `HOST:PORT` (STARTTLS when it offers it)"},
			&cli.StringFlag{Name: "from", Usage: "send mailto: messages from `ADDRESS` (\"ann@example.org\" or \"Ann <ann@example.org>\"; default: your user name at this host)"},
			&cli.StringFlag{Name: "subject", Usage: "the `SUBJECT` of a mailto: message that has no header of its own (default: the URL's subject)"},
			&cli.StringFlag{Name: "body", Usage: "send the message in `FILE` to mailto: URLs instead of standard input (a header block at its top is kept)"},
			&cli.StringFlag{Name: "smtp-user", Usage: "log in to the SMTP server as `USER` (AUTH; the password from netrc for the server's host, or asked for)"},
		},
		configure: func(c *cli.Context, _ *fetch.Client, ds *all.Drivers) error {
			return configureMailto(c, ds.Mailto)
		},
	}
}

// configureMailto checks the mailto driver's options and sets its
// settings from them.
func configureMailto(c *cli.Context, d *mailto.Driver) error {
	if _, _, err := fetch.SplitAddr(c.String("smtp-server"), 25); err != nil {
		return cli.Exit("--smtp-server: "+err.Error(), exitUsage)
	}
	if from := c.String("from"); from != "" {
		if err := fetch.CheckLine("--from", from); err != nil {
			return cli.Exit(err.Error(), exitUsage)
		}
		if _, err := mailto.ParseFrom(from); err != nil {
			return cli.Exit("--from: "+err.Error(), exitUsage)
		}
	}
	if err := fetch.CheckLine("--subject", c.String("subject")); err != nil {
		return cli.Exit(err.Error(), exitUsage)
	}
	d.Server = c.String("smtp-server")
	d.From = c.String("from")
	d.Subject = c.String("subject")
	d.BodyFile = c.String("body")
	d.Username = c.String("smtp-user")
	return nil
}
