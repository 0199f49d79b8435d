package fetch

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"os"
	"strconv"
	"strings"

	"github.com/urlfetch/urlfetch/uri"
)

// RFC 1738 section 4: a client may be configured to use a gateway, an
// HTTP proxy that is sent the whole URL, for any scheme. The Client's
// Gateway setting names one per URL; Do puts it on the Request
// (Request.Gateway) and hands the URL to the driver registered for http,
// which must be a GatewayDriver, in place of the URL's own driver.

// A GatewayDriver fetches URLs of any scheme through the HTTP gateway
// req.Gateway: it sends the whole URL to the gateway, "GET
// ftp://host/path HTTP/1.1", and returns the gateway's reply as the
// Response (a redirect as a Response of Kind Redirect, unfollowed).
// Client.Do uses the driver registered for http.
type GatewayDriver interface {
	FetchGateway(ctx context.Context, req *Request) (*Response, error)
}

// Gateways is a table of gateways by URL scheme, with hosts that are
// fetched directly, as the <scheme>_proxy and no_proxy environment
// variables of CERN libwww and lynx give them. Its Gateway method is what
// a Client's Gateway field wants:
//
//	c.Gateway = fetch.GatewaysFromEnvironment().Gateway
type Gateways struct {
	// ByScheme maps a scheme ("ftp") to the gateway for its URLs, in the
	// form ParseGateway reads ("http://proxy:3128", "proxy:3128"). A
	// missing or empty entry means none: the scheme's driver runs.
	ByScheme map[string]string
	// NoProxy lists the hosts fetched directly whatever the scheme, in
	// the syntax of no_proxy: entries separated by commas or spaces;
	// "*" alone exempts every host; "host:port" exempts that host on
	// that port only; a domain exempts itself and its subdomains, and
	// one written with a leading "." or "*." its subdomains only; an IP
	// address exempts itself and a CIDR prefix (10.0.0.0/8) the
	// addresses in it. Unlike Go's net/http, loopback hosts are not
	// exempt unless listed: a gateway on the same host is a gateway too.
	NoProxy string
}

// GatewaysFromEnvironment reads the gateways of the environment: for each
// scheme, the variable <scheme>_proxy (ftp_proxy, gopher_proxy,
// wais_proxy, news_proxy, nntp_proxy, http_proxy, https_proxy, ...), and
// no_proxy. The lower-case name is read first; the upper-case one
// (FTP_PROXY) is used when the lower-case one is unset or empty, except
// HTTP_PROXY when the program runs as a CGI script (REQUEST_METHOD is
// set), where a request's "Proxy:" header arrives as HTTP_PROXY.
// all_proxy, which usually names a SOCKS proxy, is not read.
func GatewaysFromEnvironment() *Gateways {
	return gatewaysFromEnviron(os.Environ())
}

// gatewaysFromEnviron is GatewaysFromEnvironment for an environment given
// as os.Environ returns it.
func gatewaysFromEnviron(environ []string) *Gateways {
	lower := map[string]string{}
	upper := map[string]string{}
	cgi := false
	for _, kv := range environ {
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			continue
		}
		switch {
		case k == "REQUEST_METHOD":
			cgi = v != ""
		case strings.HasSuffix(k, "_proxy"):
			if name := strings.TrimSuffix(k, "_proxy"); isEnvScheme(name, 'a', 'z') {
				lower[name] = v
			}
		case strings.HasSuffix(k, "_PROXY"):
			if name := strings.TrimSuffix(k, "_PROXY"); isEnvScheme(name, 'A', 'Z') {
				upper[strings.ToLower(name)] = v
			}
		}
	}
	if cgi {
		delete(upper, "http")
	}
	g := &Gateways{ByScheme: map[string]string{}}
	pick := func(name string) string {
		if v := strings.TrimSpace(lower[name]); v != "" {
			return v
		}
		return strings.TrimSpace(upper[name])
	}
	for _, m := range []map[string]string{lower, upper} {
		for name := range m {
			switch name {
			case "no":
				g.NoProxy = pick(name)
			case "all":
			default:
				if v := pick(name); v != "" {
					g.ByScheme[name] = v
				}
			}
		}
	}
	return g
}

