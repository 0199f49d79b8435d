// Package http is the driver for http: and https: URLs (RFC 1738 section
// 3.3), on net/http with the fetch Client's dial path. An https
// connection has the Client's TLS settings (fetch.Request.StartTLS) and
// speaks HTTP/2 (RFC 9113) when the server offers it, else HTTP/1.1.
//
// The path and search go to the server exactly as the URL writes them;
// the fragment never does. A Fetch is one GET, or one HEAD for a Head
// request (fetch.Request.Head, RFC 9110 section 9.3.2): a redirect (301,
// 302, 303, 307, 308 with a Location) comes back as a Response of Kind
// Redirect, its target resolved, and the fetch.Client decides whether to
// follow it.
//
// Credentials, when the Request has some (fetch.Request.Credentials: the
// URL's user:password@, the Client's Login, netrc), go as Basic
// authorization (RFC 7617) with the request itself, as curl -u sends
// them, rather than after a 401 challenge: a fetch is one GET, and a
// challenge would cost a round trip for every URL while protecting
// nothing, since Basic is sent in the clear either way (use https).
// Which requests get them, and the user's header fields (Driver.Header),
// is the Client's rule (fetch.Request.UserOrigin), never the driver's.
//
// The driver is also the Client's way to a gateway (RFC 1738 section 4):
// with Request.Gateway set, an http or https URL goes through it as
// through any proxy, and FetchGateway sends a URL of any scheme whole to
// it.
package http

import (
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"mime"
	"net"
	"net/http"
	"net/http/httptrace"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/urlfetch/urlfetch/fetch"
	"github.com/urlfetch/urlfetch/uri"
)

// Driver fetches http and https URLs. Its zero value is ready to use.
// Which proxy to use, which redirects to follow and the TLS settings are
// the fetch.Client's (Client.Gateway, Client.CheckHop, Client.TLSConfig),
// not the driver's. HTTP/2 is used with a server that offers it over TLS.
//
// The driver keeps idle connections for reuse, per gateway, for every
// Client it is registered with: register a Driver of its own with each
// Client whose TLS settings differ (all.NewDrivers makes one).
type Driver struct {
	// UserAgent is sent with every request.
	UserAgent string
	// Compressed asks for a gzip-compressed body (Accept-Encoding:
	// gzip) and decodes it (curl's --compressed): the Response's Body
	// is the resource, its Length -1 (Content-Length counts the
	// compressed bytes), and Meta lacks the Content-Encoding and
	// Content-Length headers, as net/http's transparent decoding drops
	// them. A body that does not decode is ErrProtocol. A fetch that
	// resumes (Request.Offset) asks for no compression: a range of
	// compressed bytes cannot continue a decoded file. Without it the
	// Body is the bytes as served, encoded or not.
	Compressed bool
	// Header holds header fields of the user's own (curl's -H), sent with
	// every request after the driver's, whose fields of the same names
	// they replace: a Host field replaces the Host, and a name whose one
	// value is "" sends no such field (User-Agent, Range, ...). Authorization
	// replaces the Basic credentials of Request.Credentials. The fields go
	// to a gateway with a URL of another scheme too (they are the user's,
	// for whatever serves the request); on a URL a server chose on
	// another server than the user's (Request.UserOrigin), Authorization,
	// Cookie and Host are left out, as curl and net/http's redirects do.
	// Values are sent as they are; a field CheckHeader refuses (a line
	// break, a name that is no token) fails the fetch with ErrUnsafe
	// before anything is sent.
	Header http.Header

	mu         sync.Mutex
	transports map[string]*http.Transport // by gateway, "" for none
}

var (
	_ fetch.Driver        = (*Driver)(nil)
	_ fetch.GatewayDriver = (*Driver)(nil)
	_ fetch.FollowChecker = (*Driver)(nil)
	_ io.Closer           = (*Driver)(nil) // Client.Close closes idle connections
)

// StatusError is an HTTP reply with an error status. Fetch returns it
// wrapped: errors.As finds it.
type StatusError struct {
	Code   int
	Status string // "500 Internal Server Error"
}

func (e *StatusError) Error() string { return e.Status }

