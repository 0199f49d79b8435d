package wais

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/urlfetch/urlfetch/fetch"
	"github.com/urlfetch/urlfetch/internal/waiswire"
	"github.com/urlfetch/urlfetch/uri"
)

// Dialect is the protocol a server speaks.
type Dialect int

const (
	// DialectAuto tries WAIS first and falls back to Z39.50-1995.
	DialectAuto Dialect = iota
	// DialectWAIS is classic WAIS: the 1988 draft of Z39.50 in its own
	// tag-length-value encoding (freeWAIS, WAIS Inc. servers).
	DialectWAIS
	// DialectZ3950 is Z39.50-1992/1995 in BER (YAZ, Zebra and most
	// library catalogues).
	DialectZ3950
)

var dialectNames = [...]string{"auto", "wais", "z3950"}

func (d Dialect) String() string {
	if d >= 0 && int(d) < len(dialectNames) {
		return dialectNames[d]
	}
	return "dialect(" + fmt.Sprint(int(d)) + ")"
}

// ParseDialect reads "auto", "wais" or "z3950".
func ParseDialect(s string) (Dialect, error) {
	for i, n := range dialectNames {
		if strings.EqualFold(s, n) {
			return Dialect(i), nil
		}
	}
	return 0, fmt.Errorf("wais: unknown dialect %q (want auto, wais or z3950)", s)
}

// Defaults of a Driver whose fields are zero.
const (
	DefaultProbeTimeout   = 3 * time.Second
	DefaultMaxHits        = 40
	DefaultMaxMessageSize = 4 << 20
)

// Driver fetches wais URLs. Its zero value is ready to use; set its
// fields before the first Fetch.
//
// A search comes back as a Listing whose Body holds one line per hit,
// in the order the server ranked them (see ParseListing for the format);
// its entries' URLs retrieve the documents. A document comes back as a
// Document, read from the server in slices as the Body is read.
type Driver struct {
	// Dialect forces a dialect; DialectAuto (the default) tries WAIS with
	// a ProbeTimeout on its first reply, then Z39.50-1995 on a new
	// connection, and remembers the answer for the server's host:port.
	Dialect Dialect
	// ProbeTimeout bounds the wait for the first reply when the dialect
	// is not known (default 3s): a Z39.50-1995 server never answers WAIS.
	ProbeTimeout time.Duration
	// MaxHits is the most documents a search lists (default 40).
	MaxHits int
	// MaxMessageSize caps a message from the server (default 4 MiB). A
	// longer one is refused before it is read.
	MaxMessageSize int
	// Search is the search for a database URL without one: how the fetch
	// command's --search reaches wais://host/database.
	Search string
	// Prompt, if set, asks for the words to search a database URL that
	// has none, when Search is empty too. An empty answer fetches the
	// database itself.
	Prompt func(ctx context.Context, database string) (string, error)

	mu    sync.Mutex
	known map[string]Dialect
}

var _ fetch.Driver = (*Driver)(nil)

func (d *Driver) probeTimeout() time.Duration {
	if d.ProbeTimeout > 0 {
		return d.ProbeTimeout
	}
	return DefaultProbeTimeout
}

func (d *Driver) maxHits() int {
	if d.MaxHits > 0 {
		return d.MaxHits
	}
	return DefaultMaxHits
}

func (d *Driver) maxMessage() int {
	if d.MaxMessageSize > 0 {
		return d.MaxMessageSize
	}
	return DefaultMaxMessageSize
}

// dialectOf returns the dialect to speak with addr: the forced one, or
// the one learned before, or DialectAuto.
func (d *Driver) dialectOf(addr string) Dialect {
	if d.Dialect != DialectAuto {
		return d.Dialect
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.known[addr]
}

func (d *Driver) remember(addr string, dl Dialect) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.known == nil {
		d.known = make(map[string]Dialect)
	}
	d.known[addr] = dl
}

// target is what a wais URL asks for (RFC 1738 section 3.9).
type target struct {
	host     string
	port     int
	database string
	words    string // the search; "" for none
	document bool
	wtype    string
	wpath    string // raw, still encoded
}

