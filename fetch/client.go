// Package fetch dereferences URLs: it runs the retrieval algorithm of RFC
// 1738 for a URL's scheme through a Driver registered with a Client and
// hands back the resource.
//
// The package knows no protocol. It holds what every driver shares: the
// scheme registry; the policy, as net/http's Client holds it (Do is the
// one loop over redirects, CheckHop the one function that decides whether
// a URL a server chose may be followed, and the gateway is chosen there
// too); the one dial path (timeouts, cancellation and the port policy of
// RFC 1738 section 6); the check that keeps decoded CR, LF and NUL out of
// protocol lines; the protocol trace with passwords masked; credentials
// from the URL, a netrc file or a prompt; and the kinds of error. The
// drivers live in the packages below it; fetch/all registers them all.
package fetch

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"sort"
	"sync"
	"time"

	"github.com/urlfetch/urlfetch/internal/netrc"
	"github.com/urlfetch/urlfetch/uri"
)

// A Driver dereferences the URLs of one or more schemes. Fetch runs the
// scheme's retrieval algorithm for req.URL, once, and returns the
// resource; a redirect comes back as a Response of Kind Redirect, which
// the Client may follow, never the driver.
//
// Fetch must return a non-nil Response with a non-nil Body when err is
// nil, must not keep req after the Response's Body is closed, must honour
// ctx (a cancelled context ends a blocked read of the Body too), and must
// dial only through req.Dial or req.DialAddr.
type Driver interface {
	Fetch(ctx context.Context, req *Request) (*Response, error)
}

// TraceFunc receives one protocol line: dir is Out ('>') for a line the
// client sent, In ('<') for one it read, Note ('*') for a note of the
// client's own (connecting, a reused connection). Passwords are already
// masked.
type TraceFunc func(dir Direction, line string)

// Direction says which way a traced line went.
type Direction byte

const (
	Out  Direction = '>'
	In   Direction = '<'
	Note Direction = '*'
)

// A Client holds the settings every driver shares and the registry of
// drivers by scheme. Its zero value is usable but knows no scheme; set its
// fields before the first Fetch and do not change them after.
type Client struct {
	// ConnectTimeout bounds each connection attempt (default 30s).
	ConnectTimeout time.Duration
	// IdleTimeout bounds each wait for the server (default 60s).
	IdleTimeout time.Duration
	// AllowPorts lifts the port policy for these ports.
	AllowPorts []int
	// Trace, if set, receives every protocol line.
	Trace TraceFunc
	// NetrcFile is the netrc file to read credentials from; "" means
	// $NETRC, else ~/.netrc. "-" turns netrc off.
	NetrcFile string
	// Login, if set, is the user and password to present for the URLs
	// the user gives (curl's -u), on their servers only
	// (Request.Credentials): the http and https driver sends it as Basic
	// authorization (RFC 7617), the ftp driver logs in with it in place
	// of an anonymous login (Request.LoginUser). A URL's own user comes
	// first. Without a
	// password in it, the password is netrc's machine entry for the
	// URL's host and that user, else Prompt's answer, asked once for all
	// the Client's URLs.
	Login *url.Userinfo
	// Prompt, if set, asks the user for a password (without echo). With
	// none, a needed password that the URL and netrc do not give is an
	// ErrAuth error.
	Prompt func(ctx context.Context, prompt string) (string, error)
	// MaxIdleConnsPerHost bounds the connections of finished fetches
	// that a driver keeps for reuse, per server and login
	// (DefaultMaxIdleConnsPerHost when 0; none when negative).
	MaxIdleConnsPerHost int
	// IdleConnTimeout is how long a driver keeps such a connection
	// (DefaultIdleConnTimeout when 0; none is kept when negative).
	IdleConnTimeout time.Duration
	// DialContext, if set, replaces net.Dialer for every connection.
	DialContext func(ctx context.Context, network, addr string) (net.Conn, error)
	// Gateway, if set, names the HTTP gateway (proxy) to fetch u
	// through, or nil to fetch it with its scheme's driver; a nil Gateway
	// fetches every URL directly. A URL with a gateway goes whole to the
	// gateway, "GET ftp://host/path HTTP/1.1", by the driver registered
	// for http (a GatewayDriver), even when no driver knows u's scheme
	// (RFC 1738 section 4); an http or https URL goes through it as
	// through any HTTP proxy. The port policy then applies to the
	// gateway's port, not to u's. Do asks it for every URL, redirects'
	// targets included. GatewaysFromEnvironment().Gateway reads the
	// <scheme>_proxy and no_proxy variables (all.NewClient sets it).
	Gateway func(u *uri.URL) (*url.URL, error)

	// AllowSchemes, if not nil, are the only schemes this Client fetches,
	// whether the user or a server chose the URL (curl's --proto).
	AllowSchemes []string
	// FollowSchemes, if not nil, are the schemes a URL a server chose (a
	// redirect's target, a listing's entry, a link) may have, in place of
	// the default: the schemes whose driver is a FollowChecker (see
	// CheckHop). curl's --proto-redir.
	FollowSchemes []string
	// AllowDowngrade lets a URL a server chose lead from a TLS scheme
	// (https) to a cleartext one (http, ftp, gopher).
	AllowDowngrade bool
	// MaxRedirects bounds the redirects one Do follows:
	// DefaultMaxRedirects when 0, none when negative.
	MaxRedirects int
	// CheckRedirect, if set, is called before Do follows a redirect that
	// the hop limit and CheckHop allowed, as net/http's: req is the next
	// request (its Hop says from where, with the reply's status), via the
	// requests made so far, oldest first. An error ends Do with it; one
	// of ErrUseLastResponse makes Do return the redirect Response itself.
	CheckRedirect func(req *Request, via []*Request) error

	// TLSConfig is the TLS settings of every scheme that has TLS: https,
	// ftps and FTP's AUTH TLS, nntps, snews and NNTP's STARTTLS, SMTP's
	// STARTTLS. nil verifies servers against the system's roots. The
	// Client copies it once, adding a session cache when it has none (an
	// FTP data connection resumes its control connection's session) and
	// TLS 1.2 as the least version when it names none; each connection
	// gets a copy with ServerName set to its host (Request.TLSConfig).
	TLSConfig *tls.Config
	// TLSUpgrade says whether FTP, NNTP and SMTP connections turn to TLS
	// (AUTH TLS, STARTTLS): see Upgrade.
	TLSUpgrade Upgrade

	tls     tlsState
	mu      sync.Mutex
	drivers map[string]Driver
	netrc   *netrc.File
	netrcOK bool
	login   loginPassword
}

