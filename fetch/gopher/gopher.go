// Package gopher implements the gopher scheme of RFC 1738 section 3.4: a
// client for the Internet Gopher protocol of RFC 1436 and for the Gopher+
// extensions ("Gopher+: upward compatible enhancements to the Internet
// Gopher protocol", University of Minnesota, 1993), written on the
// connection the fetch Client dials.
//
// A URL gopher://host:port/<type><selector>%09<search>%09<gopher+_string>
// becomes one request line: the decoded selector, a TAB and the search when
// the URL has one, a TAB and the Gopher+ string when it has one (for a type
// other than 7 with no search, the selector and the Gopher+ string, section
// 3.4.3), then CRLF. The type character is never sent; it says how to read
// the reply. An empty gopher-path is type 1 with the empty selector.
//
// What comes back, by type:
//
//   - Menus (type 1, and type 7 search results) are Listings. Their Entries
//     carry each item's own URL: a gopher URL built with package uri (with
//     "%09%09+" or "%09%09?" for items marked as Gopher+ ones, section
//     3.4.4), the embedded URL of an "h" item whose selector is "URL:...",
//     telnet:// and tn3270:// URLs for types 8 and T. Info lines ("i")
//     and error lines ("3") are entries without a URL. A malformed line is
//     an error that names its line number, and the listing goes on.
//   - Text (type 0) ends at a line holding only "." with ".." un-stuffed,
//     as RFC 1436 says. Servers that send neither the "." line nor stuffing
//     (pygopherd, gophernicus) are recognised: a line that begins with one
//     "." and something else proves the text is not stuffed, and a text
//     that ends at the close without the "." line is passed on as sent.
//     Meta "Gopher-End" says which end the text had: "dot" or "close".
//   - Every other type is raw bytes to the close.
//   - A reply that is nothing but "3" error items is ErrNotFound carrying
//     the server's text.
//
// Gopher+: "+" and "+view language" fetch a view and honour the reply
// header ("+N" exact length, "+-1" up to the "." line, "+-2" up to the
// close, "--N" an error and its text); "!" and "$", with or without
// attribute names ("!+ABSTRACT", "!+ABSTRACT +VIEWS"), fetch attribute
// blocks, parsed into Meta ("Gopher-Info", "Gopher-Admin", ...) and printed
// readably in the Body; "?" fetches an item's +ASK form, puts each question
// to Driver.Ask and sends the answers as section 3.4.9 shows; a URL that
// already holds the filled-in form is sent verbatim, the one place where a
// decoded CR LF reaches the wire.
//
// A Head request (fetch.Request.Head) is Gopher+'s "!" for an item the
// URL marks as Gopher+, and is answered from the URL alone for another
// (RFC 1436 has no request for metadata): see Driver.head in head.go.
//
// A type-7 URL without a search is not sent: Driver.Search or Driver.Ask
// supply the words, or Fetch returns ErrSearchRequired. Types 2 (CSO), 8
// and T (sessions), i and 3 name nothing Gopher can fetch. Gopher cannot
// resume: a Request.Offset starts the resource again at byte 0.
package gopher

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/urlfetch/urlfetch/fetch"
	"github.com/urlfetch/urlfetch/uri"
)

// Limits that keep a hostile or broken server from costing unbounded
// memory.
const (
	// MaxLine is the longest menu line, Gopher+ header or attribute line
	// accepted.
	MaxLine = 64 << 10
	// DefaultMaxMenuSize bounds the bytes of one menu.
	DefaultMaxMenuSize = 16 << 20
	// DefaultMaxAttributeSize bounds the bytes of one attribute reply.
	DefaultMaxAttributeSize = 4 << 20

	readBuffer = 64 << 10 // the connection's read buffer
	sniffLimit = 4 << 10  // how much of a reply is looked at for an error item
	maxErrText = 64 << 10 // the most of a Gopher+ error text read
)

// ErrSearchRequired is wrapped by the error of a type-7 URL that carries no
// search when the Driver has neither Search nor Ask to supply one.
var ErrSearchRequired = errors.New("gopher: a search is required")