// databaseURL is wais://host:port/database, without any credentials.
func (t *target) databaseURL() string {
	return (&uri.WAIS{Login: uri.Login{Host: t.host, Port: t.port}, Database: t.database}).String()
}

// searchURL is the database URL with a search.
func (t *target) searchURL(words string) string {
	return (&uri.WAIS{Login: uri.Login{Host: t.host, Port: t.port}, Database: t.database, Search: words, HasSearch: true}).String()
}

// documentURL is wais://host:port/database/wtype/wpath with wpath
// already encoded.
func (t *target) documentURL(wtype, wpath string) string {
	return t.databaseURL() + "/" + uri.Escape(wtype, uri.ComponentWAIS) + "/" + wpath
}

// parseTarget reads the wais view of the request's URL and refuses data
// that would end early in a C server's string: a decoded CR, LF or NUL in
// the database, type or search, or the 0x1F that separates database names.
func parseTarget(u *uri.URL) (*target, error) {
	w, err := u.WAIS()
	if err != nil {
		return nil, fetch.Errorf(fetch.ErrURL, "wais: %w", err)
	}
	t := &target{host: w.Host, port: w.Port, database: w.Database, words: w.Search, document: w.IsDocument(), wtype: w.WType}
	if t.host == "" {
		return nil, fetch.Errorf(fetch.ErrURL, "wais: URL without a host")
	}
	if err := fetch.CheckLine("wais database name", w.Database); err != nil {
		return nil, err
	}
	if strings.IndexByte(w.Database, databaseSeparator) >= 0 {
		return nil, fetch.Errorf(fetch.ErrUnsafe, "wais database name %q contains a decoded 0x1F, which separates database names; refusing to send it", w.Database)
	}
	if err := fetch.CheckLine("wais search", w.Search); err != nil {
		return nil, err
	}
	if err := fetch.CheckLine("wais document type", w.WType); err != nil {
		return nil, err
	}
	if t.document {
		// The wpath is read from the raw path: decoded, the ";" and "="
		// of RFC 1630's fields could not be told from data.
		parts := strings.SplitN(u.URLPath(), "/", 3)
		t.wpath = parts[2]
		if t.wtype == "" || t.wpath == "" {
			return nil, fetch.Errorf(fetch.ErrURL, "wais: a document URL needs both a type and a document id")
		}
	}
	return t, nil
}

// Fetch dereferences a wais URL: a database (its description, or a search
// with the Driver's Search or Prompt), a search (a Listing of the hits)
// or a document (a Document). A Head request (fetch.Request.Head) asks
// for no document and no record (head.go says what it asks); a database
// URL without words is then its description, the user not asked. If the server answers with diagnostics and
// nothing else, the error wraps a *Diagnostic.
func (d *Driver) Fetch(ctx context.Context, req *fetch.Request) (*fetch.Response, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	t, err := parseTarget(req.URL)
	if err != nil {
		return nil, err
	}
	if !t.document && t.words == "" && !req.Head {
		if t.words, err = d.askWords(ctx, req, t.database); err != nil {
			return nil, err
		}
	}
	s, err := d.open(ctx, req)
	if err != nil {
		return nil, err
	}
	fetchOrHead := s.fetch
	if req.Head {
		fetchOrHead = s.head // head.go
	}
	resp, err := fetchOrHead(ctx, t)
	if err != nil {
		s.close()
		return nil, err
	}
	return resp, nil
}

// askWords returns the words to search a database URL that has none. A
// URL a server chose gets neither the user's words nor a prompt: none,
// and so the database's description.
func (d *Driver) askWords(ctx context.Context, req *fetch.Request, database string) (string, error) {
	if req.Hop != nil {
		return "", nil
	}
	if d.Search != "" || d.Prompt == nil {
		return d.Search, fetch.CheckLine("wais search", d.Search)
	}
	words, err := d.Prompt(ctx, database)
	if err != nil {
		return "", err
	}
	words = strings.TrimSpace(words)
	return words, fetch.CheckLine("wais search", words)
}

