package fetch

import (
	"context"
	"errors"
	"io"
	"maps"
	"net"
	"net/url"
	"strings"
	"testing"

	"github.com/urlfetch/urlfetch/uri"
)

func TestGatewaysFromEnviron(t *testing.T) {
	tests := []struct {
		name    string
		environ []string
		want    map[string]string
		noProxy string
	}{
		{"lower case", []string{"ftp_proxy=http://gw:3128", "gopher_proxy=gw:8080", "PATH=/bin"},
			map[string]string{"ftp": "http://gw:3128", "gopher": "gw:8080"}, ""},
		{"upper case", []string{"WAIS_PROXY=http://gw:1", "NEWS_PROXY=http://gw:2", "NO_PROXY=.example.org"},
			map[string]string{"wais": "http://gw:1", "news": "http://gw:2"}, ".example.org"},
		{"lower case first", []string{"FTP_PROXY=http://upper:1", "ftp_proxy=http://lower:1", "NO_PROXY=upper", "no_proxy=lower"},
			map[string]string{"ftp": "http://lower:1"}, "lower"},
		{"empty lower case gives way", []string{"ftp_proxy=", "FTP_PROXY=http://upper:1", "no_proxy= ", "NO_PROXY=*"},
			map[string]string{"ftp": "http://upper:1"}, "*"},
		{"http and https", []string{"http_proxy=http://h:1", "HTTPS_PROXY=http://s:1"},
			map[string]string{"http": "http://h:1", "https": "http://s:1"}, ""},
		// A CGI script's HTTP_PROXY may be a request's "Proxy:" header.
		{"CGI ignores HTTP_PROXY", []string{"REQUEST_METHOD=GET", "HTTP_PROXY=http://evil:1", "FTP_PROXY=http://gw:1"},
			map[string]string{"ftp": "http://gw:1"}, ""},
		{"CGI keeps http_proxy", []string{"REQUEST_METHOD=GET", "HTTP_PROXY=http://evil:1", "http_proxy=http://gw:1"},
			map[string]string{"http": "http://gw:1"}, ""},
		{"empty REQUEST_METHOD is no CGI", []string{"REQUEST_METHOD=", "HTTP_PROXY=http://gw:1"},
			map[string]string{"http": "http://gw:1"}, ""},
		{"not read", []string{"all_proxy=socks5://s:1080", "ALL_PROXY=socks5://s:1080", "Ftp_Proxy=http://mixed:1", "_proxy=x", "my-app_proxy=x", "FTP_proxy=x"},
			map[string]string{}, ""},
		{"any scheme", []string{"nntp_proxy=http://gw:1", "prospero_proxy=http://gw:2"},
			map[string]string{"nntp": "http://gw:1", "prospero": "http://gw:2"}, ""},
	}
	for _, tt := range tests {
		g := gatewaysFromEnviron(tt.environ)
		if !maps.Equal(g.ByScheme, tt.want) || g.NoProxy != tt.noProxy {
			t.Errorf("%s: gatewaysFromEnviron(%q) = %v, NoProxy %q; want %v, %q", tt.name, tt.environ, g.ByScheme, g.NoProxy, tt.want, tt.noProxy)
		}
	}
}

