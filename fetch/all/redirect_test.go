package all_test

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/urlfetch/urlfetch/fetch"
	"github.com/urlfetch/urlfetch/fetch/all"
	"github.com/urlfetch/urlfetch/fetch/fetchtest"
	"github.com/urlfetch/urlfetch/fetch/ftp"
	fetchhttp "github.com/urlfetch/urlfetch/fetch/http"
	"github.com/urlfetch/urlfetch/fetch/telnet"
	"github.com/urlfetch/urlfetch/uri"
)

// Issue 18: a server chooses where a redirect leads, so the Client decides
// whether to follow it, in one place (Client.CheckHop). By default a
// redirect may lead only to schemes whose fetch reads and sends nothing of
// the user's: http, https, ftp, gopher (not a Gopher+ data block, form or
// search without words), news and nntp; never from TLS to cleartext.
//
// The redirector is an in-process HTTP server (and a TLS one, and an HTTP
// gateway that answers a gopher URL with a redirect); every target points
// at one recorder, the witness: a refused hop must leave it with no
// connection at all, a followed one with one.

// redirector is an HTTP server that redirects to its ?to= argument, or,
// as a gateway (a request for a gopher URL), to the target set for it.
type redirector struct {
	plain, tls *httptest.Server
	gatewayTo  string // the Location a gateway request gets
}

func newRedirector(t *testing.T) *redirector {
	rd := &redirector{}
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		to := r.URL.Query().Get("to")
		if r.URL.Scheme == "gopher" {
			to = rd.gatewayTo
		}
		w.Header().Set("Location", to)
		w.WriteHeader(http.StatusFound)
		io.WriteString(w, "moved\n")
	})
	rd.plain = httptest.NewServer(h)
	rd.tls = httptest.NewTLSServer(h)
	t.Cleanup(rd.plain.Close)
	t.Cleanup(rd.tls.Close)
	return rd
}

// hopCase is one (redirecting scheme, target) pair.
type hopCase struct {
	from     string // "http", "https" or "gateway"
	to       string // {A} is the witness's host:port, {F} the secret file's path
	followed bool
	why      string // words the refusal names
}

var hopCases = []hopCase{
	{from: "http", to: "http://{A}/x", followed: true},
	{from: "http", to: "https://{A}/x", followed: true},
	{from: "http", to: "ftp://{A}/pub/f.txt", followed: true},
	{from: "http", to: "gopher://{A}/0/hello.txt", followed: true},
	{from: "http", to: "gopher://{A}/7/search%09words", followed: true},
	{from: "http", to: "gopher://{A}/0/hello.txt%09%09!", followed: true},
	{from: "http", to: "news:hello@example.org", followed: true},
	{from: "http", to: "news:comp.lang.go", followed: true},
	{from: "http", to: "nntp://{A}/comp.lang.go/1", followed: true},
	{from: "http", to: "file://{F}", why: "file: URLs"},
	{from: "http", to: "file://localhost{F}", why: "file: URLs"},
	{from: "http", to: "mailto:someone@example.org?subject=hi&body=sent%20for%20you", why: "mailto: URLs"},
	{from: "http", to: "telnet://{A}/", why: "telnet: URLs"},
	{from: "http", to: "rlogin://user@{A}/", why: "rlogin: URLs"},
	{from: "http", to: "tn3270://{A}/", why: "tn3270: URLs"},
	{from: "http", to: "wais://{A}/db?words", why: "wais: URLs"},
	{from: "http", to: "x-unknown://{A}/", why: "x-unknown: URLs"},
	// The classic request smuggling: a Gopher+ data block is lines of
	// the URL's own, sent verbatim to whatever port the URL names.
	{from: "http", to: "gopher://{A}/1sel%09%09+%0D%0ASET%20key%20owned%0D%0A", why: "data block"},
	{from: "http", to: "gopher://{A}/0form%09%09?", why: "form"},
	{from: "http", to: "gopher://{A}/7/search", why: "without its words"},
	{from: "https", to: "https://{A}/x", followed: true},
	{from: "https", to: "http://{A}/x", why: "from TLS (https) to cleartext (http)"},
	{from: "https", to: "ftp://{A}/f.txt", why: "from TLS (https) to cleartext (ftp)"},
	{from: "https", to: "gopher://{A}/0/x", why: "from TLS (https) to cleartext (gopher)"},
	{from: "https", to: "nntp://{A}/g/1", why: "from TLS (https) to cleartext (nntp)"},
	{from: "gateway", to: "gopher://{A}/0/x", followed: true},
	{from: "gateway", to: "ftp://{A}/f.txt", followed: true},
	{from: "gateway", to: "file://{F}", why: "file: URLs"},
	{from: "gateway", to: "telnet://{A}/", why: "telnet: URLs"},
	{from: "gateway", to: "mailto:someone@example.org", why: "mailto: URLs"},
	{from: "gateway", to: "gopher://{A}/1sel%09%09+%0D%0AQUIT%0D%0A", why: "data block"},
}

