package http_test

import (
	"bufio"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/urlfetch/urlfetch/fetch"
	fetchhttp "github.com/urlfetch/urlfetch/fetch/http"
)

// The gateway tests (RFC 1738 section 4) run against a recording
// gateway: an in-process server on 127.0.0.1:0 that keeps each request
// head byte for byte and answers from a script. Debian's squid no longer
// speaks gopher, so no real gateway can take gopher:, wais: or news:
// URLs; integration/gateway_test.go sends ftp: URLs through a real squid.

// recordingGateway is the fake gateway. reply writes the answer to one
// request whose head (request line and headers, CRLFs and all) is head.
type recordingGateway struct {
	addr  string
	reply func(w io.Writer, head string)

	mu    sync.Mutex
	heads []string
}

func newRecordingGateway(t *testing.T, reply func(w io.Writer, head string)) *recordingGateway {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	g := &recordingGateway{addr: ln.Addr().String(), reply: reply}
	var wg sync.WaitGroup
	var mu sync.Mutex
	conns := map[net.Conn]bool{}
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns[c] = true
			mu.Unlock()
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer c.Close()
				g.serve(c)
			}()
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		mu.Lock()
		for c := range conns {
			c.Close()
		}
		mu.Unlock()
		wg.Wait()
	})
	return g
}

// serve answers the requests of one connection until it closes.
func (g *recordingGateway) serve(c net.Conn) {
	br := bufio.NewReader(c)
	for {
		var head strings.Builder
		for {
			line, err := br.ReadString('\n')
			head.WriteString(line)
			if err != nil {
				return
			}
			if line == "\r\n" {
				break
			}
		}
		g.mu.Lock()
		g.heads = append(g.heads, head.String())
		g.mu.Unlock()
		g.reply(c, head.String())
	}
}

func (g *recordingGateway) requests() []string {
	g.mu.Lock()
	defer g.mu.Unlock()
	return append([]string(nil), g.heads...)
}

// replyOK answers every request with a small text document.
func replyOK(w io.Writer, head string) {
	fmt.Fprint(w, "HTTP/1.1 200 Gatewaying\r\nContent-Type: text/plain; charset=us-ascii\r\nContent-Length: 13\r\nX-Gateway: recording\r\n\r\nhello, world\n")
}

// gatewayClient is a Client with the http driver and drivers for the
// other schemes that fail the test if they run: the gateway must.
func gatewayClient(t *testing.T, g *fetch.Gateways, trace *[]string) *fetch.Client {
	c := &fetch.Client{NetrcFile: "-", ConnectTimeout: 5 * time.Second, IdleTimeout: 10 * time.Second}
	d := &fetchhttp.Driver{}
	t.Cleanup(func() { d.Close() })
	c.Register("http", d)
	c.Register("https", d)
	for _, scheme := range []string{"ftp", "gopher", "wais", "news", "nntp"} {
		c.Register(scheme, fetch.DriverFunc(func(ctx context.Context, req *fetch.Request) (*fetch.Response, error) {
			t.Errorf("the %s driver ran for %s; the gateway should have", scheme, req.URL.Redacted())
			return nil, fetch.Errorf(fetch.ErrUnsupported, "not here")
		}))
	}
	c.Gateway = g.Gateway
	if trace != nil {
		var mu sync.Mutex
		c.Trace = func(dir fetch.Direction, line string) {
			mu.Lock()
			defer mu.Unlock()
			*trace = append(*trace, string(dir)+" "+line)
		}
	}
	return c
}

// every maps each scheme to the gateway at addr.
func every(addr string, schemes ...string) *fetch.Gateways {
	g := &fetch.Gateways{ByScheme: map[string]string{}}
	for _, s := range schemes {
		g.ByScheme[s] = "http://" + addr
	}
	return g
}