// Temporary reports whether the status says to try again later: a 5xx,
// 408 Request Timeout or 429 Too Many Requests.
func (e *StatusError) Temporary() bool {
	return e.Code >= 500 || e.Code == http.StatusRequestTimeout || e.Code == http.StatusTooManyRequests
}

// requestKey carries the fetch.Request to the transport's dialers, so
// each connection goes through that request's Client.
type requestKey struct{}

// Close closes idle connections.
func (d *Driver) Close() error {
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, t := range d.transports {
		t.CloseIdleConnections()
	}
	return nil
}

// Fetch retrieves an http or https URL with one GET (a HEAD for a Head
// request), directly or through req.Gateway. A redirect comes back unfollowed, as a Response of Kind
// Redirect whose Location is the target resolved against req.URL (the
// fragment carried over when the Location has none, RFC 9110 section
// 10.2.2) and whose Body is the reply's body.
func (d *Driver) Fetch(ctx context.Context, req *fetch.Request) (*fetch.Response, error) {
	if !isHTTP(req.URL) && req.Gateway == nil {
		return nil, fetch.Errorf(fetch.ErrUnsupported, "http: no HTTP gateway for %s: URLs", req.URL.Scheme)
	}
	return d.fetch(ctx, req)
}

// FetchGateway fetches req.URL, of any scheme, through the HTTP gateway
// req.Gateway (RFC 1738 section 4): one GET (a HEAD for a Head request)
// whose request target is the whole URL as written, without its
// fragment: "GET ftp://user:pass@host/path HTTP/1.1". The password of an ftp URL goes
// too, for the gateway logs in with it; traces and errors mask it. The
// connection to the gateway goes through the Client's dial path. The
// reply is a Document streamed from the gateway, its Type and Length from
// Content-Type and Content-Length; error statuses map as Fetch maps them
// (404 is ErrNotFound, 401, 403 and 407 ErrAuth), wrapping a
// *StatusError; a redirect is a Response of Kind Redirect, as from Fetch.
// An http or https URL is fetched as Fetch does, through req.Gateway (a
// CONNECT tunnel for https).
func (d *Driver) FetchGateway(ctx context.Context, req *fetch.Request) (*fetch.Response, error) {
	if req.Gateway == nil {
		return nil, fetch.Errorf(fetch.ErrUnsupported, "http: FetchGateway without a gateway")
	}
	return d.fetch(ctx, req)
}

// CheckFollow accepts every http and https URL: fetching one sends
// nothing of the user's. Whether https may lead to http is the Client's
// rule (Client.AllowDowngrade).
func (d *Driver) CheckFollow(u *uri.URL) error { return nil }

// fetch sends one GET or HEAD for req.URL, through req.Gateway when set.
func (d *Driver) fetch(ctx context.Context, req *fetch.Request) (*fetch.Response, error) {
	ctx = context.WithValue(ctx, requestKey{}, req)
	u, via := req.URL, req.Gateway
	resp, err := d.roundTrip(ctx, req, u, via)
	if err != nil {
		return nil, err
	}
	if loc := redirectTarget(resp); loc != "" {
		return d.redirect(ctx, u, resp, loc)
	}
	r, err := d.response(ctx, req, u, resp)
	if err != nil && !isHTTP(u) {
		return nil, fmt.Errorf("gateway %s: %w", via.Redacted(), err)
	}
	return r, err
}

// redirect returns a redirect reply as a Response of Kind Redirect.
func (d *Driver) redirect(ctx context.Context, u *uri.URL, resp *http.Response, loc string) (*fetch.Response, error) {
	next, err := nextURL(u, loc)
	if err != nil {
		resp.Body.Close()
		return nil, err
	}
	// A body in a coding not asked for stays as served: the redirect
	// is in its Location, not in its body.
	d.decode(resp)
	return &fetch.Response{
		URL:      u,
		Kind:     fetch.Redirect,
		Status:   resp.Status,
		Location: next,
		Length:   resp.ContentLength,
		Meta:     fetch.Meta(resp.Header),
		Body:     newBody(ctx, resp, ""),
	}, nil
}

func isHTTP(u *uri.URL) bool { return u.Scheme == "http" || u.Scheme == "https" }

