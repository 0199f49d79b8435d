package main

import (
	"os"
	"regexp"

	"github.com/urfave/cli/v2"
	"github.com/urlfetch/urlfetch/fetch"
	"github.com/urlfetch/urlfetch/fetch/all"
	"github.com/urlfetch/urlfetch/fetch/telnet"
	"golang.org/x/term"
)

// telnetOptions are the telnet driver's options: whether to log in with
// the URL's user and password, and the prompts that say when.
func telnetOptions() driverOption {
	return driverOption{
		title: "telnet",
		flags: []cli.Flag{
			&cli.BoolFlag{Name: "login", Usage: "telnet: log in with the URL's user and password at the server's login and password prompts (RFC 1738 section 3.8: they are advisory)"},
			&cli.StringFlag{Name: "login-prompt", Value: telnet.DefaultLoginPrompt, Usage: "telnet: with --login, the `REGEXP` the server's login prompt (its last line) matches"},
			&cli.StringFlag{Name: "password-prompt", Value: telnet.DefaultPasswordPrompt, Usage: "telnet: with --login, the `REGEXP` the server's password prompt matches"},
		},
		configure: func(c *cli.Context, _ *fetch.Client, ds *all.Drivers) error {
			return configureTelnet(c, ds.Telnet)
		},
	}
}

// configureTelnet sets the telnet driver's login and, when standard
// input is a terminal, the terminal type and size it reports.
func configureTelnet(c *cli.Context, d *telnet.Driver) error {
	d.Login = c.Bool("login")
	for _, p := range []struct {
		flag string
		re   **regexp.Regexp
	}{{"login-prompt", &d.LoginPrompt}, {"password-prompt", &d.PasswordPrompt}} {
		re, err := regexp.Compile(c.String(p.flag))
		if err != nil {
			return cli.Exit("--"+p.flag+": "+err.Error(), exitUsage)
		}
		*p.re = re
	}
	if f, ok := c.App.Reader.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		d.Term = os.Getenv("TERM")
		fd := int(f.Fd())
		d.WindowSize = func() (int, int, bool) {
			w, h, err := term.GetSize(fd)
			return w, h, err == nil && w > 0 && h > 0
		}
	}
	return nil
}
