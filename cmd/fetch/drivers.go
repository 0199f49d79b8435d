package main

import (
	"github.com/urfave/cli/v2"
	"github.com/urlfetch/urlfetch/fetch"
	"github.com/urlfetch/urlfetch/fetch/all"
)

// driverOption is one group of the command's options beyond fetchFlags:
// its flags and how their values configure the run's Client and the
// drivers registered with it. The file of each group (flags_ftp.go,
// flags_policy.go, ...) holds its flags and its configure function.
type driverOption struct {
	title     string // the help's group: a scheme's, or what it is about
	flags     []cli.Flag
	configure func(c *cli.Context, cl *fetch.Client, ds *all.Drivers) error
}

// driverOptions returns the groups in the order --help lists their flags
// and optionsFrom applies them (so, with several bad options, the first
// one's error is the one reported): what the Client may do and through
// what (redirects, schemes, gateways), then the schemes' own, in the
// order the README gives the schemes. --search comes between ftp's and
// the news driver's, with gopher, the first of the two schemes it serves.
func driverOptions() []driverOption {
	return []driverOption{
		policyOptions(),
		gatewayOptions(),
		tlsOptions(),
		httpOptions(),
		ftpOptions(),
		searchOptions(),
		gopherOptions(),
		nntpOptions(),
		waisOptions(),
		mailtoOptions(),
		midOptions(),
		telnetOptions(),
	}
}

// driverFlags returns the flags of every group, in driverOptions' order.
func driverFlags() []cli.Flag {
	var fs []cli.Flag
	for _, o := range driverOptions() {
		if o.title != "" {
			inCategory(o.title, o.flags...)
		}
		fs = append(fs, o.flags...)
	}
	return fs
}

// configureDrivers applies every group's options to cl and ds, in
// driverOptions' order. The drivers must be registered with cl already:
// the policy's options read the Client's schemes.
func configureDrivers(c *cli.Context, cl *fetch.Client, ds *all.Drivers) error {
	for _, o := range driverOptions() {
		if err := o.configure(c, cl, ds); err != nil {
			return err
		}
	}
	return nil
}

// searchOptions is --search, the one flag two drivers share: the words of
// a search whose URL carries none, for a gopher type-7 item and for a
// wais database alike. The command owns it so that one flag has one
// meaning, whichever drivers read it.
func searchOptions() driverOption {
	return driverOption{
		title: "gopher and wais searches",
		flags: []cli.Flag{
			&cli.StringFlag{Name: "search", Usage: "search for `WORDS` when a gopher type-7 URL (gopher://host/7/selector) or a wais database URL (wais://host/db) carries no search"},
		},
		configure: func(c *cli.Context, _ *fetch.Client, ds *all.Drivers) error {
			ds.Gopher.Search = c.String("search")
			ds.WAIS.Search = c.String("search")
			return nil
		},
	}
}