// speaksHTTP reports whether a proxy is sent HTTP requests (rather than
// being a SOCKS tunnel).
func speaksHTTP(proxy *url.URL) bool { return proxy.Scheme == "http" || proxy.Scheme == "https" }

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

// roundTrip sends one GET (HEAD for a Head request) for u: to its
// server, or to the proxy via. What goes on the wire, and in the trace of
// what went, is u's URI (RFC 3987 section 3.1): a host in Unicode in
// A-labels, in the Host header, the request line and the address dialed;
// the rest of an IRI in UTF-8, percent-encoded.
func (d *Driver) roundTrip(ctx context.Context, req *fetch.Request, u *uri.URL, via *url.URL) (*http.Response, error) {
	u, err := u.URI()
	if err != nil {
		return nil, fetch.Errorf(fetch.ErrURL, "%w", err)
	}
	method := http.MethodGet
	if req.Head {
		method = http.MethodHead
	}
	hr, err := buildRequest(ctx, method, u, via)
	if err != nil {
		return nil, err
	}
	if err := d.setHeaders(ctx, hr, req, u); err != nil {
		return nil, err
	}
	var x *exchange
	if req.Tracing() {
		x = newExchange(req, hr, u, via)
		hr = hr.WithContext(httptrace.WithClientTrace(hr.Context(), x.clientTrace()))
	}
	resp, err := d.transport(via).RoundTrip(hr)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, replyError(err)
	}
	if x != nil {
		x.reply(resp)
	}
	return resp, nil
}

// buildRequest builds the request of method (GET or HEAD) for u, a URI
// (all ASCII): in origin form for its server, in absolute form for an
// HTTP proxy, and for a URL of another scheme the request to the gateway
// via.
func buildRequest(ctx context.Context, method string, u *uri.URL, via *url.URL) (*http.Request, error) {
	if !isHTTP(u) {
		if via == nil || !speaksHTTP(via) {
			return nil, fetch.Errorf(fetch.ErrUnsupported, "http: no HTTP gateway for %s: URLs", u.Scheme)
		}
		return gatewayRequest(ctx, method, u, via)
	}
	hr, err := newRequest(ctx, method, u)
	if err != nil {
		return nil, err
	}
	if via != nil && u.Scheme == "http" && speaksHTTP(via) {
		// A proxy needs the absolute form (an https request goes
		// through a CONNECT tunnel in origin form, as through SOCKS),
		// with the authority of the Host header: no ":80" the URL did
		// not have (hr.URL.Host names the port for net/http's dial).
		authority := hr.URL.Host
		if hr.Host != "" {
			authority = hr.Host
		}
		hr.URL.Opaque = "//" + authority + hr.URL.Opaque
	}
	return hr, nil
}

// newRequest builds the request of method for an http or https URL in
// origin form. The path and search go out exactly as written: Opaque is
// copied to the request line verbatim.
func newRequest(ctx context.Context, method string, u *uri.URL) (*http.Request, error) {
	h, err := u.HTTP()
	if err != nil {
		return nil, fetch.Errorf(fetch.ErrURL, "%w", err)
	}
	if h.Host == "" {
		return nil, fetch.Errorf(fetch.ErrURL, "http: URL without a host")
	}
	hr, err := http.NewRequestWithContext(ctx, method, u.Scheme+"://"+u.Hostport()+"/", nil)
	if err != nil {
		return nil, fetch.Errorf(fetch.ErrUnsupported, "http: %w", err)
	}
	path := h.Path
	if path == "" {
		path = "/"
	}
	hr.URL.Path = ""
	hr.URL.Opaque = path
	hr.URL.RawQuery, hr.URL.ForceQuery = h.Search, h.HasSearch && h.Search == ""
	if u.Port == 0 {
		hr.Host = hostHeader(u) // no ":80" in the Host header
	}
	return hr, nil
}

