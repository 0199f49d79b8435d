// Package mid is the driver for mid: and cid: URLs, which name a mail
// message by its Message-ID and a body part of a MIME message by its
// Content-ID (RFC 2392; the schemes of RFC 1630's table, from the draft
// it grew from):
//
//	mid:MESSAGE-ID               the message, byte for byte (message/rfc822)
//	mid:MESSAGE-ID/CONTENT-ID    the body part with that Content-ID, decoded
//	                             from its transfer encoding, with its own
//	                             media type
//	mid:MESSAGE-ID/              a Listing of the message's body parts
//	cid:CONTENT-ID               a body part of the context message
//
// The identifiers are written without their "<" and ">", with "/" and
// the bytes a URL cannot hold %-encoded (RFC 2392 section 2).
//
// "The use of a mid URL implies access to a body of mail already
// received" (RFC 1630): the Driver's Mailbox, which the user names. It is
// a Maildir directory (cur/ and new/, one file per message), an mbox file
// (messages after From_ lines), or an IMAP mailbox, imaps://user@host/INBOX
// or imap://user@host/INBOX (STARTTLS when the server offers it), searched
// with UID SEARCH HEADER Message-ID and fetched with UID FETCH
// BODY.PEEK[] from a mailbox opened read-only: nothing is marked seen. The
// IMAP password comes from the mailbox URL, netrc or the Client's prompt
// and is masked in traces; the server is dialled through the Client's dial
// path under the port policy of the imap and imaps schemes, whose own
// ports 143 and 993 are allowed (the user chose the server), other
// protocols' ports not; TLS is the Client's (Request.StartTLS).
//
// A message is found by its Message-ID: the addr-spec between the field's
// "<" and ">", the same byte for byte, its domain in any case. A Maildir
// or mbox is read a message header at a time and never whole: a mailbox
// of any size costs flat memory, and so does a message, which streams.
// A body part streams too, decoded (base64, quoted-printable) as it is
// read; its charset is left as it is, named in its media type. A part
// listing reads the message once, to the end, to learn each part's size.
//
// The context message of cid: URLs is the Driver's Message, a file that
// holds one message (the fetch command's --message), or else the message
// the last mid: URL fetched through this Driver named. The Message file
// is also found by its Message-ID, before the Mailbox is searched.
//
// News. RFC 1630 says a message distributed by news should be named with
// news:, but message-ids are one space: with NewsFallback set, a
// mid:MESSAGE-ID that the mailbox does not hold is answered with a
// Redirect to news:MESSAGE-ID, which the Client follows under its policy
// (CheckHop: news: is a scheme a Client may be sent to) to the news
// server of the news: driver. This driver never imports that one: the
// Client composes them, as it composes every redirect. Parts (mid:ID/CID)
// have no such fallback: a news article is fetched whole.
//
// Policy. mid: and cid: URLs read the user's mail, so a URL a server
// chose must never lead to them, not even when the user widens the schemes
// a server may send the Client to (--proto-redir): the Driver is a
// fetch.PrivateDriver, and its CheckPrivateHop refuses every hop but one
// from a message to a part of the same message (a listing's entry, a
// link in one part to another), which reads nothing the user did not ask
// for.
package mid

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/mail"
	"net/textproto"
	"os"
	"strings"
	"sync"

	"github.com/urlfetch/urlfetch/fetch"
	"github.com/urlfetch/urlfetch/uri"
)

// MessageType is the media type of a whole message.
const MessageType = "message/rfc822"

// Driver fetches mid: and cid: URLs. Set its fields before the first
// Fetch; a Driver is safe for concurrent use.
type Driver struct {
	// Mailbox is the body of mail mid: URLs are looked up in: a Maildir
	// directory, an mbox file, or an IMAP mailbox URL
	// (imaps://user@host/INBOX, imap://user@host:port/Mailbox).
	Mailbox string
	// Message, if set, is a file holding one message (RFC 5322, as a
	// mail client saves it): the context of cid: URLs, and found by its
	// Message-ID before Mailbox is searched.
	Message string
	// NewsFallback answers a mid:MESSAGE-ID that no mailbox holds with a
	// Redirect to news:MESSAGE-ID, for the Client to follow.
	NewsFallback bool

	mu   sync.Mutex
	last string // the message-id of the message the last mid: URL named
}