// isEnvScheme reports whether name, the part of a variable's name before
// "_proxy", is a scheme written in one case: a letter of [lo, hi], then
// such letters and digits.
func isEnvScheme(name string, lo, hi byte) bool {
	if name == "" || name[0] < lo || name[0] > hi {
		return false
	}
	for i := 1; i < len(name); i++ {
		c := name[i]
		if (c < lo || c > hi) && (c < '0' || c > '9') {
			return false
		}
	}
	return true
}

// Gateway returns the gateway for u: the one ByScheme names for u's
// scheme, unless NoProxy exempts u's host; nil means none. A nil
// *Gateways names none. An entry that ParseGateway refuses is an error
// of kind ErrURL or ErrUnsupported, and so is a SOCKS proxy for a URL
// that is not http or https.
func (g *Gateways) Gateway(u *uri.URL) (*url.URL, error) {
	if g == nil {
		return nil, nil
	}
	s := g.ByScheme[u.Scheme]
	if s == "" || noProxyMatch(g.NoProxy, u.Host, u.PortNumber()) {
		return nil, nil
	}
	gw, err := ParseGateway(s)
	if err == nil && isSOCKS(gw) && u.Scheme != "http" && u.Scheme != "https" {
		err = Errorf(ErrUnsupported, "gateway %s is a SOCKS proxy, which cannot be sent a URL: only http:// and https:// gateways can", gw.Redacted())
	}
	if err != nil {
		return nil, fmt.Errorf("gateway for %s: URLs: %w", u.Scheme, err)
	}
	return gw, nil
}

func isSOCKS(gw *url.URL) bool { return gw.Scheme == "socks5" || gw.Scheme == "socks5h" }

// ParseGateway parses a gateway as the <scheme>_proxy variables write it:
// "http://host:port", or "host:port" meaning the same (port 80 when none
// is given). A gateway speaks HTTP, in the clear or, for https://host:port
// (port 443), over TLS. socks5:// and socks5h:// (port 1080) are taken
// too, for http and https URLs only, as net/http takes them from
// http_proxy and https_proxy. Other schemes are refused with
// ErrUnsupported. A user and password ("http://user:pass@proxy:3128") go
// to the gateway as proxy credentials; errors mask the password.
func ParseGateway(s string) (*url.URL, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil, Errorf(ErrURL, "empty gateway URL")
	}
	raw := s
	if !strings.Contains(s, "://") {
		raw = "http://" + s
	}
	shown := maskUserinfo(raw)
	gw, err := url.Parse(raw)
	if err != nil {
		// url.Error repeats the input, password and all, and its reason
		// may quote part of it: say why only when no userinfo is there.
		var reason error = err
		if ue, ok := err.(*url.Error); ok {
			reason = ue.Err
		}
		if strings.Contains(raw, "@") {
			reason = errors.New("it does not parse as a URL")
		}
		return nil, Errorf(ErrURL, "bad gateway URL %q: %v", shown, reason)
	}
	switch {
	case gw.Scheme != "http" && gw.Scheme != "https" && !isSOCKS(gw):
		return nil, Errorf(ErrUnsupported, "gateway %q: a gateway is an HTTP proxy, http:// or https:// (or, for http and https URLs, socks5://)", shown)
	case gw.Opaque != "" || gw.Hostname() == "":
		return nil, Errorf(ErrURL, "gateway %q names no host", shown)
	case gw.Path != "" && gw.Path != "/", gw.RawQuery != "", gw.Fragment != "":
		return nil, Errorf(ErrURL, "gateway %q: a gateway is a host and port, without a path", shown)
	}
	if p := gw.Port(); p != "" {
		if n, err := strconv.Atoi(p); err != nil || n < 1 || n > 65535 {
			return nil, Errorf(ErrURL, "gateway %q: bad port %q", shown, p)
		}
	}
	gw.Path, gw.RawPath = "", ""
	return gw, nil
}