// secretFile is a file a redirect to file: would print.
const secretText = "-----BEGIN OPENSSH PRIVATE KEY----- not for servers\n"

// policyClient returns a recording Client that trusts the redirector's
// TLS certificate, sends gopher URLs for one host to it as a gateway, and
// ends the witness's silent connections quickly.
func policyClient(t *testing.T, rec *recorder, rd *redirector) (*fetch.Client, *dialLog, *fetchtest.TraceLog) {
	c, dl, tl := recordingClient(t, rec)
	c.IdleTimeout = 2 * time.Second
	for _, s := range []*httptest.Server{rd.plain, rd.tls} {
		dl.pass[s.Listener.Addr().String()] = true
	}
	c.TLSConfig = &tls.Config{RootCAs: rd.tls.Client().Transport.(*http.Transport).TLSClientConfig.RootCAs}
	gw, _ := url.Parse(rd.plain.URL)
	c.Gateway = func(u *uri.URL) (*url.URL, error) {
		if u.Scheme == "gopher" && u.Host == "gw.example" {
			return gw, nil
		}
		return nil, nil
	}
	return c, dl, tl
}

// start returns the URL whose fetch redirects to target.
func (rd *redirector) start(from, target string) string {
	switch from {
	case "https":
		return rd.tls.URL + "/r?to=" + url.QueryEscape(target)
	case "gateway":
		rd.gatewayTo = target
		return "gopher://gw.example/1/moved"
	}
	return rd.plain.URL + "/r?to=" + url.QueryEscape(target)
}

// witness is a recorder that reads one line (or waits a moment for a
// client that waits for a greeting) and hangs up: a followed fetch ends at
// once, and every connection made is counted.
func witness(t *testing.T) *recorder {
	return newRecorder(t, func(c *recConn) {
		c.Conn.SetReadDeadline(time.Now().Add(300 * time.Millisecond))
		c.line()
		c.Conn.Close()
	})
}

func secretFile(t *testing.T) string {
	p := filepath.Join(t.TempDir(), "id_ed25519")
	if err := os.WriteFile(p, []byte(secretText), 0o600); err != nil {
		t.Fatal(err)
	}
	return filepath.ToSlash(p)
}

