package nntp

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"net/mail"
	"net/textproto"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/urlfetch/urlfetch/fetch"
)

const (
	// maxHeader bounds the part of an article parsed into Meta; the rest
	// of a longer header still reaches the Body.
	maxHeader = 1 << 20
	// overviewBatch is how many article numbers one OVER asks for.
	overviewBatch = 128
)

// articleByID fetches news:<message-id>.
func (d *Driver) articleByID(ctx context.Context, req *fetch.Request, c *conn, t *target) (*fetch.Response, error) {
	line := "ARTICLE <" + t.id + ">"
	code, msg, err := c.cmd(ctx, req, t, line)
	if err != nil {
		return nil, err
	}
	if code != StatusArticleFollows {
		return nil, commandError(line, code, msg)
	}
	return d.article(ctx, c)
}

// articleByNumber fetches nntp://host/group/N: GROUP, then ARTICLE N.
func (d *Driver) articleByNumber(ctx context.Context, req *fetch.Request, c *conn, t *target) (*fetch.Response, error) {
	if _, _, _, err := c.group(ctx, req, t); err != nil {
		return nil, err
	}
	code, msg, err := c.cmd(ctx, req, t, "ARTICLE "+strconv.FormatInt(t.number, 10))
	if err != nil {
		return nil, err
	}
	if code != StatusArticleFollows {
		return nil, commandError(fmt.Sprintf("ARTICLE %d in %s", t.number, t.group), code, msg)
	}
	return d.article(ctx, c)
}

// article returns the article that follows a 220 reply: its header read
// and parsed, the rest to stream.
func (d *Driver) article(ctx context.Context, c *conn) (*fetch.Response, error) {
	src := bufio.NewReaderSize(&dotSource{c: c, r: c.r.DotReader(), what: "article"}, 32<<10)
	head, err := readHeader(src)
	if err != nil {
		return nil, err
	}
	resp := &fetch.Response{
		Kind:   fetch.Document,
		Type:   ArticleType,
		Length: -1,
		Meta:   parseHeader(head),
	}
	if date := resp.Meta.Get("Date"); date != "" {
		if tm, err := mail.ParseDate(date); err == nil {
			resp.Modified = tm
		}
	}
	resp.Body = newBody(ctx, d, c, io.MultiReader(bytes.NewReader(head), src), false)
	return resp, nil
}

// readHeader reads an article's header, up to and with the empty line
// that ends it, or maxHeader bytes of it.
func readHeader(r *bufio.Reader) ([]byte, error) {
	var head []byte
	for len(head) < maxHeader {
		line, err := r.ReadSlice('\n')
		head = append(head, line...)
		switch {
		case err == bufio.ErrBufferFull:
			continue
		case err == io.EOF:
			return head, nil // an article without a body
		case err != nil:
			return nil, err
		case len(line) == 1:
			return head, nil // the empty line
		}
	}
	return head, nil
}

// parseHeader parses an article's header into Meta. A malformed line
// ends the parse; what came before it is kept.
func parseHeader(head []byte) fetch.Meta {
	r := textproto.NewReader(bufio.NewReader(io.MultiReader(bytes.NewReader(head), strings.NewReader("\n"))))
	h, _ := r.ReadMIMEHeader()
	if h == nil {
		h = textproto.MIMEHeader{}
	}
	return fetch.Meta(h)
}

// groupListing lists news:group or nntp://host/group: GROUP, then the
// overview, newest first, as the Body is read.
func (d *Driver) groupListing(ctx context.Context, req *fetch.Request, c *conn, t *target) (*fetch.Response, error) {
	count, low, high, err := c.group(ctx, req, t)
	if err != nil {
		return nil, err
	}
	o := &overview{req: req, c: c, t: t, ctx: ctx, low: low, next: high}
	switch {
	case d.Range.Last != 0:
		o.low, o.next, o.left = max(low, d.Range.First), min(high, d.Range.Last), -1
	case d.MaxEntries < 0:
		o.left = -1
	case d.MaxEntries == 0:
		o.left = DefaultMaxEntries
	default:
		o.left = int64(d.MaxEntries)
	}
	if count == 0 {
		o.next = o.low - 1
	}
	if req.Tracing() {
		which := "every article"
		if o.left > 0 {
			which = "the newest " + strconv.FormatInt(o.left, 10)
		}
		req.Tracef(fetch.Note, "%s has about %d articles, %d to %d: listing %s of %d to %d, newest first",
			t.group, count, low, high, which, o.low, o.next)
	}
	resp := &fetch.Response{
		Kind:   fetch.Listing,
		Type:   ListingType,
		Length: -1,
		Body:   newBody(ctx, d, c, o, true),
	}
	resp.SetEntries(t.overviewEntries)
	return resp, nil
}

// overview is the Body source of a group listing: the overview lines of
// the group from the top down, overviewBatch numbers per OVER, each
// batch turned newest first. Between two Reads the connection is never
// in the middle of a reply.
type overview struct {
	ctx  context.Context
	req  *fetch.Request
	c    *conn
	t    *target
	low  int64 // the lowest number to list
	next int64 // the highest number not yet asked for
	left int64 // how many lines are still to come; -1 for no limit

	raw     []byte // the lines of the last OVER, one after another
	ends    []int  // where each of them ends in raw
	out     []byte // those lines, newest first, each with LF
	pending []byte // what of out the reader has not had
}

