package main

import (
	"fmt"
	"io"
	"net"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"
	"github.com/urlfetch/urlfetch/fetch"
	"github.com/urlfetch/urlfetch/fetch/all"
	"github.com/urlfetch/urlfetch/internal/gateway"
	"github.com/urlfetch/urlfetch/internal/termsafe"
)

// fetch serve is the HTTP gateway and portal of package gateway; the
// command only builds its Client from the options and listens.

// defaultListen is where fetch serve listens unless told otherwise: the
// loopback address only.
const defaultListen = "127.0.0.1:7070"

// serveGroups are the driver options that apply to fetch serve: what it
// may fetch and how it reaches servers. The user's credentials (-u, -H,
// the FTP anonymous password) and words (--search) are no option of it:
// it fetches for web clients (package gateway).
func serveGroups() []driverOption {
	drop := []string{"proto-redir", "ftp-anonymous-password"}
	var gs []driverOption
	for _, o := range []driverOption{policyOptions(), gatewayOptions(), tlsOptions(), ftpOptions(), gopherOptions(), nntpOptions(), waisOptions()} {
		o.flags = slices.DeleteFunc(o.flags, func(f cli.Flag) bool { return slices.Contains(drop, f.Names()[0]) })
		gs = append(gs, o)
	}
	return gs
}

func serveCommand(stderr io.Writer) *cli.Command {
	flags := []cli.Flag{
		&cli.StringFlag{Name: "listen", Value: defaultListen, Usage: "serve at `HOST:PORT`; an address other than loopback serves anyone who can reach it, and fetch serve says so"},
		&cli.BoolFlag{Name: "quiet", Aliases: []string{"q"}, Usage: "log no line per request on standard error"},
		&cli.BoolFlag{Name: "verbose", Aliases: []string{"v"}, Usage: "print every fetch's protocol conversation to standard error (passwords masked)"},
		&cli.DurationFlag{Name: "connect-timeout", Value: 30e9, Usage: "give up connecting after `SECONDS` (or a duration: 1m30s)"},
		&cli.DurationFlag{Name: "idle-timeout", Value: 60e9, Usage: "give up when a server sends nothing for `SECONDS` (or a duration: 1m30s)"},
		&cli.IntSliceFlag{Name: "allow-port", Usage: "allow `PORT` even though it belongs to another protocol (RFC 1738 section 6); repeatable"},
		connectToFlag(),
	}
	for _, g := range serveGroups() {
		flags = append(flags, g.flags...)
	}
	return &cli.Command{
		Name:  "serve",
		Usage: "serve every scheme fetch knows that is safe for the web to web clients: as an HTTP gateway (proxy) of RFC 1738 section 4 given the whole URL (curl -x http://127.0.0.1:7070 gopher://host/1/, fetch --gateway gopher=http://127.0.0.1:7070), and as a portal (http://127.0.0.1:7070/gopher://host/1/); listings, gopher searches and Gopher+ forms become HTML pages, a client that accepts application/json gets the records of --json",
		Flags: flags,
		Action: func(c *cli.Context) error {
			if c.NArg() > 0 {
				return usagef("serve takes no URL: %q", c.Args().First())
			}
			return runServe(c, stderr)
		},
	}
}

// runServe builds the gateway's Client from the options, listens and
// serves until the command is interrupted.
func runServe(c *cli.Context, stderr io.Writer) error {
	cl := &fetch.Client{}
	ds := all.NewDrivers()
	ds.Register(cl)
	cl.ConnectTimeout = c.Duration("connect-timeout")
	cl.IdleTimeout = c.Duration("idle-timeout")
	cl.AllowPorts = c.IntSlice("allow-port")
	if err := configureConnectTo(c, cl); err != nil {
		return err
	}
	if c.Bool("verbose") {
		cl.Trace = func(dir fetch.Direction, line string) {
			fmt.Fprintf(stderr, "%c %s\n", dir, termsafe.Escape(line))
		}
	}
	for _, g := range serveGroups() {
		if err := g.configure(c, cl, ds); err != nil {
			return err
		}
	}
	ln, err := net.Listen("tcp", c.String("listen"))
	if err != nil {
		return cli.Exit("serve: --listen "+c.String("listen")+": "+err.Error(), exitConnect)
	}
	defer ln.Close()
	cfg := gateway.Config{Client: cl, Drivers: ds, Listener: ln}
	if !c.Bool("quiet") {
		cfg.Log = func(line string) { fmt.Fprintln(stderr, "fetch serve: "+line) }
	}
	s, err := gateway.New(cfg)
	if err != nil {
		return cli.Exit("serve: "+err.Error(), exitFailure)
	}
	defer cl.Close()
	if w := exposedWarning(ln.Addr()); w != "" {
		fmt.Fprint(stderr, w)
	}
	fmt.Fprintf(stderr, "fetch serve: serving %s at %s (gateway: curl -x %s URL; portal: %sURL)\n", strings.Join(cl.AllowSchemes, " "), s.URL(), s.URL(), s.URL())
	if err := s.Serve(c.Context); err != nil {
		return cli.Exit("serve: "+err.Error(), exitFailure)
	}
	return nil
}

// exposedWarning is the warning for a gateway that listens at an address
// other than loopback: anyone who can reach it can make this machine
// fetch for them, from its own network. "" for a loopback address.
func exposedWarning(a net.Addr) string {
	ta, ok := a.(*net.TCPAddr)
	if ok && ta.IP.IsLoopback() {
		return ""
	}
	line := "fetch serve: WARNING: " + a.String() + " is not a loopback address"
	return "\n" + line + "\n" +
		"fetch serve: WARNING: anyone who can reach it can make this machine fetch for them, from this machine's\n" +
		"fetch serve: WARNING: network (servers behind its firewall included). --listen 127.0.0.1:PORT serves this host only.\n\n"
}