func TestNoProxyMatch(t *testing.T) {
	tests := []struct {
		list, host string
		port       int
		want       bool
	}{
		{"", "ftp.example.org", 21, false},
		{"*", "ftp.example.org", 21, true},
		{"*", "", 0, true}, // news: names no host
		{"example.org", "", 0, false},
		{"example.org", "example.org", 21, true},
		{"example.org", "ftp.example.org", 21, true},
		{"example.org", "ftp.EXAMPLE.org.", 21, true},
		{"example.org", "badexample.org", 21, false},
		{".example.org", "ftp.example.org", 21, true},
		{".example.org", "example.org", 21, false},
		{"*.example.org", "ftp.example.org", 21, true},
		{"*.example.org", "example.org", 21, false},
		{"other.net, example.org", "a.example.org", 70, true},
		{"other.net example.org", "a.example.org", 70, true},
		{"example.org:21", "ftp.example.org", 21, true},
		{"example.org:21", "ftp.example.org", 2121, false},
		{"127.0.0.1", "127.0.0.1", 18021, true},
		{"127.0.0.1:18021", "127.0.0.1", 18021, true},
		{"127.0.0.1:18021", "127.0.0.1", 70, false},
		{"10.0.0.0/8", "10.1.2.3", 70, true},
		{"10.0.0.0/8", "11.1.2.3", 70, false},
		{"10.0.0.0/8", "ten.example", 70, false},
		{"::1", "::1", 70, true},
		{"[::1]:70", "::1", 70, true},
		{"[::1]:70", "::1", 71, false},
		{"localhost", "127.0.0.1", 70, false}, // no implicit loopback rule
		{",, ,", "example.org", 21, false},
		// A name in Unicode and its A-labels are one name.
		{"bücher.example", "xn--bcher-kva.example", 70, true},
		{"xn--bcher-kva.example", "www.bücher.example", 70, true},
		{".Bücher.example", "ftp.xn--bcher-kva.example", 21, true},
		{"*.bücher.example:21", "ftp.xn--bcher-kva.example", 21, true},
		{"bücher.example", "xn--bcher-kva.example.evil", 70, false},
	}
	for _, tt := range tests {
		if got := noProxyMatch(tt.list, tt.host, tt.port); got != tt.want {
			t.Errorf("noProxyMatch(%q, %q, %d) = %v, want %v", tt.list, tt.host, tt.port, got, tt.want)
		}
	}
}

func TestGatewaysGateway(t *testing.T) {
	g := &Gateways{
		ByScheme: map[string]string{
			"ftp":    "http://gw.example:3128",
			"gopher": "gw.example:8080",
			"wais":   "http://gw.example",
			"news":   "http://gw.example:3128/",
			"http":   "http://u:gw-secret@gw.example:3128",
			"https":  "socks5h://gw.example",
			"x-tls":  "https://gw.example",
			"x-sock": "socks5://gw.example:1080",
			"x-ftp":  "ftp://gw.example",
			"x-path": "http://gw.example:3128/proxy",
			"x-port": "http://gw.example:99999",
			"x-bad":  "http://u:gw-secret@gw.example:x",
			"x-none": "",
		},
		NoProxy: "direct.example,.inside.example,127.0.0.1:2121",
	}
	tests := []struct {
		url, want string
		kind      error
	}{
		{"ftp://ftp.example.org/pub/README", "http://gw.example:3128", nil},
		{"gopher://gopher.example.org/1/", "http://gw.example:8080", nil},
		{"wais://wais.example.org/db?x", "http://gw.example", nil},
		{"news:comp.lang.go", "http://gw.example:3128", nil},
		{"http://www.example.org/", "http://u:gw-secret@gw.example:3128", nil},
		{"nntp://news.example.org/comp.lang.go", "", nil},
		{"x-none://h/", "", nil},
		{"ftp://direct.example/x", "", nil},
		{"ftp://a.inside.example/x", "", nil},
		{"ftp://inside.example/x", "http://gw.example:3128", nil},
		{"ftp://127.0.0.1:2121/x", "", nil},
		{"ftp://127.0.0.1/x", "http://gw.example:3128", nil},
		{"https://www.example.org/", "socks5h://gw.example", nil},
		{"x-tls://h/", "https://gw.example", nil},
		{"x-sock://h/", "", ErrUnsupported}, // SOCKS is for http and https only
		{"x-ftp://h/", "", ErrUnsupported},
		{"x-path://h/", "", ErrURL},
		{"x-port://h/", "", ErrURL},
		{"x-bad://h/", "", ErrURL},
	}
	for _, tt := range tests {
		gw, err := g.Gateway(uri.MustParse(tt.url))
		got := ""
		if gw != nil {
			got = gw.String()
		}
		if got != tt.want || !errors.Is(err, tt.kind) || (tt.kind == nil) != (err == nil) {
			t.Errorf("Gateway(%s) = %q, %v; want %q, kind %v", tt.url, got, err, tt.want, tt.kind)
		}
		if err != nil && strings.Contains(err.Error(), "gw-secret") {
			t.Errorf("Gateway(%s) error %q shows the gateway's password", tt.url, err)
		}
	}
	if gw, err := (*Gateways)(nil).Gateway(uri.MustParse("ftp://h/")); gw != nil || err != nil {
		t.Errorf("nil Gateways: Gateway = %v, %v; want none", gw, err)
	}
}

