// Package nntp is the driver for news: and nntp: URLs (RFC 1738 sections
// 3.6 and 3.7) and their TLS forms snews: and nntps: (RFC 5538), a client
// of the Network News Transfer Protocol of RFC 3977 on net/textproto, with
// the AUTHINFO USER/PASS of RFC 4643, the STARTTLS of RFC 4642, and the
// XOVER and MODE READER of older servers (RFC 2980).
//
// One Driver serves the four schemes:
//
//	news:<message-id>            ARTICLE <message-id>
//	news:<group>                 GROUP, then OVER: the group's articles
//	news:*                       LIST ACTIVE: every group
//	nntp://host:port/group/N     GROUP group, then ARTICLE N
//	nntp://host:port/group       GROUP, then OVER, as news:group
//	snews:..., nntps://...       the same, over TLS
//
// A news: URL names no server (RFC 1738 section 3.6): its server is the
// Driver's Server setting, which the fetch command fills from
// --news-server or $NNTPSERVER. An nntp: URL names its own (port 119 by
// default). Beyond RFC 1738, a news: group with wildmat characters
// (news:comp.lang.*, as RFC 5538 allows) lists the matching groups, and
// nntp://host/ with no group lists the server's groups.
//
// nntps: and snews: URLs speak TLS from the first byte (port 563 by
// default; an snews: URL goes to the Server setting, at port 563 when the
// setting names none), with the Client's TLSConfig. A news: or nntp: URL
// stays in cleartext unless the Client's TLSUpgrade asks for TLS (curl's
// --ssl and --ssl-reqd): then, after the greeting, the driver sends
// STARTTLS when the server's capabilities offer it, runs the TLS handshake
// on the same connection at the server's 382, and asks for the
// capabilities again, forgetting what it learned in cleartext (RFC 4642
// section 2.2.2). A server that offers no STARTTLS, or refuses it, leaves
// the connection in cleartext with fetch.UpgradeTry (the trace says so),
// and fails the fetch with fetch.ErrTLS with fetch.UpgradeRequire. Either
// way STARTTLS comes before any AUTHINFO.
//
// An article is a Document of type message/rfc822: the article as the
// server sends it, dot-stuffing undone and CRLF line ends turned into LF,
// its header also parsed into Response.Meta and its Date into
// Response.Modified. It streams: an article of any size costs flat memory.
//
// A group is a Listing whose Body holds the server's overview lines
// (RFC 3977 section 8.3), newest article first, one per line with LF:
//
//	NUMBER TAB SUBJECT TAB FROM TAB DATE TAB MESSAGE-ID TAB REFERENCES TAB BYTES TAB LINES [TAB ...]
//
// fetched from the top of the group down, one OVER for at most 128
// article numbers at a time, so that a group of any size streams in flat
// memory. It
// shows the newest MaxEntries articles, or the articles of Range. Each
// Entry is an article: Name its number, Title its subject and author,
// Time its date, Size its size in bytes, URL its news:<message-id> URL
// (for an nntp: group, its nntp://host/group/N URL).
//
// The list of groups is a Listing whose Body holds the server's LIST
// ACTIVE lines, "GROUP HIGH LOW STATUS", as they stream in. Each Entry is
// a group: Name the group, Title its article count and posting status, URL
// its news:group (or nntp://host/group) URL.
//
// A Head request (fetch.Request.Head) transfers neither article nor
// listing: HEAD <message-id>, or GROUP then HEAD N (and OVER N for the
// article's size), gives an article's header as Meta; GROUP alone a
// group's count and range; a list of groups is the server's greeting
// alone, without LIST (see head.go).
//
// The Driver keeps the connection of a finished fetch for the next one to
// the same server: several news URLs cost one connection. The server's
// greeting is read once. CAPABILITIES is asked only when a step needs it
// (STARTTLS; a server that refuses the first reader command; one that
// does not know LIST ACTIVE), once a connection, and MODE READER sent
// only where the server says it needs it (RFC 3977's "401 MODE-READER",
// or the 500 or 502 of an older server whose capabilities call for it),
// then the command again: news:<message-id> is the greeting and one
// ARTICLE. When the server answers 480, the driver authenticates with
// AUTHINFO USER and PASS (RFC 4643 section 2.3) with the user and
// password of an nntp URL, else a login from netrc, else the Client's
// password prompt, and repeats the command. Client.Close (or
// Driver.Close) ends the idle connections with QUIT.
//
// A decoded CR, LF or NUL in a group, message-id, user or password is
// refused with fetch.ErrUnsafe before any connection is made.
package nntp

import (
	"context"
	"crypto/tls"
	"io"
	"net"
	"strconv"
	"strings"

	"github.com/urlfetch/urlfetch/fetch"
	"github.com/urlfetch/urlfetch/uri"
)