var (
	_ fetch.Driver        = (*Driver)(nil)
	_ fetch.PrivateDriver = (*Driver)(nil)
)

// A target is a mid: or cid: URL, decoded.
type target struct {
	id   string // the message-id; "" for a cid: URL (the context message)
	cid  string // the content-id of a part; "" for the whole message
	list bool   // mid:ID/: the message's parts
}

// parseTarget decodes u.
func parseTarget(u *uri.URL) (*target, error) {
	if u.Scheme != "mid" && u.Scheme != "cid" {
		return nil, fetch.Errorf(fetch.ErrUnsupported, "mid: the driver serves mid: and cid: URLs, not %s:", u.Scheme)
	}
	if u.Authority {
		return nil, fetch.Errorf(fetch.ErrURL, "mid: %s: a %s: URL names no host (RFC 2392): %s:MESSAGE-ID", u.Redacted(), u.Scheme, u.Scheme)
	}
	raw := u.Path
	if u.RawQuery != "" || u.ForceQuery {
		raw += "?" + u.RawQuery // "?" is a byte of an addr-spec here
	}
	t := &target{}
	var err error
	if u.Scheme == "cid" {
		if t.cid, err = unescapeID(raw); err == nil && t.cid == "" {
			err = errors.New("no content-id")
		}
	} else {
		rawID, rawCID, slash := strings.Cut(raw, "/")
		if t.id, err = unescapeID(rawID); err == nil && t.id == "" {
			err = errors.New("no message-id")
		}
		if err == nil && slash {
			t.list = rawCID == ""
			t.cid, err = unescapeID(rawCID)
		}
	}
	if err != nil {
		return nil, fetch.Errorf(fetch.ErrURL, "mid: %s: %v", u.Redacted(), err)
	}
	if err := fetch.CheckLine("message-id", t.id); err != nil {
		return nil, err
	}
	if err := fetch.CheckLine("content-id", t.cid); err != nil {
		return nil, err
	}
	return t, nil
}

// unescapeID decodes a message-id or content-id of a URL; one pasted with
// its "<" and ">" (encoded or not) is taken without them.
func unescapeID(raw string) (string, error) {
	v, err := uri.Unescape(raw)
	if err != nil {
		return "", err
	}
	if len(v) > 2 && v[0] == '<' && v[len(v)-1] == '>' {
		v = v[1 : len(v)-1]
	}
	return v, nil
}

// escapeID writes a message-id or content-id for a mid: URL: "/" and the
// bytes a URL cannot hold %-encoded, its "@" as it is.
func escapeID(id string) string {
	at := strings.LastIndexByte(id, '@')
	if at < 0 {
		return uri.Escape(id, uri.ComponentNewsGroup)
	}
	return uri.Escape(id[:at], uri.ComponentNewsGroup) + "@" + uri.Escape(id[at+1:], uri.ComponentNewsGroup)
}

// PartURL returns the mid: URL of the part cid of message id (RFC 2392's
// long form), or of the message itself when cid is "".
func PartURL(id, cid string) string {
	if cid == "" {
		return "mid:" + escapeID(id)
	}
	return "mid:" + escapeID(id) + "/" + escapeID(cid)
}

// CheckPrivateHop refuses every URL a server chose, but a part of the
// message the hop comes from: the entry of mid:ID/'s listing, or a link
// in one part of a message to another (mid:ID/CID to mid:ID/OTHER). A
// cid: URL is never followed: its message is a context the server's page
// cannot see.
func (d *Driver) CheckPrivateHop(h fetch.Hop) error {
	if (h.Kind == fetch.HopEntry || h.Kind == fetch.HopLink) && h.From.Scheme == "mid" && h.To.Scheme == "mid" {
		from, err1 := parseTarget(h.From)
		to, err2 := parseTarget(h.To)
		if err1 == nil && err2 == nil && to.cid != "" && sameID(from.id, to.id) {
			return nil
		}
	}
	return fmt.Errorf("%s: URLs read your mail: only you may name one, never a server (not even with --proto-redir)", h.To.Scheme)
}

