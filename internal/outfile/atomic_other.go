//go:build !linux

package outfile

import (
	"errors"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"time"
)

// File is an output file written under a temporary name in its
// directory and renamed into place only when the whole resource is in: a
// failed fetch never leaves a file that looks complete.
type File struct {
	*os.File
	root  *os.Root // the directory, opened once
	tmp   string   // the temporary file's name in root
	final string   // the output's name in root
	done  bool
}

// Create opens a temporary file beside path. path's directory is
// opened once, as an os.Root, and both the temporary file and the rename
// happen in it: a symbolic link on the way to it (--dir) is followed then
// and only then, so changing it mid-transfer does not move the file. The
// temporary file is created with O_EXCL, which follows no link, and the
// rename replaces whatever the final name is (a planted symbolic link
// included) without following it.
func Create(path string) (*File, error) {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	return create(root, base)
}

// CreateIn is Create for rel, a slash-separated path within root: its
// directory is opened through root, which refuses a path that leaves
// root (by "..", or by a symbolic link planted on the way), and the file
// is made in that directory as Create makes it.
func CreateIn(root *os.Root, rel string) (*File, error) {
	dir, base := path.Split(rel)
	if dir == "" {
		dir = "."
	}
	r, err := root.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	return create(r, base)
}

// create makes the temporary file for base in root, which the File then
// owns.
func create(root *os.Root, base string) (*File, error) {
	a := &File{root: root, final: base}
	err := tempNames(base, func(name string) (bool, error) {
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
func (a *File) Commit() error {
	if a.done {
		return errors.New("output file committed or aborted already")
	}
	a.done = true
	defer a.root.Close()
	a.keepMode()
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

// keepMode gives the file the permissions of the regular file it
// replaces, as a file written in place would keep them (a 0600 file stays
// 0600); a new file keeps 0666 less the umask. Only the permission bits
// are taken, never set-user-ID and the like.
func (a *File) keepMode() {
	fi, err := a.root.Lstat(a.final)
	if err != nil || !fi.Mode().IsRegular() {
		return
	}
	a.File.Chmod(fi.Mode().Perm())
}

// SetModTime sets the file's modification (and access) time to t: -R.
func (a *File) SetModTime(t time.Time) error { return a.root.Chtimes(a.tmp, t, t) }

// SetModTime sets f, opened by its path, to modification (and access)
// time t: -R.
func SetModTime(f *os.File, t time.Time) error {
	return os.Chtimes(f.Name(), t, t)
}

// Abort removes the unfinished file; after Commit it does nothing.
func (a *File) Abort() {
	if a.done {
		return
	}
	a.done = true
	a.File.Close()
	a.root.Remove(a.tmp)
	a.root.Close()
}
