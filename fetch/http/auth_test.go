package http_test

import (
	"context"
	"encoding/base64"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"

	"github.com/urlfetch/urlfetch/fetch"
	"github.com/urlfetch/urlfetch/fetch/fetchtest"
	fetchhttp "github.com/urlfetch/urlfetch/fetch/http"
)

// Issue 21, point 4: Basic credentials (Request.Credentials), the user's
// header fields (Driver.Header), and which of them go to which hop. The
// real-server tests (nginx's Basic authentication) are in
// integration/http_auth_test.go; these use in-process fake servers that
// record what each request carried.

// recorder is a fake server that records the header of each request it
// gets and answers as its handler says.
type recorder struct {
	srv  *httptest.Server
	mu   sync.Mutex
	seen []http.Header // with "Host" set to the request's Host
}

func newRecorder(t *testing.T, tls bool, answer func(w http.ResponseWriter, r *http.Request)) *recorder {
	rec := &recorder{}
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := r.Header.Clone()
		h.Set("Host", r.Host)
		rec.mu.Lock()
		rec.seen = append(rec.seen, h)
		rec.mu.Unlock()
		answer(w, r)
	})
	if tls {
		rec.srv = httptest.NewUnstartedServer(h)
		rec.srv.EnableHTTP2 = true
		rec.srv.StartTLS()
	} else {
		rec.srv = httptest.NewServer(h)
	}
	t.Cleanup(rec.srv.Close)
	return rec
}

// last returns the header of the last request recorded.
func (rec *recorder) last(t *testing.T) http.Header {
	t.Helper()
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if len(rec.seen) == 0 {
		t.Fatalf("%s got no request", rec.srv.URL)
	}
	return rec.seen[len(rec.seen)-1]
}

func ok(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok\n") }

// redirectTo answers with a 302 to the URL of its ?to= argument.
func redirectTo(w http.ResponseWriter, r *http.Request) {
	http.Redirect(w, r, r.URL.Query().Get("to"), http.StatusFound)
}

// fetchAll fetches rawURL with c and reads the body.
func fetchAll(t *testing.T, c *fetch.Client, rawURL string) error {
	t.Helper()
	resp, err := c.Fetch(context.Background(), rawURL)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	_, err = io.ReadAll(resp.Body)
	return err
}

func basic(user, password string) string {
	return "Basic " + base64.StdEncoding.EncodeToString([]byte(user+":"+password))
}

// The credentials of -u and the user's Authorization, Cookie and Host go
// to the user's server, and on a redirect to that server again, never to
// another (another port is another server); the user's other fields go
// everywhere.
func TestHeadersOnHops_FakeServer(t *testing.T) {
	origin := newRecorder(t, false, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/redirect" {
			redirectTo(w, r)
			return
		}
		ok(w, r)
	})
	other := newRecorder(t, false, ok)
	for _, tc := range []struct {
		name   string
		login  *url.Userinfo
		header http.Header
		want   string // the Authorization the user's server gets
	}{
		{"-u", url.UserPassword("joe", "pw:1"), http.Header{"Cookie": {"c=1"}, "X-Test": {"kept"}}, basic("joe", "pw:1")},
		{"-H Authorization", nil, http.Header{"Authorization": {"Bearer tok"}, "Cookie": {"c=1"}, "X-Test": {"kept"}}, "Bearer tok"},
		{"-H Authorization over -u", url.UserPassword("joe", "pw"), http.Header{"Authorization": {"Bearer tok"}, "Cookie": {"c=1"}, "X-Test": {"kept"}}, "Bearer tok"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := &fetchhttp.Driver{Header: tc.header}
			defer d.Close()
			c := newClient(d)
			c.Login = tc.login
			log := &fetchtest.TraceLog{}
			c.Trace = log.Add

			// The same server: everything goes along.
			if err := fetchAll(t, c, origin.srv.URL+"/redirect?to=/final"); err != nil {
				t.Fatal(err)
			}
			h := origin.last(t)
			if h.Get("Authorization") != tc.want || h.Get("Cookie") != "c=1" || h.Get("X-Test") != "kept" {
				t.Errorf("redirect on the user's server: it got Authorization %q, Cookie %q, X-Test %q; want %q, c=1, kept", h.Get("Authorization"), h.Get("Cookie"), h.Get("X-Test"), tc.want)
			}

			// Another server: neither credentials nor cookies.
			if err := fetchAll(t, c, origin.srv.URL+"/redirect?to="+url.QueryEscape(other.srv.URL+"/x")); err != nil {
				t.Fatal(err)
			}
			first := origin.last(t)
			if first.Get("Authorization") != tc.want {
				t.Errorf("the user's URL got Authorization %q, want %q", first.Get("Authorization"), tc.want)
			}
			h = other.last(t)
			if h.Get("Authorization") != "" || h.Get("Cookie") != "" || h.Get("X-Test") != "kept" {
				t.Errorf("redirect to another server: it got Authorization %q, Cookie %q, X-Test %q; want none, none, kept", h.Get("Authorization"), h.Get("Cookie"), h.Get("X-Test"))
			}
			if !strings.Contains(log.String(), "not sending your Cookie header field") {
				t.Errorf("the trace does not say the Cookie stayed behind:\n%s", log)
			}
		})
	}
}

