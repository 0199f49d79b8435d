package http_test

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/urlfetch/urlfetch/fetch"
	fetchhttp "github.com/urlfetch/urlfetch/fetch/http"
	"github.com/urlfetch/urlfetch/uri"
)

// The real-server tests are in integration/http_test.go (nginx, squid).
// These use in-process fake servers for replies no sane server sends.

func newClient(d *fetchhttp.Driver) *fetch.Client {
	c := &fetch.Client{NetrcFile: "-"}
	c.Register("http", d)
	c.Register("https", d)
	return c
}

// trust is the TLS configuration of a Client that trusts srv's
// certificate.
func trust(srv *httptest.Server) *tls.Config {
	pool := x509.NewCertPool()
	pool.AddCert(srv.Certificate())
	return &tls.Config{RootCAs: pool}
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
	c := newClient(&fetchhttp.Driver{})
	c.TLSConfig = trust(srv)
	_, err := c.Fetch(context.Background(), srv.URL+"/x")
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

// A redirect to a scheme whose driver does not declare itself safe to
// follow is refused by the Client, its driver never called; FollowSchemes
// lets it through.
func TestRedirectToOtherScheme_FakeServer(t *testing.T) {
	base := fakeServer(t, func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, "x-other://host/doc", http.StatusFound)
	})
	for _, follow := range []bool{false, true} {
		c := newClient(&fetchhttp.Driver{})
		if follow {
			c.FollowSchemes = []string{"http", "x-other"}
		}
		var asked string
		c.Register("x-other", fetch.DriverFunc(func(ctx context.Context, req *fetch.Request) (*fetch.Response, error) {
			asked = req.URL.String()
			return nil, fetch.Errorf(fetch.ErrNotFound, "x-other: nothing here")
		}))
		_, err := c.Fetch(context.Background(), base+"/x")
		switch {
		case !follow && (asked != "" || !errors.Is(err, fetch.ErrUnsafe) || !strings.Contains(err.Error(), base+"/x to x-other://host/doc")):
			t.Errorf("default policy, redirect to x-other: driver asked %q, error %v; want ErrUnsafe naming both URLs and no call", asked, err)
		case follow && (asked != "x-other://host/doc" || !errors.Is(err, fetch.ErrNotFound) || !strings.Contains(err.Error(), "redirected to x-other://host/doc")):
			t.Errorf("FollowSchemes x-other: driver asked %q, error %v", asked, err)
		}
	}
}

// The driver never follows a redirect itself: Fetch returns it as data,
// the target resolved, and nothing reaches the target.
func TestDriverReturnsRedirect_FakeServer(t *testing.T) {
	target := newListener(t)
	base := fakeServer(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Location", "//"+target.addr+"/next")
		w.WriteHeader(http.StatusSeeOther)
		io.WriteString(w, "see other")
	})
	d := &fetchhttp.Driver{}
	defer d.Close()
	c := newClient(d)
	resp, err := d.Fetch(context.Background(), fetch.NewRequest(c, uri.MustParse(base+"/x#frag")))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	want := "http://" + target.addr + "/next#frag"
	if resp.Kind != fetch.Redirect || resp.Location == nil || resp.Location.String() != want || resp.Status != "303 See Other" || string(b) != "see other" {
		t.Errorf("Driver.Fetch = %v %q to %v, body %q; want a redirect (303 See Other) to %s with its body", resp.Kind, resp.Status, resp.Location, b, want)
	}
	if n := target.accepted(); n != 0 {
		t.Errorf("the redirect's target got %d connections; want none", n)
	}
}

// listener counts the connections made to it.
type listener struct {
	addr string
	n    atomic.Int32
}

func newListener(t *testing.T) *listener {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	l := &listener{addr: ln.Addr().String()}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			l.n.Add(1)
			c.Close()
		}
	}()
	t.Cleanup(func() { ln.Close() })
	return l
}

func (l *listener) accepted() int { return int(l.n.Load()) }

// Issue 23, the sweep: a 206's Content-Range is the server's word on what
// it sent. A range that starts elsewhere than asked is refused (its bytes
// would land at the wrong place of the file); one from 0 is the whole
// resource again; one that stops short of the end is a broken transfer
// (ErrConnect, which --retry resumes), not a complete file. Fake
// servers: nginx answers as asked.
func TestPartialContentRange_FakeServer(t *testing.T) {
	for _, tc := range []struct {
		contentRange, body string
		offset             int64  // Response.Offset
		kind               error  // at Fetch or at the end of the body
		says               string // in the error
	}{
		{"bytes 100-109/110", "0123456789", 100, nil, ""},
		{"bytes 100-109/*", "0123456789", 100, nil, ""},
		{"bytes 0-9/10", "0123456789", 0, nil, ""},
		{"bytes 50-59/60", "0123456789", 0, fetch.ErrProtocol, "sent 50-59"},
		{"bytes 100-109/1000", "0123456789", 100, fetch.ErrConnect, "bytes 100-109 of 1000"},
		{"bytes 109-100/110", "0123456789", 0, fetch.ErrProtocol, "not one range"},
		{"bytes 100-109/100", "0123456789", 0, fetch.ErrProtocol, "not one range"},
		{"bytes -1-9/10", "0123456789", 0, fetch.ErrProtocol, "not one range"},
		{"", "0123456789", 0, fetch.ErrProtocol, "not one range"},
	} {
		base := fakeServer(t, func(w http.ResponseWriter, r *http.Request) {
			if tc.contentRange != "" {
				w.Header().Set("Content-Range", tc.contentRange)
			}
			w.WriteHeader(http.StatusPartialContent)
			io.WriteString(w, tc.body)
		})
		c := newClient(&fetchhttp.Driver{})
		req, _ := c.NewRequest(base + "/f")
		req.Offset = 100
		resp, err := c.Do(context.Background(), req)
		if err == nil {
			_, err = io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.Offset != tc.offset {
				t.Errorf("Content-Range %q: Offset %d, want %d", tc.contentRange, resp.Offset, tc.offset)
			}
		}
		switch {
		case tc.kind == nil && err != nil:
			t.Errorf("Content-Range %q: %v", tc.contentRange, err)
		case tc.kind != nil && (!errors.Is(err, tc.kind) || !strings.Contains(err.Error(), tc.says)):
			t.Errorf("Content-Range %q: %v; want %v saying %q", tc.contentRange, err, tc.kind, tc.says)
		}
	}
}