func TestRedirectPolicyDefault(t *testing.T) {
	rec := witness(t)
	rd := newRedirector(t)
	secret := secretFile(t)
	for _, tc := range hopCases {
		target := strings.ReplaceAll(rec.expand(tc.to), "{F}", secret)
		t.Run(tc.from+"->"+target, func(t *testing.T) {
			c, _, tl := policyClient(t, rec, rd)
			start := rd.start(tc.from, target)
			body, err := fetchAll(c, start)
			conns := rec.accepted(t)
			if tc.followed {
				if len(conns) != 1 || errors.Is(err, fetch.ErrUnsafe) {
					t.Errorf("Fetch(%s) redirected to %s: %d connections to the target, error %v; want it followed", start, target, len(conns), err)
				}
				return
			}
			if !errors.Is(err, fetch.ErrUnsafe) {
				t.Fatalf("Fetch(%s) redirected to %s = %q, %v; want ErrUnsafe", start, target, body, err)
			}
			msg := err.Error()
			wantTarget := uri.MustParse(target).Redacted()
			if !strings.Contains(msg, wantTarget) || !strings.Contains(msg, "redirect (302 Found) from ") || !strings.Contains(msg, tc.why) {
				t.Errorf("error %q; want one naming the redirect, %s and %q", msg, wantTarget, tc.why)
			}
			if len(conns) != 0 {
				t.Errorf("the refused target got %d connections, the first sending %q", len(conns), conns[0].bytes(t))
			}
			if strings.Contains(string(body), "PRIVATE KEY") || strings.Contains(msg, "PRIVATE KEY") {
				t.Errorf("the secret file was read: body %q, error %q", body, msg)
			}
			var he *telnet.HandoffError
			if errors.As(err, &he) {
				t.Errorf("error %v asks for %s to be run", err, he.Programs)
			}
			for _, l := range tl.Lines() {
				if strings.Contains(l, "connecting to "+rec.addr()) {
					t.Errorf("trace shows a connection to the target: %q", l)
				}
			}
		})
	}
}

// The policy's settings widen or narrow it: FollowSchemes (curl's
// --proto-redir), AllowSchemes (--proto), AllowDowngrade, MaxRedirects
// and CheckRedirect.
func TestRedirectPolicySettings(t *testing.T) {
	rec := witness(t)
	rd := newRedirector(t)
	secret := secretFile(t)
	tests := []struct {
		name     string
		set      func(c *fetch.Client)
		from, to string
		followed bool
	}{
		{"FollowSchemes adds file", func(c *fetch.Client) { c.FollowSchemes = []string{"http", "file"} }, "http", "file://{F}", true},
		{"FollowSchemes drops ftp", func(c *fetch.Client) { c.FollowSchemes = []string{"http", "https"} }, "http", "ftp://{A}/f", false},
		{"FollowSchemes cannot pass a data block", func(c *fetch.Client) { c.FollowSchemes = []string{"http", "gopher"} }, "http", "gopher://{A}/1s%09%09+%0D%0AQUIT%0D%0A", false},
		{"AllowSchemes drops ftp", func(c *fetch.Client) { c.AllowSchemes = []string{"http", "https"} }, "http", "ftp://{A}/f", false},
		{"AllowSchemes wins over FollowSchemes", func(c *fetch.Client) {
			c.AllowSchemes = []string{"http"}
			c.FollowSchemes = []string{"http", "gopher"}
		}, "http", "gopher://{A}/0/x", false},
		{"AllowDowngrade", func(c *fetch.Client) { c.AllowDowngrade = true }, "https", "http://{A}/x", true},
		{"MaxRedirects none", func(c *fetch.Client) { c.MaxRedirects = -1 }, "http", "http://{A}/x", false},
		{"CheckRedirect refuses", func(c *fetch.Client) {
			c.CheckRedirect = func(req *fetch.Request, via []*fetch.Request) error {
				return fetch.Errorf(fetch.ErrUnsafe, "not %s", req.URL.Redacted())
			}
		}, "http", "http://{A}/x", false},
	}
	for _, tt := range tests {
		target := strings.ReplaceAll(rec.expand(tt.to), "{F}", secret)
		t.Run(tt.name, func(t *testing.T) {
			c, _, _ := policyClient(t, rec, rd)
			tt.set(c)
			body, err := fetchAll(c, rd.start(tt.from, target))
			conns := rec.accepted(t)
			reached := len(conns) > 0 || strings.Contains(string(body), "PRIVATE KEY")
			if reached != tt.followed {
				t.Errorf("redirect to %s: reached %v (body %q, error %v); want %v", target, reached, body, err, tt.followed)
			}
			if !tt.followed && err == nil {
				t.Errorf("redirect to %s refused without an error", target)
			}
		})
	}
}

