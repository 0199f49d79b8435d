package http_test

import (
	"context"
	"crypto/tls"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/urlfetch/urlfetch/fetch/fetchtest"
	fetchhttp "github.com/urlfetch/urlfetch/fetch/http"
)

// Issue 21, point 5: an http or https URL with a host in Unicode goes on
// the wire as its URI: the address dialed, the Host header and TLS's
// server name in A-labels, the path and search in UTF-8 percent-encoded.
// The fake servers note what they got; the Client's DialContext sends
// every connection to them, so no resolver is needed. The Response keeps
// the URL as written.
func TestIDNRequest_FakeServer(t *testing.T) {
	const aLabel = "xn--bcher-kva.example"
	type got struct{ host, uri, sni string }
	var mu sync.Mutex
	var gots []got
	handler := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		g := got{host: r.Host, uri: r.RequestURI}
		if r.TLS != nil {
			g.sni = r.TLS.ServerName
		}
		mu.Lock()
		gots = append(gots, g)
		mu.Unlock()
		io.WriteString(w, "ok")
	})
	plain := httptest.NewServer(handler)
	defer plain.Close()
	secure := httptest.NewUnstartedServer(handler)
	cert, pool := fetchtest.SelfSigned(t, aLabel)
	secure.TLS = &tls.Config{Certificates: []tls.Certificate{cert}}
	secure.StartTLS()
	defer secure.Close()

	var dialed []string
	d := &fetchhttp.Driver{}
	defer d.Close()
	c := newClient(d)
	c.TLSConfig = &tls.Config{RootCAs: pool}
	c.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		mu.Lock()
		dialed = append(dialed, addr)
		mu.Unlock()
		to := plain.Listener.Addr().String()
		if strings.HasSuffix(addr, ":8443") {
			to = secure.Listener.Addr().String()
		}
		return (&net.Dialer{}).DialContext(ctx, network, to)
	}
	for _, tt := range []struct {
		url    string
		dialed string
		want   got
	}{
		{"http://bücher.example:8080/straße?q=ü", aLabel + ":8080", got{aLabel + ":8080", "/stra%C3%9Fe?q=%C3%BC", ""}},
		{"http://b%C3%BCcher.example:8081/", aLabel + ":8081", got{aLabel + ":8081", "/", ""}},
		{"https://bücher.example:8443/ä", aLabel + ":8443", got{aLabel + ":8443", "/%C3%A4", aLabel}},
	} {
		mu.Lock()
		dialed, gots = nil, nil
		mu.Unlock()
		resp, err := c.Fetch(context.Background(), tt.url)
		if err != nil {
			t.Errorf("Fetch(%q): %v", tt.url, err)
			continue
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if string(b) != "ok" || resp.URL.String() != tt.url {
			t.Errorf("Fetch(%q) = %q, URL %s; want ok and the URL as written", tt.url, b, resp.URL)
		}
		mu.Lock()
		if len(dialed) != 1 || dialed[0] != tt.dialed {
			t.Errorf("Fetch(%q) dialed %q, want %q", tt.url, dialed, tt.dialed)
		}
		if len(gots) != 1 || gots[0] != tt.want {
			t.Errorf("Fetch(%q): the server got %+v, want %+v", tt.url, gots, tt.want)
		}
		mu.Unlock()
	}
}

// An http URL through an HTTP gateway: the absolute form, and the Host
// header, in A-labels.
func TestIDNThroughGateway_RecordingServer(t *testing.T) {
	rec := newRecordingGateway(t, replyOK)
	c := gatewayClient(t, every(rec.addr, "http"), nil)
	if _, body := gatewayGet(t, c, "http://bücher.example/straße"); body != "hello, world\n" {
		t.Errorf("body %q", body)
	}
	heads := rec.requests()
	if len(heads) != 1 || !strings.HasPrefix(heads[0], "GET http://xn--bcher-kva.example") ||
		!strings.Contains(heads[0], "/stra%C3%9Fe HTTP/1.1\r\nHost: xn--bcher-kva.example\r\n") {
		t.Errorf("the gateway got %q, want the URL and Host in A-labels, the path encoded", heads)
	}
}

// The password of an IRI goes to a gateway as its URI writes it, encoded
// ("p%C3%A4sse"): the trace masks that form too.
func TestIDNGatewayPasswordMasked_RecordingServer(t *testing.T) {
	rec := newRecordingGateway(t, replyOK)
	var trace []string
	c := gatewayClient(t, every(rec.addr, "ftp"), &trace)
	gatewayGet(t, c, "ftp://jöran:pässe@bücher.example/ä")
	if heads := rec.requests(); len(heads) != 1 || !strings.HasPrefix(heads[0], "GET ftp://j%C3%B6ran:p%C3%A4sse@xn--bcher-kva.example/%C3%A4 ") {
		t.Errorf("the gateway got %q", heads)
	}
	all := strings.Join(trace, "\n")
	if strings.Contains(all, "p%C3%A4sse") || strings.Contains(all, "pässe") || !strings.Contains(all, "GET ftp://j%C3%B6ran:***@xn--bcher-kva.example/%C3%A4") {
		t.Errorf("trace shows the password, or not the masked request line:\n%s", all)
	}
}
