// Package http is the driver for http: and https: URLs (RFC 1738 section
// 3.3), on net/http with the fetch Client's dial path.
//
// The path and search go to the server exactly as the URL writes them;
// the fragment never does. Redirects are followed, at most MaxRedirects,
// each target checked against the port policy; a redirect to another
// scheme (ftp:, gopher:) is fetched through the Client.
package http

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/urlfetch/urlfetch/fetch"
	"github.com/urlfetch/urlfetch/uri"
)

// DefaultMaxRedirects is how many redirects a fetch follows by default.
const DefaultMaxRedirects = 10

// Driver fetches http and https URLs. Its zero value is ready to use.
type Driver struct {
	// MaxRedirects bounds the redirects one fetch follows (default 10;
	// negative: none).
	MaxRedirects int
	// AllowDowngrade lets a redirect lead from https to http.
	AllowDowngrade bool
	// Proxy chooses an HTTP proxy for a request; nil means the
	// http_proxy, https_proxy and no_proxy environment variables.
	Proxy func(*http.Request) (*url.URL, error)
	// TLSConfig is used for https; nil means the system's roots.
	TLSConfig *tls.Config
	// UserAgent is sent with every request.
	UserAgent string

	once      sync.Once
	transport *http.Transport
}

var (
	_ fetch.Driver = (*Driver)(nil)
	_ io.Closer    = (*Driver)(nil) // Client.Close closes idle connections
)

// StatusError is an HTTP reply with an error status. Fetch returns it
// wrapped: errors.As finds it.
type StatusError struct {
	Code   int
	Status string // "500 Internal Server Error"
}

func (e *StatusError) Error() string { return e.Status }

// requestKey carries the fetch.Request to the transport's dialer, so each
// connection goes through that request's Client.
type requestKey struct{}

func (d *Driver) init() {
	d.once.Do(func() {
		proxy := d.Proxy
		if proxy == nil {
			proxy = http.ProxyFromEnvironment
		}
		d.transport = &http.Transport{
			Proxy:                 proxy,
			DialContext:           d.dial,
			TLSClientConfig:       d.TLSConfig,
			DisableCompression:    true, // the bytes as served, like curl
			MaxIdleConnsPerHost:   8,
			IdleConnTimeout:       90 * time.Second,
			TLSHandshakeTimeout:   30 * time.Second,
			ExpectContinueTimeout: time.Second,
		}
	})
}

// dial connects through the dial path of the fetch.Request in ctx.
func (d *Driver) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	req, _ := ctx.Value(requestKey{}).(*fetch.Request)
	if req == nil {
		return nil, errors.New("http: dial without a fetch request")
	}
	return req.DialAddr(ctx, addr)
}

// Close closes idle connections.
func (d *Driver) Close() error {
	d.init()
	d.transport.CloseIdleConnections()
	return nil
}

// Fetch retrieves the URL, following redirects.
func (d *Driver) Fetch(ctx context.Context, req *fetch.Request) (*fetch.Response, error) {
	d.init()
	ctx = context.WithValue(ctx, requestKey{}, req)
	max := d.MaxRedirects
	if max == 0 {
		max = DefaultMaxRedirects
	}
	u := req.URL
	for hops := 0; ; hops++ {
		resp, err := d.roundTrip(ctx, req, u)
		if err != nil {
			return nil, err
		}
		loc := redirectTarget(resp)
		if loc == "" {
			return d.response(ctx, req, u, resp)
		}
		resp.Body.Close()
		if hops >= max {
			return nil, fmt.Errorf("http: stopped after %d redirects (last to %s): %w", hops, loc, fetch.ErrProtocol)
		}
		next, err := nextURL(u, loc)
		if err != nil {
			return nil, err
		}
		req.Tracef(fetch.Note, "redirected (%s) to %s", resp.Status, next.Redacted())
		switch next.Scheme {
		case "http", "https":
			if u.Scheme == "https" && next.Scheme == "http" && !d.AllowDowngrade {
				return nil, fetch.Errorf(fetch.ErrUnsafe, "http: refusing a redirect from https to %s", next.Redacted())
			}
			if err := req.CheckPort(next.Scheme, next.PortNumber()); err != nil {
				return nil, err
			}
			u = next
		default:
			return req.Redirect(ctx, next.String())
		}
	}
}

// redirectTarget returns the Location of a redirect reply, or "".
func redirectTarget(resp *http.Response) string {
	switch resp.StatusCode {
	case 301, 302, 303, 307, 308:
		return resp.Header.Get("Location")
	}
	return ""
}

// nextURL resolves a Location against the URL that sent it. The fragment
// of the original carries over when the Location has none (RFC 9110
// section 10.2.2).
func nextURL(base *uri.URL, loc string) (*uri.URL, error) {
	s, err := uri.Resolve(base.String(), loc)
	if err != nil {
		return nil, fetch.Errorf(fetch.ErrProtocol, "http: bad Location %q: %w", loc, err)
	}
	next, err := uri.Parse(s)
	if err != nil {
		// Servers send what people paste: take it leniently.
		l, _, lerr := uri.ParseLenient(s)
		if lerr != nil {
			return nil, fetch.Errorf(fetch.ErrProtocol, "http: bad Location %q: %w", loc, err)
		}
		next = l
	}
	if !next.HasFragment && base.HasFragment {
		next.Fragment, next.HasFragment = base.Fragment, true
	}
	return next, nil
}