func TestParseGatewayMasksPassword(t *testing.T) {
	for _, s := range []string{"http://u:pw-1738@h:x", "http://u:pw-1738@/", "ftp://u:pw-1738@h", "u:pw-1738@h:1:2", "http://u:pw-1738@h/p%zz"} {
		_, err := ParseGateway(s)
		if err == nil || strings.Contains(err.Error(), "pw-1738") || !strings.Contains(err.Error(), "u:***@") {
			t.Errorf("ParseGateway(%q) error = %v; want one that masks the password", s, err)
		}
	}
}

// gatewayDriver stands in for the http driver: it records the gateway
// and URL it is asked for.
type gatewayDriver struct {
	fakeDriver
	asked []string
}

func (d *gatewayDriver) FetchGateway(ctx context.Context, req *Request) (*Response, error) {
	d.asked = append(d.asked, req.Gateway.String()+" "+req.URL.String())
	req.Trace(Note, "Proxy-Authorization for "+req.Gateway.User.String())
	return &Response{Kind: Document, Length: -1, Body: io.NopCloser(strings.NewReader("from the gateway"))}, nil
}

func TestDoThroughGateway(t *testing.T) {
	gd := &gatewayDriver{fakeDriver: fakeDriver{body: "from http"}}
	gopher := &fakeDriver{body: "from gopher"}
	c := &Client{}
	c.Register("http", gd)
	c.Register("gopher", gopher)
	c.Gateway = (&Gateways{
		ByScheme: map[string]string{"gopher": "http://127.0.0.1:3128", "prospero": "http://127.0.0.1:3128", "ftp": "http://127.0.0.1:25", "wais": "https://127.0.0.1"},
		NoProxy:  "direct.example",
	}).Gateway
	fetch := func(raw string) (string, error) {
		resp, err := c.Fetch(context.Background(), raw)
		if err != nil {
			return "", err
		}
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		if resp.URL.String() != raw {
			t.Errorf("Fetch(%q): Response.URL %s", raw, resp.URL)
		}
		return string(b), err
	}

	// The gateway's driver fetches the URL in place of gopher's own,
	// and a URL no driver here knows; the URL's port is the gateway's
	// business, so port 25 in it is no reason to refuse.
	for _, raw := range []string{"gopher://gopher.example/1/dir", "prospero://host/x", "gopher://gopher.example:25/0/x"} {
		if got, err := fetch(raw); err != nil || got != "from the gateway" {
			t.Errorf("Fetch(%q) = %q, %v; want it from the gateway", raw, got, err)
		}
	}
	want := []string{
		"http://127.0.0.1:3128 gopher://gopher.example/1/dir",
		"http://127.0.0.1:3128 prospero://host/x",
		"http://127.0.0.1:3128 gopher://gopher.example:25/0/x",
	}
	if strings.Join(gd.asked, "\n") != strings.Join(want, "\n") || gopher.calls != 0 || gd.calls != 0 {
		t.Errorf("gateway driver asked %q, Fetch calls: gopher %d, http %d; want %q and no Fetch", gd.asked, gopher.calls, gd.calls, want)
	}

	// no_proxy: gopher's own driver; so for a scheme without a gateway.
	if got, err := fetch("gopher://direct.example/1/"); err != nil || got != "from gopher" {
		t.Errorf("exempt host: %q, %v; want gopher's driver", got, err)
	}
	if got, err := fetch("http://www.example/"); err != nil || got != "from http" {
		t.Errorf("http without a gateway: %q, %v; want the http driver's Fetch", got, err)
	}
	if _, err := fetch("telnet://h/"); !errors.Is(err, ErrUnsupported) {
		t.Errorf("telnet without gateway or driver: %v, want ErrUnsupported", err)
	}

	// The port policy applies to the gateway's port.
	gd.asked = nil
	if _, err := fetch("ftp://ftp.example/x"); !errors.Is(err, ErrUnsafe) || !strings.Contains(err.Error(), "port 25") || len(gd.asked) != 0 {
		t.Errorf("gateway on port 25: %v, %d fetches; want ErrUnsafe naming port 25 and none", err, len(gd.asked))
	}
	c.AllowPorts = []int{25}
	if _, err := fetch("ftp://ftp.example/x"); err != nil || len(gd.asked) != 1 {
		t.Errorf("gateway on allowed port 25: %v, %d fetches", err, len(gd.asked))
	}
	// An https gateway's port is 443: no reason to refuse.
	if _, err := fetch("wais://h/db"); err != nil || len(gd.asked) != 2 || gd.asked[1] != "https://127.0.0.1 wais://h/db" {
		t.Errorf("https gateway: %v, asked %q", err, gd.asked)
	}
}

