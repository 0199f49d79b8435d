package ftp

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/urlfetch/urlfetch/fetch"
	"github.com/urlfetch/urlfetch/uri"
)

// head answers a Head request (fetch.Request.Head) on the session s, in
// the directory the URL's CWDs led to: what the server can say of the
// name without a transfer, so no data connection (no EPSV or PASV), no
// RETR, no LIST.
//
//   - A path ending in "/" (or an empty name) is a directory the CWDs
//     have shown to exist: a Listing, with the last CWD's reply.
//   - A name is asked for with SIZE and MDTM (RFC 3659), sent in one
//     write after the TYPE a fetch would set (SIZE counts the bytes of
//     the transfer type). A 213 to SIZE makes it a file: a Document whose
//     Length is that size in binary mode (-1 in ASCII mode, whose
//     conversion changes it, as for a fetch), whose Modified is MDTM's
//     time. MDTM is sent whenever the server offers it (FEAT), whatever
//     the Driver's SkipModTime: the time is what a Head is for.
//   - A name SIZE refuses is a directory when CWD into it succeeds (a
//     Listing, as a fetch would list it), a file when MDTM gave it a time
//     (a server without SIZE), and else missing: ErrNotFound, wrapping
//     SIZE's *ReplyError.
//   - ";type=d" is a Listing whatever the name is: NLST lists a file as
//     well as a directory. Its name is asked about as above, so that a
//     missing one fails.
//
// The session goes back to the pool before head returns: nothing is left
// to read on it.
func (d *Driver) head(ctx context.Context, req *fetch.Request, s *session, f *uri.FTP, p plan) (*fetch.Response, error) {
	if f.Name == "" {
		resp := &fetch.Response{Kind: fetch.Listing, Type: ListingType, Length: -1}
		if p.name != "" {
			// CWDNone: the directory was not entered on the way.
			line, err := s.isDir(p.name)
			if err != nil {
				return nil, err
			}
			resp.Meta = fetch.Meta{"Ftp-Reply": {line}}
		}
		return d.headDone(ctx, s, resp), nil
	}
	typ := transferType(f)
	askTime := s.feat.mdtm
	batch := []string{}
	if s.typ != typ {
		batch = append(batch, "TYPE "+string(rune(typ)))
	}
	batch = append(batch, "SIZE "+p.name)
	if askTime {
		batch = append(batch, "MDTM "+p.name)
	}
	if err := s.plan(batch...); err != nil {
		return nil, err
	}
	if err := s.setType(typ); err != nil {
		return nil, err
	}
	meta := fetch.Meta{}
	sizeRp, sizeErr := s.expect("SIZE "+p.name, 213)
	if sizeErr != nil && !refused(sizeErr) {
		return nil, sizeErr
	}
	if sizeErr == nil {
		meta.Add("Ftp-Reply", sizeRp.Line)
	}
	var modified time.Time
	if askTime {
		rp, err := s.expect("MDTM "+p.name, 213)
		switch {
		case err == nil:
			meta.Add("Ftp-Reply", rp.Line)
			var ok bool
			if modified, ok = parseMDTM(rp.Msg); !ok {
				s.note("the reply to MDTM gives no time (%q)", clipReply(rp.Line))
			}
		case !refused(err):
			return nil, err
		}
	}
	resp := &fetch.Response{Kind: fetch.Document, Type: mediaType(f.Name, typ), Length: -1, Modified: modified, Meta: meta}
	switch {
	case sizeErr == nil:
		if typ == typeBinary {
			if resp.Length = parseSize(sizeRp.Msg); resp.Length < 0 {
				s.note("the reply to SIZE gives no size (%q)", clipReply(sizeRp.Line))
			}
		}
	case !modified.IsZero():
		s.note("the server refused SIZE but gave MDTM a time: %s is a file of unknown size", p.name)
	default:
		line, err := s.isDir(p.name)
		var re *ReplyError
		switch {
		case err == nil:
			resp = &fetch.Response{Kind: fetch.Listing, Type: ListingType, Length: -1, Meta: fetch.Meta{"Ftp-Reply": {line}}}
		case !refused(err):
			return nil, err
		case errors.As(sizeErr, &re) && re.Code != StatusFileUnavailable:
			// SIZE is not there to tell (500, 502): only a transfer
			// could.
			s.note("the server has neither SIZE nor MDTM for %s: whether it exists is not known without a transfer", p.name)
		default:
			return nil, fmt.Errorf("%w; nor is it a directory (CWD %s: %v)", sizeErr, p.name, err)
		}
	}
	if f.Type == 'd' {
		// NLST lists a file too: the names of a Listing.
		resp.Kind, resp.Type, resp.Length = fetch.Listing, ListingType, -1
	}
	return d.headDone(ctx, s, resp), nil
}

// isDir finds out whether name is a directory: CWD into it succeeds
// (and the session stays there, as a listing of it would), returning the
// reply's line. A name that is none fails with CWD's refusal (refused).
func (s *session) isDir(name string) (string, error) {
	rp, err := s.cwd(name)
	if err != nil {
		return "", err
	}
	s.at = append(s.at, name)
	return rp.Line, nil
}

// headDone gives s back to the pool and returns resp with its empty Body.
func (d *Driver) headDone(ctx context.Context, s *session, resp *fetch.Response) *fetch.Response {
	d.release(s, nil)
	resp.Body = fetch.EmptyBody(ctx, nil)
	return resp
}
