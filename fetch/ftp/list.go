package ftp

import (
	"bufio"
	"bytes"
	"io"
	"iter"
	"regexp"
	"strings"
	"sync"

	"github.com/jlaffaye/ftp"
	"github.com/urlfetch/urlfetch/fetch"
	"github.com/urlfetch/urlfetch/uri"
)

// ListingType is the media type of a Listing's Body: the server's own
// lines, in no declared character set.
const ListingType = "text/plain"

// list lists the directory the session is in (or arg, without a CWD)
// with MLSD when the server offers it, else LIST. dirs are the URL
// segments of the directory, for the entries' URLs.
//
// The Body is the raw listing; jlaffaye/ftp parses it (Unix ls -l, DOS
// and IIS, EPLF-like hosted formats, MLSD facts), and a line it cannot
// parse is kept as a name-only entry.
func (d *Driver) list(s *session, f *uri.FTP, dirs []string, arg string) (*fetch.Response, error) {
	var raw bytes.Buffer
	s.capture = &raw
	entries, err := s.sc.List(arg)
	s.capture = nil
	if err != nil {
		cmd := "LIST"
		if s.sc.IsTimePreciseInList() {
			cmd = "MLSD"
		}
		if arg != "" {
			cmd += " " + arg
		}
		return nil, s.fail(cmd, err)
	}
	reply := s.lastPrelim
	d.release(s, nil)
	base := dirURL(f, dirs)
	resp := &fetch.Response{
		Kind:   fetch.Listing,
		Type:   ListingType,
		Length: int64(raw.Len()),
		Meta:   fetch.Meta{"Ftp-Reply": {reply}},
		Body:   newBytesBody(raw.Bytes()),
	}
	resp.SetEntries(func(r io.Reader) iter.Seq2[fetch.Entry, error] {
		return listEntries(r, entries, base)
	})
	return resp, nil
}

// nameList runs NLST for ";type=d": a listing of names only.
func (d *Driver) nameList(s *session, f *uri.FTP, p plan) (*fetch.Response, error) {
	var raw bytes.Buffer
	s.capture = &raw
	_, err := s.sc.NameList(p.name)
	s.capture = nil
	if err != nil {
		cmd := "NLST"
		if p.name != "" {
			cmd += " " + p.name
		}
		return nil, s.fail(cmd, err)
	}
	reply := s.lastPrelim
	d.release(s, nil)
	base := dirURL(f, p.base)
	resp := &fetch.Response{
		Kind:   fetch.Listing,
		Type:   ListingType,
		Length: int64(raw.Len()),
		Meta:   fetch.Meta{"Ftp-Reply": {reply}},
		Body:   newBytesBody(raw.Bytes()),
	}
	resp.SetEntries(func(r io.Reader) iter.Seq2[fetch.Entry, error] {
		return nameEntries(r, base)
	})
	return resp, nil
}

// dirURL is the URL of a directory of f's server, with f's user but not
// its password, as the base of entry URLs.
func dirURL(f *uri.FTP, dirs []string) uri.FTP {
	u := uri.FTP{Login: f.Login, Dirs: append([]string(nil), dirs...)}
	u.Password, u.HasPassword = "", false
	return u
}

// entryURL is the URL of the entry at segments below base; a directory's
// ends in "/".
func entryURL(base uri.FTP, segs []string, dir bool) string {
	u := base
	u.Dirs = append(append([]string(nil), base.Dirs...), segs...)
	if !dir && len(u.Dirs) > 0 {
		u.Name = u.Dirs[len(u.Dirs)-1]
		u.Dirs = u.Dirs[:len(u.Dirs)-1]
	}
	return u.String()
}

// totalLine is the "total N" line of ls -l: a summary, not an entry.
var totalLine = regexp.MustCompile(`^total [0-9]+$`)