func TestGatewayRequestLine_RecordingServer(t *testing.T) {
	rec := newRecordingGateway(t, replyOK)
	var trace []string
	c := gatewayClient(t, every(rec.addr, "ftp", "gopher", "wais", "news", "nntp"), &trace)
	tests := []struct{ url, head string }{
		{"gopher://gopher.example.org:7070/1/dir",
			"GET gopher://gopher.example.org:7070/1/dir HTTP/1.1\r\nHost: gopher.example.org:7070\r\nUser-Agent: urlfetch\r\n\r\n"},
		// The fragment is never sent; the rest goes as written.
		{"gopher://gopher.example.org/7/search%09two%20words#top",
			"GET gopher://gopher.example.org/7/search%09two%20words HTTP/1.1\r\nHost: gopher.example.org\r\nUser-Agent: urlfetch\r\n\r\n"},
		{"wais://wais.example.org:210/db?free%20text",
			"GET wais://wais.example.org:210/db?free%20text HTTP/1.1\r\nHost: wais.example.org:210\r\nUser-Agent: urlfetch\r\n\r\n"},
		{"wais://wais.example.org/db/TEXT/0012%2Fdoc",
			"GET wais://wais.example.org/db/TEXT/0012%2Fdoc HTTP/1.1\r\nHost: wais.example.org\r\nUser-Agent: urlfetch\r\n\r\n"},
		// news: names no host; net/http cannot send an empty Host, so
		// it names the gateway.
		{"news:comp.lang.go",
			"GET news:comp.lang.go HTTP/1.1\r\nHost: " + rec.addr + "\r\nUser-Agent: urlfetch\r\n\r\n"},
		{"news:1234.5678@news.example.org",
			"GET news:1234.5678@news.example.org HTTP/1.1\r\nHost: " + rec.addr + "\r\nUser-Agent: urlfetch\r\n\r\n"},
		{"nntp://news.example.org/comp.lang.go/42",
			"GET nntp://news.example.org/comp.lang.go/42 HTTP/1.1\r\nHost: news.example.org\r\nUser-Agent: urlfetch\r\n\r\n"},
		// Issue 21, point 5: an IRI goes as its URI, the host in
		// A-labels, the rest in UTF-8 percent-encoded.
		{"gopher://bücher.example:7070/1/Straße",
			"GET gopher://xn--bcher-kva.example:7070/1/Stra%C3%9Fe HTTP/1.1\r\nHost: xn--bcher-kva.example:7070\r\nUser-Agent: urlfetch\r\n\r\n"},
		{"ftp://jöran@b%C3%BCcher.example/ä",
			"GET ftp://j%C3%B6ran@xn--bcher-kva.example/%C3%A4 HTTP/1.1\r\nHost: xn--bcher-kva.example\r\nUser-Agent: urlfetch\r\n\r\n"},
		// The gateway logs in with the password: it goes in the URL.
		{"ftp://joe:s3cret-pw@ftp.example.org/%2Fetc/motd;type=a",
			"GET ftp://joe:s3cret-pw@ftp.example.org/%2Fetc/motd;type=a HTTP/1.1\r\nHost: ftp.example.org\r\nUser-Agent: urlfetch\r\n\r\n"},
	}
	for _, tt := range tests {
		resp, err := c.Fetch(context.Background(), tt.url)
		if err != nil {
			t.Errorf("Fetch(%q): %v", tt.url, err)
			continue
		}
		b, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil || string(b) != "hello, world\n" {
			t.Errorf("Fetch(%q) body = %q, %v", tt.url, b, err)
		}
		if resp.Kind != fetch.Document || resp.Type != "text/plain; charset=us-ascii" || resp.Length != 13 || resp.Meta.Get("X-Gateway") != "recording" {
			t.Errorf("Fetch(%q): Kind %v Type %q Length %d Meta %v; want the gateway's document", tt.url, resp.Kind, resp.Type, resp.Length, resp.Meta)
		}
		if resp.URL.String() != tt.url {
			t.Errorf("Fetch(%q): Response.URL %s", tt.url, resp.URL)
		}
	}
	heads := rec.requests()
	for i, tt := range tests {
		if i >= len(heads) || heads[i] != tt.head {
			got := "nothing"
			if i < len(heads) {
				got = fmt.Sprintf("%q", heads[i])
			}
			t.Errorf("%s: the gateway got %s, want %q", tt.url, got, tt.head)
		}
	}
	all := strings.Join(trace, "\n")
	for _, want := range []string{
		"* via gateway http://" + rec.addr,
		"* connecting to " + rec.addr,
		"> GET gopher://gopher.example.org:7070/1/dir HTTP/1.1",
		"> GET ftp://joe:***@ftp.example.org/%2Fetc/motd;type=a HTTP/1.1",
		"< HTTP/1.1 200 Gatewaying",
	} {
		if !strings.Contains(all+"\n", want+"\n") {
			t.Errorf("trace lacks %q:\n%s", want, all)
		}
	}
	if strings.Contains(all, "s3cret-pw") {
		t.Errorf("trace shows the ftp password:\n%s", all)
	}
}