// The hop limit counts redirects; CheckRedirect sees each with the
// requests before it; ErrUseLastResponse hands the redirect back.
func TestRedirectLimitAndCheckRedirect(t *testing.T) {
	var hops int
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hops++
		http.Redirect(w, r, fmt.Sprintf("/hop%d", hops), http.StatusMovedPermanently)
	}))
	defer srv.Close()
	c := &fetch.Client{NetrcFile: "-"}
	d := &fetchhttp.Driver{}
	defer d.Close()
	c.Register("http", d)

	_, err := c.Fetch(context.Background(), srv.URL+"/start")
	if !errors.Is(err, fetch.ErrProtocol) || !strings.Contains(err.Error(), "stopped after 10 redirects") || hops != 11 {
		t.Errorf("a redirect loop: %v after %d requests; want ErrProtocol after 10 redirects, 11 requests", err, hops)
	}

	hops = 0
	c.MaxRedirects = 3
	var seen []string
	c.CheckRedirect = func(req *fetch.Request, via []*fetch.Request) error {
		seen = append(seen, fmt.Sprintf("%d %s from %s", len(via), req.URL.Path, req.Hop.From.Path))
		if len(via) == 3 {
			return fetch.ErrUseLastResponse
		}
		return nil
	}
	resp, err := c.Fetch(context.Background(), srv.URL+"/start")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	want := []string{"1 /hop1 from /start", "2 /hop2 from /hop1", "3 /hop3 from /hop2"}
	if resp.Kind != fetch.Redirect || resp.Location.Path != "/hop3" || resp.URL.Path != "/hop2" || !strings.Contains(string(b), "Moved Permanently") || strings.Join(seen, ", ") != strings.Join(want, ", ") {
		t.Errorf("ErrUseLastResponse: %v %s -> %v, body %q, CheckRedirect saw %q; want the redirect /hop2 -> /hop3 and %q", resp.Kind, resp.URL, resp.Location, b, seen, want)
	}
}

// Listing entries and links go through the same function: a server's
// menu may not send the Client where a redirect may not, but a listing's
// entries on the listing's own server are what the user asked for.
func TestFollowEntries(t *testing.T) {
	rec := witness(t)
	c, _, _ := policyClient(t, rec, newRedirector(t))
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("entry a\n"), 0o644)
	resp, err := c.Fetch(context.Background(), (&uri.File{Path: dir + "/"}).String())
	if err != nil {
		t.Fatal(err)
	}
	var entry string
	for e, err := range resp.Entries() {
		if err == nil && e.Name == "a.txt" {
			entry = e.URL
		}
	}
	resp.Body.Close()
	r2, err := c.Do(context.Background(), resp.Request.Follow(fetch.HopEntry, uri.MustParse(entry)))
	if err != nil {
		t.Fatalf("following the file: listing's own entry %s: %v", entry, err)
	}
	b, _ := io.ReadAll(r2.Body)
	r2.Body.Close()
	if string(b) != "entry a\n" {
		t.Errorf("entry %s = %q", entry, b)
	}

	menu := uri.MustParse("gopher://" + rec.addr() + "/1/")
	for _, tc := range []struct {
		kind     fetch.HopKind
		to       string
		followed bool
	}{
		{fetch.HopEntry, "telnet://{A}/", false},
		{fetch.HopEntry, "file:///etc/passwd", false},
		{fetch.HopEntry, "gopher://{A}/1sel%09%09+%0D%0AQUIT%0D%0A", false},
		{fetch.HopLink, "mailto:someone@example.org", false},
		{fetch.HopEntry, "gopher://{A}/0/other", true},
		{fetch.HopLink, "ftp://{A}/f", true},
	} {
		to := uri.MustParse(rec.expand(tc.to))
		req := fetch.NewRequest(c, menu).Follow(tc.kind, to)
		_, err := c.Do(context.Background(), req)
		conns := rec.accepted(t)
		if tc.followed != (len(conns) == 1) || !tc.followed && (!errors.Is(err, fetch.ErrUnsafe) || !strings.Contains(err.Error(), "the "+tc.kind.String()+" from "+menu.String())) {
			t.Errorf("%s %s: %d connections, error %v; want followed %v", tc.kind, to, len(conns), err, tc.followed)
		}
	}
}