func (o *overview) Read(p []byte) (int, error) {
	for len(o.pending) == 0 {
		if o.left == 0 || o.next < o.low {
			return 0, io.EOF
		}
		if err := o.fill(); err != nil {
			return 0, err
		}
	}
	n := copy(p, o.pending)
	o.pending = o.pending[n:]
	return n, nil
}

// fill asks for the next batch of overview lines.
func (o *overview) fill() error {
	size := int64(overviewBatch)
	if o.left > 0 && o.left < size {
		size = o.left
	}
	hi := o.next
	lo := max(o.low, hi-size+1)
	o.next = lo - 1
	o.raw, o.ends = o.raw[:0], o.ends[:0]
	extra, extraBytes := 0, 0
	err := o.c.overview(o.ctx, o.req, o.t, lo, hi, func(line []byte) error {
		if int64(len(o.ends)) > hi-lo {
			// More lines than numbers asked for: a broken server, whose
			// extra lines are passed over, up to maxBlock bytes of them.
			extra++
			if extraBytes += len(line); extraBytes > maxBlock {
				return fetch.Errorf(fetch.ErrProtocol, "nntp: the overview of articles %d-%d goes on past %d lines and %d bytes", lo, hi, extra, maxBlock)
			}
			return nil
		}
		o.raw = append(o.raw, line...)
		o.ends = append(o.ends, len(o.raw))
		return nil
	})
	if err != nil {
		return err
	}
	if extra > 0 {
		o.req.Tracef(fetch.Note, "ignored %d overview lines beyond the %d articles asked for", extra, hi-lo+1)
	}
	o.out = o.out[:0]
	for i := len(o.ends) - 1; i >= 0 && o.left != 0; i-- {
		start := 0
		if i > 0 {
			start = o.ends[i-1]
		}
		o.out = append(o.out, o.raw[start:o.ends[i]]...)
		o.out = append(o.out, '\n')
		if o.left > 0 {
			o.left--
		}
	}
	o.pending = o.out
	return nil
}

// groupList lists the groups: news:*, a news: wildmat, nntp://host/.
func (d *Driver) groupList(ctx context.Context, req *fetch.Request, c *conn, t *target) (*fetch.Response, error) {
	line := "LIST ACTIVE"
	if t.group != "" {
		line += " " + t.group
	}
	code, msg, err := c.cmd(ctx, req, t, line)
	if err != nil {
		return nil, err
	}
	if (code == StatusUnknownCommand || code == StatusSyntaxError) && t.group == "" && c.caps == nil {
		// RFC 977: LIST without a keyword is the active file.
		line = "LIST"
		if code, msg, err = c.cmd(ctx, req, t, line); err != nil {
			return nil, err
		}
	}
	if code != StatusListFollows {
		return nil, commandError(line, code, msg)
	}
	resp := &fetch.Response{
		Kind:   fetch.Listing,
		Type:   ListingType,
		Length: -1,
		Body:   newBody(ctx, d, c, &dotSource{c: c, r: c.r.DotReader(), what: "group list", max: maxBlock}, false),
	}
	resp.SetEntries(t.activeEntries)
	return resp, nil
}

// dotSource reads a multi-line block through a textproto dot reader,
// describing its errors. A block longer than max bytes (when max > 0)
// is an error.
type dotSource struct {
	c    *conn
	r    io.Reader
	what string
	max  int64
	n    int64
}

func (s *dotSource) Read(p []byte) (int, error) {
	if s.max > 0 && int64(len(p)) > s.max-s.n {
		// At most one byte past the bound: it tells a block that ends
		// there from one that goes on.
		p = p[:s.max-s.n+1]
	}
	n, err := s.r.Read(p)
	s.n += int64(n)
	if s.max > 0 && s.n > s.max {
		s.c.broken = true
		return 0, fetch.Errorf(fetch.ErrProtocol, "nntp: the %s goes on past %d bytes", s.what, s.max)
	}
	if err != nil && err != io.EOF {
		err = s.c.ioError(err, "reading the "+s.what)
	}
	return n, err
}

// newBody returns a Response's Body that reads src from c: at the end of
// the reply, c goes back to the pool for the next fetch; closed before
// the end, c is ended (the rest of the reply is not wanted), except that
// a resumable src (a group listing, between two OVER exchanges) keeps it
// when no read is under way.
func newBody(ctx context.Context, d *Driver, c *conn, src io.Reader, resumable bool) io.ReadCloser {
	r := &busyReader{r: src}
	keep := func() bool { return ctx.Err() == nil }
	return fetch.NewBody(ctx, r, fetch.BodyFuncs{
		End: func(err error) error {
			if err == io.EOF && keep() {
				d.put(c)
			} else {
				c.nc.Close()
			}
			return err
		},
		Close: func(ended bool) error {
			switch {
			case ended:
			case resumable && !r.busy.Load() && keep():
				d.put(c)
			default:
				c.nc.Close()
			}
			return nil
		},
	})
}

// busyReader says whether a Read is under way.
type busyReader struct {
	r    io.Reader
	busy atomic.Bool
}

func (b *busyReader) Read(p []byte) (int, error) {
	b.busy.Store(true)
	defer b.busy.Store(false)
	return b.r.Read(p)
}
