package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/urfave/cli/v2"
	"github.com/urlfetch/urlfetch/fetch"
	"github.com/urlfetch/urlfetch/fetch/wais"
	"golang.org/x/term"
)

// The wais driver's options: the dialect to speak, and the words to
// search a database URL that carries none. --search is shared with the
// gopher driver when its file defines it: one flag, one meaning ("the
// search the URL does not carry").
func init() {
	flags := []cli.Flag{
		&cli.StringFlag{Name: "wais-dialect", Value: "auto", Usage: "speak `DIALECT` to wais servers: auto (WAIS, then Z39.50-1995 when no WAIS reply comes), wais or z3950"},
	}
	if !hasDriverFlag("search") {
		flags = append(flags, &cli.StringFlag{Name: "search", Usage: "search for `WORDS` when a URL names a database but carries no search (wais://host/database)"})
	}
	driverOptions = append(driverOptions, driverOption{flags: flags, configure: configureWAIS})
}

// hasDriverFlag reports whether another driver's options define name.
func hasDriverFlag(name string) bool {
	for _, o := range driverOptions {
		for _, f := range o.flags {
			for _, n := range f.Names() {
				if n == name {
					return true
				}
			}
		}
	}
	return false
}

func configureWAIS(c *cli.Context, cl *fetch.Client) error {
	d, ok := cl.Driver("wais").(*wais.Driver)
	if !ok {
		if c.IsSet("wais-dialect") {
			return cli.Exit("--wais-dialect: no wais driver of this package is registered", exitUsage)
		}
		return nil
	}
	dl, err := wais.ParseDialect(c.String("wais-dialect"))
	if err != nil {
		return cli.Exit("--wais-dialect: "+err.Error(), exitUsage)
	}
	d.Dialect = dl
	d.Search = c.String("search")
	if d.Search == "" && isTerminal(c.App.Reader) {
		d.Prompt = waisPrompt()
	}
	return nil
}

func isTerminal(r io.Reader) bool {
	f, ok := r.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// waisPrompt asks for the words to search a database on the terminal,
// with echo. A cancelled context ends the wait.
func waisPrompt() func(context.Context, string) (string, error) {
	return func(ctx context.Context, database string) (string, error) {
		tty, err := os.OpenFile("/dev/tty", os.O_RDWR, 0)
		if err != nil {
			return "", nil // no terminal after all: no search
		}
		defer tty.Close()
		stop := context.AfterFunc(ctx, func() { tty.SetReadDeadline(time.Unix(1, 0)) })
		defer stop()
		fmt.Fprintf(tty, "search %s (empty: describe it): ", database)
		var line []byte
		b := make([]byte, 1)
		for {
			n, err := tty.Read(b)
			if n == 1 {
				if b[0] == '\n' {
					break
				}
				line = append(line, b[0])
				if len(line) > 4096 {
					return "", errors.New("wais: search words longer than 4096 bytes")
				}
			}
			if err != nil {
				if ctx.Err() != nil {
					return "", ctx.Err()
				}
				if err == io.EOF {
					break
				}
				return "", err
			}
		}
		return strings.TrimSpace(string(line)), nil
	}
}
