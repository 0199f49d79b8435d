package main

import (
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
)

// gatewayRecorder is an in-process HTTP gateway that records the request target
// of each request and answers with a document naming itself. The exact
// bytes of gateway requests are checked in fetch/http/gateway_test.go;
// these tests check which gateway the command chooses.
type gatewayRecorder struct {
	name, addr string
	mu         sync.Mutex
	targets    []string
}

func newGatewayRecorder(t *testing.T, name string) *gatewayRecorder {
	r := &gatewayRecorder{name: name}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		r.mu.Lock()
		r.targets = append(r.targets, req.RequestURI)
		r.mu.Unlock()
		if strings.Contains(req.RequestURI, "missing") {
			http.Error(w, "not here", http.StatusNotFound)
			return
		}
		fmt.Fprintf(w, "from %s\n", name)
	}))
	t.Cleanup(srv.Close)
	r.addr = srv.Listener.Addr().String()
	return r
}

func (r *gatewayRecorder) seen() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.targets...)
}

// fetchWithEnv runs the command with env in place of every *_proxy variable
// (and REQUEST_METHOD) the test process has.
func fetchWithEnv(t *testing.T, env []string, args ...string) result {
	t.Helper()
	cmd := exec.Command(fetchBin, args...)
	cmd.Dir = t.TempDir()
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if !strings.HasSuffix(strings.ToLower(k), "_proxy") && k != "REQUEST_METHOD" {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, "NETRC=/nonexistent-netrc-for-tests")
	cmd.Env = append(cmd.Env, env...)
	return runCmd(t, cmd)
}

// unusedAddr is an address nothing listens on: a direct fetch there fails
// to connect.
func unusedAddr(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	a := ln.Addr().String()
	ln.Close()
	return a
}

func TestGatewaySelection_RecordingServer(t *testing.T) {
	envGW, flagGW := newGatewayRecorder(t, "env"), newGatewayRecorder(t, "flag")
	closed := unusedAddr(t)
	target := "gopher://" + closed + "/1/dir"
	tests := []struct {
		name string
		env  []string
		args []string
		code int
		out  string // "" for a direct fetch, which fails to connect
	}{
		{"gopher_proxy", []string{"gopher_proxy=http://" + envGW.addr}, nil, 0, "from env\n"},
		{"GOPHER_PROXY", []string{"GOPHER_PROXY=" + envGW.addr}, nil, 0, "from env\n"},
		{"lower case first", []string{"gopher_proxy=http://" + envGW.addr, "GOPHER_PROXY=http://" + flagGW.addr}, nil, 0, "from env\n"},
		{"--gateway wins", []string{"gopher_proxy=http://" + envGW.addr}, []string{"--gateway", "gopher=http://" + flagGW.addr}, 0, "from flag\n"},
		{"the last --gateway wins", nil, []string{"--gateway", "gopher=http://" + envGW.addr, "--gateway", "GOPHER=" + flagGW.addr}, 0, "from flag\n"},
		{"--gateway SCHEME= ignores the environment", []string{"gopher_proxy=http://" + envGW.addr}, []string{"--gateway", "gopher="}, exitConnect, ""},
		{"other schemes' gateways", []string{"ftp_proxy=http://" + envGW.addr}, []string{"--gateway", "wais=http://" + flagGW.addr}, exitConnect, ""},
		{"no_proxy", []string{"gopher_proxy=http://" + envGW.addr, "no_proxy=example.org," + closed}, nil, exitConnect, ""},
		{"NO_PROXY *", []string{"GOPHER_PROXY=http://" + envGW.addr, "NO_PROXY=*"}, nil, exitConnect, ""},
		{"no_proxy with --gateway", []string{"no_proxy=127.0.0.1"}, []string{"--gateway", "gopher=http://" + flagGW.addr}, exitConnect, ""},
	}
	for _, tt := range tests {
		before := len(envGW.seen()) + len(flagGW.seen())
		r := fetchWithEnv(t, tt.env, append(tt.args, target)...)
		if r.code != tt.code || r.stdout != tt.out {
			t.Errorf("%s: fetch %q with %q: exit %d, stdout %q, stderr %q; want exit %d, %q", tt.name, tt.args, tt.env, r.code, r.stdout, r.stderr, tt.code, tt.out)
		}
		after := len(envGW.seen()) + len(flagGW.seen())
		if want := map[bool]int{true: 0, false: 1}[tt.out == ""]; after-before != want {
			t.Errorf("%s: the gateways got %d requests, want %d", tt.name, after-before, want)
		}
	}
	for _, g := range []*gatewayRecorder{envGW, flagGW} {
		for _, got := range g.seen() {
			if got != target {
				t.Errorf("gateway %s got request target %q, want %q", g.name, got, target)
			}
		}
	}
}

