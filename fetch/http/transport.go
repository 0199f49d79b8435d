package http

import (
	"bufio"
	"context"
	"crypto/tls"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/textproto"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/urlfetch/urlfetch/fetch"
)

// The driver's connections. Every TLS handshake is the driver's own, done
// with the fetch.Request's StartTLS, so that the Client's TLS settings
// (Client.TLSConfig) hold for every https connection and every one is
// traced:
//
//   - directly to an https server: Transport.DialTLSContext (dialTLS);
//   - to an https:// gateway: the same, net/http asking for the
//     gateway's address;
//   - to an https server through a gateway: a tunnel the driver opens
//     (CONNECT through an HTTP gateway, RFC 9110 section 9.3.6; SOCKS5,
//     RFC 1928), then the handshake over it.
//
// net/http would open those tunnels itself, but then it runs the
// handshake with the one TLSClientConfig of the transport, which no
// callback can tie to the request whose Client it is (a tls.Config's
// verification hooks see no context), and above any connection the
// driver could wrap, so no reply head could be traced there. The
// transport's TLSClientConfig is therefore one that fails every
// handshake: a path this file missed fails rather than using settings
// that are not the Client's.

// noTLS returns a transport's TLSClientConfig, never to be used; one
// each, since net/http adds its ALPN protocols to it.
func noTLS() *tls.Config {
	return &tls.Config{
		VerifyConnection: func(tls.ConnectionState) error {
			return errors.New("http: a TLS handshake outside the Client's settings")
		},
	}
}

// transport returns the transport for fetches through the gateway gw, or
// directly when gw is nil. net/http keeps idle connections per transport
// by proxy, scheme and address, and a tunnel it does not open is to it a
// direct connection: one transport per gateway keeps a connection made
// through one gateway from serving a fetch through another, or none.
func (d *Driver) transport(gw *url.URL) *http.Transport {
	key := ""
	if gw != nil {
		key = gw.String()
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if t := d.transports[key]; t != nil {
		return t
	}
	t := d.newTransport(gw)
	if d.transports == nil {
		d.transports = make(map[string]*http.Transport)
	}
	d.transports[key] = t
	return t
}

// newTransport returns the transport for fetches through gw (nil: none).
func (d *Driver) newTransport(gw *url.URL) *http.Transport {
	var proxy func(*http.Request) (*url.URL, error)
	if gw != nil && speaksHTTP(gw) {
		// An HTTP gateway is sent http URLs, and URLs of other
		// schemes, in absolute form: net/http writes that. An https
		// URL goes through a tunnel of the driver's (open).
		proxy = func(hr *http.Request) (*url.URL, error) {
			if hr.URL.Scheme == "https" {
				return nil, nil
			}
			return gw, nil
		}
	}
	return &http.Transport{
		Proxy:                 proxy,
		DialContext:           d.dial,
		DialTLSContext:        d.dialTLS,
		TLSClientConfig:       noTLS(),
		ForceAttemptHTTP2:     true, // HTTP/2 over dialTLS's connections
		DisableCompression:    true, // Compressed asks for gzip itself
		MaxIdleConnsPerHost:   8,
		IdleConnTimeout:       90 * time.Second,
		ExpectContinueTimeout: time.Second,
		// net/http's default is 10 MiB, kept whole before the
		// error; real replies' headers are a few KiB.
		MaxResponseHeaderBytes: maxHeaderBytes,
		HTTP2:                  &http.HTTP2Config{MaxReceiveBufferPerStream: maxStreamBuffer},
	}
}

// maxStreamBuffer bounds what an HTTP/2 server may send ahead of the
// reader on one stream (its flow-control window). net/http's 4 MiB let
// the connection's read loop, which outruns a reader that writes what it
// reads, hold up to 4 MiB of a 64 MiB download in memory: the command's
// peak RSS went to 19 MiB (issue 24, point 6).
const maxStreamBuffer = 1 << 20

// maxHeaderBytes bounds the status line and header block of a reply.
const maxHeaderBytes = 1 << 20

// requestOf returns the fetch.Request that fetch put in ctx: each
// connection goes through the dial path of the request that asked for it.
func requestOf(ctx context.Context) (*fetch.Request, error) {
	req, _ := ctx.Value(requestKey{}).(*fetch.Request)
	if req == nil {
		return nil, errors.New("http: dial without a fetch request")
	}
	return req, nil
}

// dial is the transport's DialContext: a connection to addr, an http
// server's or an HTTP gateway's, in the clear.
func (d *Driver) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	req, err := requestOf(ctx)
	if err != nil {
		return nil, err
	}
	c, err := open(ctx, req, addr)
	if err != nil {
		return nil, err
	}
	return newHeadConn(c), nil
}

