package file

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"iter"
	"mime"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/urlfetch/urlfetch/fetch"
	"github.com/urlfetch/urlfetch/uri"
)

// listBatch is how many directory entries are read at a time.
const listBatch = 256

// maxLine bounds a listing line: an encoded name (a name is at most 255
// bytes on most systems, three times that encoded) and a link's target.
const maxLine = 64 << 10

// list returns the open directory fh as a Listing.
func (d *Driver) list(ctx context.Context, req *fetch.Request, f *uri.File, fh *os.File, info fs.FileInfo) *fetch.Response {
	dir := &uri.File{Host: f.Host, Path: strings.TrimSuffix(f.Path, "/") + "/"}
	req.Tracef(fetch.Note, "list directory %s, %d entries at a time", fh.Name(), listBatch)
	resp := &fetch.Response{
		Kind:     fetch.Listing,
		Type:     ListingType,
		Length:   -1,
		Modified: info.ModTime(),
		Body:     newBody(ctx, fh, &lister{f: fh}, false),
	}
	resp.SetEntries(func(r io.Reader) iter.Seq2[fetch.Entry, error] { return parseListing(r, dir) })
	return resp
}

// lister reads a directory a batch at a time and yields its listing
// lines.
type lister struct {
	f    *os.File
	line []byte // formatted lines not yet read
	err  error  // of the last ReadDir; io.EOF after the last batch
}

func (l *lister) Read(p []byte) (int, error) {
	for len(l.line) == 0 {
		if l.err != nil {
			return 0, l.err
		}
		ents, err := l.f.ReadDir(listBatch)
		var buf []byte
		for _, e := range ents {
			buf = l.appendEntry(buf, e)
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

// appendEntry appends the listing line of e to buf. An entry that has
// vanished since the directory was read is left out.
func (l *lister) appendEntry(buf []byte, e fs.DirEntry) []byte {
	info, err := e.Info()
	if err != nil {
		return buf
	}
	mode := info.Mode()
	typ := fetch.EntryOther
	switch {
	case mode.IsDir():
		typ = fetch.EntryDir
	case mode&fs.ModeSymlink != 0:
		typ = fetch.EntryLink
	case mode.IsRegular():
		typ = fetch.EntryFile
	}
	buf = append(buf, typ.String()...)
	buf = append(buf, ' ')
	if typ == fetch.EntryFile {
		buf = strconv.AppendInt(buf, info.Size(), 10)
	} else {
		buf = append(buf, '-')
	}
	buf = append(buf, ' ')
	buf = info.ModTime().UTC().AppendFormat(buf, time.RFC3339Nano)
	buf = append(buf, ' ')
	buf = append(buf, uri.Escape(e.Name(), uri.ComponentFileSegment)...)
	if typ == fetch.EntryDir {
		buf = append(buf, '/')
	}
	if typ == fetch.EntryLink {
		if target, err := os.Readlink(filepath.Join(l.f.Name(), e.Name())); err == nil {
			buf = append(buf, ' ')
			buf = append(buf, escapePath(filepath.ToSlash(target))...)
		}
	}
	return append(buf, '\n')
}

// escapePath encodes a path segment by segment, keeping its "/".
func escapePath(p string) string {
	segs := strings.Split(p, "/")
	for i, s := range segs {
		segs[i] = uri.Escape(s, uri.ComponentFileSegment)
	}
	return strings.Join(segs, "/")
}

// entryTypes are the TYPE words of a listing line.
var entryTypes = map[string]fetch.EntryType{
	"file":  fetch.EntryFile,
	"dir":   fetch.EntryDir,
	"link":  fetch.EntryLink,
	"other": fetch.EntryOther,
}

// parseListing parses listing lines into entries of the directory dir,
// whose Path ends in "/". A line that does not parse yields an ErrProtocol
// error and the listing goes on; an error reading r ends it.
func parseListing(r io.Reader, dir *uri.File) iter.Seq2[fetch.Entry, error] {
	return func(yield func(fetch.Entry, error) bool) {
		sc := bufio.NewScanner(r)
		sc.Buffer(nil, maxLine)
		for n := 1; sc.Scan(); n++ {
			e, err := parseLine(sc.Text(), dir)
			if err != nil {
				err = fetch.Errorf(fetch.ErrProtocol, "file: listing line %d: %v", n, err)
			}
			if !yield(e, err) {
				return
			}
		}
		if err := sc.Err(); err != nil {
			yield(fetch.Entry{}, err)
		}
	}
}

// parseLine parses "TYPE SIZE TIME NAME [TARGET]".
func parseLine(line string, dir *uri.File) (fetch.Entry, error) {
	f := strings.Split(line, " ")
	if len(f) < 4 || len(f) > 5 {
		return fetch.Entry{}, fmt.Errorf("%q: want TYPE SIZE TIME NAME [TARGET]", line)
	}
	typ, ok := entryTypes[f[0]]
	if !ok {
		return fetch.Entry{}, fmt.Errorf("%q: unknown type %q", line, f[0])
	}
	e := fetch.Entry{Type: typ, Size: -1}
	if f[1] != "-" {
		size, err := strconv.ParseInt(f[1], 10, 64)
		if err != nil || size < 0 {
			return fetch.Entry{}, fmt.Errorf("%q: bad size %q", line, f[1])
		}
		e.Size = size
	}
	t, err := time.Parse(time.RFC3339Nano, f[2])
	if err != nil {
		return fetch.Entry{}, fmt.Errorf("%q: bad time %q", line, f[2])
	}
	e.Time = t
	raw := f[3]
	if typ == fetch.EntryDir {
		raw = strings.TrimSuffix(raw, "/")
	}
	name, err := uri.Unescape(raw)
	if err != nil || name == "" || strings.Contains(name, "/") {
		return fetch.Entry{}, fmt.Errorf("%q: bad name %q", line, f[3])
	}
	e.Name = name
	p := dir.Path + name
	if typ == fetch.EntryDir {
		p += "/"
	}
	e.URL = (&uri.File{Host: dir.Host, Path: p}).String()
	switch {
	case len(f) == 5 && typ != fetch.EntryLink:
		return fetch.Entry{}, errors.New(strconv.Quote(line) + ": a target on an entry that is not a link")
	case len(f) == 5:
		target, err := uri.Unescape(f[4])
		if err != nil {
			return fetch.Entry{}, fmt.Errorf("%q: bad target %q", line, f[4])
		}
		e.Title = name + " -> " + target
	case typ == fetch.EntryFile:
		e.Media = mime.TypeByExtension(path.Ext(name))
	}
	return e, nil
}
