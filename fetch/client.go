// Package fetch dereferences URLs: it runs the retrieval algorithm of RFC
// 1738 for a URL's scheme through a Driver registered with a Client and
// hands back the resource.
//
// The package knows no protocol. It holds what every driver shares: the
// scheme registry, the one dial path (timeouts, cancellation and the port
// policy of RFC 1738 section 6), the check that keeps decoded CR, LF and
// NUL out of protocol lines, the protocol trace with passwords masked,
// credentials from the URL, a netrc file or a prompt, and the kinds of
// error. The drivers live in the packages below it; fetch/all registers
// them all.
package fetch

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"sort"
	"sync"
	"time"

	"github.com/urlfetch/urlfetch/uri"
)

// A Driver dereferences the URLs of one or more schemes. Fetch runs the
// scheme's retrieval algorithm for req.URL and returns the resource.
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
	// Prompt, if set, asks the user for a password (without echo). With
	// none, a needed password that the URL and netrc do not give is an
	// ErrAuth error.
	Prompt func(ctx context.Context, prompt string) (string, error)
	// DialContext, if set, replaces net.Dialer for every connection.
	DialContext func(ctx context.Context, network, addr string) (net.Conn, error)
	// Gateway, if set, names the HTTP gateway (proxy) to fetch u
	// through, or nil to fetch it with its scheme's driver. A URL with a
	// gateway goes whole to the gateway, "GET ftp://host/path HTTP/1.1",
	// by the driver registered for http (a GatewayDriver), even when no
	// driver knows u's scheme (RFC 1738 section 4). The port policy
	// then applies to the gateway's port, not to u's. When Gateway is
	// set it also decides for http and https URLs, in place of the http
	// driver's own proxy setting. GatewaysFromEnvironment().Gateway reads
	// the <scheme>_proxy and no_proxy variables.
	Gateway func(u *uri.URL) (*url.URL, error)

	mu      sync.Mutex
	drivers map[string]Driver
	netrc   *Netrc
	netrcOK bool
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

// Do fetches req.URL with the driver of its scheme, or through the
// gateway the Gateway setting names for it.
func (c *Client) Do(ctx context.Context, req *Request) (*Response, error) {
	if req.client == nil {
		req.client = c
	}
	u := req.URL
	if p, ok := u.PasswordValue(); ok {
		req.AddSecret(p)
		req.AddSecret(u.Password) // as written, perhaps encoded
	}
	fail := func(err error) (*Response, error) {
		return nil, &Error{Op: "fetch", URL: u.Redacted(), Err: scrub(classify(err), req.secrets)}
	}
	d := c.Driver(u.Scheme)
	via, err := c.viaGateway(req)
	switch {
	case err != nil:
		return fail(err)
	case via != nil:
		d = via
	case d == nil:
		return fail(Errorf(ErrUnsupported, "no driver for scheme %q (this client knows %v)", u.Scheme, c.Schemes()))
	case u.Authority && u.Port != 0:
		if err := c.checkPort(u.Scheme, u.Port); err != nil {
			return fail(err)
		}
	}
	if err := ctx.Err(); err != nil {
		return fail(err)
	}
	resp, err := d.Fetch(ctx, req)
	if err != nil {
		if resp != nil && resp.Body != nil {
			resp.Body.Close()
		}
		return fail(err)
	}
	if resp == nil || resp.Body == nil {
		return fail(fmt.Errorf("driver for %s returned no body: %w", u.Scheme, ErrProtocol))
	}
	if resp.URL == nil {
		resp.URL = u
	}
	return resp, nil
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