// listEntries walks the raw listing in r line by line beside the entries
// jlaffaye/ftp parsed from the same bytes, in the same order: a line that
// ends with the next parsed entry's name is that entry, any other line a
// name-only entry.
func listEntries(r io.Reader, parsed []*ftp.Entry, base uri.FTP) iter.Seq2[fetch.Entry, error] {
	return func(yield func(fetch.Entry, error) bool) {
		sc := bufio.NewScanner(r)
		sc.Buffer(nil, maxLine)
		for sc.Scan() {
			line := strings.TrimRight(sc.Text(), "\r")
			if strings.TrimSpace(line) == "" || totalLine.MatchString(line) {
				continue
			}
			var e fetch.Entry
			if len(parsed) > 0 && lineOf(line, parsed[0]) {
				e = entryOf(parsed[0], base)
				parsed = parsed[1:]
			} else {
				e = fetch.Entry{Name: line, Type: fetch.EntryOther, Size: -1, URL: entryURL(base, []string{line}, false)}
			}
			if e.Name == "." || e.Name == ".." {
				continue
			}
			if !yield(e, nil) {
				return
			}
		}
		if err := sc.Err(); err != nil {
			yield(fetch.Entry{}, err)
		}
	}
}

// lineOf reports whether line is the one e was parsed from: it ends with
// the name (and a link's target) after a space.
func lineOf(line string, e *ftp.Entry) bool {
	name := e.Name
	if e.Type == ftp.EntryTypeLink && e.Target != "" {
		name += " -> " + e.Target
	}
	return len(line) > len(name) && strings.HasSuffix(line, name) && line[len(line)-len(name)-1] == ' '
}

// entryOf converts a parsed entry.
func entryOf(pe *ftp.Entry, base uri.FTP) fetch.Entry {
	e := fetch.Entry{Name: pe.Name, Size: -1, Time: pe.Time}
	switch pe.Type {
	case ftp.EntryTypeFolder:
		e.Type = fetch.EntryDir
		e.URL = entryURL(base, []string{pe.Name}, true)
	case ftp.EntryTypeLink:
		e.Type = fetch.EntryLink
		e.URL = entryURL(base, []string{pe.Name}, false)
		if pe.Target != "" {
			e.Title = pe.Name + " -> " + pe.Target
		}
	default:
		e.Type = fetch.EntryFile
		e.Size = int64(pe.Size)
		e.URL = entryURL(base, []string{pe.Name}, false)
		e.Media = suffixType(pe.Name)
	}
	return e
}

// nameEntries parses an NLST listing: one name per line, relative to the
// directory base (NLST dir answers "dir/name").
func nameEntries(r io.Reader, base uri.FTP) iter.Seq2[fetch.Entry, error] {
	return func(yield func(fetch.Entry, error) bool) {
		sc := bufio.NewScanner(r)
		sc.Buffer(nil, maxLine)
		for sc.Scan() {
			line := strings.TrimRight(sc.Text(), "\r")
			if line == "" {
				continue
			}
			segs := strings.Split(strings.TrimSuffix(line, "/"), "/")
			if segs[0] == "" && len(segs) > 1 {
				segs = append([]string{"/" + segs[1]}, segs[2:]...) // an absolute name
			}
			e := fetch.Entry{Name: segs[len(segs)-1], Type: fetch.EntryOther, Size: -1, URL: entryURL(base, segs, false)}
			if e.Name == "." || e.Name == ".." {
				continue
			}
			if !yield(e, nil) {
				return
			}
		}
		if err := sc.Err(); err != nil {
			yield(fetch.Entry{}, err)
		}
	}
}

// bytesBody is a listing's Body: bytes already read, so closing it ends
// nothing but further reads.
type bytesBody struct {
	mu     sync.Mutex
	r      *bytes.Reader
	closed bool
}

func newBytesBody(b []byte) *bytesBody { return &bytesBody{r: bytes.NewReader(b)} }

func (b *bytesBody) Read(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return 0, errClosed
	}
	return b.r.Read(p)
}

func (b *bytesBody) Close() error {
	b.mu.Lock()
	b.closed = true
	b.mu.Unlock()
	return nil
}
