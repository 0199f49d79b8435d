// Package gateway is fetch serve: an HTTP server in front of a
// fetch.Client that gives web clients the schemes browsers dropped
// (gopher, ftp, news, wais) and every other scheme the Client fetches
// that is safe to fetch for the web.
//
// It serves in two modes at once:
//
//   - as a gateway of RFC 1738 section 4, an HTTP proxy given the whole
//     URL ("GET gopher://host/1/ HTTP/1.1"): what curl -x, a browser set
//     to use it as its proxy, and the fetch command's own --gateway and
//     <scheme>_proxy send;
//   - as a portal: "/" is a page with a URL box, and "/gopher://host/1/"
//     (the URL as the path, its query included) or "/?url=gopher://..."
//     shows the resource.
//
// What comes back depends on what the client accepts. A document streams
// with its media type, length and time; a range request ("Range:
// bytes=N-") is answered with 206 where the scheme can resume (FTP REST,
// HTTP ranges), with the whole document where it cannot. A listing (an
// FTP directory, a gopher menu, a news group, WAIS results) becomes an
// HTML page for a client that accepts text/html, whose links go back
// through the gateway; a gopher type-7 search and a Gopher+ +ASK form
// become HTML forms. A client that accepts application/json (or
// "/?url=...&json") gets the records of fetch --json (package records):
// a listing's entries and the record that ends it, a document's head. Any
// other client gets the server's own bytes ("/?url=...&raw" too).
//
// Every request is a URL the web chose, so the gateway treats it as a URL
// a server chose: a Hop (fetch.Request.Follow) from the gateway's own
// URL, which the Client's CheckHop weighs before anything is sent. New
// makes the Client fit for that: only the schemes of WebSchemes, no
// credentials of the user's (no netrc, no login, no prompt, an anonymous
// FTP password that names nobody), no words or answers of the user's for
// a search or a form. The port policy and the redirect policy of the
// Client apply as to any fetch. No request can make the gateway fetch from
// itself: a connection the Client makes to the gateway's own address is
// refused, and a request that arrives with the gateway's own Via token (a
// loop through another proxy) is answered 508.
//
// Everything a server sent is HTML-escaped (html/template) and shown with
// its control characters made visible; the pages carry a strict
// Content-Security-Policy (no script at all, the one inline style by its
// hash), and a document the gateway passes on is sandboxed.
package gateway

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/netip"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/urlfetch/urlfetch/fetch"
	"github.com/urlfetch/urlfetch/fetch/all"
	"github.com/urlfetch/urlfetch/fetch/ftp"
	"github.com/urlfetch/urlfetch/uri"
)

// webSchemes are the schemes a gateway fetches for web clients.
var webSchemes = []string{"ftp", "ftps", "gopher", "http", "https", "news", "nntp", "nntps", "snews", "wais"}

// WebSchemes returns the schemes a gateway may fetch for web clients:
// those whose fetch reads and sends nothing of the user's. file: (the
// user's files), mailto: (a message in the user's name), telnet:,
// rlogin: and tn3270: (sessions), mid: and cid: (the user's mail) are
// never among them.
func WebSchemes() []string { return slices.Clone(webSchemes) }

// DefaultMaxIdleConnsPerHost is the connections per server the drivers of
// a gateway's Client keep for reuse when the Client says nothing: enough
// for a page's worth of requests to the same FTP or news server at once.
const DefaultMaxIdleConnsPerHost = 16

// Config is what New builds a Server from.
type Config struct {
	// Client fetches what web clients ask for. New changes its policy
	// to the gateway's (see New); set its other fields (timeouts, TLS,
	// the news server, gateways) before.
	Client *fetch.Client
	// Drivers are the drivers registered with Client, whose settings
	// New changes where they would send the user's own words.
	Drivers *all.Drivers
	// Listener is where the Server serves. Its address is the
	// gateway's own, which no request may make it fetch from.
	Listener net.Listener
	// Log, if set, gets one line per request: the method, the URL with
	// its password masked, the status and the time taken.
	Log func(line string)
}

// A Server is the gateway. Its methods may be called from several
// goroutines.
type Server struct {
	client *fetch.Client
	ln     net.Listener
	addr   netip.AddrPort // the listener's, unmapped
	self   string         // the gateway's own URL: "http://127.0.0.1:7070/"
	via    string         // this gateway's token in Via header fields
	key    []byte         // signs the forms the gateway shows (forms.go)
	log    func(string)
	pages  *pages
	// buffers are the buffers documents are copied through.
	buffers *sync.Pool
}