// DefaultPort is the NNTP port (RFC 3977 section 3.1).
const DefaultPort = 119

// DefaultTLSPort is the port of NNTP over implicit TLS, of nntps: and
// snews: URLs (RFC 4642 section 1, RFC 5538 section 2).
const DefaultTLSPort = 563

// DefaultMaxEntries is how many articles a group listing shows when
// Driver.MaxEntries is 0.
const DefaultMaxEntries = 100

// ArticleType is the media type of an article.
const ArticleType = "message/rfc822"

// ListingType is the media type of a listing's Body.
const ListingType = "text/plain"

// Reply codes of RFC 3977 (and RFC 4643 for AUTHINFO) that the driver
// acts on.
const (
	StatusCapabilities       = 101 // capability list follows
	StatusPostingAllowed     = 200 // service available, posting allowed
	StatusPostingProhibited  = 201 // service available, posting prohibited
	StatusClosing            = 205 // connection closing (QUIT)
	StatusGroupSelected      = 211 // group selected: count low high group
	StatusListFollows        = 215 // information follows (LIST)
	StatusArticleFollows     = 220 // article follows
	StatusHeadFollows        = 221 // headers follow (HEAD)
	StatusOverviewFollows    = 224 // overview information follows
	StatusAuthAccepted       = 281 // authentication accepted
	StatusPasswordRequired   = 381 // password required (after AUTHINFO USER)
	StatusContinueWithTLS    = 382 // continue with TLS negotiation (STARTTLS)
	StatusUnavailable        = 400 // service not available, or no longer
	StatusWrongMode          = 401 // change the mode first: "401 MODE-READER"
	StatusNoSuchGroup        = 411 // no such newsgroup
	StatusNoCurrentArticle   = 420 // current article number is invalid
	StatusNoArticleNumber    = 423 // no article with that number, or in that range
	StatusNoArticleID        = 430 // no article with that message-id
	StatusAuthRequired       = 480 // authentication required
	StatusAuthRejected       = 481 // authentication failed
	StatusAuthOutOfSequence  = 482 // authentication commands out of sequence
	StatusEncryptionRequired = 483 // a secure connection is required first
	StatusUnknownCommand     = 500 // unknown command
	StatusSyntaxError        = 501 // syntax error in the command
	StatusPermissionDenied   = 502 // service or command not permitted
	StatusNotSupported       = 503 // feature not supported
	StatusTLSUnavailable     = 580 // can not initiate TLS negotiation (STARTTLS)
)

// ReplyError is a reply of the server that ended a fetch: a missing
// article, a missing group, a refusal. The errors of Fetch wrap it, so
// errors.As finds the code.
type ReplyError = fetch.ReplyError

// replyError is the ReplyError of code and msg in answer to command. Only
// 400 (the service is not available, RFC 3977 section 3.2.1) says to try
// again later; NNTP's other 4xx replies are final.
func replyError(command string, code int, msg string) *ReplyError {
	return &ReplyError{Command: command, Code: code, Msg: msg, Transient: code == StatusUnavailable}
}

// ArticleRange is a range of article numbers, first to last inclusive.
type ArticleRange struct {
	First, Last int64
}

// Driver fetches news, nntp, snews and nntps URLs. Its zero value serves
// nntp and nntps URLs and needs Server for news and snews URLs. Set its
// fields before the first Fetch; a Driver is safe for concurrent use.
//
// A finished fetch leaves its connection idle in the Driver (at most the
// Client's MaxIdleConnsPerHost per server and user, for its
// IdleConnTimeout: fetch.IdlePool) for the next fetch to the same server,
// through whichever Client that fetch comes, with the same use of TLS
// and, for a TLS connection, the same Client's TLS settings. Close ends
// them with QUIT.
type Driver struct {
	// Server is the news server of news and snews URLs, "host" or
	// "host:port" (port 119 by default, 563 for snews URLs).
	Server string
	// MaxEntries is how many articles a group listing shows, newest
	// first: 0 means DefaultMaxEntries, a negative number every article.
	MaxEntries int
	// Range, when its Last is not 0, restricts a group listing to the
	// articles numbered Range.First to Range.Last, all of them, newest
	// first; MaxEntries then does not apply.
	Range ArticleRange

	idle fetch.IdlePool[poolKey, *conn]
}

var (
	_ fetch.Driver        = (*Driver)(nil)
	_ fetch.FollowChecker = (*Driver)(nil)
	_ io.Closer           = (*Driver)(nil) // Client.Close ends the idle connections
)

// CheckFollow accepts every news, nntp, snews and nntps URL: reading an
// article or a group sends nothing of the user's. A news: or snews: URL
// a server chose is read from the news server the user configured, and no
// password is asked for it (fetch.Request.Password). Whether a hop may
// leave TLS (from nntps or snews to nntp or news) is the Client's rule
// (fetch.Client.CheckHop), not the driver's; the entries of a TLS
// listing are TLS URLs themselves.
func (d *Driver) CheckFollow(u *uri.URL) error { return nil }

