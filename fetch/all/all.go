// Package all wires every built-in driver into a fetch.Client, for the
// fetch command and for programs that want every scheme at once:
//
//	c := all.NewClient()
//	defer c.Close()
//	resp, err := c.Fetch(ctx, "file:///etc/motd")
//
// A program that sets the drivers' own settings builds them first with
// NewDrivers, sets their fields, and registers them with Drivers.Register.
package all

import (
	"github.com/urlfetch/urlfetch/fetch"
	"github.com/urlfetch/urlfetch/fetch/file"
	"github.com/urlfetch/urlfetch/fetch/ftp"
	"github.com/urlfetch/urlfetch/fetch/gopher"
	"github.com/urlfetch/urlfetch/fetch/http"
	"github.com/urlfetch/urlfetch/fetch/mailto"
	"github.com/urlfetch/urlfetch/fetch/mid"
	"github.com/urlfetch/urlfetch/fetch/nntp"
	"github.com/urlfetch/urlfetch/fetch/telnet"
	"github.com/urlfetch/urlfetch/fetch/wais"
)

// NewClient returns a Client with every built-in driver registered with
// its default settings, and the gateways of the environment (http_proxy,
// ftp_proxy, gopher_proxy, ..., no_proxy: fetch.GatewaysFromEnvironment),
// as net/http's default transport reads http_proxy. Set the Client's
// fields before the first Fetch; reach a driver's own settings through
// Client.Driver, or build the drivers with NewDrivers instead.
func NewClient() *fetch.Client {
	c := &fetch.Client{Gateway: fetch.GatewaysFromEnvironment().Gateway}
	Register(c)
	return c
}

// Register registers every built-in driver with c, with its default
// settings: NewDrivers().Register(c).
func Register(c *fetch.Client) {
	NewDrivers().Register(c)
}

// Drivers are the built-in drivers, one of each, typed, so that a program
// sets their fields directly rather than asserting them out of a Client.
// Set the fields before the first Fetch of the Client they are registered
// with; none may be nil when Register is called.
type Drivers struct {
	File   *file.Driver
	FTP    *ftp.Driver
	Gopher *gopher.Driver
	HTTP   *http.Driver // http and https
	Mailto *mailto.Driver
	MID    *mid.Driver    // mid and cid
	NNTP   *nntp.Driver   // news, nntp, snews and nntps
	Telnet *telnet.Driver // telnet, rlogin and tn3270
	WAIS   *wais.Driver
}

// NewDrivers returns one of each built-in driver with its default
// settings.
func NewDrivers() *Drivers {
	return &Drivers{
		File:   &file.Driver{},
		FTP:    &ftp.Driver{},
		Gopher: &gopher.Driver{},
		HTTP:   &http.Driver{},
		Mailto: &mailto.Driver{},
		MID:    &mid.Driver{},
		NNTP:   &nntp.Driver{},
		Telnet: &telnet.Driver{},
		WAIS:   &wais.Driver{},
	}
}

// Register registers each of d's drivers with c for the schemes it
// serves: HTTP for http and https, NNTP for news and nntp and their TLS
// forms snews and nntps, Telnet for telnet, rlogin and tn3270, MID for
// mid and cid, each of the others for its own. Like
// Client.Register, it panics if c already has a driver for one of them.
func (d *Drivers) Register(c *fetch.Client) {
	c.Register("file", d.File)
	c.Register("ftp", d.FTP)
	c.Register("ftps", d.FTP)
	c.Register("gopher", d.Gopher)
	c.Register("http", d.HTTP)
	c.Register("https", d.HTTP)
	c.Register("mailto", d.Mailto)
	c.Register("mid", d.MID)
	c.Register("cid", d.MID)
	c.Register("news", d.NNTP)
	c.Register("nntp", d.NNTP)
	c.Register("snews", d.NNTP)
	c.Register("nntps", d.NNTP)
	c.Register("telnet", d.Telnet)
	c.Register("rlogin", d.Telnet)
	c.Register("tn3270", d.Telnet)
	c.Register("wais", d.WAIS)
}