// loginPassword is the password of Login that Prompt gave, asked once.
type loginPassword struct {
	mu       sync.Mutex // held while asking: one question at a time
	asked    bool
	password string
	err      error
}

// Register makes d the driver of scheme. It panics if scheme is empty, d
// is nil or scheme already has a driver: all programmer errors.
func (c *Client) Register(scheme string, d Driver) {
	if scheme == "" {
		panic("fetch: Register with an empty scheme")
	}
	if d == nil {
		panic("fetch: Register of a nil driver for " + scheme)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.drivers == nil {
		c.drivers = make(map[string]Driver)
	}
	if _, dup := c.drivers[scheme]; dup {
		panic("fetch: Register called twice for scheme " + scheme)
	}
	c.drivers[scheme] = d
}

// Driver returns the driver of scheme, or nil.
func (c *Client) Driver(scheme string) Driver {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.drivers[scheme]
}

// Schemes returns the registered schemes, sorted.
func (c *Client) Schemes() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	var s []string
	for k := range c.drivers {
		s = append(s, k)
	}
	sort.Strings(s)
	return s
}

// Fetch parses rawURL and fetches it. The caller must close the
// Response's Body. Errors are *Error values wrapping a kind (ErrNotFound,
// ErrAuth, ...) that errors.Is finds; an invalid URL wraps *uri.Error.
func (c *Client) Fetch(ctx context.Context, rawURL string) (*Response, error) {
	req, err := c.NewRequest(rawURL)
	if err != nil {
		return nil, err
	}
	return c.Do(ctx, req)
}

// NewRequest parses rawURL into a Request for this Client.
func (c *Client) NewRequest(rawURL string) (*Request, error) {
	u, err := uri.Parse(rawURL)
	if err != nil {
		var ue *uri.Error
		masked := rawURL
		if errors.As(err, &ue) {
			masked = maskedInput(ue)
		}
		return nil, &Error{Op: "parse", URL: masked, Err: &kindError{kind: ErrURL, msg: reasonOf(err), err: err}}
	}
	return &Request{URL: u, client: c}, nil
}

