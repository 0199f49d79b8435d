package main

import (
	"context"

	"fmt"
	"net"
	"strconv"
	"strings"

	"github.com/urfave/cli/v2"
	"github.com/urlfetch/urlfetch/fetch"
	"github.com/urlfetch/urlfetch/uri"
)

// A connectRule is one --connect-to HOST1:PORT1:HOST2:PORT2, curl's
// option: a connection the command would open to HOST1:PORT1 goes to
// HOST2:PORT2 instead, while the URL (the Host header, the certificate's
// name, what the trace says) stays the same. An empty HOST1 or PORT1
// matches any; an empty HOST2 or PORT2 keeps the one the URL gives. An
// IPv6 address is written in brackets. It is how one tries a URL against
// another server (a new one, a test bed) without touching the resolver.
type connectRule struct {
	host1, port1, host2, port2 string
}

// connectToFlag is --connect-to, an option of fetching and of fetch serve.
func connectToFlag() cli.Flag {
	return &cli.StringSliceFlag{Name: "connect-to", Usage: "connect to HOST2:PORT2 whenever a URL (or a gateway) names HOST1:PORT1, given as `HOST1:PORT1:HOST2:PORT2` (curl's; an empty HOST1 or PORT1 matches any, an empty HOST2 or PORT2 keeps the URL's): the URL, its Host header and the certificate's name stay as they are; repeatable, the first match wins"}
}

// parseConnectTo reads a --connect-to value.
func parseConnectTo(s string) (connectRule, error) {
	var parts []string
	rest := s
	for range 3 {
		part, tail, err := cutHostPart(rest)
		if err != nil {
			return connectRule{}, fmt.Errorf("--connect-to %q: %v", s, err)
		}
		parts, rest = append(parts, part), tail
	}
	parts = append(parts, rest)
	r := connectRule{strings.Trim(parts[0], "[]"), parts[1], strings.Trim(parts[2], "[]"), parts[3]}
	for _, p := range []string{r.port1, r.port2} {
		if n, err := strconv.Atoi(p); p != "" && (err != nil || n < 1 || n > 65535) {
			return connectRule{}, fmt.Errorf("--connect-to %q: %q is no port (1 to 65535)", s, p)
		}
	}
	return r, nil
}

// cutHostPart cuts s at its first colon outside brackets.
func cutHostPart(s string) (part, rest string, err error) {
	depth := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '[':
			depth++
		case ']':
			depth--
		case ':':
			if depth == 0 {
				return s[:i], s[i+1:], nil
			}
		}
	}
	return "", "", fmt.Errorf("want HOST1:PORT1:HOST2:PORT2, as in example.org:443:127.0.0.1:8443")
}

// rewrite returns where a connection to addr goes: the first rule that
// matches decides.
func rewrite(rules []connectRule, addr string) string {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return addr
	}
	for _, r := range rules {
		if (r.host1 == "" || uri.SameHost(r.host1, host)) && (r.port1 == "" || r.port1 == port) {
			if r.host2 != "" {
				host = r.host2
			}
			if r.port2 != "" {
				port = r.port2
			}
			return net.JoinHostPort(host, port)
		}
	}
	return addr
}

// configureConnectTo gives cl a DialContext that applies --connect-to:
// the one setting of it, for fetching and for fetch serve.
func configureConnectTo(c *cli.Context, cl *fetch.Client) error {
	var rules []connectRule
	for _, v := range c.StringSlice("connect-to") {
		r, err := parseConnectTo(v)
		if err != nil {
			return cli.Exit(err.Error(), exitUsage)
		}
		rules = append(rules, r)
	}
	if rules != nil {
		cl.DialContext = connectToDialer(rules)
	}
	return nil
}

// connectToDialer is the Client's DialContext with rules applied.
func connectToDialer(rules []connectRule) func(ctx context.Context, network, addr string) (net.Conn, error) {
	d := net.Dialer{KeepAlive: -1} // as the Client's own dialer: no keepalive probes
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		return d.DialContext(ctx, network, rewrite(rules, addr))
	}
}