// session is a connection that has passed its Init, in one dialect.
type session interface {
	// fetch runs the request of t. The Response's Body closes the
	// session; on an error the caller does.
	fetch(ctx context.Context, t *target) (*fetch.Response, error)
	// head answers a Head request for t (head.go) and closes the
	// session.
	head(ctx context.Context, t *target) (*fetch.Response, error)
	close()
}

// open connects and initializes a session in the dialect of the server.
func (d *Driver) open(ctx context.Context, req *fetch.Request) (session, error) {
	addr := req.URL.Hostport()
	switch dl := d.dialectOf(addr); dl {
	case DialectWAIS:
		req.Tracef(fetch.Note, "dialect WAIS (%s)", d.reason(dl))
		return d.openWAIS(ctx, req, 0)
	case DialectZ3950:
		req.Tracef(fetch.Note, "dialect Z39.50-1995 (%s)", d.reason(dl))
		return d.openZ3950(ctx, req)
	}
	req.Tracef(fetch.Note, "dialect not known yet: trying WAIS, %v for its first reply", d.probeTimeout())
	s, err := d.openWAIS(ctx, req, d.probeTimeout())
	switch {
	case err == nil:
		d.remember(addr, DialectWAIS)
		return s, nil
	case ctx.Err() != nil:
		return nil, ctx.Err()
	case !errors.Is(err, errNoWAISReply):
		return nil, err
	}
	req.Tracef(fetch.Note, "dialect: %v; trying Z39.50-1995 (BER) on a new connection", err)
	z, err := d.openZ3950(ctx, req)
	if err != nil {
		return nil, err
	}
	d.remember(addr, DialectZ3950)
	return z, nil
}

func (d *Driver) reason(dl Dialect) string {
	if d.Dialect != DialectAuto {
		return "forced"
	}
	return "remembered for this server"
}

// conn is a connection with its buffered reader and message limit.
type conn struct {
	c   *fetch.Conn
	br  *bufio.Reader
	req *fetch.Request
	max int
}

func (d *Driver) dial(ctx context.Context, req *fetch.Request) (*conn, error) {
	c, err := req.Dial(ctx)
	if err != nil {
		return nil, err
	}
	return &conn{c: c, br: bufio.NewReader(c), req: req, max: d.maxMessage()}, nil
}

func (c *conn) write(b []byte) error {
	_, err := c.c.Write(b)
	return err
}

func (c *conn) close() { c.c.Close() }

// replyError turns a failed read of what into the error a person reads.
func replyError(what string, err error, started bool) error {
	switch {
	case errors.Is(err, io.EOF) && !started:
		return fetch.Errorf(fetch.ErrConnect, "wais: the server closed the connection without replying to the %s", what)
	case fetch.ConnBroken(err):
		return fetch.Errorf(fetch.ErrConnect, "wais: the server closed the connection in the middle of its reply to the %s (%w)", what, err)
	case errors.Is(err, waiswire.ErrWAIS), errors.Is(err, waiswire.ErrBER):
		return fetch.Errorf(fetch.ErrProtocol, "wais: reply to the %s: %w", what, err)
	}
	return err
}

// newBody returns the Body of a Response that reads the pieces next
// yields (io.EOF after the last; a piece may come with an error, which
// follows it) and runs done, which ends the session, once: at the end of
// the reply or at Close.
func newBody(ctx context.Context, next func() ([]byte, error), done func()) io.ReadCloser {
	var once sync.Once
	end := func() { once.Do(done) }
	return fetch.NewBody(ctx, &pieces{next: next}, fetch.BodyFuncs{
		End:   func(err error) error { end(); return err },
		Close: func(bool) error { end(); return nil },
	})
}

// pieces reads the pieces of a reply as one stream.
type pieces struct {
	next func() ([]byte, error)
	buf  []byte
	err  error
}

func (p *pieces) Read(b []byte) (int, error) {
	for len(p.buf) == 0 {
		if p.err != nil {
			return 0, p.err
		}
		p.buf, p.err = p.next()
	}
	n := copy(b, p.buf)
	p.buf = p.buf[n:]
	return n, nil
}
