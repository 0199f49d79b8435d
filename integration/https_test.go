//go:build integration

package integration

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/urlfetch/urlfetch/fetch"
	fetchhttp "github.com/urlfetch/urlfetch/fetch/http"
)

// Issue 20: https against the harness's nginx over TLS (HTTP/2, gzip for
// text/plain, /client-cert/ behind a client certificate), with the test
// CA of servers.env; the CONNECT tunnel through the harness's squid.

func httpsBase(t testing.TB) string { return "https://" + addr(t, "HTTPS") }

// helloFile is the harness's hello.txt, which both nginx servers serve.
func helloFile(t testing.TB) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(env(t, "HTTP_ROOT"), "hello.txt"))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// The 64 MiB file over HTTP/2 through the command: its bytes, and a
// peak RSS under the bound (issue 24, point 6: net/http's 4 MiB window
// a stream had taken it to 19 MiB).
func TestHTTPSBigFileStreams(t *testing.T) {
	checkBigFile(t, httpsBase(t)+"/big.bin")
}

// An https fetch speaks HTTP/2 (ALPN h2) when nginx offers it; the trace
// shows the TLS session (version, cipher, ALPN, the certificate's subject
// and issuer), the request's pseudo-header fields as sent, and the
// reply's :status.
func TestHTTPSNegotiatesH2(t *testing.T) {
	c, log := traceClient(t)
	c.TLSConfig = testTLS(t)
	resp, body := get(t, c, httpsBase(t)+"/hello.txt")
	if want := helloFile(t); !bytes.Equal(body, want) || resp.Length != int64(len(want)) {
		t.Errorf("body %q (Length %d), want %q", body, resp.Length, want)
	}
	all := log.String()
	for _, want := range []string{
		"* TLS: TLS 1.",
		", ALPN h2",
		"* TLS certificate: subject \"",
		"> :method: GET",
		"> :path: /hello.txt",
		"> :scheme: https",
		"< :status: 200",
		"< content-type: text/plain",
	} {
		if !strings.Contains(all, want) {
			t.Errorf("trace lacks %q:\n%s", want, all)
		}
	}
	// The command says the same with -v.
	r := execFetch(t, t.TempDir(), "", "-v", "--cacert", env(t, "TLS_CA"), httpsBase(t)+"/hello.txt")
	if r.code != 0 || r.stdout != string(helloFile(t)) || !strings.Contains(r.stderr, ", ALPN h2") || !strings.Contains(r.stderr, "< :status: 200") {
		t.Errorf("fetch -v --cacert: exit %d, stdout %q, stderr:\n%s", r.code, r.stdout, r.stderr)
	}
	// With Go's HTTP/2 client turned off (GODEBUG=http2client=0), h2 is
	// not offered: the same fetch goes over HTTP/1.1.
	r = execFetchEnv(t, t.TempDir(), "", []string{"GODEBUG=http2client=0"}, "-v", "--cacert", env(t, "TLS_CA"), httpsBase(t)+"/hello.txt")
	if r.code != 0 || r.stdout != string(helloFile(t)) || !strings.Contains(r.stderr, ", ALPN http/1.1") || !strings.Contains(r.stderr, "< HTTP/1.1 200") {
		t.Errorf("GODEBUG=http2client=0 fetch -v: exit %d, stdout %q, stderr:\n%s", r.code, r.stdout, r.stderr)
	}
}

// A certificate of a CA the Client does not trust: exit 11, naming the
// host and how to trust it; the library's error is a CertificateError.
func TestHTTPSUntrusted(t *testing.T) {
	r := execFetch(t, t.TempDir(), "", httpsBase(t)+"/hello.txt")
	if r.code != 11 || r.stdout != "" {
		t.Errorf("fetch of an untrusted server: exit %d, stdout %q; want 11 and nothing", r.code, r.stdout)
	}
	for _, want := range []string{"127.0.0.1", "--cacert", "-k"} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("the message lacks %q: %s", want, r.stderr)
		}
	}
	c := client(t)
	c.TLSConfig = nil // the system's roots, which do not hold the test CA
	_, err := c.Fetch(context.Background(), httpsBase(t)+"/hello.txt")
	var ce *fetch.CertificateError
	if !errors.As(err, &ce) || ce.Host != "127.0.0.1" || fetch.Class(err) != fetch.ErrTLS {
		t.Errorf("Fetch: %v; want a CertificateError for 127.0.0.1 of class ErrTLS", err)
	}
}

// --cacert FILE, --capath DIR and -k each make the fetch work.
func TestHTTPSTrust(t *testing.T) {
	dir := t.TempDir()
	ca, err := os.ReadFile(env(t, "TLS_CA"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "test-ca.pem"), ca, 0o644); err != nil {
		t.Fatal(err)
	}
	want := string(helloFile(t))
	for _, args := range [][]string{
		{"--cacert", env(t, "TLS_CA")},
		{"--capath", dir},
		{"-k"},
		{"--insecure"},
	} {
		r := execFetch(t, t.TempDir(), "", append(args, httpsBase(t)+"/hello.txt")...)
		if r.code != 0 || r.stdout != want {
			t.Errorf("fetch %s: exit %d, stdout %q: %s", strings.Join(args, " "), r.code, r.stdout, r.stderr)
		}
	}
}