// dialTLS is the transport's DialTLSContext: a TLS connection to addr, an
// https server's or an https:// gateway's, through req.StartTLS. HTTP/2 is
// offered to a server, only HTTP/1.1 to a gateway. A connection that
// speaks HTTP/2 is returned as the *tls.Conn net/http needs to see for
// it; one that speaks HTTP/1.1 is wrapped to trace its replies' heads.
func (d *Driver) dialTLS(ctx context.Context, network, addr string) (net.Conn, error) {
	req, err := requestOf(ctx)
	if err != nil {
		return nil, err
	}
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fetch.Errorf(fetch.ErrURL, "http: %v", err)
	}
	c, err := open(ctx, req, addr)
	if err != nil {
		return nil, err
	}
	protos := []string{"h2", "http/1.1"}
	if req.Gateway != nil && req.URL.Scheme != "https" || !http2Client() {
		protos = []string{"http/1.1"} // addr is the gateway's, or no HTTP/2 here
	}
	tc, err := startTLS(ctx, req, c, host, protos)
	if err != nil {
		return nil, err
	}
	if tc.ConnectionState().NegotiatedProtocol == "h2" {
		return tc, nil
	}
	return newHeadConn(tc), nil
}

// http2Client reports whether net/http's client speaks HTTP/2 in this
// process: not when GODEBUG says http2client=0 (the last setting of it
// wins, as the runtime reads it). The Transport then takes a connection
// whose ALPN chose "h2" for HTTP/1.1 and fails on the server's first
// frame, so h2 must not be offered at all. The setting can also come
// from a //go:debug line or go.mod's godebug block, which this module
// has none of.
func http2Client() bool {
	on := true
	for _, kv := range strings.Split(os.Getenv("GODEBUG"), ",") {
		if k, v, ok := strings.Cut(strings.TrimSpace(kv), "="); ok && k == "http2client" {
			on = v != "0"
		}
	}
	return on
}

// startTLS runs the handshake with host over c with the Client's
// settings, offering protos by ALPN; c is closed when it fails.
func startTLS(ctx context.Context, req *fetch.Request, c net.Conn, host string, protos []string) (*tls.Conn, error) {
	cfg := req.TLSConfig(host)
	cfg.NextProtos = protos
	tc, err := req.StartTLS(ctx, c, host, cfg)
	if err != nil {
		c.Close()
		return nil, err
	}
	return tc, nil
}

// open connects to addr for req: directly; or, when req has a gateway
// that net/http does not reach itself, through the gateway's tunnel (a
// SOCKS5 gateway's for any URL, an HTTP gateway's CONNECT for an https
// URL). When net/http sends the request to an HTTP gateway, addr is the
// gateway's. The port policy is the gateway's scheme's when the
// connection goes to a gateway, else the URL's.
func open(ctx context.Context, req *fetch.Request, addr string) (net.Conn, error) {
	gw := req.Gateway
	switch {
	case gw == nil:
		return req.DialAddr(ctx, req.URL.Scheme, addr)
	case !speaksHTTP(gw):
		return socksTunnel(ctx, req, gw, addr)
	case req.URL.Scheme == "https":
		return connectTunnel(ctx, req, gw, addr)
	}
	return req.DialAddr(ctx, gw.Scheme, addr)
}