// Driver fetches gopher URLs. Its zero value is ready to use.
type Driver struct {
	// Search is the search sent for a type-7 URL that carries none (no
	// %09 after the selector). A URL's own search, even an empty one
	// ("%09" and nothing), is sent as written.
	Search string
	// Ask, if set, asks the user a question: the words of a type-7
	// search that neither the URL nor Search gives (Kind "Search"), and
	// each question of a Gopher+ +ASK form (Kind "Ask", "AskP", "Choose",
	// ...). The answer of an AskP question is a secret, masked in traces.
	Ask func(ctx context.Context, q Question) (string, error)
	// MaxMenuSize bounds the bytes of a menu (DefaultMaxMenuSize when 0,
	// no bound when negative): a menu that never ends is an error.
	MaxMenuSize int64
	// MaxAttributeSize bounds the bytes of a Gopher+ attribute reply
	// (DefaultMaxAttributeSize when 0, no bound when negative).
	MaxAttributeSize int64
}

var (
	_ fetch.Driver        = (*Driver)(nil)
	_ fetch.FollowChecker = (*Driver)(nil)
)

// CheckFollow accepts the gopher URLs whose fetch sends nothing of the
// user's and nothing but one request line: it refuses a Gopher+ string
// that holds a data block (the filled-in +ASK form of RFC 1738 section
// 3.4.9, whose CR LF-separated lines a server could aim at any port), a
// "?" item (its form's questions would be put to the user) and a type-7
// search without its words (they would come from the user). Types that
// name no resource (8, T, 2, i, 3) are refused by Fetch itself.
func (d *Driver) CheckFollow(u *uri.URL) error {
	g, err := u.Gopher()
	if err != nil {
		return fetch.Errorf(fetch.ErrURL, "gopher: %w", err)
	}
	switch {
	case g.HasPlus && strings.ContainsAny(g.Plus, "\r\n"):
		return fetch.Errorf(fetch.ErrUnsafe, "it carries a Gopher+ data block (lines of its own to send)")
	case g.HasPlus && strings.HasPrefix(g.Plus, "?"):
		return fetch.Errorf(fetch.ErrUnsafe, "it is a Gopher+ form (+ASK) whose questions would be put to the user")
	case g.Type == '7' && !g.HasSearch:
		return fetch.Errorf(fetch.ErrUnsafe, "it is a gopher search without its words, which would be asked of the user")
	}
	return nil
}

// Fetch retrieves the item req.URL names. The caller must close the
// Response's Body; Close ends the connection.
func (d *Driver) Fetch(ctx context.Context, req *fetch.Request) (*fetch.Response, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	g, err := req.URL.Gopher()
	if err != nil {
		return nil, fetch.Errorf(fetch.ErrURL, "gopher: %w", err)
	}
	if req.URL.HasUser {
		req.Tracef(fetch.Note, "a gopher URL has no user or password (RFC 1738 section 3.4); ignoring them")
	}
	if req.Offset > 0 && !req.Head {
		req.Tracef(fetch.Note, "gopher cannot resume; starting at byte 0")
	}
	if err := fetchable(g); err != nil {
		return nil, err
	}
	if g.Type == '7' && !g.HasSearch && !req.Head {
		if err := d.fillSearch(ctx, req, g); err != nil {
			return nil, err
		}
	}
	if err := fetch.CheckLine("gopher selector", g.Selector); err != nil {
		return nil, err
	}
	if err := fetch.CheckLine("gopher search", g.Search); err != nil {
		return nil, err
	}
	if req.Head {
		return d.head(ctx, req, g)
	}
	switch {
	case !g.HasPlus:
		return d.retrieve(ctx, req, g, []string{g.Request() + "\r\n"}, nil, false)
	case strings.ContainsAny(g.Plus, "\r\n"):
		// RFC 1738 section 3.4.9: a filled-in form, sent verbatim.
		if err := checkForm(g.Plus); err != nil {
			return nil, err
		}
		return d.retrieve(ctx, req, g, splitLines(g.Request()), nil, true)
	}
	if err := fetch.CheckLine("gopher+ string", g.Plus); err != nil {
		return nil, err
	}
	switch g.Plus[0] {
	case '!', '$':
		return d.attributes(ctx, req, g)
	case '?':
		return d.form(ctx, req, g)
	}
	return d.retrieve(ctx, req, g, []string{g.Request() + "\r\n"}, nil, true)
}

