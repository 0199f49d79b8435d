package main

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/urlfetch/urlfetch/uri"
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

// maxTempPrefix bounds the part of the output's name that the temporary
// file's name repeats, so that ".NAME.part-123456789" fits in a file name
// however long NAME is.
const maxTempPrefix = 200

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
	prefix := "." + cutName(base, maxTempPrefix) + ".part-"
	for range 100 {
		tmp := prefix + strconv.FormatUint(uint64(rand.Uint32()), 10)
		// 0666 less the umask, as curl, wget and cp create files: the
		// temporary name is the only one it has until it is complete.
		f, err := root.OpenFile(tmp, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o666)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			root.Close()
			return nil, err
		}
		return &atomicFile{File: f, root: root, tmp: tmp, final: base}, nil
	}
	root.Close()
	return nil, fmt.Errorf("no free temporary name %s* in %s", prefix, dir)
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

// maxExtBytes is the longest extension a shortened name keeps.
const maxExtBytes = 16

// sanitizeName makes s safe as a file name in the current directory: C0
// and C1 control characters, the bidirectional overrides and isolates
// that make a terminal show a name other than it is, bytes that are not
// UTF-8 and path separators become "_"; leading dots go (no ".", ".." or
// hidden file); nothing left is "index"; and a name over maxNameBytes is
// shortened by shortenName.
func sanitizeName(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == utf8.RuneError, unicode.IsControl(r), unicode.Is(unicode.Bidi_Control, r), r == '/', r == '\\':
			b.WriteByte('_')
		default:
			b.WriteRune(r)
		}
	}
	name := strings.TrimLeft(b.String(), ".")
	if name == "" {
		name = "index"
	}
	return shortenName(name, maxNameBytes)
}

// shortenName fits name into max bytes: it keeps the extension (from the
// first "." of the last maxExtBytes bytes, so ".tar.gz" stays whole) and
// as much of the start as fits, joined by "~" and 12 hex digits of the
// SHA-256 of the whole name, so that long names that differ only past the
// cut do not overwrite each other.
func shortenName(name string, max int) string {
	if len(name) <= max {
		return name
	}
	ext := ""
	for i := len(name) - 1; i > 0 && len(name)-i <= maxExtBytes; i-- {
		if name[i] == '.' {
			ext = name[i:]
		}
	}
	sum := sha256.Sum256([]byte(name))
	tag := "~" + hex.EncodeToString(sum[:6])
	return cutName(name[:len(name)-len(ext)], max-len(tag)-len(ext)) + tag + ext
}

// cutName cuts s to at most n bytes at a rune boundary.
func cutName(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// safeJoin joins dir and name, refusing a result outside dir.
func safeJoin(dir, name string) (string, error) {
	if name != filepath.Base(name) || name == "." || name == ".." {
		return "", fmt.Errorf("refusing output name %q: not a plain file name", name)
	}
	return filepath.Join(dir, name), nil
}