// --cert and --key present the client certificate: /client-cert/ answers
// with its subject; without them, 403 (exit 5).
func TestHTTPSClientCertificate(t *testing.T) {
	subject := env(t, "TLS_CLIENT_SUBJECT")
	url := httpsBase(t) + "/client-cert/"
	r := execFetch(t, t.TempDir(), "", "--cacert", env(t, "TLS_CA"), "--cert", env(t, "TLS_CLIENT_CERT"), "--key", env(t, "TLS_CLIENT_KEY"), url)
	if r.code != 0 || !strings.Contains(r.stdout, subject) {
		t.Errorf("fetch --cert --key %s: exit %d, stdout %q (want the subject %s): %s", url, r.code, r.stdout, subject, r.stderr)
	}
	r = execFetch(t, t.TempDir(), "", "--cacert", env(t, "TLS_CA"), url)
	if r.code != 5 || !strings.Contains(r.stderr, "403") {
		t.Errorf("fetch %s without a client certificate: exit %d, %s; want 5 (403)", url, r.code, r.stderr)
	}
}

// --compressed: nginx gzips the text file (the trace shows both sides of
// it), and the output is the file's bytes. Without it, no Accept-Encoding
// and no gzip.
func TestHTTPSCompressed(t *testing.T) {
	want := string(helloFile(t))
	r := execFetch(t, t.TempDir(), "", "-v", "--compressed", "--cacert", env(t, "TLS_CA"), httpsBase(t)+"/hello.txt")
	if r.code != 0 || r.stdout != want {
		t.Errorf("fetch --compressed: exit %d, stdout %q, want %q: %s", r.code, r.stdout, want, r.stderr)
	}
	if !strings.Contains(r.stderr, "> accept-encoding: gzip") || !strings.Contains(r.stderr, "< content-encoding: gzip") {
		t.Errorf("fetch -v --compressed: the trace shows no gzip asked for and sent:\n%s", r.stderr)
	}
	r = execFetch(t, t.TempDir(), "", "-v", "--cacert", env(t, "TLS_CA"), httpsBase(t)+"/hello.txt")
	if r.code != 0 || r.stdout != want || strings.Contains(r.stderr, "accept-encoding") || strings.Contains(r.stderr, "content-encoding") {
		t.Errorf("fetch without --compressed: exit %d, stdout %q, stderr:\n%s", r.code, r.stdout, r.stderr)
	}

	// The library: the Response is the document, of unknown length.
	c := &fetch.Client{NetrcFile: "-", TLSConfig: testTLS(t)}
	c.Register("https", &fetchhttp.Driver{Compressed: true})
	t.Cleanup(func() { c.Close() })
	resp, body := get(t, c, httpsBase(t)+"/hello.txt")
	if string(body) != want || resp.Length != -1 || resp.Meta.Get("Content-Encoding") != "" {
		t.Errorf("Compressed: body %q, Length %d, Meta %v; want the file, -1, no Content-Encoding", body, resp.Length, resp.Meta)
	}
}

// -v shows the reply's header lines in the order nginx sent them: the
// same order as a raw read of the same reply over a plain socket.
func TestHTTPTraceHeaderOrder(t *testing.T) {
	a := addr(t, "HTTP")
	conn, err := net.DialTimeout("tcp", a, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(10 * time.Second))
	io.WriteString(conn, "GET /hello.txt HTTP/1.1\r\nHost: "+a+"\r\nUser-Agent: urlfetch\r\n\r\n")
	br := bufio.NewReader(conn)
	var raw []string
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			t.Fatalf("reading the reply's head: %v", err)
		}
		line = strings.TrimRight(line, "\r\n")
		if line == "" {
			break
		}
		raw = append(raw, line)
	}

	r := runFetch(t, t.TempDir(), "-v", "http://"+a+"/hello.txt")
	if r.code != 0 {
		t.Fatalf("fetch -v: exit %d: %s", r.code, r.stderr)
	}
	var traced []string
	for _, line := range strings.Split(r.stderr, "\n") {
		if l, ok := strings.CutPrefix(line, "< "); ok {
			traced = append(traced, l)
		}
	}
	// The Date may have moved on a second; the rest is byte for byte.
	mask := func(lines []string) string {
		var b strings.Builder
		for _, l := range lines {
			if strings.HasPrefix(l, "Date: ") {
				l = "Date: ..."
			}
			b.WriteString(l + "\n")
		}
		return b.String()
	}
	if len(raw) < 5 || mask(traced) != mask(raw) {
		t.Errorf("fetch -v shows the reply's head as\n%s\nnginx sent\n%s", mask(traced), mask(raw))
	}
}

