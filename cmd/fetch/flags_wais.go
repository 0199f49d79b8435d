package main

import (
	"context"
	"errors"
	"strings"

	"github.com/urfave/cli/v2"
	"github.com/urlfetch/urlfetch/fetch"
	"github.com/urlfetch/urlfetch/fetch/all"
	"github.com/urlfetch/urlfetch/fetch/wais"
)

// waisOptions are the wais driver's options: the dialect to speak. The
// words to search a database URL that carries none come from --search,
// which the command shares with the gopher driver (searchOptions), or
// else from the terminal.
func waisOptions() driverOption {
	return driverOption{
		title: "wais",
		flags: []cli.Flag{
			&cli.StringFlag{Name: "wais-dialect", Value: "auto", Usage: "speak `DIALECT` to wais servers: auto (WAIS, then Z39.50-1995 when no WAIS reply comes), wais or z3950"},
		},
		configure: func(c *cli.Context, _ *fetch.Client, ds *all.Drivers) error {
			return configureWAIS(c, ds.WAIS)
		},
	}
}

// configureWAIS sets the wais driver's dialect and, when --search gives
// no words and standard input is a terminal, the prompt that asks for
// them there.
func configureWAIS(c *cli.Context, d *wais.Driver) error {
	dl, err := wais.ParseDialect(c.String("wais-dialect"))
	if err != nil {
		return cli.Exit("--wais-dialect: "+err.Error(), exitUsage)
	}
	d.Dialect = dl
	if c.String("search") == "" && isTerminal(c.App.Reader) {
		d.Prompt = askWAIS
	}
	return nil
}

// askWAIS asks on the terminal for the words to search database with. An
// empty line searches nothing: the driver describes the database.
func askWAIS(ctx context.Context, database string) (string, error) {
	words, err := askLine(ctx, "search "+database+" (empty: describe it): ")
	var nt *noTerminalError
	switch {
	case errors.As(err, &nt):
		return "", nil // no terminal after all: no search
	case errors.Is(err, errLongAnswer):
		return "", errors.New("wais: search words longer than 4096 bytes")
	case err != nil:
		return "", err
	}
	return strings.TrimSpace(words), nil
}
