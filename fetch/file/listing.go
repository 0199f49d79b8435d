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
	"strings"

	"github.com/urlfetch/urlfetch/fetch"
	"github.com/urlfetch/urlfetch/uri"
)

// listBatch is how many directory entries are read at a time.
const listBatch = 256

// list returns the open directory fh as a Listing: the entries in
// fetch.ListingType, made a batch at a time as the Body is read.
func (d *Driver) list(ctx context.Context, req *fetch.Request, f *uri.File, fh *os.File, info fs.FileInfo) *fetch.Response {
	dir := &uri.File{Host: f.Host, Path: strings.TrimSuffix(f.Path, "/") + "/"}
	req.Tracef(fetch.Note, "list directory %s, %d entries at a time", fh.Name(), listBatch)
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

// lister reads a directory a batch at a time and yields its entries as
// the lines of a fetch.ListingType body.
type lister struct {
	f    *os.File
	dir  *uri.File // the directory, its Path ending in "/"
	line []byte    // lines not yet read
	err  error     // of the last ReadDir; io.EOF after the last batch
}

func (l *lister) Read(p []byte) (int, error) {
	for len(l.line) == 0 {
		if l.err != nil {
			return 0, l.err
		}
		ents, err := l.f.ReadDir(listBatch)
		var buf []byte
		for _, e := range ents {
			if entry, ok := l.entry(e); ok {
				buf = fetch.AppendEntry(buf, entry)
			}
		}
		l.line = buf
		if err != nil {
			if err != io.EOF {
				err = fmt.Errorf("file: listing %s: %w", l.f.Name(), err)
			}
			l.err = err
		}
	}
	n := copy(p, l.line)
	l.line = l.line[n:]
	return n, nil
}

// entry returns the Entry of e: its URL in the directory, its type, size
// (of a file) and time, a link's target in its Title, a file's media type
// from its extension. An entry that has vanished since the directory was
// read is left out.
func (l *lister) entry(e fs.DirEntry) (fetch.Entry, bool) {
	info, err := e.Info()
	if err != nil {
		return fetch.Entry{}, false
	}
	mode := info.Mode()
	ent := fetch.Entry{Name: e.Name(), Type: fetch.EntryOther, Size: -1, Time: info.ModTime().UTC()}
	switch {
	case mode.IsDir():
		ent.Type = fetch.EntryDir
	case mode&fs.ModeSymlink != 0:
		ent.Type = fetch.EntryLink
	case mode.IsRegular():
		ent.Type = fetch.EntryFile
		ent.Size = info.Size()
		ent.Media = mime.TypeByExtension(path.Ext(e.Name()))
	}
	p := l.dir.Path + e.Name()
	if ent.Type == fetch.EntryDir {
		p += "/"
	}
	ent.URL = (&uri.File{Host: l.dir.Host, Path: p}).String()
	if ent.Type == fetch.EntryLink {
		if target, err := os.Readlink(filepath.Join(l.f.Name(), e.Name())); err == nil {
			ent.Title = e.Name() + " -> " + filepath.ToSlash(target)
		}
	}
	return ent, true
}