// gatewayRequest builds the request of method (GET, or HEAD for a Head
// request) that asks gateway gw for u (RFC 1738 section 4): the request
// target is u whole, as written and without its fragment (the absolute
// form of RFC 9112 section 3.2.2), which net/http writes verbatim from
// Opaque when it sends to a proxy.
func gatewayRequest(ctx context.Context, method string, u *uri.URL, gw *url.URL) (*http.Request, error) {
	// The URL's scheme is http even for an https gateway: net/http
	// then sends the request to the proxy, over TLS for https.
	hr, err := http.NewRequestWithContext(ctx, method, "http://"+gw.Host+"/", nil)
	if err != nil {
		return nil, fetch.Errorf(fetch.ErrUnsupported, "http: gateway %s: %w", gw.Redacted(), err)
	}
	hr.URL.Path = ""
	hr.URL.Opaque = u.WithoutFragment().String()
	// Host names u's host; a URL without one (news:) should send an
	// empty Host, which net/http cannot: it sends the gateway's.
	if u.Host != "" {
		hr.Host = hostHeader(u)
	}
	return hr, nil
}

// hostHeader is the Host header for u: its host, and its port if it names
// one, with brackets around an IPv6 address.
func hostHeader(u *uri.URL) string {
	host := u.Host
	if strings.IndexByte(host, ':') >= 0 {
		host = "[" + host + "]"
	}
	if u.Port != 0 {
		host += ":" + strconv.Itoa(u.Port)
	}
	return host
}

// setHeaders sets the headers the driver sends: User-Agent; Range to
// resume at req.Offset (not for a Head, which has no body to start), or
// else Accept-Encoding when Compressed; the Basic credentials of req (an
// http or https URL only); then the user's Header.
func (d *Driver) setHeaders(ctx context.Context, hr *http.Request, req *fetch.Request, u *uri.URL) error {
	ua := d.UserAgent
	if ua == "" {
		ua = "urlfetch"
	}
	hr.Header.Set("User-Agent", ua)
	switch {
	case req.Offset > 0 && !req.Head:
		hr.Header.Set("Range", "bytes="+strconv.FormatInt(req.Offset, 10)+"-")
	case d.Compressed:
		hr.Header.Set("Accept-Encoding", "gzip")
	}
	if isHTTP(u) {
		user, password, ok, err := req.Credentials(ctx)
		if err != nil {
			return err
		}
		if ok {
			// RFC 7617 section 2: no control characters in either,
			// and no colon in the user-id. Base64 would carry a CR or
			// LF without harm, but a server that decodes it may not.
			if err := fetch.CheckLine("http user", user); err != nil {
				return err
			}
			if err := fetch.CheckLine("http password", password); err != nil {
				return err
			}
			if strings.IndexByte(user, ':') >= 0 {
				return fetch.Errorf(fetch.ErrAuth, "http: the user name %q has a \":\", which Basic authorization cannot carry (RFC 7617 section 2)", user)
			}
			hr.SetBasicAuth(user, password)
		}
	}
	return d.setUserHeader(hr, req)
}

// hopDropped are the user's header fields that do not go to another
// server than the user's URL's: its credentials, its cookies, its name.
var hopDropped = []string{"Authorization", "Cookie", "Host"}

// setUserHeader applies the user's Header to hr. A field CheckHeader
// refuses is ErrUnsafe, before anything is sent.
func (d *Driver) setUserHeader(hr *http.Request, req *fetch.Request) error {
	if len(d.Header) == 0 {
		return nil
	}
	own := req.UserOrigin()
	for _, name := range slices.Sorted(maps.Keys(d.Header)) {
		values := d.Header[name]
		for _, v := range values {
			if err := CheckHeader(name, v); err != nil {
				return fetch.Errorf(fetch.ErrUnsafe, "http: %w", err)
			}
		}
		key := http.CanonicalHeaderKey(name)
		if !own && slices.Contains(hopDropped, key) {
			req.Tracef(fetch.Note, "not sending your %s header field to %s: a server chose this URL, on another server than yours", key, hr.URL.Host)
			continue
		}
		switch {
		case key == "Host":
			if len(values) > 0 && values[0] != "" {
				hr.Host = values[0]
			}
		case len(values) == 1 && values[0] == "" && key == "User-Agent":
			// net/http sends its own User-Agent unless it finds an
			// empty one.
			hr.Header[key] = []string{""}
		case len(values) == 1 && values[0] == "":
			hr.Header.Del(key)
		default:
			hr.Header[key] = values
		}
	}
	return nil
}

