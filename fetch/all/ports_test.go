package all_test

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/urlfetch/urlfetch/fetch"
	"github.com/urlfetch/urlfetch/fetch/all"
	"github.com/urlfetch/urlfetch/fetch/ftp"
	"github.com/urlfetch/urlfetch/fetch/mailto"
	"github.com/urlfetch/urlfetch/fetch/nntp"
)

// Issue 12, point 4: RFC 1738 section 6. A URL may not make a client
// speak its protocol to another protocol's port ("a gopher URL to port 25
// makes an SMTP server send a message"): for every scheme with a port,
// and for the servers of news and mailto, which come from settings, a
// port on the bad-ports list that is not the protocol's own is refused
// with ErrUnsafe and never dialed, unless Client.AllowPorts names it.

// portClient returns a Client whose every dial is noted and not made.
func portClient(t *testing.T, allow ...int) (*fetch.Client, *dialLog) {
	c := all.NewClient()
	c.NetrcFile = "-"
	c.ConnectTimeout = 5 * time.Second
	c.IdleTimeout = 5 * time.Second
	c.AllowPorts = allow
	dl := &dialLog{}
	c.DialContext = dl.dial
	m := c.Driver("mailto").(*mailto.Driver)
	m.From = "tester@example.org"
	m.LocalName = "client.example.org"
	t.Cleanup(func() { c.Close() })
	return c, dl
}

// A portCase is a URL, or a server setting, at a port.
type portCase struct {
	name string
	url  string // {P} is the port
	// server, if set, is the setting that carries the port: "news" or
	// "mailto", pointed at 127.0.0.1:{P}.
	server string
	port   int
	// handoff: the driver never dials (file, rlogin, tn3270); allowed,
	// the fetch goes on to what the driver does, without a dial.
	handoff bool
}

func (pc portCase) client(t *testing.T, allow ...int) (*fetch.Client, *dialLog, string) {
	c, dl := portClient(t, allow...)
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(pc.port))
	switch pc.server {
	case "news":
		c.Driver("news").(*nntp.Driver).Server = addr
	case "mailto":
		c.Driver("mailto").(*mailto.Driver).Server = addr
	}
	return c, dl, strings.ReplaceAll(pc.url, "{P}", strconv.Itoa(pc.port))
}

// refusedPorts are ports of other protocols, one or more per scheme.
var refusedPorts = []portCase{
	{name: "ftp to smtp", url: "ftp://127.0.0.1:{P}/f.txt", port: 25},
	{name: "ftp to nntp", url: "ftp://127.0.0.1:{P}/dir/", port: 119},
	{name: "http to nntp", url: "http://127.0.0.1:{P}/", port: 119},
	{name: "http to smtp", url: "http://127.0.0.1:{P}/x", port: 25},
	{name: "http to irc", url: "http://127.0.0.1:{P}/x", port: 6667},
	{name: "https to smtp", url: "https://127.0.0.1:{P}/", port: 25},
	{name: "gopher to smtp", url: "gopher://127.0.0.1:{P}/0HELO%20x", port: 25},
	{name: "gopher to ftp", url: "gopher://127.0.0.1:{P}/", port: 21},
	{name: "gopher to nntp", url: "gopher://127.0.0.1:{P}/1/", port: 119},
	{name: "nntp to smtp", url: "nntp://127.0.0.1:{P}/comp.lang", port: 25},
	{name: "nntp to ftp", url: "nntp://127.0.0.1:{P}/", port: 21},
	{name: "telnet to smtp", url: "telnet://127.0.0.1:{P}/", port: 25},
	{name: "wais to smtp", url: "wais://127.0.0.1:{P}/db?x", port: 25},
	{name: "wais to imap", url: "wais://127.0.0.1:{P}/db/TEXT/0123", port: 143},
	{name: "rlogin to smtp", url: "rlogin://127.0.0.1:{P}/", port: 25, handoff: true},
	{name: "tn3270 to smtp", url: "tn3270://127.0.0.1:{P}/", port: 25, handoff: true},
	{name: "file on localhost:25", url: "file://localhost:{P}/FILE", port: 25, handoff: true},
	{name: "news server at smtp", url: "news:comp.lang", server: "news", port: 25},
	{name: "news server at ftp", url: "news:id@example.org", server: "news", port: 21},
	{name: "mailto server at nntp", url: "mailto:ok@example.org", server: "mailto", port: 119},
	{name: "mailto server at pop3", url: "mailto:ok@example.org", server: "mailto", port: 110},
	{name: "mailto server at ftp", url: "mailto:ok@example.org", server: "mailto", port: 21},
}

