package http_test

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/urlfetch/urlfetch/fetch"
	"github.com/urlfetch/urlfetch/fetch/fetchtest"
	fetchhttp "github.com/urlfetch/urlfetch/fetch/http"
)

// An https URL through a gateway goes through a tunnel the driver opens
// (CONNECT, SOCKS5) so that its TLS is the Client's; the tunnel through a
// real squid to a real nginx is in integration/https_test.go. These are
// gateways that refuse or break the tunnel.

// tunnelClient is a Client whose every http and https URL goes through
// gw, tracing into log.
func tunnelClient(t *testing.T, gw string, log *fetchtest.TraceLog) *fetch.Client {
	d := &fetchhttp.Driver{}
	t.Cleanup(func() { d.Close() })
	c := newClient(d)
	c.IdleTimeout = 5 * time.Second
	c.Gateway = (&fetch.Gateways{ByScheme: map[string]string{"http": gw, "https": gw}}).Gateway
	c.Trace = log.Add
	return c
}

func TestConnectRefused_ScriptedGateway(t *testing.T) {
	for _, tc := range []struct {
		name  string
		reply string // nothing: close the connection
		kind  error
		says  string
	}{
		{"407", "HTTP/1.1 407 Proxy Authentication Required\r\nProxy-Authenticate: Basic realm=\"gw\"\r\nContent-Length: 0\r\n\r\n", fetch.ErrAuth, "CONNECT origin.example:443: 407 Proxy Authentication Required"},
		{"403", "HTTP/1.1 403 Forbidden\r\n\r\n", fetch.ErrAuth, "403 Forbidden"},
		{"502", "HTTP/1.1 502 Bad Gateway\r\n\r\n", nil, "502 Bad Gateway"},
		{"no status line", "SSH-2.0-OpenSSH_9.6\r\n\r\n", fetch.ErrProtocol, "not a status line"},
		{"bytes after the reply", "HTTP/1.1 200 Connection established\r\n\r\n\x16\x03\x01", fetch.ErrProtocol, "3 bytes came after the reply to CONNECT"},
		{"closed", "", fetch.ErrConnect, "closed the connection"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			heads := make(chan []string, 1)
			addr := fetchtest.ServeOnce(t, func(c net.Conn) {
				h, err := readHead(bufio.NewReader(c))
				if err != nil {
					return
				}
				heads <- h
				io.WriteString(c, tc.reply)
				time.Sleep(100 * time.Millisecond) // the bytes after the reply arrive with it
			})
			log := &fetchtest.TraceLog{}
			c := tunnelClient(t, "http://gwuser:gw-secret@"+addr, log)
			_, err := c.Fetch(context.Background(), "https://origin.example/doc")
			var se *fetchhttp.StatusError
			switch {
			case err == nil || !strings.Contains(err.Error(), tc.says) || !strings.Contains(err.Error(), "gateway http://gwuser:xxxxx@"+addr):
				t.Errorf("error %v; want one naming the gateway and saying %q", err, tc.says)
			case tc.kind != nil && !errors.Is(err, tc.kind):
				t.Errorf("error %v; want %v", err, tc.kind)
			case strings.HasPrefix(tc.name, "4") || strings.HasPrefix(tc.name, "5"):
				if !errors.As(err, &se) {
					t.Errorf("error %v wraps no *StatusError", err)
				}
			}
			want := []string{"CONNECT origin.example:443 HTTP/1.1", "Host: origin.example:443", "Proxy-Authorization: Basic Z3d1c2VyOmd3LXNlY3JldA=="}
			if h := <-heads; strings.Join(h, "\n") != strings.Join(want, "\n") {
				t.Errorf("the gateway got %q, want %q", h, want)
			}
			all := log.String()
			if !strings.Contains(all, "> CONNECT origin.example:443 HTTP/1.1\n> Host: origin.example:443\n> Proxy-Authorization: Basic ***") || strings.Contains(all, "Z3d1c2Vy") {
				t.Errorf("trace:\n%s\nwant the CONNECT request, its credentials masked", all)
			}
			if tc.reply != "" && !strings.Contains(all, "< "+strings.Split(tc.reply, "\r\n")[0]) {
				t.Errorf("trace:\n%s\nwant the gateway's status line", all)
			}
		})
	}
}

