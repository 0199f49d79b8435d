package main

import (
	"bytes"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"reflect"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
)

// Issue 21, point 4: -u, -H and a user and password in an http URL, as
// the command reads them. The real-server tests (nginx's Basic
// authentication) are in integration/http_auth_test.go; the servers here
// are in-process fakes that echo what they got.

// echoServer is a fake HTTP server that answers with the request's
// Authorization, X-Test and User-Agent fields, and counts its requests.
func echoServer(t *testing.T) (*httptest.Server, *atomic.Int32) {
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		w.Write([]byte("Authorization: " + r.Header.Get("Authorization") + "\nX-Test: " + strings.Join(r.Header.Values("X-Test"), "|") + "\nUser-Agent: " + r.Header.Get("User-Agent") + "\n"))
	}))
	t.Cleanup(srv.Close)
	return srv, &n
}

func TestParseHeaders(t *testing.T) {
	for _, tt := range []struct {
		in   []string
		want http.Header
	}{
		{nil, nil},
		{[]string{"X-Test: one, two"}, http.Header{"X-Test": {"one, two"}}},
		{[]string{"x-test:tight", "X-TEST:   spaced  \t"}, http.Header{"X-Test": {"tight", "spaced"}}},
		{[]string{"Authorization: Bearer a:b"}, http.Header{"Authorization": {"Bearer a:b"}}},
		{[]string{"User-Agent:"}, http.Header{"User-Agent": {""}}},
		{[]string{"User-Agent:", "User-Agent: mine"}, http.Header{"User-Agent": {"mine"}}},
		{[]string{"Host: virtual.example"}, http.Header{"Host": {"virtual.example"}}},
	} {
		got, err := parseHeaders(tt.in)
		if err != nil || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("parseHeaders(%q) = %v, %v; want %v", tt.in, got, err, tt.want)
		}
	}
	for _, tt := range []struct{ in, want string }{
		{"X-Test: a\r\nX-Evil: b", "X-Test: its value has a CR at byte 1"},
		{"X-Test: a\nX-Evil: b", "X-Test: its value has an LF at byte 1"},
		{"X-Test: a\x00b", "X-Test: its value has a NUL at byte 1"},
		{"X-Test", "-H X-Test: a header field is 'NAME: VALUE'"},
		{"X Test: a", `"X Test": a space at byte 1`},
		{"\r\nX-Test: a", `"\r\nX-Test": a CR at byte 0`},
		{": value", "empty header field name"},
	} {
		_, err := parseHeaders([]string{tt.in})
		if err == nil || !strings.Contains(err.Error(), tt.want) || strings.ContainsAny(err.Error(), "\r\n\x00") {
			t.Errorf("parseHeaders(%q) = %v, want an error of one line saying %q", tt.in, err, tt.want)
		}
	}
}

func TestUserOptionConfigures(t *testing.T) {
	cl, _, err := configureArgs(t)
	if err != nil || cl.Login != nil {
		t.Errorf("no -u: Login %v, %v; want none", cl.Login, err)
	}
	for _, tt := range []struct {
		arg, user, password string
		hasPassword         bool
	}{
		{"joe:pw", "joe", "pw", true},
		{"joe:pw:with:colons@", "joe", "pw:with:colons@", true},
		{"joe:", "joe", "", true},
		{"joe", "joe", "", false},
		{":pw", "", "pw", true},
	} {
		cl, _, err := configureArgs(t, "--user", tt.arg)
		if err != nil || cl.Login == nil {
			t.Errorf("-u %q: Login %v, %v", tt.arg, cl.Login, err)
			continue
		}
		pw, has := cl.Login.Password()
		if cl.Login.Username() != tt.user || pw != tt.password || has != tt.hasPassword {
			t.Errorf("-u %q: user %q, password %q (%v); want %q, %q (%v)", tt.arg, cl.Login.Username(), pw, has, tt.user, tt.password, tt.hasPassword)
		}
	}
}

// -H and -u as a user types them, attached or not, reach the server.
func TestHeaderAndUserOptions_FakeServer(t *testing.T) {
	srv, _ := echoServer(t)
	for _, args := range [][]string{
		{"-H", "X-Test: one", "-HX-Test: two", "-u", "joe:pw"},
		{"-HX-Test: one", "--header=X-Test: two", "-ujoe:pw"},
		{"--header", "X-Test: one", "--header", "X-Test: two", "--user=joe:pw"},
		{srv.URL + "/", "-H", "X-Test: one", "-H", "X-Test: two", "-u", "joe:pw"}, // options after the URL
	} {
		all := append(args, srv.URL+"/")
		if all[0] == srv.URL+"/" {
			all = args
		}
		r := fetchCmd(t, t.TempDir(), "", all...)
		want := "Authorization: Basic am9lOnB3\nX-Test: one|two\nUser-Agent: urlfetch\n"
		if r.code != 0 || r.stdout != want {
			t.Errorf("fetch %q: exit %d, the server saw %q (stderr %q); want %q", all, r.code, r.stdout, r.stderr, want)
		}
	}
	// 'NAME:' sends none of the field.
	r := fetchCmd(t, t.TempDir(), "", "-H", "User-Agent:", srv.URL+"/")
	if r.code != 0 || !strings.Contains(r.stdout, "User-Agent: \n") {
		t.Errorf("-H 'User-Agent:': exit %d, the server saw %q (stderr %q)", r.code, r.stdout, r.stderr)
	}
}

