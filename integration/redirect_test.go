//go:build integration

package integration

import (
	"bytes"
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/urlfetch/urlfetch/fetch"
	"github.com/urlfetch/urlfetch/fetch/mailto"
	"github.com/urlfetch/urlfetch/fetch/nntp"
)

// Issue 18: nginx answers 301 and 302 with a Location of every kind (see
// nginx.conf, /redirect/{301,302}/NAME). The Client follows those to
// ftp, gopher, news and nntp, and refuses the rest before it connects to
// anything but nginx: no message through postfix, no session with
// telnetd, no search of zebra, no file read, no program run.

// dialRecord is a DialContext that dials for real and notes each address.
type dialRecord struct {
	mu    sync.Mutex
	addrs []string
}

func (d *dialRecord) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	d.mu.Lock()
	d.addrs = append(d.addrs, addr)
	d.mu.Unlock()
	var nd net.Dialer
	return nd.DialContext(ctx, network, addr)
}

func (d *dialRecord) all() []string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return append([]string(nil), d.addrs...)
}

// maildirCount is the number of messages delivered to dir.
func maildirCount(t *testing.T, dir string) int {
	n := 0
	for _, sub := range []string{"new", "cur"} {
		es, _ := os.ReadDir(filepath.Join(dir, sub))
		n += len(es)
	}
	return n
}

func TestRedirectPolicyAgainstNginx(t *testing.T) {
	hello, _ := os.ReadFile(filepath.Join(env(t, "HTTP_ROOT"), "hello.txt"))
	gopherHello, _ := os.ReadFile(filepath.Join(env(t, "GOPHER_PYGOPHERD_ROOT"), "hello.txt"))
	readme, _ := os.ReadFile(filepath.Join(env(t, "FTP_ANON_ROOT"), "readme.txt"))
	tests := []struct {
		name string
		want func(body []byte) bool // nil: refused
		why  string                 // what the refusal says
	}{
		{"file", nil, "file: URLs"},
		{"mailto", nil, "mailto: URLs"},
		{"telnet", nil, "telnet: URLs"},
		{"rlogin", nil, "rlogin: URLs"},
		{"tn3270", nil, "tn3270: URLs"},
		{"wais", nil, "wais: URLs"},
		{"gopher-data", nil, "data block"},
		{"gopher-ask", nil, "form"},
		{"gopher-search", nil, "without its words"},
		{"gopher", func(b []byte) bool { return bytes.Equal(b, gopherHello) }, ""},
		{"ftp", func(b []byte) bool { return bytes.Equal(b, readme) }, ""},
		{"news", func(b []byte) bool { return bytes.Contains(b, []byte("Message-ID: <hello@urlfetch.test>")) }, ""},
		{"nntp", func(b []byte) bool { return bytes.Contains(b, []byte("Message-ID: <hello@urlfetch.test>")) }, ""},
	}
	nginx := addr(t, "HTTP")
	mails := maildirCount(t, env(t, "MAILDIR"))
	for _, tt := range tests {
		for _, code := range []string{"301", "302"} {
			start := httpBase(t) + "/redirect/" + code + "/" + tt.name
			t.Run(code+"/"+tt.name, func(t *testing.T) {
				c := client(t)
				dr := &dialRecord{}
				c.DialContext = dr.dial
				c.Driver("news").(*nntp.Driver).Server = addr(t, "NNTP")
				m := c.Driver("mailto").(*mailto.Driver)
				m.Server = addr(t, "SMTP")
				m.From = "tester@example.org"
				ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
				defer cancel()
				resp, err := c.Fetch(ctx, start)
				var body []byte
				if err == nil {
					var buf bytes.Buffer
					_, err = buf.ReadFrom(resp.Body)
					resp.Body.Close()
					body = buf.Bytes()
				}
				if tt.want != nil {
					if err != nil || !tt.want(body) {
						t.Errorf("Fetch(%s) = %q, %v; want the target's document", start, body, err)
					}
					return
				}
				msg := ""
				if err != nil {
					msg = err.Error()
				}
				if !errors.Is(err, fetch.ErrUnsafe) || !strings.Contains(msg, "redirect ("+code+" ") || !strings.Contains(msg, tt.why) {
					t.Errorf("Fetch(%s) = %q, %v; want ErrUnsafe naming the redirect and %q", start, body, err, tt.why)
				}
				if bytes.Equal(body, hello) || strings.Contains(msg, strings.TrimSpace(string(hello))) {
					t.Errorf("the file a redirect named was read")
				}
				for _, a := range dr.all() {
					if a != nginx {
						t.Errorf("dialed %s; want nothing but nginx (%s)", a, nginx)
					}
				}
			})
		}
	}
	// postfix delivers within a moment; give a wrongly sent message the
	// time to arrive.
	time.Sleep(time.Second)
	if n := maildirCount(t, env(t, "MAILDIR")); n != mails {
		t.Errorf("%s holds %d messages after the redirects, %d before: a redirect sent mail", env(t, "MAILDIR"), n, mails)
	}
}

// The command refuses a redirect to rlogin: without running the rlogin
// program (a fake one, first in PATH, would leave a mark), and exits 7
// with one line naming both URLs.
func TestRedirectToRloginCommand(t *testing.T) {
	bin := t.TempDir()
	marker := filepath.Join(t.TempDir(), "ran")
	os.WriteFile(filepath.Join(bin, "rlogin"), []byte("#!/bin/sh\ntouch "+marker+"\n"), 0o755)
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	start := httpBase(t) + "/redirect/302/rlogin"
	r := runFetch(t, t.TempDir(), start)
	if r.code != 7 || !strings.Contains(r.stderr, start) || !strings.Contains(r.stderr, "rlogin://tester@") || strings.Count(r.stderr, "\n") != 1 {
		t.Errorf("fetch %s = exit %d, %q; want exit 7 and one line naming both URLs", start, r.code, r.stderr)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Error("a redirect ran the rlogin program")
	}
}
