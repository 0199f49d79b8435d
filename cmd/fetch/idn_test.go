package main

import (
	"bufio"
	"crypto/tls"
	"encoding/pem"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/urlfetch/urlfetch/fetch/fetchtest"
)

// Issue 21, point 5: a URL with a host in Unicode is fetched, its host in
// A-labels on the wire and in Unicode in the messages.

// idnTunnel is a fake HTTP gateway that opens every CONNECT tunnel to a
// TLS server of its own, with a certificate for one host name. It notes
// the CONNECT target, the server name the client sent and the request
// that came through the tunnel.
type idnTunnel struct {
	addr string
	cert tls.Certificate

	mu                     sync.Mutex
	targets, snis, origins []string // CONNECT's, SNI, Host + request target
}

func newIDNTunnel(t *testing.T, cert tls.Certificate) *idnTunnel {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	g := &idnTunnel{addr: ln.Addr().String(), cert: cert}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go g.serve(c)
		}
	}()
	return g
}

func (g *idnTunnel) serve(c net.Conn) {
	defer c.Close()
	connect, err := http.ReadRequest(bufio.NewReader(c))
	if err != nil || connect.Method != http.MethodConnect {
		return
	}
	g.mu.Lock()
	g.targets = append(g.targets, connect.RequestURI)
	g.mu.Unlock()
	io.WriteString(c, "HTTP/1.1 200 Connection established\r\n\r\n")
	tc := tls.Server(c, &tls.Config{
		Certificates: []tls.Certificate{g.cert},
		GetConfigForClient: func(h *tls.ClientHelloInfo) (*tls.Config, error) {
			g.mu.Lock()
			g.snis = append(g.snis, h.ServerName)
			g.mu.Unlock()
			return nil, nil
		},
	})
	if tc.Handshake() != nil {
		return
	}
	req, err := http.ReadRequest(bufio.NewReader(tc))
	if err != nil {
		return
	}
	g.mu.Lock()
	g.origins = append(g.origins, req.Host+" "+req.RequestURI)
	g.mu.Unlock()
	io.WriteString(tc, "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 3\r\nConnection: close\r\n\r\nok\n")
}

func (g *idnTunnel) seen() (targets, snis, origins []string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.targets, g.snis, g.origins
}

func TestIDN_FakeGateway(t *testing.T) {
	const aLabel = "xn--bcher-kva.example"
	cert, _ := fetchtest.SelfSigned(t, aLabel)
	g := newIDNTunnel(t, cert)
	const raw = "https://bücher.example/straße"
	gw := "--gateway=https=http://" + g.addr

	// Untrusted: the error line names the host as written.
	r := fetchCmd(t, "", "", gw, raw)
	want := "fetch: " + raw + ": the certificate of bücher.example is not trusted: "
	if r.code != exitTLS || !strings.HasPrefix(r.stderr, want) || strings.Count(r.stderr, "\n") != 1 {
		t.Errorf("fetch %s = %d %q, want exit %d and one line beginning %q", raw, r.code, r.stderr, exitTLS, want)
	}

	// Trusted: fetched, everything on the wire in A-labels.
	ca := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(ca, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: cert.Certificate[0]}), 0o644); err != nil {
		t.Fatal(err)
	}
	r = fetchCmd(t, "", "", gw, "--cacert", ca, raw)
	if r.code != 0 || r.stdout != "ok\n" {
		t.Errorf("fetch --cacert %s = %d %q %q, want ok", raw, r.code, r.stdout, r.stderr)
	}
	targets, snis, origins := g.seen()
	for _, target := range targets {
		if target != aLabel+":443" {
			t.Errorf("CONNECT %s, want %s:443", target, aLabel)
		}
	}
	for _, sni := range snis {
		if sni != aLabel {
			t.Errorf("SNI %q, want %q", sni, aLabel)
		}
	}
	if len(targets) != 2 || len(snis) != 2 || len(origins) != 1 || origins[0] != aLabel+" /stra%C3%9Fe" {
		t.Errorf("the gateway saw CONNECT %q, SNI %q, requests %q; want two tunnels and %q", targets, snis, origins, aLabel+" /stra%C3%9Fe")
	}
}

// What extract finds in text with IRIs, parse takes, and shows the URI
// it goes on the wire as; a host IDNA refuses is exit 3 with the offset.
func TestIDNParseAndExtract(t *testing.T) {
	r := fetchCmd(t, "", "Bücher: http://bücher.example/straße?q=ü, «http://例え.テスト/»\n", "extract")
	urls := strings.Split(strings.TrimSuffix(r.stdout, "\n"), "\n")
	if r.code != 0 || len(urls) != 2 || urls[0] != "http://bücher.example/straße?q=ü" || urls[1] != "http://例え.テスト/" {
		t.Fatalf("fetch extract = %d %q %q", r.code, r.stdout, r.stderr)
	}
	for _, u := range urls {
		if r := fetchCmd(t, "", "", "parse", u); r.code != 0 {
			t.Errorf("fetch parse %s (from extract) = %d %q", u, r.code, r.stderr)
		}
	}
	r = fetchCmd(t, "", "", "parse", urls[0])
	for _, want := range []string{
		"url          http://bücher.example/straße?q=ü\n",
		"uri          http://xn--bcher-kva.example/stra%C3%9Fe?q=%C3%BC\n",
		"host         bücher.example\n",
		"ascii host   xn--bcher-kva.example\n",
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("fetch parse %s: no %q in\n%s", urls[0], want, r.stdout)
		}
	}

	r = fetchCmd(t, "", "", "parse", "http://例え.⒈テスト/")
	want := "fetch: uri: \"http://例え.⒈テスト/\": at offset 14: host name label \"⒈テスト\" is not a valid international domain name (IDNA: disallowed rune U+2488)\n" +
		"  http://例え.⒈テスト/\n" +
		"              ^\n"
	if r.code != exitURL || r.stderr != want {
		t.Errorf("fetch parse with a bad IDN = %d %q, want %d %q", r.code, r.stderr, exitURL, want)
	}
}