// kind is what a URL asks for.
type kind int

const (
	articleByID     kind = iota + 1 // news:<message-id>
	articleByNumber                 // nntp://host/group/N
	groupListing                    // news:group, nntp://host/group
	groupList                       // news:*, news:wildmat, nntp://host/
)

// target is a URL decoded into what the protocol needs.
type target struct {
	scheme string
	kind   kind
	id     string // message-id, without "<" and ">"
	group  string // group, or wildmat for a groupList ("" for all)
	number int64

	secure  bool      // nntps or snews: TLS from the first byte
	addr    string    // host:port to dial
	port    int       // its port
	host    string    // for netrc, messages and the certificate
	login   uri.Login // of an nntp URL, for its entries' URLs (no password)
	user    string    // from an nntp URL
	pass    string    // from an nntp URL
	cred    bool      // the URL has a user
	hasPass bool      // and a password
	key     poolKey   // the connections this target may share
}

// poolKey says which idle connections a fetch may take: the same server,
// logged in (or not yet) as the same user, with TLS as the fetch wants it.
type poolKey struct {
	addr, user, pass string
	tls              tlsUse
	// tlsID tells apart the TLS settings a connection was made under,
	// for a Driver registered with several Clients: the session cache
	// of the Client's TLS configuration, which the Client makes once
	// (fetch.Request.TLSConfig). A connection one Client verified with
	// its roots (or did not verify, -k) never serves another Client.
	// nil for cleartext.
	tlsID tls.ClientSessionCache
}

// tlsUse is how a connection uses TLS.
type tlsUse int

const (
	cleartext       tlsUse = iota // news, nntp: no TLS asked for
	implicitTLS                   // snews, nntps: TLS from the first byte
	startTLSTry                   // news, nntp with fetch.UpgradeTry
	startTLSRequire               // news, nntp with fetch.UpgradeRequire
)

// Fetch retrieves the article, group listing or list of groups the URL
// names. If the server refuses, the error wraps a *ReplyError: 430, 411
// and 423 are fetch.ErrNotFound, 480 to 483 and 502 fetch.ErrAuth. A TLS
// handshake that fails is fetch.ErrTLS (a certificate that does not
// verify, a *fetch.CertificateError), and so is a STARTTLS that
// fetch.UpgradeRequire asked for and the server did not give.
func (d *Driver) Fetch(ctx context.Context, req *fetch.Request) (*fetch.Response, error) {
	t, err := d.target(req.URL)
	if err != nil {
		return nil, err
	}
	t.upgrade(req)
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if req.Offset > 0 && !req.Head {
		req.Tracef(fetch.Note, "NNTP cannot start an article in the middle: starting at byte 0, not %d", req.Offset)
	}
	for attempt := 0; ; attempt++ {
		c, err := d.get(ctx, req, t)
		if err != nil {
			return nil, err
		}
		resp, err := d.run(ctx, req, c, t)
		if err == nil {
			return resp, nil
		}
		if attempt == 0 && c.stale && ctx.Err() == nil {
			// The server ended the idle connection (a timeout, a
			// restart): the request never ran, so run it again.
			req.Tracef(fetch.Note, "the server closed the idle connection; connecting again")
			c.nc.Close()
			continue
		}
		d.put(c)
		return nil, err
	}
}

// run performs the exchange of t on c.
func (d *Driver) run(ctx context.Context, req *fetch.Request, c *conn, t *target) (*fetch.Response, error) {
	if req.Head {
		return d.head(ctx, req, c, t)
	}
	switch t.kind {
	case articleByID:
		return d.articleByID(ctx, req, c, t)
	case articleByNumber:
		return d.articleByNumber(ctx, req, c, t)
	case groupListing:
		return d.groupListing(ctx, req, c, t)
	default:
		return d.groupList(ctx, req, c, t)
	}
}

