//go:build integration

package integration

import (
	"context"
	"errors"
	"net"
	"strings"
	"sync"
	"testing"

	"github.com/urlfetch/urlfetch/fetch"
)

// Issue 21, point 5: a URL with a host in Unicode, against the real
// nginx. No resolver knows bücher.example: the Client's DialContext
// sends its A-labels to nginx's address, and notes what was dialed.
func TestIDNAgainstNginx(t *testing.T) {
	const aLabel = "xn--bcher-kva.example"
	httpAddr, httpsAddr := addr(t, "HTTP"), addr(t, "HTTPS")
	_, httpPort, _ := net.SplitHostPort(httpAddr)
	_, httpsPort, _ := net.SplitHostPort(httpsAddr)

	c := client(t)
	var mu sync.Mutex
	var dialed []string
	c.DialContext = func(ctx context.Context, network, a string) (net.Conn, error) {
		mu.Lock()
		dialed = append(dialed, a)
		mu.Unlock()
		to := a
		switch a {
		case aLabel + ":" + httpPort:
			to = httpAddr
		case aLabel + ":" + httpsPort:
			to = httpsAddr
		}
		return (&net.Dialer{}).DialContext(ctx, network, to)
	}
	c.CheckRedirect = func(*fetch.Request, []*fetch.Request) error { return fetch.ErrUseLastResponse }

	// The path and search go as UTF-8, percent-encoded: nginx's
	// /echo answers with the request line it got.
	raw := "http://bücher.example:" + httpPort + "/echo/straße?q=ü"
	resp, body := get(t, c, raw)
	if want := "GET /echo/stra%C3%9Fe?q=%C3%BC HTTP/1.1\n"; string(body) != want {
		t.Errorf("%s: nginx saw %q, want %q", raw, body, want)
	}
	if resp.URL.String() != raw {
		t.Errorf("%s: Response.URL %s, want the URL as written", raw, resp.URL)
	}
	mu.Lock()
	if len(dialed) != 1 || dialed[0] != aLabel+":"+httpPort {
		t.Errorf("%s: dialed %q, want %s:%s", raw, dialed, aLabel, httpPort)
	}
	mu.Unlock()

	// nginx builds an absolute redirect from the Host header it got.
	raw = "http://bücher.example:" + httpPort + "/redirect/302"
	resp, _ = get(t, c, raw)
	if want := "http://" + aLabel + ":" + httpPort + "/hello.txt"; resp.Kind != fetch.Redirect || resp.Location == nil || resp.Location.String() != want {
		t.Errorf("%s: %v to %v, want a redirect to %s (the Host header in A-labels)", raw, resp.Kind, resp.Location, want)
	}

	// TLS: nginx's certificate names localhost, so a check by the name
	// fails, and says which: the A-labels were verified, the message
	// names the host as written.
	raw = "https://bücher.example:" + httpsPort + "/hello.txt"
	_, err := c.Fetch(context.Background(), raw)
	var ce *fetch.CertificateError
	if !errors.As(err, &ce) || ce.Host != "bücher.example" || !strings.Contains(ce.Err.Error(), aLabel) {
		t.Errorf("%s: error %v, want a CertificateError for bücher.example whose check was of %s", raw, err, aLabel)
	}
}