// A store is a body of mail: a Maildir, an mbox, an IMAP mailbox, or the
// one message of the Message file.
type store interface {
	// find returns the message whose Message-ID is id, open, or an
	// ErrNotFound error that names the store. With body false the
	// caller needs the header and the length only (a Head request): a
	// store that would transfer the message for its body (IMAP) may
	// leave the body empty.
	find(ctx context.Context, req *fetch.Request, id string, body bool) (*message, error)
	String() string
}

// A message is a message found in a store, open for reading.
type message struct {
	header textproto.MIMEHeader
	body   io.ReadCloser // the message, byte for byte
	length int64         // bytes of body, -1 if unknown
	where  string        // where in its store, for the trace
}

// notFound is the error of a message-id a store does not hold.
func notFound(s fmt.Stringer, id string) error {
	return fetch.Errorf(fetch.ErrNotFound, "mid: no message <%s> in %s", id, s)
}

// mailbox returns the store of the Mailbox setting.
func (d *Driver) mailbox() (store, error) {
	m := d.Mailbox
	if m == "" {
		return nil, nil
	}
	if lower := strings.ToLower(m); strings.HasPrefix(lower, "imap://") || strings.HasPrefix(lower, "imaps://") {
		u, err := uri.Parse(m)
		if err != nil {
			return nil, fetch.Errorf(fetch.ErrUnsupported, "mid: the mailbox setting: %v", err)
		}
		b, err := parseIMAP(u)
		if err != nil {
			if fetch.Class(err) != nil {
				return nil, err
			}
			return nil, fetch.Errorf(fetch.ErrUnsupported, "mid: the mailbox setting: %v", err)
		}
		return b, nil
	}
	fi, err := os.Stat(m)
	switch {
	case err != nil:
		return nil, fetch.Errorf(fetch.ErrNotFound, "mid: the mailbox: %w", err)
	case fi.IsDir() && isMaildir(m):
		return &maildir{dir: m}, nil
	case fi.IsDir():
		return nil, fetch.Errorf(fetch.ErrUnsupported, "mid: the mailbox %s is a directory but no Maildir: it has no cur/ and new/", m)
	case fi.Mode().IsRegular():
		return &mbox{path: m}, nil
	}
	return nil, fetch.Errorf(fetch.ErrUnsupported, "mid: the mailbox %s is neither a Maildir nor an mbox file", m)
}

// Fetch retrieves the message, part or listing of parts req.URL names. A
// message-id the mailbox does not hold is fetch.ErrNotFound, naming the
// mailbox (or, with NewsFallback, a Redirect to news:); an IMAP login the
// server refuses is fetch.ErrAuth.
func (d *Driver) Fetch(ctx context.Context, req *fetch.Request) (*fetch.Response, error) {
	t, err := parseTarget(req.URL)
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var msg *message
	// A Head of a whole message needs its header and length only; of a
	// part or a listing of parts, the message's structure, in its body.
	body := !req.Head || t.cid != "" || t.list
	if t.id == "" {
		msg, t.id, err = d.context(ctx, req)
	} else {
		msg, err = d.find(ctx, req, t.id, body)
		if err != nil && errors.Is(err, fetch.ErrNotFound) && d.NewsFallback && t.cid == "" && !t.list && strings.Contains(t.id, "@") {
			return d.toNews(ctx, req, t.id, err)
		}
	}
	if err != nil {
		return nil, err
	}
	if req.URL.Scheme == "mid" {
		d.mu.Lock()
		d.last = t.id
		d.mu.Unlock()
	}
	var resp *fetch.Response
	switch {
	case t.list:
		resp, err = d.listing(ctx, req, t, msg)
	case t.cid != "":
		resp, err = d.part(ctx, req, t, msg)
	default:
		resp, err = d.document(ctx, req, msg)
	}
	if err == nil && req.Head {
		// Metadata only: what the response says, and no bytes.
		resp.Body.Close()
		resp.Body = fetch.EmptyBody(ctx, nil)
	}
	return resp, err
}