// ownPorts are each protocol's own ports: no AllowPorts needed.
var ownPorts = []portCase{
	{name: "ftp", url: "ftp://127.0.0.1:{P}/f.txt", port: 21},
	{name: "http", url: "http://127.0.0.1:{P}/", port: 80},
	{name: "https", url: "https://127.0.0.1:{P}/", port: 443},
	{name: "gopher", url: "gopher://127.0.0.1:{P}/", port: 70},
	{name: "nntp", url: "nntp://127.0.0.1:{P}/comp.lang", port: 119},
	{name: "telnet", url: "telnet://127.0.0.1:{P}/", port: 23},
	{name: "wais", url: "wais://127.0.0.1:{P}/db?x", port: 210},
	{name: "news server", url: "news:comp.lang", server: "news", port: 119},
	{name: "mailto server smtp", url: "mailto:ok@example.org", server: "mailto", port: 25},
	{name: "mailto server submission", url: "mailto:ok@example.org", server: "mailto", port: 587},
	{name: "mailto server submissions", url: "mailto:ok@example.org", server: "mailto", port: 465},
	{name: "gopher at a port of no protocol", url: "gopher://127.0.0.1:{P}/", port: 7070},
}

func TestPortPolicyEveryScheme(t *testing.T) {
	file := filepath.Join(t.TempDir(), "motd")
	if err := os.WriteFile(file, []byte("hello"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, pc := range refusedPorts {
		pc.url = strings.ReplaceAll(pc.url, "/FILE", filepath.ToSlash(file))
		t.Run(pc.name, func(t *testing.T) {
			if !fetch.BadPort("", pc.port) {
				t.Fatalf("port %d is not on the bad-ports list: the case proves nothing", pc.port)
			}
			c, dl, rawURL := pc.client(t)
			_, err := fetchAll(c, rawURL)
			if !errors.Is(err, fetch.ErrUnsafe) {
				t.Errorf("Fetch(%q) = %v; want ErrUnsafe", rawURL, err)
			}
			if d := dl.all(); len(d) > 0 {
				t.Errorf("Fetch(%q) dialed %q", rawURL, d)
			}

			// Allowed, the same fetch dials that port, or (file,
			// rlogin, tn3270) goes on without a dial.
			c, dl, _ = pc.client(t, pc.port)
			_, err = fetchAll(c, rawURL)
			if errors.Is(err, fetch.ErrUnsafe) {
				t.Errorf("Fetch(%q) with AllowPorts %d = %v", rawURL, pc.port, err)
			}
			want := net.JoinHostPort("127.0.0.1", strconv.Itoa(pc.port))
			if pc.handoff {
				if d := dl.all(); len(d) > 0 {
					t.Errorf("Fetch(%q) dialed %q", rawURL, d)
				}
			} else if !dl.dialed(want) {
				t.Errorf("Fetch(%q) with AllowPorts %d dialed %q, want %s (err %v)", rawURL, pc.port, dl.all(), want, err)
			}
		})
	}
	for _, pc := range ownPorts {
		t.Run("own/"+pc.name, func(t *testing.T) {
			c, dl, rawURL := pc.client(t)
			_, err := fetchAll(c, rawURL)
			want := net.JoinHostPort("127.0.0.1", strconv.Itoa(pc.port))
			if errors.Is(err, fetch.ErrUnsafe) || !dl.dialed(want) {
				t.Errorf("Fetch(%q) = %v, dialed %q; want a dial of %s", rawURL, err, dl.all(), want)
			}
		})
	}
}

// An HTTP redirect is a URL the server chose: its port is checked as the
// first URL's was, for http and for the other schemes a redirect may lead
// to.
func TestPortPolicyHTTPRedirect(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, r.URL.Query().Get("to"), http.StatusFound)
	}))
	defer srv.Close()
	srvAddr := strings.TrimPrefix(srv.URL, "http://")
	for _, tc := range []struct {
		to   string
		port int
	}{
		{"http://127.0.0.1:25/x", 25},
		{"http://127.0.0.1:119/", 119},
		{"gopher://127.0.0.1:25/0HELO%20x", 25},
		{"ftp://127.0.0.1:119/f.txt", 119},
		{"nntp://127.0.0.1:21/comp.lang", 21},
	} {
		rawURL := srv.URL + "/r?to=" + strings.ReplaceAll(tc.to, "%", "%25")
		want := net.JoinHostPort("127.0.0.1", strconv.Itoa(tc.port))

		c, dl := portClient(t)
		dl.pass = map[string]bool{srvAddr: true}
		_, err := fetchAll(c, rawURL)
		if !errors.Is(err, fetch.ErrUnsafe) {
			t.Errorf("Fetch(%q) redirected to %s = %v; want ErrUnsafe", rawURL, tc.to, err)
		}
		if dl.dialed(want) {
			t.Errorf("Fetch(%q) redirected to %s dialed %q", rawURL, tc.to, dl.all())
		}

		c, dl = portClient(t, tc.port)
		dl.pass = map[string]bool{srvAddr: true}
		_, err = fetchAll(c, rawURL)
		if !dl.dialed(want) {
			t.Errorf("Fetch(%q) redirected to %s with AllowPorts %d dialed %q, want %s (err %v)", rawURL, tc.to, tc.port, dl.all(), want, err)
		}
	}
}