// -H 'Host: x' replaces the Host, on the user's server only; 'NAME:'
// sends no such field, not even the driver's own User-Agent.
func TestHeaderHostAndRemoval_FakeServer(t *testing.T) {
	origin := newRecorder(t, false, func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/redirect" {
			redirectTo(w, r)
			return
		}
		ok(w, r)
	})
	other := newRecorder(t, false, ok)
	d := &fetchhttp.Driver{Header: http.Header{"Host": {"virtual.example"}, "User-Agent": {""}, "Accept": {"text/plain", "text/html"}}}
	defer d.Close()
	c := newClient(d)
	if err := fetchAll(t, c, origin.srv.URL+"/x"); err != nil {
		t.Fatal(err)
	}
	h := origin.last(t)
	if h.Get("Host") != "virtual.example" || len(h.Values("User-Agent")) != 0 || strings.Join(h.Values("Accept"), ",") != "text/plain,text/html" {
		t.Errorf("the server got Host %q, User-Agent %q, Accept %q; want virtual.example, none, both values", h.Get("Host"), h.Values("User-Agent"), h.Values("Accept"))
	}
	if err := fetchAll(t, c, origin.srv.URL+"/redirect?to="+url.QueryEscape(other.srv.URL+"/x")); err != nil {
		t.Fatal(err)
	}
	if h := other.last(t); h.Get("Host") != strings.TrimPrefix(other.srv.URL, "http://") {
		t.Errorf("another server got Host %q, want its own name", h.Get("Host"))
	}
}

// The trace masks the Authorization header, over HTTP/1.1 and HTTP/2
// (lower-case names), and the password of -u is masked in every line,
// errors included.
func TestTraceMasksCredentials_FakeServer(t *testing.T) {
	const password = "s3cret-Pw"
	for _, h2 := range []bool{false, true} {
		srv := newRecorder(t, h2, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("WWW-Authenticate", `Basic realm="x"`)
			w.WriteHeader(http.StatusUnauthorized)
		})
		d := &fetchhttp.Driver{}
		defer d.Close()
		c := newClient(d)
		if h2 {
			c.TLSConfig = trust(srv.srv)
		}
		c.Login = url.UserPassword("joe", password)
		log := &fetchtest.TraceLog{}
		c.Trace = log.Add
		err := fetchAll(t, c, srv.srv.URL+"/x")
		if !errors.Is(err, fetch.ErrAuth) {
			t.Fatalf("401: error %v, want ErrAuth", err)
		}
		got := srv.last(t).Get("Authorization")
		if got != basic("joe", password) {
			t.Errorf("the server got Authorization %q, want %q", got, basic("joe", password))
		}
		trace := log.String()
		if !strings.Contains(strings.ToLower(trace), "> authorization: basic ***\n") {
			t.Errorf("HTTP/2 %v: the trace shows no masked Authorization:\n%s", h2, trace)
		}
		for _, leak := range []string{password, strings.TrimPrefix(got, "Basic ")} {
			if strings.Contains(trace, leak) || strings.Contains(err.Error(), leak) {
				t.Errorf("HTTP/2 %v: %q shows in the trace or the error %q:\n%s", h2, leak, err, trace)
			}
		}
	}
}