// find looks for id in the Message file, then in the Mailbox.
func (d *Driver) find(ctx context.Context, req *fetch.Request, id string, body bool) (*message, error) {
	var tried []string
	if d.Message != "" {
		f := &messageFile{path: d.Message}
		msg, err := f.find(ctx, req, id, body)
		if !errors.Is(err, fetch.ErrNotFound) {
			return msg, err
		}
		tried = append(tried, f.String())
	}
	box, err := d.mailbox()
	if err != nil {
		return nil, err
	}
	if box == nil {
		if len(tried) > 0 {
			return nil, fetch.Errorf(fetch.ErrNotFound, "mid: no message <%s> in %s, and no mailbox is set (--mailbox)", id, tried[0])
		}
		if d.NewsFallback {
			return nil, fetch.Errorf(fetch.ErrNotFound, "mid: no mailbox is set")
		}
		return nil, fetch.Errorf(fetch.ErrUnsupported, "mid: no mailbox is set: a mid: URL names a message in your mail; give a Maildir, an mbox file or an IMAP mailbox with --mailbox DIR|FILE|imaps://USER@HOST/INBOX (or $MAIL)")
	}
	return box.find(ctx, req, id, body)
}

// context opens the context message of a cid: URL: the Message file, or
// the message the last mid: URL named.
func (d *Driver) context(ctx context.Context, req *fetch.Request) (*message, string, error) {
	if d.Message != "" {
		msg, err := (&messageFile{path: d.Message}).find(ctx, req, "", true)
		if err != nil {
			return nil, "", err
		}
		return msg, msgID(msg.header.Get("Message-Id")), nil
	}
	d.mu.Lock()
	id := d.last
	d.mu.Unlock()
	if id == "" {
		return nil, "", fetch.Errorf(fetch.ErrUnsupported, "mid: a cid: URL names a part of a message it does not name: give the message with --message FILE, or fetch its mid: URL first, or write mid:MESSAGE-ID/CONTENT-ID")
	}
	req.Tracef(fetch.Note, "the context of cid: is <%s>, which the last mid: URL named", id)
	msg, err := d.find(ctx, req, id, true)
	return msg, id, err
}

// toNews is the redirect of a message-id the mailbox does not hold to
// news:, with the reason in its Status.
func (d *Driver) toNews(ctx context.Context, req *fetch.Request, id string, why error) (*fetch.Response, error) {
	loc, err := uri.Parse((&uri.News{MessageID: id}).String())
	if err != nil {
		return nil, why
	}
	req.Tracef(fetch.Note, "%v; asking the news server", why)
	return &fetch.Response{
		Kind:     fetch.Redirect,
		Type:     "text/plain",
		Length:   0,
		Status:   fmt.Sprintf("not in the mailbox: %s", strings.TrimPrefix(why.Error(), "mid: ")),
		Location: loc,
		Body:     fetch.NewBody(ctx, strings.NewReader(""), fetch.BodyFuncs{}),
	}, nil
}

// document is the whole message, byte for byte, from Request.Offset on.
func (d *Driver) document(ctx context.Context, req *fetch.Request, msg *message) (*fetch.Response, error) {
	resp := &fetch.Response{
		Kind:   fetch.Document,
		Type:   MessageType,
		Length: msg.length,
		Meta:   msg.header,
	}
	if t, err := mail.ParseDate(msg.header.Get("Date")); err == nil {
		resp.Modified = t
	}
	if off := req.Offset; off > 0 && (msg.length < 0 || off <= msg.length) {
		// No store starts a message in the middle cheaper than reading
		// up to there: the bytes before Offset are read and dropped.
		if _, err := io.CopyN(io.Discard, msg.body, off); err != nil {
			msg.body.Close()
			return nil, fmt.Errorf("mid: skipping %d bytes to resume: %w", off, err)
		}
		resp.Offset = off
		if resp.Length >= 0 {
			resp.Length -= off
		}
	}
	resp.Body = fetch.NewBody(ctx, msg.body, fetch.BodyFuncs{
		Close: func(bool) error { msg.body.Close(); return nil },
	})
	return resp, nil
}

