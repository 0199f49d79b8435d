package nntp

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"math"
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
	return d.article(ctx, c, code, msg)
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
	return d.article(ctx, c, code, msg)
}

// article returns the article that follows a 220 reply (code and msg):
// its header read and parsed, the rest to stream.
func (d *Driver) article(ctx context.Context, c *conn, code int, msg string) (*fetch.Response, error) {
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
		Status: strconv.Itoa(code) + " " + msg,
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
	o := newOverview(req, low, high, 0, func(lo, hi int64, fn func([]byte) error) error {
		return c.overview(ctx, req, t, lo, hi, fn)
	})
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
// the group from the top down, each OVER's lines turned newest first.
// Between two Reads the connection is never in the middle of a reply.
//
// The walk ends whatever the server says. An OVER asks for step numbers:
// overviewBatch, doubled after each range that held no article (up to
// maxStep), so that a range of 2^63 numbers with nothing in it (a group
// of "211 2 1 9223372036854775807") is crossed in some sixty OVERs, not
// 2^56. Of a reply, only the newest lines still wanted are kept, so a wide
// range full of articles costs flat memory: the walk goes on below the
// oldest line kept. Every OVER asks for numbers below the last one's, so
// the walk always moves down, to low.
type overview struct {
	// fetch runs one OVER of the numbers lo to hi, calling fn with each
	// line of the reply.
	fetch func(lo, hi int64, fn func([]byte) error) error
	req   *fetch.Request

	low  int64 // the lowest number to list
	next int64 // the highest number not yet asked for
	left int64 // how many lines are still to come; -1 for no limit
	step int64 // how many numbers the next OVER asks for

	kept    [][]byte // the newest lines of the last reply, oldest first
	out     []byte   // those lines, newest first, each with LF
	pending []byte   // what of out the reader has not had
}

// maxStep bounds the numbers one OVER asks for: with it the arithmetic of
// the next range cannot overflow (high is at most 2^63-1).
const maxStep = 1 << 62

func newOverview(req *fetch.Request, low, high, left int64, fetchRange func(lo, hi int64, fn func([]byte) error) error) *overview {
	return &overview{fetch: fetchRange, req: req, low: low, next: high, left: left, step: overviewBatch}
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

// fill asks for the next range of overview lines.
func (o *overview) fill() error {
	hi := o.next
	lo := max(o.low, hi-o.step+1)
	keep := int64(overviewBatch)
	if o.left > 0 && o.left < keep {
		keep = o.left
	}
	o.kept = o.kept[:0]
	dropped := false
	lines, passed, passedBytes := int64(0), 0, 0
	err := o.fetch(lo, hi, func(line []byte) error {
		if lines++; lines > hi-lo+1 {
			// More lines than numbers asked for: a broken server, whose
			// extra lines are passed over, up to maxBlock bytes of them.
			passed++
			if passedBytes += len(line); passedBytes > maxBlock {
				return fetch.Errorf(fetch.ErrProtocol, "nntp: the overview of articles %d-%d goes on past %d lines and %d bytes of lines not asked for", lo, hi, passed, maxBlock)
			}
			return nil
		}
		if int64(len(o.kept)) == keep {
			// Older than the newest wanted: the next OVER asks again.
			dropped = true
			first := o.kept[0]
			copy(o.kept, o.kept[1:])
			o.kept[len(o.kept)-1] = append(first[:0], line...)
			return nil
		}
		o.kept = append(o.kept, append([]byte(nil), line...))
		return nil
	})
	if err != nil {
		return err
	}
	if passed > 0 {
		o.req.Tracef(fetch.Note, "ignored %d overview lines beyond the %d articles asked for", passed, hi-lo+1)
	}
	o.next = lo - 1
	switch {
	case len(o.kept) == 0:
		o.step = min(o.step*2, maxStep)
	case dropped:
		if n, ok := oldest(o.kept, lo, hi); ok {
			o.next = n - 1
		}
		o.step = overviewBatch
	default:
		o.step = overviewBatch
	}
	o.out = o.out[:0]
	for i := len(o.kept) - 1; i >= 0 && o.left != 0; i-- {
		o.out = append(o.out, o.kept[i]...)
		o.out = append(o.out, '\n')
		if o.left > 0 {
			o.left--
		}
	}
	o.pending = o.out
	return nil
}

// overviewNumber reads the article number an overview line begins with.
func overviewNumber(line []byte) (int64, bool) {
	f, _, _ := bytes.Cut(line, []byte("\t"))
	n, err := strconv.ParseInt(string(f), 10, 64)
	return n, err == nil && n > 0
}

// oldest is the lowest article number of lines in lo to hi, if one has
// such a number (a line that does not parse is the Entries' error).
func oldest(lines [][]byte, lo, hi int64) (int64, bool) {
	low, ok := int64(math.MaxInt64), false
	for _, l := range lines {
		if n, valid := overviewNumber(l); valid && n >= lo && n <= hi {
			low, ok = min(low, n), true
		}
	}
	return low, ok
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
	if (code == StatusUnknownCommand || code == StatusSyntaxError) && t.group == "" {
		if err := c.learnCaps(req); err != nil {
			return nil, err
		}
	}
	if (code == StatusUnknownCommand || code == StatusSyntaxError) && t.group == "" && c.caps == nil {
		// RFC 977: LIST without a keyword is the active file, on a
		// server that knows no CAPABILITIES.
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
		Status: strconv.Itoa(code) + " " + msg,
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