// Do fetches req.URL and follows the redirects its server answers with,
// deciding at each hop, in one place: the hop limit, CheckHop (the
// schemes a server may send the Client to, TLS to cleartext),
// CheckRedirect, the gateway and the port policy. A Request with a Hop
// (Request.Follow) is checked with CheckHop first. Do writes nothing into
// req: it works on a copy, which the Response's Request is.
//
// An error is an *Error naming req's URL; after a redirect its message
// says which URL the failure was at.
func (c *Client) Do(ctx context.Context, req *Request) (*Response, error) {
	r := req.clone(c)
	var via []*Request
	for {
		resp, err := c.send(ctx, r)
		if err != nil {
			if len(via) > 0 {
				err = fmt.Errorf("redirected to %s: %w", r.URL.Redacted(), err)
			}
			return nil, c.fail(req, r, err)
		}
		if resp.Kind != Redirect {
			return resp, nil
		}
		next, err := c.redirect(r, resp, via)
		if errors.Is(err, ErrUseLastResponse) {
			return resp, nil
		}
		resp.Body.Close()
		if err != nil {
			return nil, c.fail(req, r, err)
		}
		via = append(via, r)
		r = next
	}
}

// fail is the error Do returns: req's URL, r's secrets masked.
func (c *Client) fail(req, r *Request, err error) error {
	return &Error{Op: "fetch", URL: req.URL.Redacted(), Err: scrub(classify(err), r.secrets)}
}

// send makes one transaction of r: the policy for its URL (the hop, the
// schemes, the gateway, the port), then its driver's Fetch.
func (c *Client) send(ctx context.Context, r *Request) (*Response, error) {
	u := r.URL
	if r.Hop != nil && !r.hopChecked {
		if err := c.CheckHop(*r.Hop); err != nil {
			return nil, err
		}
		r.hopChecked = true
	} else if err := c.checkScheme(u.Scheme); err != nil {
		return nil, err
	}
	d, err := c.route(r)
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	resp, err := d.Fetch(ctx, r)
	if err != nil {
		if resp != nil && resp.Body != nil {
			resp.Body.Close()
		}
		return nil, err
	}
	if resp == nil || resp.Body == nil {
		return nil, fmt.Errorf("driver for %s returned no body: %w", u.Scheme, ErrProtocol)
	}
	if resp.URL == nil {
		resp.URL = u
	}
	resp.Request = r
	return resp, nil
}

// route chooses how r is fetched and sets r.Gateway: through the gateway
// the Gateway setting names for r.URL, by the http driver (the gateway's
// port under the port policy), or by the driver of the URL's scheme (the
// URL's port under the port policy).
func (c *Client) route(r *Request) (Driver, error) {
	u := r.URL
	gw, err := c.gatewayFor(u)
	if err != nil {
		return nil, err
	}
	r.Gateway = gw
	if gw != nil {
		if p, ok := gw.User.Password(); ok {
			r.AddSecret(p)
		}
		return c.gatewayDriver(r)
	}
	d := c.Driver(u.Scheme)
	if d == nil {
		return nil, Errorf(ErrUnsupported, "no driver for scheme %q (this client knows %v)", u.Scheme, c.Schemes())
	}
	if u.Authority && u.Port != 0 {
		if err := c.checkPort(u.Scheme, u.Port); err != nil {
			return nil, err
		}
	}
	return d, nil
}

// Close closes the idle connections the drivers keep (those drivers that
// are io.Closers).
func (c *Client) Close() error {
	c.mu.Lock()
	ds := make([]Driver, 0, len(c.drivers))
	for _, d := range c.drivers {
		ds = append(ds, d)
	}
	c.mu.Unlock()
	var errs []error
	seen := map[Driver]bool{}
	for _, d := range ds {
		if cl, ok := d.(io.Closer); ok && !seen[d] {
			seen[d] = true
			errs = append(errs, cl.Close())
		}
	}
	return errors.Join(errs...)
}

func maskedInput(e *uri.Error) string { return e.MaskedInput() }

func reasonOf(err error) string {
	var ue *uri.Error
	if errors.As(err, &ue) {
		if ue.Offset >= 0 {
			return fmt.Sprintf("at offset %d: %s", ue.Offset, ue.Reason)
		}
		return ue.Reason
	}
	return err.Error()
}

// DriverFunc makes a function a Driver.
type DriverFunc func(ctx context.Context, req *Request) (*Response, error)

// Fetch calls f.
func (f DriverFunc) Fetch(ctx context.Context, req *Request) (*Response, error) { return f(ctx, req) }
