package main

import (
	"github.com/urfave/cli/v2"
	"github.com/urlfetch/urlfetch/fetch"
	"github.com/urlfetch/urlfetch/fetch/all"
	"github.com/urlfetch/urlfetch/fetch/ftp"
)

// ftpOptions are the ftp driver's options: how a path reaches the server
// (curl's --ftp-method), the anonymous password, passive mode and
// pipelining.
func ftpOptions() driverOption {
	return driverOption{
		title: "ftp and ftps",
		flags: []cli.Flag{
			&cli.StringFlag{Name: "ftp-method", Value: "multicwd", Usage: "how an ftp: path reaches the server: `METHOD` multicwd (one CWD per segment, as RFC 1738 says), singlecwd (one CWD of the whole directory path) or nocwd (no CWD; RETR the full path)"},
			&cli.StringFlag{Name: "ftp-anonymous-password", Usage: "log in to ftp: URLs without a user as anonymous with `PASSWORD` (default: your e-mail address as USER@HOST)"},
			&cli.BoolFlag{Name: "ftp-pasv", Usage: "open FTP data connections with PASV only, without trying EPSV first"},
			&cli.BoolFlag{Name: "ftp-no-pipelining", Usage: "send each FTP command only after the reply to the last, for servers that lose commands sent ahead"},
		},
		configure: func(c *cli.Context, _ *fetch.Client, ds *all.Drivers) error {
			return configureFTP(c, ds.FTP)
		},
	}
}

// configureFTP sets the ftp driver's settings from its options.
func configureFTP(c *cli.Context, d *ftp.Driver) error {
	m, err := ftp.ParseCWDMethod(c.String("ftp-method"))
	if err != nil {
		return cli.Exit("--ftp-method: "+err.Error(), exitUsage)
	}
	d.CWDMethod = m
	d.AnonymousPassword = c.String("ftp-anonymous-password")
	d.DisableEPSV = c.Bool("ftp-pasv")
	d.NoPipelining = c.Bool("ftp-no-pipelining")
	// The modification time is used only by --json and -R: without
	// them MDTM would cost the server a command a file for nothing.
	d.SkipModTime = !c.Bool("json") && !c.Bool("remote-time")
	return nil
}
