package main

import (
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/urfave/cli/v2"
	"github.com/urlfetch/urlfetch/fetch"
	"github.com/urlfetch/urlfetch/fetch/all"
)

// configureArgs applies the command line args to a Client and drivers as
// optionsFrom does, and returns them.
func configureArgs(t *testing.T, args ...string) (*fetch.Client, *all.Drivers, error) {
	t.Helper()
	cl := &fetch.Client{}
	ds := all.NewDrivers()
	ds.Register(cl)
	app := &cli.App{
		Name:           "fetch",
		Flags:          append(fetchFlags(), driverFlags()...),
		HideHelp:       true, // -h is --human-readable
		Reader:         strings.NewReader(""),
		Writer:         io.Discard,
		ErrWriter:      io.Discard,
		ExitErrHandler: func(*cli.Context, error) {},
		Action: func(c *cli.Context) error {
			return configureDrivers(c, cl, ds)
		},
	}
	err := app.Run(append([]string{"fetch"}, args...))
	return cl, ds, err
}

// Issue 19: each flag has one definition, whichever drivers read it.
func TestFlagsDefinedOnce(t *testing.T) {
	seen := map[string]bool{}
	for _, f := range append(fetchFlags(), driverFlags()...) {
		for _, name := range f.Names() {
			if seen[name] {
				t.Errorf("flag %q is defined twice", name)
			}
			seen[name] = true
		}
	}
}

// Issue 19: --search gives its words to the gopher and the wais driver
// alike.
func TestSearchReachesGopherAndWAIS(t *testing.T) {
	_, ds, err := configureArgs(t, "--search", "two words")
	if err != nil {
		t.Fatalf("configureDrivers(--search \"two words\"): %v", err)
	}
	if ds.Gopher.Search != "two words" || ds.WAIS.Search != "two words" {
		t.Errorf("--search \"two words\": gopher Search %q, wais Search %q; want both \"two words\"", ds.Gopher.Search, ds.WAIS.Search)
	}
}

// The policy's options see every driver's scheme: "all" is them all.
func TestProtoAllIsEveryScheme(t *testing.T) {
	cl, _, err := configureArgs(t, "--proto", "all")
	if err != nil {
		t.Fatalf("configureDrivers(--proto all): %v", err)
	}
	if want := all.NewClient().Schemes(); !slices.Equal(cl.AllowSchemes, want) {
		t.Errorf("--proto all: AllowSchemes = %q, want %q", cl.AllowSchemes, want)
	}
}

// Issue 20: --compressed (curl's name) turns on the http driver's gzip.
func TestCompressedReachesHTTP(t *testing.T) {
	for _, args := range [][]string{nil, {"--compressed"}} {
		_, ds, err := configureArgs(t, args...)
		if err != nil {
			t.Fatalf("configureDrivers(%q): %v", args, err)
		}
		if want := len(args) > 0; ds.HTTP.Compressed != want {
			t.Errorf("configureDrivers(%q): HTTP.Compressed = %v, want %v", args, ds.HTTP.Compressed, want)
		}
	}
}