// A 32 MiB document comes back while the gateway is still sending it:
// the gateway holds the rest until the test has read the first bytes,
// and reading it all allocates a small fraction of its size.
func TestGatewayStreamsBody_RecordingServer(t *testing.T) {
	const size = 32 << 20
	const first = 64 << 10
	release := make(chan struct{})
	rec := newRecordingGateway(t, func(w io.Writer, head string) {
		fmt.Fprintf(w, "HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\nContent-Length: %d\r\n\r\n", size)
		chunk := make([]byte, first)
		for i := range chunk {
			chunk[i] = byte(i)
		}
		if _, err := w.Write(chunk); err != nil {
			return
		}
		select {
		case <-release:
		case <-time.After(20 * time.Second):
			return // the client never read the first bytes: it is buffering
		}
		for sent := first; sent < size; sent += len(chunk) {
			if _, err := w.Write(chunk); err != nil {
				return
			}
		}
	})
	c := gatewayClient(t, every(rec.addr, "gopher"), nil)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	resp, err := c.Fetch(ctx, "gopher://gopher.example.org/9/big.bin")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.Length != size {
		t.Errorf("Length = %d, want %d", resp.Length, size)
	}
	buf := make([]byte, first)
	if _, err := io.ReadFull(resp.Body, buf); err != nil {
		t.Fatalf("reading the first %d bytes: %v", first, err)
	}
	close(release)

	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	n, err := io.CopyBuffer(io.Discard, resp.Body, make([]byte, 32<<10))
	runtime.ReadMemStats(&after)
	if err != nil || n != size-first {
		t.Fatalf("read %d more bytes, %v; want %d", n, err, size-first)
	}
	alloc := after.TotalAlloc - before.TotalAlloc
	t.Logf("reading %d bytes through the gateway allocated %d bytes", n, alloc)
	if alloc > 4<<20 {
		t.Errorf("reading %d bytes allocated %d bytes: the body is being buffered", n, alloc)
	}
}

func TestGatewayStatuses_RecordingServer(t *testing.T) {
	rec := newRecordingGateway(t, func(w io.Writer, head string) {
		status := "502 Bad Gateway"
		for _, s := range []string{"404 Not Found", "403 Forbidden", "407 Proxy Authentication Required", "401 Unauthorized", "503 Service Unavailable"} {
			if strings.Contains(head, "/"+s[:3]+" ") {
				status = s
			}
		}
		fmt.Fprintf(w, "HTTP/1.1 %s\r\nContent-Type: text/html\r\nContent-Length: 6\r\n\r\nsorry\n", status)
	})
	c := gatewayClient(t, every(rec.addr, "ftp"), nil)
	tests := []struct {
		path, status string
		kind         error
	}{
		{"/404", "404 Not Found", fetch.ErrNotFound},
		{"/403", "403 Forbidden", fetch.ErrAuth},
		{"/407", "407 Proxy Authentication Required", fetch.ErrAuth},
		{"/401", "401 Unauthorized", fetch.ErrAuth},
		{"/503", "503 Service Unavailable", nil},
		{"/other", "502 Bad Gateway", nil},
	}
	for _, tt := range tests {
		raw := "ftp://joe:s3cret-pw@ftp.example.org" + tt.path
		_, err := c.Fetch(context.Background(), raw)
		var se *fetchhttp.StatusError
		if !errors.As(err, &se) || se.Status != tt.status || (tt.kind != nil && !errors.Is(err, tt.kind)) {
			t.Errorf("Fetch(%s) error %v; want a *StatusError %q of kind %v", tt.path, err, tt.status, tt.kind)
			continue
		}
		if tt.kind == nil && fetch.Class(err) != nil {
			t.Errorf("Fetch(%s) error %v has kind %v, want none", tt.path, err, fetch.Class(err))
		}
		msg := err.Error()
		if strings.Contains(msg, "s3cret-pw") || !strings.Contains(msg, "ftp://joe:***@ftp.example.org"+tt.path) || !strings.Contains(msg, "gateway http://"+rec.addr) {
			t.Errorf("Fetch(%s) error %q: want the masked URL and the gateway, never the password", tt.path, msg)
		}
	}
}

