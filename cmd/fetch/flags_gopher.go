package main

import (
	"context"
	"os"

	"github.com/urfave/cli/v2"
	"github.com/urlfetch/urlfetch/fetch"
	"github.com/urlfetch/urlfetch/fetch/all"
	"github.com/urlfetch/urlfetch/fetch/gopher"
)

// gopherOptions configure the gopher driver, which has no flag of its
// own: the words of a type-7 search whose URL carries none (RFC 1738
// section 3.4.2) come from --search, which the command shares with the
// wais driver (searchOptions), or else from the terminal, which also
// answers a Gopher+ form's questions.
func gopherOptions() driverOption {
	return driverOption{
		title: "gopher",
		configure: func(_ *cli.Context, _ *fetch.Client, ds *all.Drivers) error {
			// Without a terminal Ask stays nil, and the driver's errors
			// say to use --search or a filled-in URL.
			if haveTerminal() {
				ds.Gopher.Ask = askGopher
			}
			return nil
		},
	}
}

// askGopher asks a search's words and a +ASK form's questions on the
// terminal, a password (AskP) without echo. Every other question goes
// through gopher.LinePrompter, which shows each kind as the gopher package
// means it: a note, a list of choices, a default, the lines of an AskL up
// to a "." line.
func askGopher(ctx context.Context, q gopher.Question) (string, error) {
	if q.Kind == "AskP" {
		return askSecret(ctx, q.String()+": ")
	}
	return onTerminal(ctx, func(tty *os.File) (string, error) {
		return gopher.LinePrompter(tty, tty)(ctx, q)
	})
}