// target decodes u.
func (d *Driver) target(u *uri.URL) (*target, error) {
	t := &target{scheme: u.Scheme, secure: fetch.TLSScheme(u.Scheme)}
	switch u.Scheme {
	case "news", "snews":
		n, err := u.News()
		if err != nil {
			return nil, fetch.Errorf(fetch.ErrURL, "nntp: %w", err)
		}
		switch {
		case n.MessageID != "":
			t.kind, t.id = articleByID, n.MessageID
		case n.All():
			t.kind = groupList
		case isWildmat(n.Group):
			t.kind, t.group = groupList, n.Group
		default:
			t.kind, t.group = groupListing, n.Group
		}
		if err := t.check(); err != nil {
			return nil, err
		}
		if d.Server == "" {
			return nil, fetch.Errorf(fetch.ErrUnsupported,
				"nntp: no news server is set, and news: URLs name none (RFC 1738 section 3.6): give one with --news-server HOST[:PORT] or NNTPSERVER=HOST[:PORT] (nntp.Driver.Server in a program)")
		}
		defaultPort := DefaultPort
		if t.secure {
			defaultPort = DefaultTLSPort // RFC 5538 section 2: snews is port 563
		}
		host, port, err := fetch.SplitAddr(d.Server, defaultPort)
		if err != nil {
			return nil, fetch.Errorf(fetch.ErrUnsupported, "nntp: news server setting: %v", err)
		}
		t.host, t.addr, t.port = host, net.JoinHostPort(host, strconv.Itoa(port)), port
	case "nntp", "nntps":
		if !u.Authority || u.Host == "" {
			return nil, fetch.Errorf(fetch.ErrURL, "nntp: %s: an %s URL needs //host (RFC 1738 section 3.7)", u.Redacted(), u.Scheme)
		}
		if u.URLPath() == "" {
			// Beyond RFC 1738: the server itself, its list of groups.
			t.kind = groupList
			t.login = uri.Login{User: u.Username(), HasUser: u.HasUser, Host: u.Host, Port: u.Port}
		} else {
			n, err := u.NNTP()
			if err != nil {
				return nil, fetch.Errorf(fetch.ErrURL, "nntp: %w", err)
			}
			t.group, t.number = n.Group, n.Article
			t.kind = groupListing
			if n.Article > 0 {
				t.kind = articleByNumber
			}
			t.login = n.Login
			t.login.Password, t.login.HasPassword = "", false
		}
		t.host, t.addr, t.port = u.Host, u.Hostport(), u.PortNumber()
		if u.HasUser {
			t.cred, t.user = true, u.Username()
			t.pass, t.hasPass = u.PasswordValue()
			if err := fetch.CheckLine("nntp user", t.user); err != nil {
				return nil, err
			}
			if err := fetch.CheckLine("nntp password", t.pass); err != nil {
				return nil, err
			}
		}
		if err := t.check(); err != nil {
			return nil, err
		}
	default:
		return nil, fetch.Errorf(fetch.ErrUnsupported, "nntp: the driver serves news:, nntp:, snews: and nntps: URLs, not %s:", u.Scheme)
	}
	t.key = poolKey{addr: t.addr, user: t.user, pass: t.pass}
	if t.secure {
		t.key.tls = implicitTLS
	}
	return t, nil
}

// upgrade applies the Client's TLSUpgrade to a cleartext target, and
// keys a connection that may use TLS by the Client's TLS settings.
func (t *target) upgrade(req *fetch.Request) {
	if !t.secure {
		switch req.TLSUpgrade() {
		case fetch.UpgradeTry:
			t.key.tls = startTLSTry
		case fetch.UpgradeRequire:
			t.key.tls = startTLSRequire
		}
	}
	if t.key.tls != cleartext {
		t.key.tlsID = req.TLSConfig(t.host).ClientSessionCache
	}
}

// check refuses a group or message-id that cannot go into a command line:
// a decoded CR, LF or NUL (RFC 1738 section 6), or white space, which
// would split the argument.
func (t *target) check() error {
	what, v := "news group", t.group
	if t.kind == articleByID {
		what, v = "news message-id", t.id
	}
	if err := fetch.CheckLine(what, v); err != nil {
		return err
	}
	if i := strings.IndexAny(v, " \t"); i >= 0 {
		return fetch.Errorf(fetch.ErrNotFound, "nntp: %s %q cannot exist: it holds white space at byte %d", what, v, i)
	}
	return nil
}

// isWildmat reports whether a news: group is a wildmat (RFC 3977 section
// 4): no group name holds these characters.
func isWildmat(g string) bool { return strings.ContainsAny(g, "*?[]\\!,") }

// commandError is the error of a reply that ends a fetch, with its kind.
func commandError(command string, code int, msg string) error {
	re := replyError(command, code, msg)
	var kind error
	switch code {
	case StatusNoSuchGroup, StatusNoArticleNumber, StatusNoArticleID, StatusNoCurrentArticle:
		kind = fetch.ErrNotFound
	case StatusAuthRequired, StatusAuthRejected, StatusAuthOutOfSequence, StatusEncryptionRequired, StatusPermissionDenied:
		kind = fetch.ErrAuth
	case StatusUnknownCommand, StatusNotSupported:
		kind = fetch.ErrUnsupported
	case StatusUnavailable:
		kind = fetch.ErrConnect
	default:
		kind = fetch.ErrProtocol
	}
	return fetch.Errorf(kind, "nntp: %s: %w", command, re)
}

// Close ends the idle connections with QUIT. The Driver stays usable.
func (d *Driver) Close() error {
	d.idle.CloseIdle()
	return nil
}
