package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"

	"github.com/urlfetch/urlfetch/fetch"
	"github.com/urlfetch/urlfetch/internal/outfile"
	"github.com/urlfetch/urlfetch/uri"
)

// A target is where one URL of a run writes, decided for every URL of the
// run before the first transfer starts, in the URLs' order, so that the
// same command line always gives the same files however the transfers of
// -P interleave, and two URLs never write one file (issue 22, point 3).
type target struct {
	path string // the output file; "" for standard output
	// note is said when the URL's turn comes: why its file has another
	// name than its URL gives.
	note string
	// skip says why the URL is not fetched at all (--no-clobber).
	skip string
	err  error // no file can be named after the URL
}

// planTargets decides the targets of urls. With -O each URL is written to
// the name its URL gives, in --dir; a name an earlier URL of the run
// takes already gets ".1", ".2", ... and a note, as wget numbers its
// files, unless --no-clobber, which skips the URL instead. A URL that
// does not parse gets standard output: it fails before writing. dirErr,
// makeDirs' failure, is the failure of every URL that writes a file.
func planTargets(o *options, urls []string, dirErr error) []target {
	ts := make([]target, len(urls))
	defer func() {
		for i, t := range ts {
			if dirErr != nil && t.path != "" && t.err == nil {
				ts[i].err = &fetch.Error{Op: "fetch", URL: maskURL(urls[i]), Err: fmt.Errorf("cannot write %s: %w", t.path, dirErr)}
			}
		}
	}()
	if !o.remoteName {
		path := o.output
		if path == "-" {
			path = ""
		}
		for i := range ts {
			ts[i].path = path
		}
		return ts
	}
	taken := map[string]string{} // file -> the URL that writes it
	for i, raw := range urls {
		u, err := uri.Parse(raw)
		if err != nil {
			continue
		}
		path, err := remotePath(o, u)
		if err != nil {
			ts[i].err = &fetch.Error{Op: "fetch", URL: u.Redacted(), Err: err}
			continue
		}
		owner, clash := taken[path]
		switch {
		case clash && o.noClobber:
			ts[i].skip = fmt.Sprintf("%s is %s's in this run; not fetched (--no-clobber)", path, owner)
			continue
		case clash:
			numbered := path
			for n := 1; taken[numbered] != ""; n++ {
				numbered = path + "." + strconv.Itoa(n)
			}
			ts[i].note = fmt.Sprintf("saving as %s: %s is %s's in this run", numbered, path, owner)
			path = numbered
		}
		taken[path] = u.Redacted()
		ts[i].path = path
	}
	return ts
}

// remotePath is the -O file of u, in --dir.
func remotePath(o *options, u *uri.URL) (string, error) {
	dir := o.dir
	if dir == "" {
		dir = "."
	}
	return outfile.SafeJoin(dir, outputName(u))
}

// clobbered reports whether --no-clobber keeps path from being written:
// a regular file (or a symbolic link) is there. Devices (-o /dev/null)
// and FIFOs are written whatever the option says.
func clobbered(path string) bool {
	fi, err := os.Lstat(path)
	return err == nil && (fi.Mode().IsRegular() || fi.Mode()&os.ModeSymlink != 0)
}

// makeDirs creates what the run's outputs need: --dir, and with
// --create-dirs the directory of -o's file.
func makeDirs(o *options) error {
	dir := o.dir
	if o.createDirs && o.output != "" && o.output != "-" {
		dir = filepath.Dir(o.output)
	}
	if dir == "" || dir == "." {
		return nil
	}
	if err := os.MkdirAll(dir, 0o777); err != nil {
		return fmt.Errorf("cannot make the directory %s: %w", dir, unwrapPath(err))
	}
	return nil
}

// unwrapPath is err without the path an *os.PathError repeats.
func unwrapPath(err error) error {
	if pe, ok := err.(*os.PathError); ok {
		return pe.Err
	}
	return err
}