// A password never travels to a host the user did not choose: after a
// redirect to another host, no netrc default entry, no prompt and no
// e-mail address as the anonymous password; a netrc entry stored for
// that very host is the user's choice and is used.
func TestRedirectCredentialsStayHome(t *testing.T) {
	ftpd := newRecorder(t, func(c *recConn) {
		fmt.Fprintf(c, "220 ready\r\n")
		for {
			l := strings.TrimSpace(c.line())
			if l == "" {
				return
			}
			switch {
			case strings.HasPrefix(l, "USER "):
				fmt.Fprintf(c, "331 password please\r\n")
			default:
				fmt.Fprintf(c, "530 not today\r\n")
				return
			}
		}
	})
	// The redirector is 127.0.0.1; the FTP server, reached by the name
	// "localhost" a server chose, is another host to the Client.
	target := "localhost:" + fmt.Sprint(ftpd.port)
	rd := newRedirector(t)
	netrc := filepath.Join(t.TempDir(), "netrc")
	prompted := 0
	for _, tc := range []struct {
		name, netrc, to string
		wantPass        string // the PASS line, "" for none
	}{
		{"netrc default entry", "default login joe password s3cret-default\n", "ftp://joe@" + target + "/f", ""},
		{"no netrc, a prompt", "", "ftp://joe@" + target + "/f", ""},
		{"anonymous", "", "ftp://" + target + "/f", "PASS " + ftp.ServerChosenAnonymousPassword},
		{"netrc entry for that host", "machine localhost login joe password for-localhost\n", "ftp://joe@" + target + "/f", "PASS for-localhost"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			os.WriteFile(netrc, []byte(tc.netrc), 0o600)
			c := &fetch.Client{NetrcFile: netrc, AllowPorts: []int{ftpd.port}, IdleTimeout: 5 * time.Second}
			c.Register("http", &fetchhttp.Driver{})
			d := &ftp.Driver{AnonymousPassword: "me@my-own.example"}
			c.Register("ftp", d)
			c.Prompt = func(ctx context.Context, prompt string) (string, error) {
				prompted++
				return "typed-secret", nil
			}
			defer c.Close()
			_, err := fetchAll(c, rd.start("http", tc.to))
			var pass []string
			for _, conn := range ftpd.accepted(t) {
				for _, l := range strings.Split(string(conn.bytes(t)), "\r\n") {
					if strings.HasPrefix(l, "PASS") {
						pass = append(pass, l)
					}
				}
			}
			want := []string{}
			if tc.wantPass != "" {
				want = []string{tc.wantPass}
			}
			if strings.Join(pass, "|") != strings.Join(want, "|") || prompted != 0 {
				t.Errorf("the server chosen by a redirect got %q (prompted %d times); want %q and no prompt (error %v)", pass, prompted, want, err)
			}
			if tc.wantPass == "" && !errors.Is(err, fetch.ErrAuth) {
				t.Errorf("error %v; want ErrAuth saying no password is sent", err)
			}
		})
	}
}