// A CGI script's HTTP_PROXY may come from a request's "Proxy:" header:
// never used; http_proxy is.
func TestGatewayCGI_RecordingServer(t *testing.T) {
	evil, good := newGatewayRecorder(t, "evil"), newGatewayRecorder(t, "good")
	origin := newGatewayRecorder(t, "origin")
	target := "http://" + origin.addr + "/doc"
	r := fetchWithEnv(t, []string{"REQUEST_METHOD=GET", "HTTP_PROXY=http://" + evil.addr}, target)
	if r.code != 0 || r.stdout != "from origin\n" || len(evil.seen()) != 0 {
		t.Errorf("CGI with HTTP_PROXY: exit %d stdout %q, proxy got %q; want the origin directly", r.code, r.stdout, evil.seen())
	}
	r = fetchWithEnv(t, []string{"REQUEST_METHOD=GET", "http_proxy=http://" + good.addr}, target)
	if r.code != 0 || r.stdout != "from good\n" || len(good.seen()) != 1 || good.seen()[0] != target {
		t.Errorf("CGI with http_proxy: exit %d stdout %q, proxy got %q; want the proxy", r.code, r.stdout, good.seen())
	}
}

// -v shows the gateway and the request, the password masked; an error
// from the gateway has its exit code and no password either.
func TestGatewayTraceAndErrors_RecordingServer(t *testing.T) {
	gw := newGatewayRecorder(t, "gateway")
	raw := "ftp://joe:s3cret-pw@" + unusedAddr(t) + "/pub/file.txt"
	r := fetchWithEnv(t, []string{"ftp_proxy=" + gw.addr}, "-v", raw)
	if r.code != 0 || r.stdout != "from gateway\n" {
		t.Fatalf("fetch -v %s: exit %d stdout %q stderr %q", raw, r.code, r.stdout, r.stderr)
	}
	for _, want := range []string{"* via gateway http://" + gw.addr + "\n", "* connecting to " + gw.addr + "\n", "> GET ftp://joe:***@"} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("-v output lacks %q:\n%s", want, r.stderr)
		}
	}
	if seen := gw.seen(); len(seen) != 1 || seen[0] != raw {
		t.Errorf("gateway got %q, want %q with its password", seen, raw)
	}
	r = fetchWithEnv(t, []string{"ftp_proxy=" + gw.addr}, strings.Replace(raw, "file.txt", "missing.txt", 1))
	if r.code != exitNotFound || !strings.Contains(r.stderr, "404 Not Found") {
		t.Errorf("404 from the gateway: exit %d stderr %q; want %d", r.code, r.stderr, exitNotFound)
	}
	for _, r := range []result{r, fetchWithEnv(t, []string{"ftp_proxy=" + gw.addr}, "-v", raw)} {
		if strings.Contains(r.stderr+r.stdout, "s3cret-pw") {
			t.Errorf("the password shows:\n%s%s", r.stdout, r.stderr)
		}
	}
}

func TestGatewayFlagErrors(t *testing.T) {
	for _, arg := range []string{"gopher", "=http://h:1", "go pher=http://h:1", "1ftp=http://h:1", "ftp=socks5://u:pw-1738@h:1080", "ftp=http://u:pw-1738@h:port", "http://u:pw-1738@h:1"} {
		r := fetchWithEnv(t, nil, "--gateway", arg, "file:///")
		if r.code != exitUsage || !strings.Contains(r.stderr, "--gateway") || strings.Contains(r.stderr, "pw-1738") {
			t.Errorf("--gateway %q: exit %d stderr %q; want %d naming --gateway, without the password", arg, r.code, r.stderr, exitUsage)
		}
	}
	for _, arg := range []string{"http=socks5://127.0.0.1:1080", "https=socks5h://h", "ftp=https://h:3129", "ftp=h:3128", "FTP=", "x-new.scheme+1=http://h"} {
		if r := fetchWithEnv(t, nil, "--gateway", arg, "file:///"); r.code != 0 {
			t.Errorf("--gateway %q: exit %d stderr %q; want it taken", arg, r.code, r.stderr)
		}
	}
	// A bad value in the environment fails the URLs of its scheme only.
	r := fetchWithEnv(t, []string{"gopher_proxy=socks5://u:pw-1738@h:1080"}, "gopher://h/1/")
	if r.code != exitUnsupported || strings.Contains(r.stderr, "pw-1738") || !strings.Contains(r.stderr, "gateway") {
		t.Errorf("socks5 gopher_proxy: exit %d stderr %q; want %d without the password", r.code, r.stderr, exitUnsupported)
	}
}
