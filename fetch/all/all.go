// Package all wires every built-in driver into a fetch.Client, for the
// fetch command and for programs that want every scheme at once:
//
//	c := all.NewClient()
//	defer c.Close()
//	resp, err := c.Fetch(ctx, "file:///etc/motd")
package all

import (
	"github.com/urlfetch/urlfetch/fetch"
	"github.com/urlfetch/urlfetch/fetch/file"
	"github.com/urlfetch/urlfetch/fetch/ftp"
	"github.com/urlfetch/urlfetch/fetch/gopher"
	"github.com/urlfetch/urlfetch/fetch/http"
	"github.com/urlfetch/urlfetch/fetch/mailto"
	"github.com/urlfetch/urlfetch/fetch/nntp"
	"github.com/urlfetch/urlfetch/fetch/telnet"
	"github.com/urlfetch/urlfetch/fetch/wais"
)

// NewClient returns a Client with every built-in driver registered with
// its default settings, and the gateways of the environment (http_proxy,
// ftp_proxy, gopher_proxy, ..., no_proxy: fetch.GatewaysFromEnvironment),
// as net/http's default transport reads http_proxy. Set the Client's
// fields before the first Fetch; reach a driver's own settings through
// Client.Driver.
func NewClient() *fetch.Client {
	c := &fetch.Client{Gateway: fetch.GatewaysFromEnvironment().Gateway}
	Register(c)
	return c
}

// Register registers every built-in driver with c.
func Register(c *fetch.Client) {
	c.Register("file", &file.Driver{})
	c.Register("ftp", &ftp.Driver{})
	c.Register("gopher", &gopher.Driver{})
	h := &http.Driver{}
	c.Register("http", h)
	c.Register("https", h)
	c.Register("mailto", &mailto.Driver{})
	n := &nntp.Driver{}
	c.Register("news", n)
	c.Register("nntp", n)
	t := &telnet.Driver{}
	c.Register("telnet", t)
	c.Register("rlogin", t)
	c.Register("tn3270", t)
	c.Register("wais", &wais.Driver{})
}