// New returns the gateway for cfg. It makes cfg.Client fit to fetch for
// web clients, whatever its settings said:
//
//   - AllowSchemes: only the schemes of WebSchemes (those of
//     AllowSchemes among them, when it is set); FollowSchemes: the same,
//     for a request is a hop from the gateway's own URL;
//   - no credentials of the user's: no netrc file, no Login, no Prompt,
//     and an anonymous FTP login's password that names nobody
//     (ftp.ServerChosenAnonymousPassword);
//   - no words of the user's: the gopher and WAIS drivers' Search and
//     the gopher driver's Ask are cleared (a search and a form are HTML
//     forms here);
//   - every connection the Client makes is refused if it reaches the
//     gateway's own address, and every HTTP request it sends carries
//     the gateway's Via token, which a request that comes back through
//     another proxy brings along;
//   - MaxIdleConnsPerHost is DefaultMaxIdleConnsPerHost when 0.
func New(cfg Config) (*Server, error) {
	c, ds := cfg.Client, cfg.Drivers
	if c == nil || ds == nil || cfg.Listener == nil {
		return nil, errors.New("gateway: New needs a Client, its Drivers and a Listener")
	}
	ta, ok := cfg.Listener.Addr().(*net.TCPAddr)
	if !ok {
		return nil, fmt.Errorf("gateway: listener address %v is not TCP", cfg.Listener.Addr())
	}
	s := &Server{client: c, ln: cfg.Listener, log: cfg.Log, buffers: bufferPool()}
	ap := ta.AddrPort()
	s.addr = netip.AddrPortFrom(ap.Addr().Unmap(), ap.Port())
	host := s.addr.Addr()
	if host.IsUnspecified() {
		host = netip.AddrFrom4([4]byte{127, 0, 0, 1})
	}
	s.self = "http://" + netip.AddrPortFrom(host, s.addr.Port()).String() + "/"
	var token [8]byte
	s.key = make([]byte, 32)
	if _, err := rand.Read(token[:]); err != nil {
		return nil, err
	}
	if _, err := rand.Read(s.key); err != nil {
		return nil, err
	}
	s.via = "fetch-serve-" + hex.EncodeToString(token[:])

	allowed := webSchemes
	if c.AllowSchemes != nil {
		allowed = slices.DeleteFunc(slices.Clone(c.AllowSchemes), func(s string) bool { return !slices.Contains(webSchemes, s) })
	}
	allowed = slices.DeleteFunc(slices.Clone(allowed), func(s string) bool { return c.Driver(s) == nil })
	c.AllowSchemes = allowed
	c.FollowSchemes = slices.Clone(allowed)
	c.NetrcFile = "-"
	c.Login = nil
	c.Prompt = nil
	if c.MaxIdleConnsPerHost == 0 {
		c.MaxIdleConnsPerHost = DefaultMaxIdleConnsPerHost
	}
	ds.FTP.AnonymousPassword = ftp.ServerChosenAnonymousPassword
	ds.Gopher.Search, ds.Gopher.Ask = "", nil
	ds.WAIS.Search = ""
	if ds.HTTP.Header == nil {
		ds.HTTP.Header = http.Header{}
	}
	ds.HTTP.Header.Add("Via", "1.1 "+s.via)
	c.DialContext = s.refuseSelf(c.DialContext)

	p, err := newPages(allowed)
	if err != nil {
		return nil, err
	}
	s.pages = p
	return s, nil
}

// URL returns the gateway's own URL, "http://127.0.0.1:7070/": the
// portal's home page.
func (s *Server) URL() string { return s.self }

// Serve answers requests on the Listener until ctx is done, then stops
// taking new ones and waits up to 5 seconds for those under way. It
// returns nil after ctx ends, else the error that stopped it.
func (s *Server) Serve(ctx context.Context) error {
	hs := &http.Server{
		Handler:           s,
		ReadHeaderTimeout: 30 * time.Second,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    64 << 10,
		// A transfer takes as long as it takes: no WriteTimeout. The
		// Client's own timeouts bound each wait for a server.
		ErrorLog:    log.New(io.Discard, "", 0),
		BaseContext: func(net.Listener) context.Context { return ctx },
	}
	done := make(chan error, 1)
	go func() { done <- hs.Serve(s.ln) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	err := hs.Shutdown(sctx)
	<-done
	if errors.Is(err, context.DeadlineExceeded) {
		hs.Close()
		return nil
	}
	return err
}

// refuseSelf wraps dial, the Client's DialContext (nil: a net.Dialer), so
// that a connection that reaches the gateway's own address is closed and
// refused: the one check that catches every way a URL can name the
// gateway (127.0.0.1, localhost, 0.0.0.0, another address of the host
// when it listens on all of them, a redirect, a gateway setting that
// names it), for it looks at where the connection went, not at names.
func (s *Server) refuseSelf(dial func(ctx context.Context, network, addr string) (net.Conn, error)) func(ctx context.Context, network, addr string) (net.Conn, error) {
	if dial == nil {
		d := &net.Dialer{KeepAlive: -1}
		dial = d.DialContext
	}
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := dial(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		if s.isSelf(c) {
			c.Close()
			return nil, fetch.Errorf(fetch.ErrUnsafe, "refusing to fetch from %s: it is this gateway (%s) itself", addr, s.addr)
		}
		return c, nil
	}
}

// isSelf reports whether c, a connection the Client made, reached the
// gateway's listener: it went to the listener's port, at the listener's
// address, or, for a listener on every address, at an address of this
// host (a loopback one, or the connection's own source address, which
// the kernel picks equal to a local destination).
func (s *Server) isSelf(c net.Conn) bool {
	ra, ok1 := c.RemoteAddr().(*net.TCPAddr)
	la, ok2 := c.LocalAddr().(*net.TCPAddr)
	if !ok1 || !ok2 || ra.Port != int(s.addr.Port()) {
		return false
	}
	remote := ra.AddrPort().Addr().Unmap()
	if !s.addr.Addr().IsUnspecified() {
		return remote == s.addr.Addr()
	}
	return remote.IsLoopback() || remote == la.AddrPort().Addr().Unmap()
}

// looped reports whether r came back to this gateway through a proxy:
// its Via header fields name this gateway's token (RFC 9110 section
// 7.6.3).
func (s *Server) looped(r *http.Request) bool {
	for _, v := range r.Header.Values("Via") {
		if strings.Contains(v, s.via) {
			return true
		}
	}
	return false
}

// request is the Request for u, a URL a web client chose: a hop from the
// gateway's own URL, which Do checks with the Client's CheckHop.
func (s *Server) request(u *uri.URL) (*fetch.Request, error) {
	from, err := s.client.NewRequest(s.self)
	if err != nil {
		return nil, err
	}
	return from.Follow(fetch.HopLink, u), nil
}
