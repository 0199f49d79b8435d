package main

import (
	"strings"

	"github.com/urfave/cli/v2"
	"github.com/urlfetch/urlfetch/fetch"
	"github.com/urlfetch/urlfetch/fetch/all"
	"github.com/urlfetch/urlfetch/uri"
)

// gatewayUsage is the help of --gateway.
const gatewayUsage = "fetch URLs of scheme SCHEME through the HTTP gateway (proxy) at URL, given as `SCHEME=URL` " +
	"with URL http://HOST:PORT or HOST:PORT (https://HOST:PORT for TLS to the gateway; for http and https URLs, " +
	"socks5://HOST:PORT too), instead of by SCHEME's own protocol: the gateway is sent the whole URL, " +
	"as in \"GET ftp://host/path HTTP/1.1\", password included, and its reply is the document (RFC 1738 section 4). " +
	"Repeatable, one SCHEME each; SCHEME may be one this command has no driver for. " +
	"Without this option the environment decides: SCHEME_proxy (ftp_proxy, gopher_proxy, wais_proxy, news_proxy, " +
	"nntp_proxy, http_proxy, https_proxy), or the same name in upper case when the lower-case one is unset " +
	"(but never HTTP_PROXY in a CGI script). --gateway SCHEME=URL overrides SCHEME_proxy, and --gateway SCHEME= " +
	"(an empty URL) ignores it: SCHEME is fetched directly. Hosts listed in no_proxy (or NO_PROXY) are always fetched " +
	"directly: comma-separated, a domain and its subdomains, .domain for subdomains only, HOST:PORT, an IP address or " +
	"prefix, or * for every host; loopback is not exempt unless listed. The port policy (--allow-port) applies to the " +
	"gateway's port, not to the URL's: the gateway, not fetch, connects there"

// gatewayOptions are the gateways of RFC 1738 section 4, from --gateway
// and the <scheme>_proxy and no_proxy environment variables.
func gatewayOptions() driverOption {
	return driverOption{
		title: "Gateways (proxies)",
		flags: []cli.Flag{
			&cli.StringSliceFlag{Name: "gateway", Usage: gatewayUsage},
		},
		configure: func(c *cli.Context, cl *fetch.Client, _ *all.Drivers) error {
			return configureGateways(c, cl)
		},
	}
}

// configureGateways sets the Client's Gateway from the environment and
// the --gateway options, which win.
func configureGateways(c *cli.Context, cl *fetch.Client) error {
	g := fetch.GatewaysFromEnvironment()
	for _, arg := range c.StringSlice("gateway") {
		scheme, gw, ok := strings.Cut(arg, "=")
		scheme = strings.ToLower(strings.TrimSpace(scheme))
		if !ok || !validScheme(scheme) {
			return cli.Exit("--gateway "+quoteMasked(arg)+": want SCHEME=URL, as in ftp=http://proxy:3128, or SCHEME= for none", exitUsage)
		}
		if gw = strings.TrimSpace(gw); gw != "" {
			// The rules of the table itself, for a URL of scheme.
			one := &fetch.Gateways{ByScheme: map[string]string{scheme: gw}}
			if _, err := one.Gateway(&uri.URL{Scheme: scheme}); err != nil {
				return cli.Exit("--gateway "+scheme+"=...: "+err.Error(), exitUsage)
			}
		}
		g.ByScheme[scheme] = gw
	}
	cl.Gateway = g.Gateway
	return nil
}

// validScheme reports whether s is a scheme name of RFC 1738 section
// 2.1: lower-case letters, digits, "+", "-" and ".", a letter first.
func validScheme(s string) bool {
	if s == "" || s[0] < 'a' || s[0] > 'z' {
		return false
	}
	for i := 1; i < len(s); i++ {
		c := s[i]
		if (c < 'a' || c > 'z') && (c < '0' || c > '9') && c != '+' && c != '-' && c != '.' {
			return false
		}
	}
	return true
}

// quoteMasked quotes a --gateway argument for a message without the URL
// in it, which may hold a password.
func quoteMasked(arg string) string {
	if scheme, _, ok := strings.Cut(arg, "="); ok {
		return `"` + scheme + `=..."`
	}
	if i := strings.LastIndexByte(arg, '@'); i >= 0 {
		return `"...` + arg[i:] + `"`
	}
	return `"` + arg + `"`
}