// fetchable refuses the types that name nothing a Gopher request fetches.
func fetchable(g *uri.Gopher) error {
	l := uri.Login{Host: g.Host, Port: g.Port}
	switch g.Type {
	case '8', 'T':
		scheme := map[byte]string{'8': "telnet", 'T': "tn3270"}[g.Type]
		t := &uri.Telnet{Scheme: scheme, Login: l}
		t.User, t.HasUser = g.Selector, g.Selector != ""
		return fetch.Errorf(fetch.ErrUnsupported, "gopher: a type %c item is a %s session, not a document: open %s", g.Type, scheme, t)
	case '2':
		return fetch.Errorf(fetch.ErrUnsupported, "gopher: a type 2 item is a CSO phone-book server, which speaks its own protocol, not Gopher")
	case 'i', '3':
		return fetch.Errorf(fetch.ErrUnsupported, "gopher: a type %c item is a line of a menu, not a resource", g.Type)
	}
	return nil
}

// fillSearch supplies the search of a type-7 URL that has none; for a URL
// a server chose, nothing does.
func (d *Driver) fillSearch(ctx context.Context, req *fetch.Request, g *uri.Gopher) error {
	switch {
	case req.Hop != nil:
		return fetch.Errorf(fetch.ErrUnsafe, "%w: a server chose %q, a type-7 search without words (%s); no words of yours are sent for it", ErrSearchRequired, g.Selector, req.Hop)
	case d.Search != "":
		g.Search, g.HasSearch = d.Search, true
		req.Tracef(fetch.Note, "searching for %q (the URL has no search)", d.Search)
		return nil
	case d.Ask != nil:
		words, err := d.Ask(ctx, Question{Kind: "Search", Prompt: "Search " + (&uri.Gopher{Host: g.Host, Port: g.Port, Type: '7', Selector: g.Selector}).String() + " for"})
		if err != nil {
			return err
		}
		g.Search, g.HasSearch = words, true
		return nil
	}
	return fetch.Errorf(fetch.ErrUnsupported, "%w: %q is a type-7 search and the URL carries no words after %%09 to send it", ErrSearchRequired, g.Selector)
}

// splitLines cuts s after each LF, keeping the line ends.
func splitLines(s string) []string {
	var out []string
	for s != "" {
		i := strings.IndexByte(s, '\n')
		if i < 0 {
			out = append(out, s)
			break
		}
		out = append(out, s[:i+1])
		s = s[i+1:]
	}
	return out
}

// send connects and writes the request lines, each traced as a quoted Go
// string so that its TABs and CR LF show as the bytes they are; the lines
// whose index is in secret are traced masked.
func (d *Driver) send(ctx context.Context, req *fetch.Request, lines []string, secret map[int]bool) (*fetch.Conn, *bufio.Reader, error) {
	conn, err := req.Dial(ctx)
	if err != nil {
		return nil, nil, err
	}
	var b []byte
	for i, l := range lines {
		if secret[i] {
			req.Tracef(fetch.Out, "%q", "***\r\n")
		} else if req.Tracing() {
			req.Tracef(fetch.Out, "%q", l)
		}
		b = append(b, l...)
	}
	if _, err := conn.Write(b); err != nil {
		conn.Close()
		return nil, nil, err
	}
	return conn, bufio.NewReaderSize(conn, readBuffer), nil
}

// retrieve sends lines and reads the reply as g's type says: a menu, text,
// or raw bytes. plus says the request was a Gopher+ one, whose reply may
// begin with a header.
func (d *Driver) retrieve(ctx context.Context, req *fetch.Request, g *uri.Gopher, lines []string, secret map[int]bool, plus bool) (*fetch.Response, error) {
	conn, br, err := d.send(ctx, req, lines, secret)
	if err != nil {
		return nil, err
	}
	resp, err := d.reply(ctx, req, g, conn, br, plus)
	if err != nil {
		conn.Close()
		return nil, err
	}
	return resp, nil
}