// A bad -H is a usage error, one line naming the field, before anything
// is sent.
func TestHeaderOptionRefused_FakeServer(t *testing.T) {
	srv, n := echoServer(t)
	for _, h := range []string{"X-Test: a\r\nX-Evil: b", "X-Test: a\nX-Evil: b", "X-Test: \x1b[2J", "X-Test", "Bad Name: x"} {
		r := fetchCmd(t, t.TempDir(), "", "-H", h, srv.URL+"/")
		lines := strings.Split(strings.TrimSuffix(r.stderr, "\n"), "\n")
		if r.code != exitUsage || r.stdout != "" || len(lines) != 1 || !strings.Contains(r.stderr, "-H") || !strings.Contains(r.stderr, "see fetch --help") {
			t.Errorf("-H %q: exit %d, stdout %q, stderr %q; want exit 2 and one line naming -H", h, r.code, r.stdout, r.stderr)
		}
		if strings.ContainsAny(r.stderr[:len(r.stderr)-1], "\r\x1b") {
			t.Errorf("-H %q: the error shows the raw bytes: %q", h, r.stderr)
		}
	}
	if n.Load() != 0 {
		t.Errorf("the server got %d requests; a bad -H must stop the run before any", n.Load())
	}
}

// -u USER without a password and without a terminal: exit 5, saying how
// to give it, and nothing sent.
func TestUserWithoutPasswordNoTerminal_FakeServer(t *testing.T) {
	srv, n := echoServer(t)
	cmd := exec.Command(fetchBin, "-u", "joe", srv.URL+"/")
	cmd.Env = append(os.Environ(), "NETRC=/nonexistent-netrc-for-tests")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true} // no controlling terminal
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != exitAuth {
		t.Fatalf("-u joe without a terminal: %v, stderr %q; want exit 5", err, errb.String())
	}
	if !strings.Contains(errb.String(), "-u joe:PASSWORD") || !strings.Contains(errb.String(), "netrc") || out.Len() != 0 {
		t.Errorf("stderr %q, stdout %q; want how to give the password (-u joe:PASSWORD, netrc), nothing on stdout", errb.String(), out.String())
	}
	if n.Load() != 0 {
		t.Errorf("the server got %d requests, want none", n.Load())
	}
}

// A user and password in an http URL work, with one warning line per
// such URL, the password masked; -q silences it.
func TestLoginInHTTPURLWarns_FakeServer(t *testing.T) {
	srv, _ := echoServer(t)
	u := strings.Replace(srv.URL, "http://", "http://joe:s3cret@", 1) + "/"
	r := fetchCmd(t, t.TempDir(), "", u, u, srv.URL+"/")
	if r.code != 0 || strings.Count(r.stdout, "Authorization: Basic am9lOnMzY3JldA==\n") != 2 {
		t.Errorf("two URLs with a login and one without: exit %d, the server saw %q (stderr %q)", r.code, r.stdout, r.stderr)
	}
	lines := strings.Split(strings.TrimSuffix(r.stderr, "\n"), "\n")
	if len(lines) != 2 {
		t.Fatalf("stderr %q: want two warning lines, one per URL with a login", r.stderr)
	}
	for _, l := range lines {
		if !strings.HasPrefix(l, "fetch: warning: http://joe:***@") || !strings.Contains(l, "RFC 1738 section 3.3") || strings.Contains(l, "s3cret") {
			t.Errorf("warning %q: want the URL, its password masked, and RFC 1738 section 3.3", l)
		}
	}
	if r := fetchCmd(t, t.TempDir(), "", "-q", u); r.code != 0 || r.stderr != "" {
		t.Errorf("-q: exit %d, stderr %q; want no warning", r.code, r.stderr)
	}
}

func TestLoginWarning(t *testing.T) {
	for _, tt := range []struct {
		raw  string
		want bool
	}{
		{"http://joe:pw@h/", true},
		{"https://joe@h/", true},
		{"http://@h/", true},
		{"http://h/", false},
		{"ftp://joe:pw@h/", false},
		{"not a url", false},
	} {
		w := loginWarning(tt.raw)
		if (w != "") != tt.want || strings.Contains(w, ":pw@") {
			t.Errorf("loginWarning(%q) = %q, want a warning: %v (the password masked)", tt.raw, w, tt.want)
		}
	}
}