// FTP data connections go where the server's EPSV or PASV reply says.
// The policy: always to the control connection's peer (the address in a
// PASV reply is ignored, so a server cannot aim the client at a third
// host), and to a port that the policy would let an ftp URL name: a
// reply that names another protocol's port is refused with ErrUnsafe
// unless AllowPorts names it.
func TestPortPolicyFTPDataConnection(t *testing.T) {
	var dataPort atomic.Int32
	rec := newRecorder(t, func(c *recConn) {
		fmt.Fprintf(c, "220 recorder\r\n")
		for {
			l := strings.TrimSpace(c.line())
			verb, _, _ := strings.Cut(l, " ")
			switch verb {
			case "":
				return
			case "USER":
				fmt.Fprintf(c, "331 password please\r\n")
			case "PASS":
				fmt.Fprintf(c, "230 in\r\n")
			case "FEAT":
				fmt.Fprintf(c, "211-Features:\r\n EPSV\r\n SIZE\r\n211 End\r\n")
			case "TYPE", "OPTS":
				fmt.Fprintf(c, "200 ok\r\n")
			case "PWD":
				fmt.Fprintf(c, "257 \"/\"\r\n")
			case "SIZE":
				fmt.Fprintf(c, "213 5\r\n")
			case "EPSV":
				fmt.Fprintf(c, "229 Entering Extended Passive Mode (|||%d|)\r\n", dataPort.Load())
			case "PASV":
				// A third host in the reply: never where the data goes.
				p := dataPort.Load()
				fmt.Fprintf(c, "227 Entering Passive Mode (192,0,2,7,%d,%d)\r\n", p>>8, p&0xff)
			case "QUIT":
				fmt.Fprintf(c, "221 bye\r\n")
				return
			default:
				fmt.Fprintf(c, "502 not here\r\n")
			}
		}
	})
	for _, tc := range []struct {
		name string
		pasv bool
		port int
		bad  bool
	}{
		{"EPSV to smtp", false, 25, true},
		{"PASV to smtp", true, 25, true},
		{"EPSV to ssh", false, 22, true},
		{"PASV to ftp-data", true, 20, true},
		{"EPSV to a port of no protocol", false, 40000, false},
		{"PASV to a port of no protocol", true, 40000, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dataPort.Store(int32(tc.port))
			want := net.JoinHostPort("127.0.0.1", strconv.Itoa(tc.port))
			rawURL := rec.expand("ftp://{A}/f.txt")
			for _, allow := range []bool{false, true} {
				if allow && !tc.bad {
					continue
				}
				c, dl := portClient(t, rec.port)
				if allow {
					c.AllowPorts = append(c.AllowPorts, tc.port)
				}
				dl.pass = map[string]bool{rec.addr(): true}
				c.Driver("ftp").(*ftp.Driver).DisableEPSV = tc.pasv
				_, err := fetchAll(c, rawURL)
				c.Close()
				rec.accepted(t)
				switch {
				case tc.bad && !allow:
					if !errors.Is(err, fetch.ErrUnsafe) {
						t.Errorf("Fetch(%q) with data port %d = %v; want ErrUnsafe", rawURL, tc.port, err)
					}
					if d := dl.all(); len(d) != 1 {
						t.Errorf("Fetch(%q) dialed %q; want only the control connection", rawURL, d)
					}
				default:
					if errors.Is(err, fetch.ErrUnsafe) || !dl.dialed(want) {
						t.Errorf("Fetch(%q) (allowed %v) = %v, dialed %q; want a data connection to %s", rawURL, allow, err, dl.all(), want)
					}
				}
				for _, a := range dl.all() {
					if strings.HasPrefix(a, "192.0.2.7:") {
						t.Errorf("Fetch(%q) dialed the host of the PASV reply: %q", rawURL, a)
					}
				}
			}
		})
	}
}
