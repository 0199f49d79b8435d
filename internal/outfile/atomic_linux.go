package outfile

import (
	"errors"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"golang.org/x/sys/unix"
)

// File is an output file that gets its name only when the whole
// resource is in: a failed fetch never leaves a file that looks complete.
//
// On Linux it is an unnamed file (O_TMPFILE) in the output's directory,
// linked in under its name by Commit. Until then it has no name at all,
// so a fetch that dies, even by SIGKILL, leaves nothing behind, and the
// directory sees one operation a file rather than a create and a rename
// (with -P 8 into one directory, its lock was a tenth of the command's
// CPU time). Where the file system has no O_TMPFILE, or the output's
// name exists already, a temporary name and a rename do it instead.
type File struct {
	*os.File
	dir   int    // the directory, opened once
	tmp   string // the temporary name in dir, if the file has one
	final string // the output's name in dir
	done  bool
}

// procFD says whether /proc/self/fd can name an unnamed file for linkat.
var procFD = sync.OnceValue(func() bool {
	_, err := os.Stat("/proc/self/fd")
	return err == nil
})

// Create opens an unnamed file, or a temporary one, in path's
// directory. The directory is opened once and everything after happens
// in it: a symbolic link on the way to it (--dir) is followed then and
// only then, so changing it mid-transfer does not move the file. A
// temporary file is created with O_EXCL|O_NOFOLLOW, and both linkat and
// renameat put the file in place without following a link planted under
// the final name.
func Create(path string) (*File, error) {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	dfd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: dir, Err: err}
	}
	return create(dfd, path, base)
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
	d, err := root.Open(dir)
	if err != nil {
		return nil, err
	}
	defer d.Close()
	dfd, err := unix.Dup(int(d.Fd()))
	if err != nil {
		return nil, &os.PathError{Op: "dup", Path: dir, Err: err}
	}
	unix.CloseOnExec(dfd)
	return create(dfd, filepath.Join(root.Name(), filepath.FromSlash(rel)), base)
}

// create opens the unnamed or temporary file for base in the directory
// dfd, which the File then owns; path names it in errors.
func create(dfd int, path, base string) (*File, error) {
	a := &File{dir: dfd, final: base}
	// 0666 less the umask, as curl, wget and cp create files.
	if procFD() {
		fd, err := unix.Openat(dfd, ".", unix.O_TMPFILE|unix.O_RDWR|unix.O_CLOEXEC, 0o666)
		if err == nil {
			a.File = os.NewFile(uintptr(fd), path)
			return a, nil
		}
		// EOPNOTSUPP, EISDIR (a kernel before 3.11): a temporary name.
	}
	if err := a.createTemp(); err != nil {
		unix.Close(dfd)
		return nil, err
	}
	return a, nil
}

// createTemp opens a new file under a free temporary name.
func (a *File) createTemp() error {
	return tempNames(a.final, func(name string) (bool, error) {
		fd, err := unix.Openat(a.dir, name, unix.O_RDWR|unix.O_CREAT|unix.O_EXCL|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0o666)
		switch {
		case err == unix.EEXIST:
			return false, nil
		case err != nil:
			return false, &os.PathError{Op: "create", Path: name, Err: err}
		}
		a.File, a.tmp = os.NewFile(uintptr(fd), name), name
		return true, nil
	})
}

// Commit gives the finished file its name.
func (a *File) Commit() error {
	if a.done {
		return errors.New("output file committed or aborted already")
	}
	a.done = true
	defer unix.Close(a.dir)
	a.keepMode()
	if a.tmp == "" {
		err := a.link()
		if cerr := a.File.Close(); err == nil {
			err = cerr
		}
		return err
	}
	if err := a.File.Close(); err != nil {
		unix.Unlinkat(a.dir, a.tmp, 0)
		return err
	}
	if err := unix.Renameat(a.dir, a.tmp, a.dir, a.final); err != nil {
		unix.Unlinkat(a.dir, a.tmp, 0)
		return &os.LinkError{Op: "rename", Old: a.tmp, New: a.final, Err: err}
	}
	return nil
}

// keepMode gives the file the permissions of the regular file it
// replaces, as a file written in place would keep them (a 0600 file stays
// 0600); a new file keeps 0666 less the umask. Only the permission bits
// are taken, never set-user-ID and the like.
func (a *File) keepMode() {
	var st unix.Stat_t
	if unix.Fstatat(a.dir, a.final, &st, unix.AT_SYMLINK_NOFOLLOW) != nil || st.Mode&unix.S_IFMT != unix.S_IFREG {
		return
	}
	unix.Fchmod(int(a.File.Fd()), st.Mode&0o777)
}

// SetModTime sets the file's modification (and access) time to t: -R.
func (a *File) SetModTime(t time.Time) error { return SetModTime(a.File, t) }

// SetModTime sets f's modification (and access) time to t: -R.
func SetModTime(f *os.File, t time.Time) error {
	tv := unix.NsecToTimeval(t.UnixNano())
	if err := unix.Futimes(int(f.Fd()), []unix.Timeval{tv, tv}); err != nil {
		return &os.PathError{Op: "utimes", Path: f.Name(), Err: err}
	}
	return nil
}

// link names the unnamed file: linkat makes a new name only, so an
// existing output is replaced by a link under a temporary name and a
// rename over it.
func (a *File) link() error {
	fdPath := "/proc/self/fd/" + strconv.Itoa(int(a.File.Fd()))
	err := unix.Linkat(unix.AT_FDCWD, fdPath, a.dir, a.final, unix.AT_SYMLINK_FOLLOW)
	if err != unix.EEXIST {
		if err != nil {
			return &os.LinkError{Op: "link", Old: fdPath, New: a.final, Err: err}
		}
		return nil
	}
	var tmp string
	err = tempNames(a.final, func(name string) (bool, error) {
		err := unix.Linkat(unix.AT_FDCWD, fdPath, a.dir, name, unix.AT_SYMLINK_FOLLOW)
		switch {
		case err == unix.EEXIST:
			return false, nil
		case err != nil:
			return false, &os.LinkError{Op: "link", Old: fdPath, New: name, Err: err}
		}
		tmp = name
		return true, nil
	})
	if err != nil {
		return err
	}
	if err := unix.Renameat(a.dir, tmp, a.dir, a.final); err != nil {
		unix.Unlinkat(a.dir, tmp, 0)
		return &os.LinkError{Op: "rename", Old: tmp, New: a.final, Err: err}
	}
	return nil
}

// Abort drops the unfinished file; after Commit it does nothing.
func (a *File) Abort() {
	if a.done {
		return
	}
	a.done = true
	a.File.Close()
	if a.tmp != "" {
		unix.Unlinkat(a.dir, a.tmp, 0)
	}
	unix.Close(a.dir)
}
