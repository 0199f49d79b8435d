package ftp

import (
	"bufio"
	"context"
	"errors"
	"io"
	"iter"
	"strings"
	"time"

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
// The Body is the data connection, the server's raw listing as it comes;
// Entries parses it line by line (Unix ls -l, DOS and IIS, EPLF, MLSD
// facts), and a line of no known format is kept as a name-only entry.
func (d *Driver) list(ctx context.Context, req *fetch.Request, s *session, f *uri.FTP, dirs []string, arg string) (*fetch.Response, error) {
	cmd := "LIST"
	mlsd := s.feat.mlst
	if mlsd {
		cmd = "MLSD"
	}
	if arg != "" {
		cmd += " " + arg
	}
	resp, err := d.listing(ctx, req, s, cmd)
	if err != nil {
		return nil, err
	}
	base := dirURL(f, dirs)
	resp.SetEntries(func(r io.Reader) iter.Seq2[fetch.Entry, error] {
		return listEntries(r, mlsd, base, time.Now())
	})
	return resp, nil
}

// nameList runs NLST for ";type=d": a listing of names only.
func (d *Driver) nameList(ctx context.Context, req *fetch.Request, s *session, f *uri.FTP, p plan) (*fetch.Response, error) {
	cmd := "NLST"
	if p.name != "" {
		cmd += " " + p.name
	}
	resp, err := d.listing(ctx, req, s, cmd)
	if err != nil {
		return nil, err
	}
	base := dirURL(f, p.base)
	resp.SetEntries(func(r io.Reader) iter.Seq2[fetch.Entry, error] {
		return nameEntries(r, base)
	})
	return resp, nil
}

// listing sends cmd (LIST, MLSD or NLST) and returns a Listing whose Body
// streams the data connection: memory stays flat whatever the listing's
// size.
func (d *Driver) listing(ctx context.Context, req *fetch.Request, s *session, cmd string) (*fetch.Response, error) {
	if s.feat.pret {
		if err := s.plan("PRET "+cmd, s.dataCommand()); err != nil {
			return nil, err
		}
	}
	r, err := s.open(ctx, req, cmd, false)
	if err != nil {
		return nil, err
	}
	return &fetch.Response{
		Kind:   fetch.Listing,
		Type:   ListingType,
		Length: -1,
		Meta:   fetch.Meta{"Ftp-Reply": {s.lastPrelim}},
		Status: s.lastPrelim,
		Body:   d.newBody(ctx, s, r, &boundedReader{r: r, left: MaxListingSize}, -1, cmd),
	}, nil
}

// MaxListingSize bounds the bytes of a listing: some 800,000 entries of
// ls -l. A listing streams, so memory stays flat whatever its size, but a
// server that never ends one would keep a fetch going for ever.
const MaxListingSize = 64 << 20

// boundedReader fails with ErrProtocol after left bytes.
type boundedReader struct {
	r    io.Reader
	left int64
}

func (b *boundedReader) Read(p []byte) (int, error) {
	if b.left <= 0 {
		return 0, fetch.Errorf(fetch.ErrProtocol, "the listing goes on past %d bytes", int64(MaxListingSize))
	}
	if int64(len(p)) > b.left {
		p = p[:b.left]
	}
	n, err := b.r.Read(p)
	b.left -= int64(n)
	return n, err
}

// dirURL is the URL of a directory of f's server, with f's user but not
// its password, as the base of entry URLs.
func dirURL(f *uri.FTP, dirs []string) uri.FTP {
	u := uri.FTP{Secure: f.Secure, Login: f.Login, Dirs: append([]string(nil), dirs...)}
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

// listEntries parses the raw listing in r line by line: MLSD facts when
// mlsd, else the LIST formats. now dates ls -l's times without a year.
func listEntries(r io.Reader, mlsd bool, base uri.FTP, now time.Time) iter.Seq2[fetch.Entry, error] {
	return func(yield func(fetch.Entry, error) bool) {
		sc := bufio.NewScanner(r)
		sc.Buffer(nil, maxLine)
		for n := 1; sc.Scan(); n++ {
			line := strings.TrimRight(sc.Text(), "\r")
			if strings.TrimSpace(line) == "" {
				continue
			}
			if strings.IndexByte(line, '\r') >= 0 {
				// Issue 12: a name holding a CR could overwrite what is
				// shown of the listing, and no URL may carry it.
				if !yield(fetch.Entry{}, fetch.Errorf(fetch.ErrProtocol, "ftp: listing line %d holds a CR", n)) {
					return
				}
				continue
			}
			var l listLine
			if mlsd {
				l = parseMLSD(line)
			} else {
				l = parseLIST(line, now)
			}
			if l.skip || l.name == "." || l.name == ".." {
				continue
			}
			if !yield(entryOf(l, base), nil) {
				return
			}
		}
		if err := sc.Err(); err != nil {
			yield(fetch.Entry{}, listError(err))
		}
	}
}

// listError is the error of a listing whose lines could not be read.
func listError(err error) error {
	if errors.Is(err, bufio.ErrTooLong) {
		return fetch.Errorf(fetch.ErrProtocol, "ftp: a listing line is longer than %d bytes", maxLine)
	}
	return err
}

// entryOf converts a parsed line.
func entryOf(l listLine, base uri.FTP) fetch.Entry {
	e := fetch.Entry{Name: l.name, Type: l.typ, Size: l.size, Time: l.time}
	switch l.typ {
	case fetch.EntryDir:
		e.Size = -1
		e.URL = entryURL(base, []string{l.name}, true)
	case fetch.EntryLink:
		e.URL = entryURL(base, []string{l.name}, false)
		e.Target = l.target
	case fetch.EntryFile:
		e.URL = entryURL(base, []string{l.name}, false)
		e.Media = suffixType(l.name)
	default:
		e.URL = entryURL(base, []string{l.name}, false)
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
			yield(fetch.Entry{}, listError(err))
		}
	}
}