// CheckHeader checks a header field of the user's (Driver.Header): name a
// token (RFC 9110 section 5.1), value without CR, LF, NUL or another
// control character but HTAB (section 5.5), which could end the field
// early and start another, or which net/http refuses to send.
func CheckHeader(name, value string) error {
	if name == "" {
		return fmt.Errorf("an empty header field name")
	}
	for i := 0; i < len(name); i++ {
		if !isTokenByte(name[i]) {
			return fmt.Errorf("header field name %q: %s at byte %d is not allowed in a name", name, describeByte(name[i]), i)
		}
	}
	for i := 0; i < len(value); i++ {
		if c := value[i]; c < ' ' && c != '\t' || c == 0x7f {
			return fmt.Errorf("header field %s: its value has %s at byte %d", name, describeByte(c), i)
		}
	}
	return nil
}

// isTokenByte reports whether c may be part of a token (RFC 9110 section
// 5.6.2).
func isTokenByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0
}

// describeByte names a byte for a message.
func describeByte(c byte) string {
	switch c {
	case '\r':
		return "a CR"
	case '\n':
		return "an LF"
	case 0:
		return "a NUL"
	case ' ':
		return "a space"
	case '\t':
		return "a tab"
	}
	if c < ' ' || c == 0x7f {
		return fmt.Sprintf("the control byte 0x%02x", c)
	}
	if c > 0x7f {
		return fmt.Sprintf("the byte 0x%02x", c)
	}
	return fmt.Sprintf("%q", string(c))
}

// parseContentRange reads a Content-Range of one range of bytes, "bytes
// first-last/total" or "bytes first-last/*" (total -1), every number
// checked: none negative, first at most last, last below total.
func parseContentRange(s string) (first, last, total int64, ok bool) {
	spec, found := strings.CutPrefix(s, "bytes ")
	if !found {
		return 0, 0, 0, false
	}
	rng, size, found := strings.Cut(spec, "/")
	a, b, found2 := strings.Cut(rng, "-")
	if !found || !found2 {
		return 0, 0, 0, false
	}
	var err1, err2, err3 error
	first, err1 = strconv.ParseInt(a, 10, 64)
	last, err2 = strconv.ParseInt(b, 10, 64)
	total = -1
	if size != "*" {
		total, err3 = strconv.ParseInt(size, 10, 64)
	}
	if err1 != nil || err2 != nil || err3 != nil || first < 0 || last < first || size != "*" && last >= total {
		return 0, 0, 0, false
	}
	return first, last, total, true
}

// replyError gives a kind to an error of the transport. Dialing, TLS
// (StartTLS classifies its failures), the idle timeout and cancellation
// have theirs; another timeout is the Client's to classify. A connection
// closed or reset before the reply came is a broken connection
// (ErrConnect). Every other failure comes of what the server sent: a
// status line or header that does not parse or does not end.
func replyError(err error) error {
	var ne net.Error
	switch {
	case fetch.Class(err) != nil || errors.As(err, &ne) && ne.Timeout():
		return err
	case fetch.ConnBroken(err):
		return fetch.Errorf(fetch.ErrConnect, "http: the server closed the connection before its reply ended: %w", err)
	}
	return fetch.Errorf(fetch.ErrProtocol, "http: the reply cannot be read: %w", err)
}

