package main

import (
	"fmt"
	"path"
	"strconv"
	"strings"

	"github.com/urfave/cli/v2"
	"github.com/urlfetch/urlfetch/internal/mirror"
)

// catMirror is the help's group of recursive retrieval's options, wget's
// names where wget has the option.
const catMirror = "Recursive retrieval"

// mirrorFlags are the options of recursive retrieval (-r), which
// internal/mirror does; recursive.go wires them to it.
func mirrorFlags() []cli.Flag {
	return inCategory(catMirror,
		&cli.BoolFlag{Name: "recursive", Aliases: []string{"r"}, Usage: "walk each URL's listing (FTP and file: directories, gopher menus, news groups, WAIS results) or HTML page (links of <a href>, <img src> and the like) and save what they lead to, under --dir, as HOST[:PORT]/path, listings kept as .listing (.gophermap for a menu); only the URL's host and below its directory by default"},
		&cli.BoolFlag{Name: "mirror", Usage: "-r -N -l inf, as wget -m"},
		&cli.StringFlag{Name: "level", Aliases: []string{"l"}, Value: strconv.Itoa(mirror.DefaultLevel), Usage: "with -r, follow listings and links at most `N` levels deep (inf or 0: no limit)"},
		&cli.BoolFlag{Name: "span-hosts", Usage: "with -r, follow entries and links to other hosts too"},
		&cli.BoolFlag{Name: "parent", Usage: "with -r, follow entries and links above the directory the walk began in (not followed by default, as wget's --no-parent)"},
		&cli.StringSliceFlag{Name: "accept", Usage: "with -r, save only documents whose name matches one of the comma-separated `GLOBS` (*.txt,*.gz); repeatable"},
		&cli.StringSliceFlag{Name: "reject", Usage: "with -r, do not save documents whose name matches one of the comma-separated `GLOBS`; repeatable"},
		&cli.StringFlag{Name: "schemes", Usage: "with -r, follow entries and links of the schemes `LIST` allows, in --proto's syntax, starting from the URLs' own schemes (--schemes +ftp: a gopher menu may lead into an FTP site); it is the set of schemes a server may send fetch to (--proto-redir), which it replaces"},
		&cli.IntFlag{Name: "cut-dirs", Usage: "with -r, leave out the first `N` directories of each path"},
		&cli.BoolFlag{Name: "no-host-directories", Aliases: []string{"nH"}, Usage: "with -r, leave out the HOST[:PORT] directory"},
		&cli.BoolFlag{Name: "timestamping", Aliases: []string{"N"}, Usage: "with -r, fetch a document only when the listing (or FTP SIZE and MDTM, HTTP HEAD) says it differs from the file an earlier run saved; partial files of an interrupted run are continued in any case"},
	)
}

// parseLevel reads -l: a number of levels, or inf (0 too, as in wget).
func parseLevel(s string) (int, error) {
	if strings.EqualFold(s, "inf") || strings.EqualFold(s, "infinite") {
		return mirror.Unlimited, nil
	}
	n, err := strconv.Atoi(s)
	switch {
	case err != nil || n < 0:
		return 0, fmt.Errorf("-l: want a number of levels or inf, got %q", s)
	case n == 0:
		return mirror.Unlimited, nil
	}
	return n, nil
}

// splitGlobs reads --accept and --reject: comma-separated globs, each
// checked.
func splitGlobs(flag string, values []string) ([]string, error) {
	var out []string
	for _, v := range values {
		for _, g := range strings.Split(v, ",") {
			if g = strings.TrimSpace(g); g == "" {
				continue
			}
			if _, err := path.Match(g, ""); err != nil {
				return nil, fmt.Errorf("--%s: %q is not a glob: %v", flag, g, err)
			}
			out = append(out, g)
		}
	}
	return out, nil
}