// An https URL through an HTTP gateway (https_proxy, squid): a CONNECT
// tunnel, traced, and TLS to nginx inside it with the Client's settings:
// trusted by the test CA it works (HTTP/2 and all); without it, it is the
// CertificateError of a direct fetch.
func TestHTTPSThroughSquid(t *testing.T) {
	t.Setenv("https_proxy", "http://"+addr(t, "SQUID"))
	t.Setenv("no_proxy", "")
	target := strings.TrimPrefix(httpsBase(t), "https://")
	logged := func() int {
		log, _ := os.ReadFile(env(t, "SQUID_ACCESS_LOG"))
		return bytes.Count(log, []byte(" CONNECT "+target+" "))
	}
	before := logged()

	c, log := traceClient(t)
	c.TLSConfig = testTLS(t)
	_, body := get(t, c, httpsBase(t)+"/hello.txt")
	if !bytes.Equal(body, helloFile(t)) {
		t.Errorf("through squid: body %q", body)
	}
	all := log.String()
	for _, want := range []string{
		"* via gateway http://" + env(t, "SQUID"),
		"> CONNECT " + target + " HTTP/1.1",
		"< HTTP/1.1 200 ",
		", ALPN h2",
		"< :status: 200",
	} {
		if !strings.Contains(all, want) {
			t.Errorf("trace lacks %q:\n%s", want, all)
		}
	}

	untrusting := client(t)
	untrusting.TLSConfig = nil // the system's roots, which do not hold the test CA
	_, err := untrusting.Fetch(context.Background(), httpsBase(t)+"/hello.txt")
	var ce *fetch.CertificateError
	if !errors.As(err, &ce) || ce.Host != "127.0.0.1" {
		t.Errorf("through squid, untrusted: %v; want a CertificateError for 127.0.0.1", err)
	}

	// squid logs a tunnel when it closes.
	c.Close()
	deadline := time.Now().Add(5 * time.Second)
	for logged() < before+2 {
		if time.Now().After(deadline) {
			t.Fatalf("squid's access log shows %d CONNECT %s, want 2 more than %d", logged(), target, before)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// An https URL through a SOCKS5 gateway: the tunnel is the driver's, the
// TLS inside it the Client's. The harness has no SOCKS server: this one
// relays to the address asked for, here the real nginx.
func TestHTTPSThroughSOCKS(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go socksRelay(c)
		}
	}()
	c, log := traceClient(t)
	c.TLSConfig = testTLS(t)
	c.Gateway = (&fetch.Gateways{ByScheme: map[string]string{"https": "socks5://" + ln.Addr().String()}}).Gateway
	_, body := get(t, c, httpsBase(t)+"/hello.txt")
	if !bytes.Equal(body, helloFile(t)) {
		t.Errorf("through SOCKS: body %q", body)
	}
	if all := log.String(); !strings.Contains(all, "* SOCKS5 CONNECT "+env(t, "HTTPS")) || !strings.Contains(all, ", ALPN h2") {
		t.Errorf("trace lacks the SOCKS tunnel or the TLS session inside it:\n%s", all)
	}
}

// socksRelay serves one SOCKS5 connection without authentication (RFC
// 1928): CONNECT to an IPv4 address or a name, then bytes both ways.
func socksRelay(c net.Conn) {
	defer c.Close()
	c.SetDeadline(time.Now().Add(30 * time.Second))
	br := bufio.NewReader(c)
	hello := make([]byte, 2)
	if _, err := io.ReadFull(br, hello); err != nil {
		return
	}
	if _, err := io.ReadFull(br, make([]byte, hello[1])); err != nil {
		return
	}
	c.Write([]byte{5, 0})
	req := make([]byte, 4)
	if _, err := io.ReadFull(br, req); err != nil {
		return
	}
	var host string
	switch req[3] {
	case 1:
		ip := make([]byte, 4)
		io.ReadFull(br, ip)
		host = net.IP(ip).String()
	case 3:
		n, _ := br.ReadByte()
		name := make([]byte, n)
		io.ReadFull(br, name)
		host = string(name)
	default:
		c.Write([]byte{5, 8, 0, 1, 0, 0, 0, 0, 0, 0})
		return
	}
	port := make([]byte, 2)
	if _, err := io.ReadFull(br, port); err != nil {
		return
	}
	up, err := net.DialTimeout("tcp", net.JoinHostPort(host, strconv.Itoa(int(port[0])<<8|int(port[1]))), 5*time.Second)
	if err != nil {
		c.Write([]byte{5, 5, 0, 1, 0, 0, 0, 0, 0, 0})
		return
	}
	defer up.Close()
	c.Write([]byte{5, 0, 0, 1, 127, 0, 0, 1, 0, 0})
	go func() { io.Copy(up, br); up.Close() }()
	io.Copy(c, up)
}
