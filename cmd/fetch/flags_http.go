package main

import (
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/urfave/cli/v2"
	"github.com/urlfetch/urlfetch/fetch"
	"github.com/urlfetch/urlfetch/fetch/all"
	fetchhttp "github.com/urlfetch/urlfetch/fetch/http"
)

// httpOptions are the http driver's options, with curl's names.
func httpOptions() driverOption {
	return driverOption{
		title: "http and https",
		flags: []cli.Flag{
			&cli.StringFlag{Name: "user", Aliases: []string{"u"}, Usage: "log in as `USER[:PASSWORD]`: to http and https servers with Basic authorization, with the first request; to ftp and ftps servers in place of the anonymous login; a user in the URL comes first; without :PASSWORD, the password in ~/.netrc for the host, else asked on the terminal once; never sent to another host a redirect or a listing leads to"},
			&cli.StringSliceFlag{Name: "header", Aliases: []string{"H"}, Usage: "send `HEADER` with every http and https request, and every request to a gateway, in place of fetch's own field of its name (Host too), written 'NAME: VALUE'; 'NAME:' sends none; repeatable; Authorization, Cookie and Host never go to another host a redirect leads to"},
			&cli.BoolFlag{Name: "compressed", Usage: "ask http and https servers for a gzip-compressed body (Accept-Encoding: gzip) and decode it: the output is the same document, fewer bytes cross the network; a body that does not decode fails (exit 8)"},
		},
		configure: func(c *cli.Context, cl *fetch.Client, ds *all.Drivers) error {
			ds.HTTP.Compressed = c.Bool("compressed")
			h, err := parseHeaders(c.StringSlice("header"))
			if err != nil {
				return cli.Exit(err.Error(), exitUsage)
			}
			ds.HTTP.Header = h
			if c.IsSet("user") {
				cl.Login = parseUser(c.String("user"))
			}
			return nil
		},
	}
}

// parseUser reads -u's USER[:PASSWORD], the user up to the first colon
// (RFC 7617 gives Basic users none), as curl does. Without a colon
// the password is the Client's to find (fetch.Client.Login): netrc, or
// the terminal, once.
func parseUser(s string) *url.Userinfo {
	user, password, ok := strings.Cut(s, ":")
	if !ok {
		return url.User(user)
	}
	return url.UserPassword(user, password)
}

// parseHeaders reads -H's 'NAME: VALUE' fields, as curl writes them: the
// name up to the first colon, the value after it without the blanks
// around it; 'NAME:' with no value sends no such field. Each field is
// checked (fetchhttp.CheckHeader): a line break, a NUL or another control
// byte in a value, a name that is no token, or no colon at all is a usage
// error naming the field, its value left out (it may be a password).
func parseHeaders(fields []string) (http.Header, error) {
	if len(fields) == 0 {
		return nil, nil
	}
	h := http.Header{}
	for _, f := range fields {
		name, value, ok := strings.Cut(f, ":")
		if !ok {
			return nil, fmt.Errorf("-H %s: a header field is 'NAME: VALUE', with a colon", quoteName(f))
		}
		value = strings.Trim(value, " \t")
		if err := fetchhttp.CheckHeader(name, value); err != nil {
			return nil, fmt.Errorf("-H: %v", err)
		}
		key := http.CanonicalHeaderKey(name)
		if value == "" {
			h[key] = []string{""}
			continue
		}
		if vs := h[key]; len(vs) == 1 && vs[0] == "" {
			h[key] = nil // 'NAME:' and then a value: the value
		}
		h[key] = append(h[key], value)
	}
	return h, nil
}

// quoteName shows a header field's name for a message: as it is when it
// is printable ASCII without spaces, else quoted with escapes.
func quoteName(s string) string {
	for i := 0; i < len(s); i++ {
		if s[i] <= ' ' || s[i] >= 0x7f {
			return strconv.QuoteToASCII(s)
		}
	}
	return s
}
