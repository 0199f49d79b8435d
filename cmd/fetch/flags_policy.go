package main

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"
	"github.com/urlfetch/urlfetch/fetch"
	"github.com/urlfetch/urlfetch/fetch/all"
)

// policyOptions are the Client's policy for URLs a server chose
// (redirects' targets): how many redirects, to which schemes, and whether
// TLS may lead to cleartext; and which schemes the run may use at all.
// curl's names and syntax: --max-redirs, --proto-redir, --proto.
func policyOptions() driverOption {
	return driverOption{
		title: "Redirects and safety",
		flags: []cli.Flag{
			&cli.IntFlag{Name: "max-redirs", Value: fetch.DefaultMaxRedirects, Usage: "follow at most `N` redirects for a URL (0: none; -1: no limit)"},
			&cli.StringFlag{Name: "proto", Usage: "use only the schemes `LIST` allows, for every URL, given or redirected to; curl's syntax: comma-separated schemes, each added (+, or no prefix), removed (-) or alone (=), left to right, from all of them; \"all\" is every scheme fetch has a driver for: --proto =http,https,ftp"},
			&cli.StringFlag{Name: "proto-redir", Usage: "let a redirect lead only to the schemes `LIST` allows, in --proto's syntax, starting from the default: http, https, ftp, ftps, gopher, news, nntp, snews, nntps (never file, mailto, telnet, rlogin, tn3270 or wais unless listed here): --proto-redir -ftp, --proto-redir +wais, --proto-redir =https"},
			&cli.BoolFlag{Name: "allow-downgrade", Usage: "let a redirect lead from TLS (https) to a cleartext scheme (http, ftp, gopher, ...), which is refused by default"},
		},
		configure: func(c *cli.Context, cl *fetch.Client, _ *all.Drivers) error {
			return configurePolicy(c, cl)
		},
	}
}

// configurePolicy sets the Client's hop limit and scheme sets. The
// drivers must be registered with cl: "all" and the default follow set
// are the Client's schemes.
func configurePolicy(c *cli.Context, cl *fetch.Client) error {
	switch n := c.Int("max-redirs"); {
	case n < -1:
		return cli.Exit("--max-redirs: want a number of redirects, 0 for none or -1 for no limit", exitUsage)
	case n == -1:
		cl.MaxRedirects = math.MaxInt32
	case n == 0:
		cl.MaxRedirects = -1
	default:
		cl.MaxRedirects = n
	}
	known := cl.Schemes()
	if c.IsSet("proto") {
		set, err := parseProtoList(c.String("proto"), known, known)
		if err != nil {
			return cli.Exit("--proto: "+err.Error(), exitUsage)
		}
		cl.AllowSchemes = set
	}
	if c.IsSet("proto-redir") {
		set, err := parseProtoList(c.String("proto-redir"), cl.DefaultFollowSchemes(), known)
		if err != nil {
			return cli.Exit("--proto-redir: "+err.Error(), exitUsage)
		}
		cl.FollowSchemes = set
	}
	cl.AllowDowngrade = c.Bool("allow-downgrade")
	return nil
}

// parseProtoList applies a list in curl's --proto syntax to start: items
// separated by commas, each a scheme or "all" (every scheme of all),
// prefixed by "+" (add it, the default), "-" (remove it) or "=" (it
// alone), taken left to right. The result is sorted and never nil.
func parseProtoList(spec string, start, all []string) ([]string, error) {
	set := slices.Clone(start)
	if strings.TrimSpace(spec) == "" {
		return nil, fmt.Errorf("an empty list; want schemes such as =http,https")
	}
	for _, item := range strings.Split(spec, ",") {
		item = strings.TrimSpace(item)
		op := byte('+')
		if item != "" && strings.ContainsRune("+-=", rune(item[0])) {
			op, item = item[0], item[1:]
		}
		name := strings.ToLower(item)
		if name != "all" && !validScheme(name) {
			return nil, fmt.Errorf("%q is not a scheme name", item)
		}
		names := []string{name}
		if name == "all" {
			names = all
		}
		switch op {
		case '=':
			set = slices.Clone(names)
		case '-':
			set = slices.DeleteFunc(set, func(s string) bool { return slices.Contains(names, s) })
		default:
			set = append(set, names...)
		}
	}
	slices.Sort(set)
	set = slices.Compact(set)
	if set == nil {
		set = []string{}
	}
	return set, nil
}