// The connection to the gateway goes through the Client's dial path:
// its DialContext, its idle timeout and the context's cancellation.
func TestGatewayDialPath_RecordingServer(t *testing.T) {
	stall := make(chan struct{})
	rec := newRecordingGateway(t, func(w io.Writer, head string) {
		switch {
		case strings.Contains(head, "/stall-body "):
			fmt.Fprint(w, "HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nfirst")
		case strings.Contains(head, "/stall-head "):
		default:
			replyOK(w, head)
			return
		}
		<-stall
	})
	t.Cleanup(func() { close(stall) }) // before the gateway's cleanup waits
	c := gatewayClient(t, every(rec.addr, "gopher"), nil)
	var mu sync.Mutex
	var dialed []string
	c.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		mu.Lock()
		dialed = append(dialed, addr)
		mu.Unlock()
		var d net.Dialer
		return d.DialContext(ctx, network, addr)
	}
	c.IdleTimeout = 300 * time.Millisecond

	// Port 25 in the URL is the gateway's business: not refused.
	if _, body := gatewayGet(t, c, "gopher://gopher.example.org:25/0/x"); body != "hello, world\n" {
		t.Errorf("via gateway: body %q", body)
	}
	mu.Lock()
	if len(dialed) != 1 || dialed[0] != rec.addr {
		t.Errorf("dialed %q, want only the gateway %s", dialed, rec.addr)
	}
	mu.Unlock()

	resp, err := c.Fetch(context.Background(), "gopher://gopher.example.org/0/stall-body")
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_, err = io.ReadAll(resp.Body)
	resp.Body.Close()
	if !errors.Is(err, fetch.ErrTimeout) || time.Since(start) > 5*time.Second {
		t.Errorf("stalled body: %v after %v; want ErrTimeout after the idle timeout", err, time.Since(start))
	}

	c.IdleTimeout = time.Minute
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(200*time.Millisecond, cancel)
	start = time.Now()
	_, err = c.Fetch(ctx, "gopher://gopher.example.org/0/stall-head")
	if !errors.Is(err, context.Canceled) || time.Since(start) > 5*time.Second {
		t.Errorf("cancelled while the gateway stalls: %v after %v; want context.Canceled at once", err, time.Since(start))
	}

	// The gateway's own port is under the port policy.
	c.Gateway = (&fetch.Gateways{ByScheme: map[string]string{"gopher": "http://127.0.0.1:25"}}).Gateway
	if _, err := c.Fetch(context.Background(), "gopher://gopher.example.org/1/"); !errors.Is(err, fetch.ErrUnsafe) {
		t.Errorf("gateway on port 25: %v, want ErrUnsafe", err)
	}
}

