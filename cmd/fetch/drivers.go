package main

import (
	"github.com/urfave/cli/v2"
	"github.com/urlfetch/urlfetch/fetch"
)

// driverOption is the command line of one driver: its flags and how their
// values configure the driver in the Client. Each driver's file
// (flags_ftp.go, flags_nntp.go, ...) appends its own in an init function,
// so a driver's options live beside nothing but themselves.
type driverOption struct {
	flags     []cli.Flag
	configure func(c *cli.Context, cl *fetch.Client) error
}

var driverOptions []driverOption

func driverFlags() []cli.Flag {
	var fs []cli.Flag
	for _, o := range driverOptions {
		fs = append(fs, o.flags...)
	}
	return fs
}

func configureDrivers(c *cli.Context, cl *fetch.Client) error {
	for _, o := range driverOptions {
		if o.configure == nil {
			continue
		}
		if err := o.configure(c, cl); err != nil {
			return err
		}
	}
	return nil
}
