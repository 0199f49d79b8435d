package nntp

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/mail"
	"strconv"

	"github.com/urlfetch/urlfetch/fetch"
)

// head answers a Head request (fetch.Request.Head) on c: what the server
// says of t without sending an article's body or a listing.
//
//   - news:<message-id> is HEAD <message-id> (RFC 3977 section 6.2.2):
//     the article's header is the Meta, its Date the Modified.
//   - nntp://host/group/N is GROUP, HEAD N, then OVER N (XOVER) for the
//     article's size: Meta "Bytes" and "Lines", RFC 3977's :bytes (the
//     article on the wire, CRLF line ends and dot-stuffing counted) and
//     :lines (of its body), when the header has none of its own. Length
//     stays -1: the Body of a fetch, LF line ends and no stuffing, is
//     not :bytes long, and only the transfer says by how much.
//   - news:group and nntp://host/group are GROUP: a Listing whose Meta
//     "Nntp-Count", "Nntp-Low" and "Nntp-High" are the reply's estimated
//     count and range, its Status the reply; no OVER.
//   - news:*, a wildmat and nntp://host/ name lists of groups, which
//     only LIST gives, and LIST is the transfer: the Head is the server's
//     greeting (the Status), on a connection that has shown the server
//     there and willing; nothing is sent.
//
// The connection goes back to the pool before head returns.
func (d *Driver) head(ctx context.Context, req *fetch.Request, c *conn, t *target) (*fetch.Response, error) {
	resp := &fetch.Response{Kind: fetch.Listing, Type: ListingType, Length: -1, Meta: fetch.Meta{}}
	switch t.kind {
	case articleByID:
		line := "HEAD <" + t.id + ">"
		if err := c.articleHead(ctx, req, t, line, line, resp); err != nil {
			return nil, err
		}
	case articleByNumber:
		if _, _, _, err := c.group(ctx, req, t); err != nil {
			return nil, err
		}
		n := strconv.FormatInt(t.number, 10)
		if err := c.articleHead(ctx, req, t, "HEAD "+n, fmt.Sprintf("HEAD %s in %s", n, t.group), resp); err != nil {
			return nil, err
		}
		if err := c.overviewSize(ctx, req, t, resp.Meta); err != nil {
			return nil, err
		}
	case groupListing:
		count, low, high, err := c.group(ctx, req, t)
		if err != nil {
			return nil, err
		}
		resp.Status = fmt.Sprintf("%d %d %d %d %s", StatusGroupSelected, count, low, high, t.group)
		resp.Meta.Set("Nntp-Count", strconv.FormatInt(count, 10))
		resp.Meta.Set("Nntp-Low", strconv.FormatInt(low, 10))
		resp.Meta.Set("Nntp-High", strconv.FormatInt(high, 10))
	default:
		req.Tracef(fetch.Note, "a list of groups comes only with LIST, a transfer: the Head is the server's greeting")
		resp.Status = c.greeting
	}
	d.put(c)
	resp.Body = fetch.EmptyBody(ctx, nil)
	return resp, nil
}

// articleHead sends line (HEAD with a message-id or a number; what names
// it in an error) and reads the header of its 221 reply into resp: a
// Document of ArticleType, the header as Meta, its Date as Modified, the
// reply line as Status.
func (c *conn) articleHead(ctx context.Context, req *fetch.Request, t *target, line, what string, resp *fetch.Response) error {
	code, msg, err := c.cmd(ctx, req, t, line)
	if err != nil {
		return err
	}
	if code != StatusHeadFollows {
		return commandError(what, code, msg)
	}
	head, err := c.headBlock()
	if err != nil {
		return err
	}
	resp.Kind, resp.Type, resp.Status = fetch.Document, ArticleType, strconv.Itoa(code)+" "+msg
	resp.Meta = parseHeader(head)
	if date := resp.Meta.Get("Date"); date != "" {
		if tm, err := mail.ParseDate(date); err == nil {
			resp.Modified = tm
		}
	}
	return nil
}

// headBlock reads the multi-line block of a 221 reply to its dot line:
// at most maxHeader bytes, LF line ends, dot-stuffing undone.
func (c *conn) headBlock() ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(c.r.DotReader(), maxHeader+1))
	if err != nil {
		return nil, c.ioError(err, "reading the header")
	}
	if len(b) > maxHeader {
		c.broken = true
		return nil, fetch.Errorf(fetch.ErrProtocol, "nntp: the header the server sent goes on past %d bytes", maxHeader)
	}
	return b, nil
}

// overviewSize asks for the overview line of article t.number (OVER, the
// one number) and adds its :bytes and :lines (fields 7 and 8, RFC 3977
// section 8.4) to meta as "Bytes" and "Lines", unless the header gave
// them. A server that refuses the overview, or a line that does not
// parse, adds nothing.
func (c *conn) overviewSize(ctx context.Context, req *fetch.Request, t *target, meta fetch.Meta) error {
	var fields [][]byte
	err := c.overview(ctx, req, t, t.number, t.number, func(line []byte) error {
		if fields == nil {
			fields = bytes.Split(line, []byte("\t"))
		}
		return nil
	})
	var re *ReplyError
	if errors.As(err, &re) {
		return nil // the server refused the overview: no size
	}
	if err != nil {
		return err
	}
	if len(fields) < 8 || string(fields[0]) != strconv.FormatInt(t.number, 10) {
		return nil
	}
	for i, key := range map[int]string{6: "Bytes", 7: "Lines"} {
		n, err := strconv.ParseInt(string(fields[i]), 10, 64)
		if err == nil && n >= 0 && meta.Get(key) == "" {
			meta.Set(key, strconv.FormatInt(n, 10))
		}
	}
	return nil
}