// roundTrip sends one GET for u.
func (d *Driver) roundTrip(ctx context.Context, req *fetch.Request, u *uri.URL) (*http.Response, error) {
	h, err := u.HTTP()
	if err != nil {
		return nil, fetch.Errorf(fetch.ErrUnsupported, "%w", err)
	}
	if h.Host == "" {
		return nil, fetch.Errorf(fetch.ErrUnsupported, "http: URL without a host")
	}
	hr, err := http.NewRequestWithContext(ctx, http.MethodGet, u.Scheme+"://"+u.Hostport()+"/", nil)
	if err != nil {
		return nil, fetch.Errorf(fetch.ErrUnsupported, "http: %w", err)
	}
	// The path and search go out exactly as written: Opaque is copied to
	// the request line verbatim. A proxy needs the absolute form.
	path := h.Path
	if path == "" {
		path = "/"
	}
	hr.URL.Path = ""
	hr.URL.Opaque = path
	if d.usesProxy(hr) {
		hr.URL.Opaque = "//" + hr.URL.Host + path
	}
	hr.URL.RawQuery, hr.URL.ForceQuery = h.Search, h.HasSearch && h.Search == ""
	if u.Port == 0 {
		hr.Host = u.Host // no ":80" in the Host header
		if strings.IndexByte(u.Host, ':') >= 0 {
			hr.Host = "[" + u.Host + "]"
		}
	}
	ua := d.UserAgent
	if ua == "" {
		ua = "urlfetch"
	}
	hr.Header.Set("User-Agent", ua)
	if req.Offset > 0 {
		hr.Header.Set("Range", "bytes="+strconv.FormatInt(req.Offset, 10)+"-")
	}
	if req.Tracing() {
		req.Tracef(fetch.Out, "GET %s HTTP/1.1", hr.URL.RequestURI())
		req.Tracef(fetch.Out, "Host: %s", hr.Host)
		for k, vs := range hr.Header {
			for _, v := range vs {
				req.Tracef(fetch.Out, "%s: %s", k, v)
			}
		}
	}
	resp, err := d.transport.RoundTrip(hr)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, err
	}
	if req.Tracing() {
		req.Tracef(fetch.In, "%s %s", resp.Proto, resp.Status)
		for k, vs := range resp.Header {
			for _, v := range vs {
				req.Tracef(fetch.In, "%s: %s", k, v)
			}
		}
	}
	return resp, nil
}

func (d *Driver) usesProxy(hr *http.Request) bool {
	p, err := d.transport.Proxy(hr)
	return err == nil && p != nil
}

// response turns a final reply into a fetch.Response or an error.
func (d *Driver) response(ctx context.Context, req *fetch.Request, u *uri.URL, resp *http.Response) (*fetch.Response, error) {
	switch code := resp.StatusCode; {
	case code == http.StatusOK, code == http.StatusPartialContent:
	case code == http.StatusRequestedRangeNotSatisfiable && req.Offset > 0:
		resp.Body.Close()
		return nil, fmt.Errorf("http: %s: cannot resume at byte %d: %w", resp.Status, req.Offset, &StatusError{code, resp.Status})
	default:
		resp.Body.Close()
		se := &StatusError{Code: code, Status: resp.Status}
		switch code {
		case http.StatusNotFound, http.StatusGone:
			return nil, fetch.Errorf(fetch.ErrNotFound, "%w", se)
		case http.StatusUnauthorized, http.StatusForbidden, http.StatusProxyAuthRequired:
			return nil, fetch.Errorf(fetch.ErrAuth, "%w", se)
		}
		return nil, se
	}
	r := &fetch.Response{
		URL:    u,
		Kind:   fetch.Document,
		Length: resp.ContentLength,
		Meta:   fetch.Meta(resp.Header),
		Body:   &body{ReadCloser: resp.Body, ctx: ctx},
	}
	if resp.StatusCode == http.StatusPartialContent {
		r.Offset = req.Offset
	}
	if ct := resp.Header.Get("Content-Type"); ct != "" {
		if mt, params, err := mime.ParseMediaType(ct); err == nil {
			r.Type = mime.FormatMediaType(mt, params)
		} else {
			r.Type = ct
		}
	}
	if lm := resp.Header.Get("Last-Modified"); lm != "" {
		if t, err := http.ParseTime(lm); err == nil {
			r.Modified = t
		}
	}
	return r, nil
}

// body ends reads once the fetch's context is done, even of bytes that
// net/http had already buffered.
type body struct {
	io.ReadCloser
	ctx context.Context
}

func (b *body) Read(p []byte) (int, error) {
	if err := b.ctx.Err(); err != nil {
		return 0, err
	}
	return b.ReadCloser.Read(p)
}