// socksGateway is a scripted SOCKS5 server: it takes the methods, asks
// for user and password when it wants them (RFC 1929), takes the CONNECT
// and answers it with rep; on success it answers the HTTP request that
// follows with a small document. The CONNECT request's bytes go to got.
func socksGateway(t *testing.T, method byte, user, pass string, rep byte, got chan<- []byte) string {
	return fetchtest.ServeOnce(t, func(c net.Conn) {
		br := bufio.NewReader(c)
		hello := make([]byte, 2)
		if _, err := io.ReadFull(br, hello); err != nil {
			return
		}
		if _, err := io.ReadFull(br, make([]byte, hello[1])); err != nil {
			return
		}
		c.Write([]byte{5, method})
		switch method {
		case 0xff:
			return
		case 2:
			ver, _ := br.ReadByte()
			n, _ := br.ReadByte()
			u := make([]byte, n)
			io.ReadFull(br, u)
			n, _ = br.ReadByte()
			p := make([]byte, n)
			io.ReadFull(br, p)
			if ver != 1 || string(u) != user || string(p) != pass {
				c.Write([]byte{1, 1})
				return
			}
			c.Write([]byte{1, 0})
		}
		req := make([]byte, 5)
		if _, err := io.ReadFull(br, req); err != nil {
			return
		}
		rest := make([]byte, int(req[4])+2) // a name and the port
		if _, err := io.ReadFull(br, rest); err != nil {
			return
		}
		got <- append(req, rest...)
		c.Write([]byte{5, rep, 0, 3, 4, 'b', 'n', 'd', '.', 0x1f, 0x90}) // bound to a name
		if rep != 0 {
			return
		}
		if _, err := readHead(br); err != nil {
			return
		}
		io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 6\r\nConnection: close\r\n\r\nsocks\n")
	})
}

// RFC 1928 and 1929, as a SOCKS server may answer: a user and password
// when it asks for them, and each refusal in its own kind.
func TestSOCKS_ScriptedGateway(t *testing.T) {
	for _, tc := range []struct {
		name       string
		userinfo   string
		method     byte
		rep        byte
		kind       error
		says       string
		wantOnWire bool // the CONNECT request reached the server
	}{
		{"no auth", "", 0, 0, nil, "", true},
		{"user and password", "gwuser:gw-secret@", 2, 0, nil, "", true},
		{"wrong password", "gwuser:wrong@", 2, 0, fetch.ErrAuth, `refused user "gwuser"`, false},
		{"no acceptable method", "", 0xff, 0, fetch.ErrAuth, "accepts none of the methods", false},
		{"refused", "", 0, 5, fetch.ErrConnect, "connection refused", true},
		{"host unreachable", "", 0, 4, fetch.ErrConnect, "host unreachable", true},
		{"ruleset", "", 0, 2, fetch.ErrAuth, "not allowed by ruleset", true},
		{"unknown reply", "", 0, 0x42, fetch.ErrConnect, "reply code 0x42", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := make(chan []byte, 1)
			user, pass := "gwuser", "gw-secret"
			addr := socksGateway(t, tc.method, user, pass, tc.rep, got)
			log := &fetchtest.TraceLog{}
			c := tunnelClient(t, "socks5://"+tc.userinfo+addr, log)
			resp, err := c.Fetch(context.Background(), "http://origin.example:8080/doc")
			if err == nil {
				b, _ := io.ReadAll(resp.Body)
				resp.Body.Close()
				if string(b) != "socks\n" {
					t.Errorf("body %q", b)
				}
			}
			if tc.kind == nil && err != nil || tc.kind != nil && (!errors.Is(err, tc.kind) || !strings.Contains(err.Error(), tc.says)) {
				t.Errorf("error %v; want %v saying %q", err, tc.kind, tc.says)
			}
			if err != nil && strings.Contains(err.Error(), "gw-secret") {
				t.Errorf("error %v shows the password", err)
			}
			select {
			case b := <-got:
				want := append([]byte{5, 1, 0, 3, byte(len("origin.example"))}, "origin.example\x1f\x90"...)
				if !bytes.Equal(b, want) {
					t.Errorf("CONNECT request % x, want % x", b, want)
				}
			default:
				if tc.wantOnWire {
					t.Error("no CONNECT request reached the server")
				}
			}
		})
	}
}