func (d *Driver) reply(ctx context.Context, req *fetch.Request, g *uri.Gopher, conn *fetch.Conn, br *bufio.Reader, plus bool) (*fetch.Response, error) {
	resp := &fetch.Response{Length: -1, Meta: fetch.Meta{}}
	resp.Meta.Set("Gopher-Type", string(g.Type))
	var h plusHeader
	if plus {
		var err error
		if h, err = readPlusHeader(br); err != nil {
			return nil, err
		}
		if h.ok {
			req.Trace(fetch.In, h.line)
			if h.fail {
				return nil, plusError(br, h, g.Selector)
			}
			resp.Meta.Set("Gopher-Plus", h.line)
		} else {
			req.Tracef(fetch.Note, "the reply has no Gopher+ header; reading it as plain Gopher")
		}
	}
	if err := sniffError(br, g.Selector); err != nil {
		return nil, err
	}

	setEnd := func(how string) {
		resp.Meta.Set("Gopher-End", how)
		req.Tracef(fetch.Note, "%s", endNote(how))
	}
	typ := ItemType(g.Type)
	var r io.Reader
	switch {
	case typ == TypeMenu || typ == TypeSearch:
		max := d.MaxMenuSize
		if max == 0 {
			max = DefaultMaxMenuSize
		}
		resp.Kind, resp.Type = fetch.Listing, MenuType
		tr := newTextReader(h.framed(br), "menu", max, h.ok && h.size == -1, setEnd)
		if h.ok && h.size >= 0 {
			tr.eofEnd = "length"
		}
		r = tr
		resp.SetEntries(parseMenu)
	case typ == TypeText && (!h.ok || h.size == -1):
		resp.Kind, resp.Type = fetch.Document, typ.MediaType()
		r = newTextReader(br, "text", 0, h.ok, setEnd)
	default:
		resp.Kind = fetch.Document
		if h.ok && h.size >= 0 {
			resp.Length = h.size
		}
		resp.Type = typ.MediaType()
		if resp.Type == "" {
			head, _ := br.Peek(512)
			resp.Type = sniffType(typ, head)
		}
		r = h.framedEnd(br, conn, setEnd)
	}
	if v := viewType(g.Plus); v != "" && resp.Kind == fetch.Document {
		resp.Type = v // the view the request asked for (Gopher+ section 2.6)
	}
	resp.Body = fetch.NewBody(ctx, r, fetch.BodyFuncs{Close: func(bool) error { return conn.Close() }})
	return resp, nil
}

// endNote is the trace note for the way a reply ended.
func endNote(how string) string {
	switch how {
	case "dot":
		return `the reply ended with its "." line`
	case "length":
		return "the reply ended at the length its header gave"
	}
	return "the reply ended when the server closed the connection"
}

// viewType returns the media type of a Gopher+ view string such as
// "+application/postscript Es_ES", or "".
func viewType(plus string) string {
	v, ok := strings.CutPrefix(plus, "+")
	if !ok {
		return ""
	}
	v, _, _ = strings.Cut(v, "\t") // "+view TAB 1": a form's answers follow
	v, _, _ = strings.Cut(v, " ")
	if !strings.Contains(v, "/") || strings.ContainsAny(v, "\r\n") {
		return ""
	}
	return strings.ToLower(v)
}

// sniffType guesses the media type of a binary item from its first bytes;
// image, sound and movie types keep their kind when the bytes do not say.
func sniffType(t ItemType, head []byte) string {
	got := http.DetectContentType(head)
	want := map[ItemType]string{TypeImage: "image/", TypeBitmap: "image/", TypeSound: "audio/", TypeSoundPlus: "audio/", TypeMovie: "video/"}[t]
	if want != "" && !strings.HasPrefix(got, want) {
		return "application/octet-stream"
	}
	return got
}

// clean makes server text fit in one line of an error message.
func clean(s string) string {
	s = strings.ToValidUTF8(s, "?")
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return ' '
		}
		return r
	}, strings.TrimSpace(s))
}

// errorf is fetch.Errorf for a message about selector sel.
func errorf(kind error, sel, format string, args ...any) error {
	return fetch.Errorf(kind, "gopher: %q: %s", sel, fmt.Sprintf(format, args...))
}
