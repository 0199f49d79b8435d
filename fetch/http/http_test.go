package http_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/urlfetch/urlfetch/fetch"
	fetchhttp "github.com/urlfetch/urlfetch/fetch/http"
)

// The real-server tests are in integration/http_test.go (nginx, squid).
// These use in-process fake servers for replies no sane server sends.

func newClient(d *fetchhttp.Driver) *fetch.Client {
	c := &fetch.Client{NetrcFile: "-"}
	c.Register("http", d)
	c.Register("https", d)
	return c
}

func fakeServer(t *testing.T, h http.HandlerFunc) string {
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv.URL
}

func TestRedirectToBadPortRefused_FakeServer(t *testing.T) {
	base := fakeServer(t, func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "http://127.0.0.1:25/mail", http.StatusFound)
	})
	c := newClient(&fetchhttp.Driver{})
	_, err := c.Fetch(context.Background(), base+"/x")
	if !errors.Is(err, fetch.ErrUnsafe) || !strings.Contains(err.Error(), "port 25") {
		t.Errorf("redirect to port 25: error %v, want ErrUnsafe naming port 25", err)
	}
}

func TestDowngradeRefused_FakeServer(t *testing.T) {
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "http://127.0.0.1:8/plain", http.StatusMovedPermanently)
	}))
	defer srv.Close()
	d := &fetchhttp.Driver{TLSConfig: srv.Client().Transport.(*http.Transport).TLSClientConfig}
	_, err := newClient(d).Fetch(context.Background(), srv.URL+"/x")
	if !errors.Is(err, fetch.ErrUnsafe) || !strings.Contains(err.Error(), "from https") {
		t.Errorf("https to http redirect: error %v, want ErrUnsafe", err)
	}
}

func TestBadLocation_FakeServer(t *testing.T) {
	base := fakeServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Location", "http://[::1/broken")
		w.WriteHeader(http.StatusFound)
	})
	_, err := newClient(&fetchhttp.Driver{}).Fetch(context.Background(), base+"/x")
	if !errors.Is(err, fetch.ErrProtocol) || !strings.Contains(err.Error(), "bad Location") {
		t.Errorf("bad Location: error %v, want ErrProtocol", err)
	}
}

func TestRedirectToOtherSchemeGoesThroughClient_FakeServer(t *testing.T) {
	base := fakeServer(t, func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "x-other://host/doc", http.StatusFound)
	})
	c := newClient(&fetchhttp.Driver{})
	var asked string
	c.Register("x-other", fetch.DriverFunc(func(ctx context.Context, req *fetch.Request) (*fetch.Response, error) {
		asked = req.URL.String()
		return nil, fetch.Errorf(fetch.ErrNotFound, "x-other: nothing here")
	}))
	_, err := c.Fetch(context.Background(), base+"/x")
	if asked != "x-other://host/doc" || !errors.Is(err, fetch.ErrNotFound) {
		t.Errorf("redirect to x-other: driver asked %q, error %v", asked, err)
	}
}