func gatewayGet(t *testing.T, c *fetch.Client, raw string) (*fetch.Response, string) {
	t.Helper()
	resp, err := c.Fetch(context.Background(), raw)
	if err != nil {
		t.Fatalf("Fetch(%q): %v", raw, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("Fetch(%q): reading: %v", raw, err)
	}
	return resp, string(b)
}

// A gateway URL with a user and password sends them as
// Proxy-Authorization; the trace never shows the password.
func TestGatewayCredentials_RecordingServer(t *testing.T) {
	rec := newRecordingGateway(t, replyOK)
	var trace []string
	g := &fetch.Gateways{ByScheme: map[string]string{"wais": "http://gwuser:gw-secret@" + rec.addr}}
	c := gatewayClient(t, g, &trace)
	gatewayGet(t, c, "wais://wais.example.org/db?x")
	auth := "Proxy-Authorization: Basic " + base64.StdEncoding.EncodeToString([]byte("gwuser:gw-secret")) + "\r\n"
	if heads := rec.requests(); len(heads) != 1 || !strings.Contains(heads[0], auth) {
		t.Errorf("gateway got %q, want a head with %q", heads, auth)
	}
	all := strings.Join(trace, "\n")
	if strings.Contains(all, "gw-secret") || !strings.Contains(all, "via gateway http://gwuser:xxxxx@"+rec.addr) {
		t.Errorf("trace shows the gateway's password, or not the gateway:\n%s", all)
	}
}

// A redirect from the gateway to another URL of a gatewayed scheme is
// followed through the gateway; one to an exempt host goes to the
// scheme's driver.
func TestGatewayRedirect_RecordingServer(t *testing.T) {
	rec := newRecordingGateway(t, func(w io.Writer, head string) {
		switch {
		case strings.HasPrefix(head, "GET gopher://a.example/1/old "):
			fmt.Fprint(w, "HTTP/1.1 302 Found\r\nLocation: gopher://b.example/1/new\r\nContent-Length: 0\r\n\r\n")
		case strings.HasPrefix(head, "GET gopher://a.example/1/away "):
			fmt.Fprint(w, "HTTP/1.1 301 Moved\r\nLocation: gopher://direct.example/1/\r\nContent-Length: 0\r\n\r\n")
		default:
			replyOK(w, head)
		}
	})
	g := every(rec.addr, "gopher")
	g.NoProxy = "direct.example"
	// The stand-in gopher driver below declares nothing (it is not a
	// fetch.FollowChecker): FollowSchemes lets redirects reach it.
	c := &fetch.Client{NetrcFile: "-", Gateway: g.Gateway, FollowSchemes: []string{"gopher"}}
	c.Register("http", &fetchhttp.Driver{})
	var direct []string
	c.Register("gopher", fetch.DriverFunc(func(ctx context.Context, req *fetch.Request) (*fetch.Response, error) {
		direct = append(direct, req.URL.String())
		return &fetch.Response{Kind: fetch.Listing, Length: -1, Body: io.NopCloser(strings.NewReader("menu"))}, nil
	}))
	resp, body := gatewayGet(t, c, "gopher://a.example/1/old")
	if body != "hello, world\n" || resp.URL.String() != "gopher://b.example/1/new" {
		t.Errorf("redirected: %q from %s", body, resp.URL)
	}
	heads := rec.requests()
	if len(heads) != 2 || !strings.HasPrefix(heads[1], "GET gopher://b.example/1/new HTTP/1.1\r\n") {
		t.Errorf("gateway got %q; want the redirect's target second", heads)
	}
	resp, body = gatewayGet(t, c, "gopher://a.example/1/away")
	if body != "menu" || len(direct) != 1 || direct[0] != "gopher://direct.example/1/" {
		t.Errorf("redirect to an exempt host: %q; gopher driver asked %q", body, direct)
	}
}

// The Client's Gateway setting decides for http URLs too: none means
// direct; a gateway for http gets the absolute form. The driver has no
// proxy setting of its own.
func TestGatewayDecidesHTTP_RecordingServer(t *testing.T) {
	rec := newRecordingGateway(t, replyOK)
	origin := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, "origin")
	}))
	defer origin.Close()

	d := &fetchhttp.Driver{}
	defer d.Close()
	c := &fetch.Client{NetrcFile: "-", Gateway: every(rec.addr, "ftp").Gateway}
	c.Register("http", d)
	if _, body := gatewayGet(t, c, origin.URL+"/x"); body != "origin" || len(rec.requests()) != 0 {
		t.Errorf("Client gateway none for http: body %q, gateway got %q; want the origin directly", body, rec.requests())
	}

	c.Gateway = every(rec.addr, "http").Gateway
	if _, body := gatewayGet(t, c, origin.URL+"/y?q=1#f"); body != "hello, world\n" {
		t.Errorf("Client gateway for http: body %q, want the gateway's", body)
	}
	if heads := rec.requests(); len(heads) != 1 || !strings.HasPrefix(heads[0], "GET "+origin.URL+"/y?q=1 HTTP/1.1\r\n") {
		t.Errorf("gateway got %q, want the absolute form of the http URL", heads)
	}

	t.Setenv("http_proxy", "http://"+rec.addr)
	c2 := &fetch.Client{NetrcFile: "-"}
	c2.Register("http", d)
	if _, body := gatewayGet(t, c2, origin.URL+"/z"); body != "origin" || len(rec.requests()) != 1 {
		t.Errorf("no Client gateway, http_proxy set: body %q, gateway got %d requests; want the origin directly", body, len(rec.requests()))
	}
}

