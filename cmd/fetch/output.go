package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/urlfetch/urlfetch/uri"
)

// atomicFile is an output file written under a temporary name in its
// directory and renamed into place only when the whole resource is in: a
// failed fetch never leaves a file that looks complete.
type atomicFile struct {
	*os.File
	final string
	done  bool
}

// createAtomic opens a temporary file next to path. The temporary file is
// created with O_EXCL, and rename replaces whatever path is (a planted
// symbolic link included) without following it.
func createAtomic(path string) (*atomicFile, error) {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	f, err := os.CreateTemp(dir, "."+base+".part-*")
	if err != nil {
		return nil, err
	}
	return &atomicFile{File: f, final: path}, nil
}

// Commit renames the finished file into place.
func (a *atomicFile) Commit() error {
	if err := a.File.Close(); err != nil {
		os.Remove(a.File.Name())
		return err
	}
	a.done = true
	if err := os.Chmod(a.File.Name(), 0o644); err != nil {
		os.Remove(a.File.Name())
		return err
	}
	if err := os.Rename(a.File.Name(), a.final); err != nil {
		os.Remove(a.File.Name())
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
	os.Remove(a.File.Name())
}

// maxNameBytes is the longest file name -O writes: most file systems take
// 255 bytes.
const maxNameBytes = 255

// outputName derives the local file name -O uses from a URL: the last
// segment of its path, decoded, with every byte that could leave the
// target directory or confuse a terminal replaced. It is never empty,
// never "." or "..", and never holds a path separator.
func outputName(u *uri.URL) string {
	p := u.URLPath()
	switch u.Scheme {
	case "ftp":
		if f, err := u.FTP(); err == nil {
			p = f.Name
		}
	case "gopher":
		if g, err := u.Gopher(); err == nil {
			p = g.Selector
		}
	case "news":
		if n, err := u.News(); err == nil {
			p = n.MessageID + n.Group
		}
	case "wais":
		if w, err := u.WAIS(); err == nil {
			p = w.Database
			if w.IsDocument() {
				p = w.WPath
			}
		}
	default:
		p, _ = uri.Unescape(p)
	}
	p = strings.TrimRight(p, "/")
	if i := strings.LastIndexAny(p, `/\`); i >= 0 {
		p = p[i+1:]
	}
	return sanitizeName(p)
}

// sanitizeName makes s safe as a file name in the current directory.
func sanitizeName(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == utf8.RuneError, r < 0x20, r == 0x7f, r == '/', r == '\\':
			b.WriteByte('_')
		default:
			b.WriteRune(r)
		}
	}
	name := strings.TrimLeft(b.String(), ".")
	if len(name) > maxNameBytes {
		cut := maxNameBytes
		for cut > 0 && !utf8.RuneStart(name[cut]) {
			cut--
		}
		name = name[:cut]
	}
	if name == "" {
		name = "index"
	}
	return name
}

// safeJoin joins dir and name, refusing a result outside dir.
func safeJoin(dir, name string) (string, error) {
	if name != filepath.Base(name) || name == "." || name == ".." {
		return "", fmt.Errorf("refusing output name %q: not a plain file name", name)
	}
	return filepath.Join(dir, name), nil
}