func TestDoGatewayErrors(t *testing.T) {
	c := &Client{}
	c.Register("gopher", &fakeDriver{body: "from gopher"})
	c.Gateway = (&Gateways{ByScheme: map[string]string{"gopher": "http://u:gw-secret@127.0.0.1:3128", "wais": "socks5://127.0.0.1:1080"}}).Gateway
	// No driver for http here can fetch through a gateway.
	_, err := c.Fetch(context.Background(), "gopher://h/1/")
	if !errors.Is(err, ErrUnsupported) || strings.Contains(err.Error(), "gw-secret") {
		t.Errorf("no gateway driver: error %v; want ErrUnsupported without the gateway's password", err)
	}
	c.Register("http", &fakeDriver{})
	if _, err := c.Fetch(context.Background(), "gopher://h/1/"); !errors.Is(err, ErrUnsupported) {
		t.Errorf("http driver without FetchGateway: error %v; want ErrUnsupported", err)
	}
	if _, err := c.Fetch(context.Background(), "wais://h/db"); !errors.Is(err, ErrUnsupported) || !strings.Contains(err.Error(), "http://") {
		t.Errorf("socks5 gateway: error %v; want ErrUnsupported saying a gateway is http://", err)
	}
}

// Do chooses the gateway and hands it to the driver on the Request (not
// on the caller's): the gateway's password joins the secrets a trace
// masks.
func TestDoPutsGatewayOnRequest(t *testing.T) {
	gd := &gatewayDriver{}
	var lines []string
	c := &Client{Trace: func(dir Direction, line string) { lines = append(lines, line) }}
	c.Register("http", gd)
	c.Gateway = (&Gateways{ByScheme: map[string]string{"ftp": "http://u:gw-secret@127.0.0.1:3128"}}).Gateway
	req, err := c.NewRequest("ftp://h/x")
	if err != nil {
		t.Fatal(err)
	}
	resp, err := c.Do(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if req.Gateway != nil {
		t.Errorf("Do wrote Gateway %v into the caller's Request", req.Gateway)
	}
	if resp.Request == nil || resp.Request.Gateway == nil || resp.Request.Gateway.Host != "127.0.0.1:3128" {
		t.Errorf("Response.Request = %+v; want the Request Do sent, with the gateway", resp.Request)
	}
	if len(lines) != 1 || strings.Contains(lines[0], "gw-secret") {
		t.Errorf("trace %q shows the gateway's password", lines)
	}
}

func TestGatewayPort(t *testing.T) {
	for s, want := range map[string]int{"http://gw": 80, "gw:3128": 3128, "https://gw": 443, "socks5://gw": 1080, "socks5h://gw:9050": 9050} {
		gw, err := ParseGateway(s)
		if err != nil {
			t.Fatalf("ParseGateway(%q): %v", s, err)
		}
		if got := gatewayPort(gw); got != want {
			t.Errorf("gatewayPort(%s) = %d, want %d", s, got, want)
		}
	}
}

// A decoded CR, LF or NUL would reach the gateway's protocol lines (the
// gateway decodes the URL into FTP or Gopher commands): refused before
// any dial.
func TestGatewayRefusesDecodedControls(t *testing.T) {
	for _, raw := range []string{"ftp://h/a%0D%0ADELE%20x", "gopher://h/0a%00b", "news:a%0Ab@h"} {
		dialed := false
		c := &Client{NetrcFile: "-", DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			dialed = true
			return nil, errors.New("no dial here")
		}}
		c.Register("http", &gatewayDriver{})
		c.Gateway = func(u *uri.URL) (*url.URL, error) { return url.Parse("http://127.0.0.1:3128") }
		_, err := c.Fetch(context.Background(), raw)
		if !errors.Is(err, ErrUnsafe) || dialed {
			t.Errorf("%s: %v (dialed %v); want ErrUnsafe before any dial", raw, err, dialed)
		}
	}
}