// gatewayAddr is the host and port of gw: its port, or its scheme's
// (80, 443, 1080 for SOCKS).
func gatewayAddr(gw *url.URL) string {
	port := gw.Port()
	if port == "" {
		switch gw.Scheme {
		case "https":
			port = "443"
		case "socks5", "socks5h":
			port = "1080"
		default:
			port = "80"
		}
	}
	return net.JoinHostPort(gw.Hostname(), port)
}

// connectTunnel opens a tunnel to target through the HTTP gateway gw with
// CONNECT (RFC 9110 section 9.3.6): over TLS to the gateway first when gw
// is https://, with gw's user and password as Proxy-Authorization. The
// request and reply are traced, the credentials masked. A reply other
// than 2xx is an error wrapping a *StatusError: 401, 403 and 407 are
// ErrAuth.
func connectTunnel(ctx context.Context, req *fetch.Request, gw *url.URL, target string) (net.Conn, error) {
	c, err := req.DialAddr(ctx, gw.Scheme, gatewayAddr(gw))
	if err != nil {
		return nil, err
	}
	conn := net.Conn(c)
	if gw.Scheme == "https" {
		if conn, err = startTLS(ctx, req, c, gw.Hostname(), []string{"http/1.1"}); err != nil {
			return nil, err
		}
	}
	if err := connect(req, conn, gw, target); err != nil {
		conn.Close()
		return nil, fmt.Errorf("gateway %s: %w", gw.Redacted(), err)
	}
	return conn, nil
}

// connect sends CONNECT for target over c and reads the gateway's reply.
func connect(req *fetch.Request, c net.Conn, gw *url.URL, target string) error {
	head := []string{"CONNECT " + target + " HTTP/1.1", "Host: " + target}
	if u := gw.User; u != nil {
		pw, _ := u.Password()
		head = append(head, "Proxy-Authorization: Basic "+base64.StdEncoding.EncodeToString([]byte(u.Username()+":"+pw)))
	}
	var b strings.Builder
	for _, line := range head {
		req.Trace(fetch.Out, maskCredentials(line))
		b.WriteString(line + "\r\n")
	}
	b.WriteString("\r\n")
	if _, err := io.WriteString(c, b.String()); err != nil {
		return replyError(err)
	}
	// The gateway sends nothing after its reply until the TLS client
	// speaks: a buffered reader takes nothing of the tunnel.
	br := bufio.NewReader(io.LimitReader(c, maxHeaderBytes))
	tp := textproto.NewReader(br)
	status, err := tp.ReadLine()
	if err != nil {
		return replyError(err)
	}
	req.Trace(fetch.In, status)
	for {
		line, err := tp.ReadLine()
		if err != nil {
			return replyError(err)
		}
		if line == "" {
			break
		}
		req.Trace(fetch.In, line)
	}
	if n := br.Buffered(); n > 0 {
		return fetch.Errorf(fetch.ErrProtocol, "http: %d bytes came after the reply to CONNECT, before the tunnel was used", n)
	}
	code, text, ok := parseStatusLine(status)
	switch {
	case !ok:
		return fetch.Errorf(fetch.ErrProtocol, "http: the reply to CONNECT %s is not a status line: %q", target, status)
	case code >= 200 && code < 300:
		return nil
	}
	se := &StatusError{Code: code, Status: text}
	switch code {
	case http.StatusUnauthorized, http.StatusForbidden, http.StatusProxyAuthRequired:
		return fetch.Errorf(fetch.ErrAuth, "CONNECT %s: %w", target, se)
	}
	return fmt.Errorf("CONNECT %s: %w", target, se)
}

// parseStatusLine reads "HTTP/1.1 200 Connection established" into 200
// and "200 Connection established".
func parseStatusLine(line string) (code int, status string, ok bool) {
	proto, status, found := strings.Cut(line, " ")
	if !found || !strings.HasPrefix(proto, "HTTP/1.") || len(status) < 3 || len(status) > 3 && status[3] != ' ' {
		return 0, "", false
	}
	code, err := strconv.Atoi(status[:3])
	if err != nil || code < 100 {
		return 0, "", false
	}
	return code, status, true
}
