package file

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"mime"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/urlfetch/urlfetch/fetch"
	"github.com/urlfetch/urlfetch/uri"
)

// listBatch is how many directory entries are looked up at a time.
const listBatch = 256

// list returns the open directory fh as a Listing: the entries in
// fetch.ListingType, sorted by name (bytewise, as ls in the C locale), a
// batch at a time as the Body is read.
func (d *Driver) list(ctx context.Context, req *fetch.Request, f *uri.File, fh *os.File, info fs.FileInfo) *fetch.Response {
	dir := &uri.File{Host: f.Host, Path: strings.TrimSuffix(f.Path, "/") + "/"}
	req.Tracef(fetch.Note, "list directory %s, sorted by name", fh.Name())
	resp := &fetch.Response{
		Kind:     fetch.Listing,
		Type:     fetch.ListingType,
		Length:   -1,
		Modified: info.ModTime(),
		Body:     newBody(ctx, fh, &lister{f: fh, dir: dir}, false),
	}
	resp.SetEntries(fetch.ParseEntries)
	return resp
}

// lister reads a directory's names, sorts them, and yields their entries
// as the lines of a fetch.ListingType body, looking each up (lstat) a
// batch at a time. Sorting needs every name at once, as ls does; only the
// names are held, and nothing is looked up before it is read.
type lister struct {
	f     *os.File
	dir   *uri.File // the directory, its Path ending in "/"
	names []string  // sorted, not yet listed
	read  bool      // the names have been read
	line  []byte    // lines not yet read
}

func (l *lister) Read(p []byte) (int, error) {
	if !l.read {
		l.read = true
		names, err := l.f.Readdirnames(-1)
		if err != nil {
			return 0, fmt.Errorf("file: listing %s: %w", l.f.Name(), err)
		}
		slices.Sort(names)
		l.names = names
	}
	for len(l.line) == 0 {
		if len(l.names) == 0 {
			return 0, io.EOF
		}
		batch := l.names[:min(listBatch, len(l.names))]
		l.names = l.names[len(batch):]
		var buf []byte
		for _, name := range batch {
			if entry, ok := l.entry(name); ok {
				buf = fetch.AppendEntry(buf, entry)
			}
		}
		l.line = buf
	}
	n := copy(p, l.line)
	l.line = l.line[n:]
	return n, nil
}

// entry returns the Entry of the directory's entry name: its URL in the
// directory, its type, size (of a file) and time, a link's target, a file's media type
// from its extension. An entry that has vanished since the directory was
// read is left out.
func (l *lister) entry(name string) (fetch.Entry, bool) {
	info, err := os.Lstat(filepath.Join(l.f.Name(), name))
	if err != nil {
		return fetch.Entry{}, false
	}
	mode := info.Mode()
	ent := fetch.Entry{Name: name, Type: fetch.EntryOther, Size: -1, Time: info.ModTime().UTC()}
	switch {
	case mode.IsDir():
		ent.Type = fetch.EntryDir
	case mode&fs.ModeSymlink != 0:
		ent.Type = fetch.EntryLink
	case mode.IsRegular():
		ent.Type = fetch.EntryFile
		ent.Size = info.Size()
		ent.Media = mime.TypeByExtension(path.Ext(name))
	}
	p := l.dir.Path + name
	if ent.Type == fetch.EntryDir {
		p += "/"
	}
	ent.URL = (&uri.File{Host: l.dir.Host, Path: p}).String()
	if ent.Type == fetch.EntryLink {
		if target, err := os.Readlink(filepath.Join(l.f.Name(), name)); err == nil {
			ent.Target = filepath.ToSlash(target)
		}
	}
	return ent, true
}