// The documented default: the built-in drivers that declare themselves
// safe to follow are exactly these.
func TestDefaultFollowSchemes(t *testing.T) {
	c := all.NewClient()
	want := "ftp ftps gopher http https news nntp nntps snews"
	if got := strings.Join(c.DefaultFollowSchemes(), " "); got != want {
		t.Errorf("DefaultFollowSchemes() = %s; want %s", got, want)
	}
	c.AllowSchemes = []string{"http", "https", "file"}
	if got := strings.Join(c.FollowableSchemes(), " "); got != "http https" {
		t.Errorf("FollowableSchemes() with AllowSchemes http, https, file = %s; want http https", got)
	}
}

// Issue 20: the news schemes over TLS. The entries of an snews: or nntps:
// listing (snews:<id>, nntps://host/group/N) are followed; a hop from
// them to news: or nntp: is a step from TLS to cleartext, refused unless
// AllowDowngrade; a hop from cleartext to TLS is no step down.
func TestNewsTLSHops(t *testing.T) {
	c := all.NewClient()
	for _, tc := range []struct {
		kind     fetch.HopKind
		from, to string
		why      string // "" when followed
	}{
		{fetch.HopEntry, "snews:misc.test", "snews:one@example.org", ""},
		{fetch.HopEntry, "snews:*", "snews:misc.test", ""},
		{fetch.HopEntry, "nntps://h/misc.test", "nntps://h/misc.test/1", ""},
		{fetch.HopEntry, "snews:misc.test", "nntps://h/misc.test/1", ""},
		{fetch.HopEntry, "nntp://h/misc.test", "nntps://h/misc.test/1", ""},
		{fetch.HopRedirect, "https://h/", "snews:one@example.org", ""},
		{fetch.HopRedirect, "http://h/", "nntps://h/misc.test/1", ""},
		{fetch.HopEntry, "snews:misc.test", "news:one@example.org", "from TLS (snews) to cleartext (news)"},
		{fetch.HopEntry, "nntps://h/misc.test", "nntp://h/misc.test/1", "from TLS (nntps) to cleartext (nntp)"},
		{fetch.HopEntry, "snews:*", "nntp://h/misc.test", "from TLS (snews) to cleartext (nntp)"},
		{fetch.HopRedirect, "https://h/", "news:one@example.org", "from TLS (https) to cleartext (news)"},
	} {
		err := c.CheckHop(fetch.Hop{Kind: tc.kind, From: uri.MustParse(tc.from), To: uri.MustParse(tc.to)})
		switch {
		case tc.why == "" && err != nil:
			t.Errorf("CheckHop(%s from %s to %s) = %v; want it followed", tc.kind, tc.from, tc.to, err)
		case tc.why != "" && (!errors.Is(err, fetch.ErrUnsafe) || !strings.Contains(fmt.Sprint(err), tc.why)):
			t.Errorf("CheckHop(%s from %s to %s) = %v; want ErrUnsafe saying %q", tc.kind, tc.from, tc.to, err, tc.why)
		}
	}
	c.AllowDowngrade = true
	if err := c.CheckHop(fetch.Hop{Kind: fetch.HopEntry, From: uri.MustParse("snews:misc.test"), To: uri.MustParse("news:one@example.org")}); err != nil {
		t.Errorf("with AllowDowngrade, CheckHop(snews to news) = %v; want it followed", err)
	}
}

// fetch.Transport hands a redirect the Client was told not to follow to
// the http.Client as a 302, for it to judge.
func TestTransportRedirect(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "/next", http.StatusMovedPermanently)
	}))
	defer srv.Close()
	c := all.NewClient()
	c.CheckRedirect = func(*fetch.Request, []*fetch.Request) error { return fetch.ErrUseLastResponse }
	resp, err := (&fetch.Transport{Client: c}).RoundTrip(httptest.NewRequest("GET", srv.URL+"/start", nil))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusFound || resp.Header.Get("Location") != srv.URL+"/next" {
		t.Errorf("RoundTrip = %s, Location %q; want 302 to %s/next", resp.Status, resp.Header.Get("Location"), srv.URL)
	}
}