// An https:// gateway is an HTTP gateway over TLS: the whole URL goes to
// it inside the TLS session.
func TestGatewayOverTLS_RecordingServer(t *testing.T) {
	var mu sync.Mutex
	var got []string
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		got = append(got, fmt.Sprintf("%s %s Host=%s TLS=%v", r.Method, r.RequestURI, r.Host, r.TLS != nil))
		mu.Unlock()
		fmt.Fprint(w, "over tls\n")
	}))
	defer srv.Close()
	c := &fetch.Client{NetrcFile: "-", TLSConfig: trust(srv)}
	d := &fetchhttp.Driver{}
	defer d.Close()
	c.Register("http", d)
	c.Gateway = (&fetch.Gateways{ByScheme: map[string]string{"gopher": srv.URL}}).Gateway
	if _, body := gatewayGet(t, c, "gopher://gopher.example.org:7070/1/dir"); body != "over tls\n" {
		t.Errorf("through the TLS gateway: %q", body)
	}
	mu.Lock()
	defer mu.Unlock()
	if want := "GET gopher://gopher.example.org:7070/1/dir Host=gopher.example.org:7070 TLS=true"; len(got) != 1 || got[0] != want {
		t.Errorf("the TLS gateway got %q, want %q", got, want)
	}
}

// socks5:// in http_proxy works for http URLs as in net/http: a tunnel to
// the origin, through the Client's dial path, with the request in origin
// form. It cannot take an ftp: URL.
func TestGatewaySOCKSForHTTP_FakeSOCKSServer(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	type seen struct{ target, requestLine string }
	got := make(chan seen, 1)
	done := make(chan struct{})
	go func() {
		defer close(done)
		conn, err := ln.Accept()
		if err != nil {
			return
		}
		defer conn.Close()
		br := bufio.NewReader(conn)
		// RFC 1928: greeting, no authentication, CONNECT by domain name.
		hello := make([]byte, 2)
		if _, err := io.ReadFull(br, hello); err != nil || hello[0] != 5 {
			return
		}
		if _, err := io.ReadFull(br, make([]byte, hello[1])); err != nil {
			return
		}
		conn.Write([]byte{5, 0})
		req := make([]byte, 5)
		if _, err := io.ReadFull(br, req); err != nil || req[1] != 1 || req[3] != 3 {
			return
		}
		name := make([]byte, int(req[4])+2)
		if _, err := io.ReadFull(br, name); err != nil {
			return
		}
		target := fmt.Sprintf("%s:%d", name[:len(name)-2], int(name[len(name)-2])<<8|int(name[len(name)-1]))
		conn.Write([]byte{5, 0, 0, 1, 127, 0, 0, 1, 0, 80})
		line, _ := br.ReadString('\n')
		got <- seen{target, line}
		for l, err := br.ReadString('\n'); err == nil && l != "\r\n"; l, err = br.ReadString('\n') {
		}
		fmt.Fprint(conn, "HTTP/1.1 200 OK\r\nContent-Length: 6\r\nConnection: close\r\n\r\nsocks\n")
	}()
	defer func() { ln.Close(); <-done }()

	var trace []string
	g := &fetch.Gateways{ByScheme: map[string]string{"http": "socks5://" + ln.Addr().String(), "ftp": "socks5://" + ln.Addr().String()}}
	c := gatewayClient(t, g, &trace)
	if _, body := gatewayGet(t, c, "http://origin.example/x?y=1"); body != "socks\n" {
		t.Errorf("http through SOCKS: %q", body)
	}
	select {
	case s := <-got:
		if s.target != "origin.example:80" || s.requestLine != "GET /x?y=1 HTTP/1.1\r\n" {
			t.Errorf("SOCKS server got CONNECT %s and %q; want origin.example:80 and the origin form", s.target, s.requestLine)
		}
	default:
		t.Error("the SOCKS server saw no request")
	}
	if all := strings.Join(trace, "\n"); !strings.Contains(all, "* via gateway socks5://"+ln.Addr().String()) || !strings.Contains(all, "* connecting to "+ln.Addr().String()) {
		t.Errorf("trace lacks the SOCKS gateway and its connection:\n%s", all)
	}
	if _, err := c.Fetch(context.Background(), "ftp://ftp.example.org/x"); !errors.Is(err, fetch.ErrUnsupported) {
		t.Errorf("ftp through SOCKS: %v, want ErrUnsupported", err)
	}
}