// maskUserinfo hides the password of a URL as typed, for messages about
// a URL that may not parse.
func maskUserinfo(s string) string {
	// uri's masking, which takes a password with an unencoded "?", "#"
	// or "/" into account.
	return (&uri.Error{Input: s}).MaskedInput()
}

// gatewayPort is the port a gateway is reached on.
func gatewayPort(gw *url.URL) int {
	if n, err := strconv.Atoi(gw.Port()); err == nil {
		return n
	}
	switch gw.Scheme {
	case "https":
		return 443
	case "socks5", "socks5h":
		return 1080
	}
	return 80
}

// noProxyMatch reports whether list, in no_proxy syntax, exempts host on
// port. A URL that names no host (news:) is exempt only by "*".
func noProxyMatch(list, host string, port int) bool {
	host = strings.TrimSuffix(uri.HostKey(host), ".")
	for _, e := range strings.FieldsFunc(list, func(r rune) bool { return r == ',' || r == ' ' || r == '\t' }) {
		e = strings.ToLower(e)
		if e == "*" {
			return true
		}
		if host == "" {
			continue
		}
		if pfx, err := netip.ParsePrefix(e); err == nil {
			if ip, err := netip.ParseAddr(host); err == nil && pfx.Contains(ip.Unmap()) {
				return true
			}
			continue
		}
		if h, p, err := net.SplitHostPort(e); err == nil {
			if strconv.Itoa(port) != p {
				continue
			}
			e = h
		}
		e = strings.TrimPrefix(strings.Trim(e, "[]"), "*")
		e = strings.TrimSuffix(e, ".")
		if dot := strings.HasPrefix(e, "."); e != "" && e != "." {
			// In A-labels, as host is: a name in Unicode matches its
			// A-labels.
			e = uri.HostKey(strings.TrimPrefix(e, "."))
			if dot {
				e = "." + e
			}
		}
		switch {
		case e == "" || e == ".":
		case e[0] == '.':
			if strings.HasSuffix(host, e) {
				return true
			}
		case host == e || strings.HasSuffix(host, "."+e):
			return true
		}
	}
	return false
}

// gatewayFor returns the gateway the Client's Gateway setting names for
// u, or nil for none: the one place a gateway is chosen.
func (c *Client) gatewayFor(u *uri.URL) (*url.URL, error) {
	if c.Gateway == nil {
		return nil, nil
	}
	return c.Gateway(u)
}

// checkGateway applies the port policy to a gateway's port. The port of
// the URL sent to the gateway is the gateway's business: the gateway, not
// the Client, connects there.
func (c *Client) checkGateway(gw *url.URL) error {
	if err := c.checkPort(gw.Scheme, gatewayPort(gw)); err != nil {
		return fmt.Errorf("gateway %s: %w", gw.Redacted(), err)
	}
	return nil
}

// gatewayDriver returns the driver that fetches r.URL through r.Gateway:
// for http and https, their own driver, which takes the gateway as its
// proxy; for any other scheme, the driver registered for http as a
// GatewayDriver.
func (c *Client) gatewayDriver(r *Request) (Driver, error) {
	gw, u := r.Gateway, r.URL
	if err := c.checkGateway(gw); err != nil {
		return nil, err
	}
	if u.Scheme == "http" || u.Scheme == "https" {
		if d := c.Driver(u.Scheme); d != nil {
			return d, nil
		}
	}
	gd, ok := c.Driver("http").(GatewayDriver)
	if !ok {
		return nil, Errorf(ErrUnsupported, "gateway %s: the driver for http: URLs here cannot fetch through a gateway", gw.Redacted())
	}
	// The URL goes encoded, but the gateway decodes it into the lines of
	// the scheme's protocol: a decoded CR, LF or NUL would reach them.
	if u.Scheme != "http" && u.Scheme != "https" {
		if s, err := uri.Unescape(u.String()); err == nil {
			if err := CheckLine("URL sent to the gateway", s); err != nil {
				return nil, err
			}
		}
	}
	return DriverFunc(gd.FetchGateway), nil
}