// part is the body part t.cid of msg, decoded.
func (d *Driver) part(ctx context.Context, req *fetch.Request, t *target, msg *message) (*fetch.Response, error) {
	e, err := findPart(msg.body, t.cid)
	if err == nil && e == nil {
		err = fetch.Errorf(fetch.ErrNotFound, "mid: message <%s> has no part <%s>", t.id, t.cid)
	}
	var body io.Reader
	if err == nil {
		body, err = e.decoded()
	}
	if err != nil {
		msg.body.Close()
		return nil, err
	}
	req.Tracef(fetch.Note, "%s of <%s> is <%s>: %s, %s", e.name(), t.id, t.cid, e.contentType(), transferEncoding(e))
	resp := &fetch.Response{
		Kind:   fetch.Document,
		Type:   e.contentType(),
		Length: -1,
		Meta:   e.header,
		Body: fetch.NewBody(ctx, body, fetch.BodyFuncs{
			Close: func(bool) error { msg.body.Close(); return nil },
		}),
	}
	if req.Offset > 0 {
		req.Tracef(fetch.Note, "a body part cannot start in the middle: starting at byte 0, not %d", req.Offset)
	}
	return resp, nil
}

func transferEncoding(e *entity) string {
	if v := strings.TrimSpace(e.header.Get("Content-Transfer-Encoding")); v != "" {
		return strings.ToLower(v)
	}
	return "7bit"
}

// listing is the list of msg's body parts.
func (d *Driver) listing(ctx context.Context, req *fetch.Request, t *target, msg *message) (*fetch.Response, error) {
	defer msg.body.Close()
	hasID := msgID(msg.header.Get("Message-Id")) != ""
	b, n, err := listParts(msg.body, func(cid string) string {
		if !hasID {
			return "cid:" + escapeID(cid)
		}
		return PartURL(t.id, cid)
	})
	if err != nil {
		return nil, err
	}
	req.Tracef(fetch.Note, "<%s> has %d parts", t.id, n)
	resp := &fetch.Response{
		Kind:   fetch.Listing,
		Type:   fetch.ListingType,
		Length: int64(len(b)),
		Meta:   msg.header,
		Body:   fetch.NewBody(ctx, bytes.NewReader(b), fetch.BodyFuncs{}),
	}
	resp.SetEntries(fetch.ParseEntries)
	return resp, nil
}

// messageFile is the Message setting: a file that holds one message.
type messageFile struct {
	path string
}

func (f *messageFile) String() string { return "the message file " + f.path }

// find opens the file; with an id, only when the message's Message-ID is
// id.
func (f *messageFile) find(ctx context.Context, req *fetch.Request, id string, _ bool) (*message, error) {
	fi, err := os.Stat(f.path)
	if err != nil {
		return nil, fetch.Errorf(fetch.ErrNotFound, "mid: %w", err)
	}
	if !fi.Mode().IsRegular() {
		return nil, fetch.Errorf(fetch.ErrUnsupported, "mid: %s is not a regular file", f)
	}
	file, err := os.Open(f.path)
	if err != nil {
		return nil, fetch.Errorf(fetch.ErrNotFound, "mid: %w", err)
	}
	h, _, err := readHeader(bufio.NewReader(file))
	if err != nil {
		file.Close()
		return nil, fetch.Errorf(fetch.ErrProtocol, "mid: %s: %w", f, err)
	}
	if id != "" && !sameID(msgID(h.Get("Message-Id")), id) {
		file.Close()
		return nil, notFound(f, id)
	}
	if _, err := file.Seek(0, io.SeekStart); err != nil {
		file.Close()
		return nil, err
	}
	req.Tracef(fetch.Note, "reading %s", f)
	return &message{header: h, body: file, length: fi.Size(), where: f.path}, nil
}
