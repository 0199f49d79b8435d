//go:build !linux

package main

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
)

// atomicFile is an output file written under a temporary name in its
// directory and renamed into place only when the whole resource is in: a
// failed fetch never leaves a file that looks complete.
type atomicFile struct {
	*os.File
	root  *os.Root // the directory, opened once
	tmp   string   // the temporary file's name in root
	final string   // the output's name in root
	done  bool
}

// createAtomic opens a temporary file beside path. path's directory is
// opened once, as an os.Root, and both the temporary file and the rename
// happen in it: a symbolic link on the way to it (--dir) is followed then
// and only then, so changing it mid-transfer does not move the file. The
// temporary file is created with O_EXCL, which follows no link, and the
// rename replaces whatever the final name is (a planted symbolic link
// included) without following it.
func createAtomic(path string) (*atomicFile, error) {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	a := &atomicFile{root: root, final: base}
	err = tempNames(base, func(name string) (bool, error) {
		// 0666 less the umask, as curl, wget and cp create files.
		f, err := root.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o666)
		switch {
		case errors.Is(err, fs.ErrExist):
			return false, nil
		case err != nil:
			return false, err
		}
		a.File, a.tmp = f, name
		return true, nil
	})
	if err != nil {
		root.Close()
		return nil, err
	}
	return a, nil
}

// Commit renames the finished file into place.
func (a *atomicFile) Commit() error {
	if a.done {
		return errors.New("output file committed or aborted already")
	}
	a.done = true
	defer a.root.Close()
	if err := a.File.Close(); err != nil {
		a.root.Remove(a.tmp)
		return err
	}
	if err := a.root.Rename(a.tmp, a.final); err != nil {
		a.root.Remove(a.tmp)
		return err
	}
	return nil
}

// Abort removes the unfinished file; after Commit it does nothing.
func (a *atomicFile) Abort() {
	if a.done {
		return
	}
	a.done = true
	a.File.Close()
	a.root.Remove(a.tmp)
	a.root.Close()
}