// response turns a final reply into a fetch.Response or an error.
func (d *Driver) response(ctx context.Context, req *fetch.Request, u *uri.URL, resp *http.Response) (*fetch.Response, error) {
	switch code := resp.StatusCode; {
	case code == http.StatusOK, code == http.StatusPartialContent:
	case code == http.StatusRequestedRangeNotSatisfiable && req.Offset > 0:
		resp.Body.Close()
		if resp.Header.Get("Content-Range") == "bytes */"+strconv.FormatInt(req.Offset, 10) {
			// RFC 9110 section 14.4: the representation has req.Offset
			// bytes, so there is nothing after them: an empty rest.
			return &fetch.Response{Kind: fetch.Document, Type: resp.Header.Get("Content-Type"), Length: 0, Offset: req.Offset, URL: u, Body: io.NopCloser(strings.NewReader(""))}, nil
		}
		return nil, fmt.Errorf("http: %s: cannot resume at byte %d: %w", resp.Status, req.Offset, &StatusError{code, resp.Status})
	default:
		resp.Body.Close()
		se := &StatusError{Code: code, Status: resp.Status}
		switch code {
		case http.StatusNotFound, http.StatusGone:
			return nil, fetch.Errorf(fetch.ErrNotFound, "%w", se)
		case http.StatusUnauthorized:
			if isHTTP(u) {
				return nil, fetch.Errorf(fetch.ErrAuth, "%w%s", se, unauthorized(req, resp))
			}
			return nil, fetch.Errorf(fetch.ErrAuth, "%w", se)
		case http.StatusForbidden, http.StatusProxyAuthRequired:
			return nil, fetch.Errorf(fetch.ErrAuth, "%w", se)
		}
		return nil, se
	}
	if err := d.decode(resp); err != nil {
		resp.Body.Close()
		return nil, err
	}
	short := "" // why the body, read whole, is not the rest of the resource
	r := &fetch.Response{
		URL:    u,
		Kind:   fetch.Document,
		Status: resp.Status,
		Length: resp.ContentLength,
		Meta:   fetch.Meta(resp.Header),
	}
	if resp.StatusCode == http.StatusPartialContent {
		if resp.Uncompressed {
			resp.Body.Close()
			return nil, fetch.Errorf(fetch.ErrProtocol, "http: %s of a gzip-encoded body: a range of its compressed bytes cannot continue the decoded file", resp.Status)
		}
		// RFC 9110 section 14.4: the range the server sends is its own
		// to say, and it must be the one asked for: the bytes from
		// req.Offset to the end. Bytes from 0 are the whole resource
		// again; any other start would be written at the wrong place.
		first, last, total, ok := parseContentRange(resp.Header.Get("Content-Range"))
		switch {
		case !ok:
			resp.Body.Close()
			return nil, fetch.Errorf(fetch.ErrProtocol, "http: %s with Content-Range %q, which is not one range of bytes", resp.Status, resp.Header.Get("Content-Range"))
		case first != req.Offset && first != 0:
			resp.Body.Close()
			return nil, fetch.Errorf(fetch.ErrProtocol, "http: asked for the bytes from %d, the server sent %d-%d", req.Offset, first, last)
		}
		r.Offset = first
		if total >= 0 && last+1 < total {
			short = fmt.Sprintf("the server sent bytes %d-%d of %d", first, last, total)
		}
	}
	r.Body = newBody(ctx, resp, short)
	if req.Head {
		// net/http reads no body after a HEAD: the connection is back
		// in its pool already.
		r.Body.Close()
		r.Body = fetch.EmptyBody(ctx, nil)
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

// unauthorized says, after a 401 to req, what was sent and what to do:
// give credentials when none went, none go to a server a redirect chose,
// the server refused those that went; and which scheme the server asks
// for when it is not Basic, the one the driver speaks.
func unauthorized(req *fetch.Request, resp *http.Response) string {
	var msg string
	sent, user, basic := false, "", false
	if hr := resp.Request; hr != nil {
		sent = hr.Header.Get("Authorization") != ""
		user, _, basic = hr.BasicAuth()
	}
	switch {
	case sent && basic:
		msg = fmt.Sprintf(": the server refused the password of %s", user)
	case sent:
		msg = ": the server refused the Authorization sent"
	case !req.UserOrigin():
		msg = fmt.Sprintf(": no credentials go to it: a %s led to another server than your URL's", req.Hop.Kind)
	default:
		msg = ": give a user and password with -u USER:PASSWORD or in ~/.netrc (--netrc-file)"
	}
	if ch := resp.Header.Get("WWW-Authenticate"); ch != "" {
		scheme, _, _ := strings.Cut(strings.TrimSpace(ch), " ")
		switch {
		case strings.EqualFold(scheme, "Basic"):
		case scheme != "" && len(scheme) <= 32 && strings.IndexFunc(scheme, func(c rune) bool { return c > 0x7f || !isTokenByte(byte(c)) }) < 0:
			msg += fmt.Sprintf("; the server asks for %s authentication, and fetch speaks only Basic", scheme)
		default:
			msg += "; the server asks for another authentication than Basic, the one fetch speaks"
		}
	}
	return msg
}

// decode makes resp's Body the decoded body when the driver decodes it
// (Compressed, and a gzip Content-Encoding), as net/http's transparent
// decoding does: Uncompressed set, ContentLength -1, the Content-Encoding
// and Content-Length headers gone. With Compressed, a coding other than
// gzip is ErrProtocol: only gzip was asked for.
func (d *Driver) decode(resp *http.Response) error {
	if !d.Compressed {
		return nil
	}
	coding := strings.ToLower(strings.TrimSpace(strings.Join(resp.Header.Values("Content-Encoding"), ",")))
	switch coding {
	case "", "identity":
		return nil
	case "gzip", "x-gzip": // RFC 9110 section 8.4.1.3
	default:
		return fetch.Errorf(fetch.ErrProtocol, "http: a body in Content-Encoding %q, which is not the gzip asked for", coding)
	}
	resp.Body = &gunzipBody{wire: resp.Body, length: resp.ContentLength}
	resp.Uncompressed = true
	resp.ContentLength = -1
	resp.Header.Del("Content-Encoding")
	resp.Header.Del("Content-Length")
	return nil
}

// gunzipBody decodes a gzip body (RFC 1952; several members in a row are
// one body, as gzip(1) takes them). It reads the gzip header at the first
// Read, not before: Fetch does not wait for the body. The error that
// ended the body on the wire, if one did, is kept apart from a gzip
// error: newBody needs to tell a broken connection from a corrupt body.
type gunzipBody struct {
	wire    io.ReadCloser
	length  int64 // the Content-Length, of the encoded bytes; -1: none
	n       int64 // the encoded bytes read
	wireErr error // the error of a wire read, io.EOF at its end
	zr      *gzip.Reader
}

func (g *gunzipBody) Read(p []byte) (int, error) {
	if g.zr == nil {
		zr, err := gzip.NewReader(wireReader{g})
		if err != nil {
			return 0, err
		}
		g.zr = zr
	}
	return g.zr.Read(p)
}

func (g *gunzipBody) Close() error { return g.wire.Close() }

// wireReader reads g's encoded bytes, counting them and keeping the
// error.
type wireReader struct{ g *gunzipBody }

func (w wireReader) Read(p []byte) (int, error) {
	n, err := w.g.wire.Read(p)
	w.g.n += int64(n)
	if err != nil && w.g.wireErr == nil {
		w.g.wireErr = err
	}
	return n, err
}

// newBody returns the Body of a reply. A body that breaks off is a broken
// connection (ErrConnect), the net/http error kept; one that cannot be
// read (a chunk that does not parse) ErrProtocol, and so is a body that
// came whole but does not decode (Compressed). short, if not "", says
// why the body read to its end is still not the rest of the resource (a
// range that stops short of it): its end is then a broken transfer too,
// which a retry resumes.
func newBody(ctx context.Context, resp *http.Response, short string) io.ReadCloser {
	c := &fetch.CountingReader{R: resp.Body}
	length := resp.ContentLength
	gz, _ := resp.Body.(*gunzipBody)
	return fetch.NewBody(ctx, c, fetch.BodyFuncs{
		End: func(err error) error {
			switch {
			case err == io.EOF && short != "":
				return fetch.Errorf(fetch.ErrConnect, "http: %s; the rest is missing", short)
			case err == io.EOF, fetch.Class(err) != nil:
				return err
			case gz != nil && (gz.wireErr == nil || gz.wireErr == io.EOF):
				// The bytes came as the reply framed them.
				return fetch.Errorf(fetch.ErrProtocol, "http: the gzip-encoded body does not decode after %d of its bytes (%d decoded): %w", gz.n, c.N, err)
			case gz != nil:
				err = gz.wireErr
			}
			n := c.N
			if gz != nil {
				n, length = gz.n, gz.length
			}
			switch {
			case !fetch.ConnBroken(err):
				// A chunk that does not parse.
				return fetch.Errorf(fetch.ErrProtocol, "http: the body cannot be read after %d bytes: %w", n, err)
			case length >= 0:
				return fetch.Errorf(fetch.ErrConnect, "http: the body broke off after %d of the %d bytes of its Content-Length: %w", n, length, err)
			}
			return fetch.Errorf(fetch.ErrConnect, "http: the body broke off after %d bytes: %w", n, err)
		},
		Close: func(bool) error { return resp.Body.Close() },
	})
}