// A 401 says what went and what to do: how to give credentials when none
// went, whose password was refused when some did, and the scheme the
// server asks for when it is not Basic.
func TestUnauthorizedMessages_FakeServer(t *testing.T) {
	srv := newRecorder(t, false, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/redirect":
			redirectTo(w, r)
			return
		case "/digest":
			w.Header().Set("WWW-Authenticate", `Digest realm="x", nonce="1"`)
		case "/hostile":
			w.Header().Set("WWW-Authenticate", "B\xc3\xa4sic realm=x")
		default:
			w.Header().Set("WWW-Authenticate", `Basic realm="x"`)
		}
		w.WriteHeader(http.StatusUnauthorized)
	})
	other := newRecorder(t, false, func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusUnauthorized) })
	for _, tc := range []struct {
		login *url.Userinfo
		path  string
		want  []string
		not   []string
	}{
		{nil, "/basic", []string{"401", "-u USER:PASSWORD", "netrc"}, []string{"Digest"}},
		{url.UserPassword("joe", "pw"), "/basic", []string{"401", "refused the password of joe"}, []string{"-u USER"}},
		{nil, "/digest", []string{"401", "-u USER", "Digest authentication", "only Basic"}, nil},
		{nil, "/hostile", []string{"another authentication than Basic"}, []string{"\xc3"}},
		{url.UserPassword("joe", "pw"), "/redirect?to=" + url.QueryEscape(other.srv.URL+"/x"), []string{"401", "no credentials go to it", "another server"}, []string{"refused the password"}},
	} {
		c := newClient(&fetchhttp.Driver{})
		c.Login = tc.login
		err := fetchAll(t, c, srv.srv.URL+tc.path)
		if !errors.Is(err, fetch.ErrAuth) {
			t.Errorf("%s: error %v, want ErrAuth", tc.path, err)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s (login %v): error %q does not say %q", tc.path, tc.login != nil, err, w)
			}
		}
		for _, w := range tc.not {
			if strings.Contains(err.Error(), w) {
				t.Errorf("%s (login %v): error %q says %q", tc.path, tc.login != nil, err, w)
			}
		}
	}
}

// Through an HTTP proxy the Authorization is the origin's: it goes in
// the request the proxy forwards. The fake proxy answers itself and
// records the request.
func TestBasicThroughGateway_FakeServer(t *testing.T) {
	proxy := newRecorder(t, false, ok)
	c := newClient(&fetchhttp.Driver{})
	c.Gateway = (&fetch.Gateways{ByScheme: map[string]string{"http": proxy.srv.URL}}).Gateway
	c.Login = url.UserPassword("joe", "pw")
	if err := fetchAll(t, c, "http://origin.example/x"); err != nil {
		t.Fatal(err)
	}
	h := proxy.last(t)
	if h.Get("Authorization") != basic("joe", "pw") || !strings.HasPrefix(h.Get("Host"), "origin.example") {
		t.Errorf("the gateway got Authorization %q for Host %q; want the origin's credentials", h.Get("Authorization"), h.Get("Host"))
	}
	if h.Get("Proxy-Authorization") != "" {
		t.Errorf("the origin's credentials went as Proxy-Authorization %q", h.Get("Proxy-Authorization"))
	}
}

func TestCheckHeader(t *testing.T) {
	for _, tt := range []struct {
		name, value string
		want        string // in the error; "" for none
	}{
		{"X-Test", "a value, with commas; and \"quotes\"\tand a tab", ""},
		{"Cookie", "", ""},
		{"X-Test", "a\r\nX-Evil: 1", "a CR at byte 1"},
		{"X-Test", "a\nb", "an LF at byte 1"},
		{"X-Test", "a\x00b", "a NUL at byte 1"},
		{"X-Test", "a\x1bb", "control byte 0x1b"},
		{"X-Test", "a\x7f", "control byte 0x7f"},
		{"", "x", "empty header field name"},
		{"Bad Name", "x", "a space at byte 3"},
		{"Bad:Name", "x", `":" at byte 3`},
		{"X\r\nEvil", "x", "a CR at byte 1"},
		{"Ünicode", "x", "the byte 0xc3"},
	} {
		err := fetchhttp.CheckHeader(tt.name, tt.value)
		switch {
		case tt.want == "" && err != nil:
			t.Errorf("CheckHeader(%q, %q) = %v, want nil", tt.name, tt.value, err)
		case tt.want != "" && (err == nil || !strings.Contains(err.Error(), tt.want)):
			t.Errorf("CheckHeader(%q, %q) = %v, want an error saying %q", tt.name, tt.value, err, tt.want)
		}
	}
}
