//go:build integration

package integration

import (
	"bytes"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"io"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/urlfetch/urlfetch/fetch"
)

// ftpsBase is ftps://host:port of the test bed's vsftpd with implicit
// TLS, anonymous.
func ftpsBase(t testing.TB) string { return "ftps://" + addr(t, "FTPS") }

// RFC 4217 over the real vsftpd, implicit TLS (ftps://): the conformance
// suite, every data connection protected and resuming the control
// connection's session (vsftpd's require_ssl_reuse refuses it otherwise).
func TestFTPSConformance(t *testing.T) { ftpConformance(t, "ftps", addr(t, "FTPS"), testTLS(t)) }

// The 64 MiB file over implicit TLS, and the listing's entries stay
// ftps URLs: a server's listing must not lead the client to cleartext.
// The 64 MiB file over implicit TLS through the command: its bytes, and
// a peak RSS under the bound (issue 24, point 6).
func TestFTPSBigFileCommand(t *testing.T) {
	checkBigFile(t, ftpsBase(t)+"/big.bin")
}

func TestFTPSBigFileAndListing(t *testing.T) {
	c, trace := traceClient(t)
	c.TLSConfig = testTLS(t)
	resp, err := c.Fetch(t.Context(), ftpsBase(t)+"/big.bin")
	if err != nil {
		t.Fatal(err)
	}
	sum, n, err := sha256Of(resp.Body)
	resp.Body.Close()
	if err != nil || sum != env(t, "BIG_SHA256") || n != resp.Length {
		t.Fatalf("big.bin over ftps: %d bytes, SHA-256 %s, %v; want %s, %d bytes", n, sum, err, env(t, "BIG_SHA256"), resp.Length)
	}
	for _, want := range []string{"* TLS: TLS 1.", "* TLS certificate: subject", "> PBSZ 0", "> PROT P", "session resumed"} {
		if !strings.Contains(trace.String(), want) {
			t.Errorf("trace lacks %q", want)
		}
	}
	resp, err = c.Fetch(t.Context(), ftpsBase(t)+"/")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	seen := 0
	for e, err := range resp.Entries() {
		if err != nil {
			t.Fatal(err)
		}
		seen++
		if !strings.HasPrefix(e.URL, ftpsBase(t)+"/") {
			t.Errorf("entry %q of an ftps listing has URL %q", e.Name, e.URL)
		}
	}
	if seen == 0 {
		t.Error("the ftps listing has no entries")
	}
}

// AUTH TLS on the plain port when the user requires it (--ssl-reqd): TLS
// before USER, data protected, the file's bytes right.
func TestFTPExplicitTLS(t *testing.T) {
	c, trace := traceClient(t)
	c.TLSConfig = testTLS(t)
	c.TLSUpgrade = fetch.UpgradeRequire
	_, body := get(t, c, ftpLocal(t, env(t, "FTP_PASSWORD"))+"/welcome.txt")
	want, err := os.ReadFile(filepath.Join(env(t, "FTP_HOME"), "welcome.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(body, want) {
		t.Errorf("body %q, want %q", body, want)
	}
	tr := trace.String()
	auth, user := strings.Index(tr, "> AUTH TLS"), strings.Index(tr, "> USER ")
	if auth < 0 || user < auth || !strings.Contains(tr[auth:user], "< 234 ") || !strings.Contains(tr[auth:user], "* TLS: TLS 1.") {
		t.Errorf("trace: want AUTH TLS, 234 and the handshake before USER:\n%s", tr)
	}
	if !strings.Contains(tr, "> PROT P") || !strings.Contains(tr, "session resumed") {
		t.Errorf("trace: want PROT P and a data connection resuming the session:\n%s", tr)
	}
}

// With TLS required, the password never crosses the wire in the clear: a
// relay between the client and vsftpd records every byte the client
// sends on the control connection. The same login without TLS shows the
// relay would have seen it.
func TestFTPPasswordNeverInClear(t *testing.T) {
	password := env(t, "FTP_PASSWORD")
	for _, tc := range []struct {
		upgrade fetch.Upgrade
		inClear bool
	}{
		{fetch.UpgradeDefault, true},
		{fetch.UpgradeRequire, false},
	} {
		tap := newWireTap(t, addr(t, "FTP"))
		c := client(t)
		c.TLSConfig = testTLS(t)
		c.TLSUpgrade = tc.upgrade
		u := "ftp://" + url.UserPassword(env(t, "FTP_USER"), password).String() + "@" + tap.addr + "/welcome.txt"
		get(t, c, u)
		c.Close()
		sent := tap.sent()
		if got := bytes.Contains(sent, []byte(password)); got != tc.inClear {
			t.Errorf("upgrade %d: the password in the bytes sent = %v, want %v", tc.upgrade, got, tc.inClear)
		}
		if got := bytes.Contains(sent, []byte("USER "+env(t, "FTP_USER"))); got != tc.inClear {
			t.Errorf("upgrade %d: the user name in the bytes sent = %v, want %v", tc.upgrade, got, tc.inClear)
		}
	}
}

// A certificate the client does not trust: ErrTLS, a CertificateError
// naming the host; the command exits 11 and says how to trust it.
func TestFTPSUntrusted(t *testing.T) {
	c := client(t)
	c.TLSConfig = &tls.Config{RootCAs: x509.NewCertPool()}
	_, err := c.Fetch(t.Context(), ftpsBase(t)+"/readme.txt")
	var ce *fetch.CertificateError
	if !errors.As(err, &ce) || fetch.Class(err) != fetch.ErrTLS || ce.Host != "127.0.0.1" {
		t.Fatalf("untrusted: %v; want a CertificateError for 127.0.0.1", err)
	}
	r := execFetch(t, t.TempDir(), "", "-o", "x", ftpsBase(t)+"/readme.txt")
	if r.code != 11 || !strings.Contains(r.stderr, "127.0.0.1") || !strings.Contains(r.stderr, "--cacert") || !strings.Contains(r.stderr, "-k") {
		t.Errorf("command, untrusted: exit %d, stderr %q; want 11 naming the host, --cacert and -k", r.code, r.stderr)
	}
	r = execFetch(t, t.TempDir(), "", "-o", "x", "--cacert", env(t, "TLS_CA"), ftpsBase(t)+"/readme.txt")
	if r.code != 0 {
		t.Errorf("command, --cacert: exit %d, stderr %q", r.code, r.stderr)
	}
	r = execFetch(t, t.TempDir(), "", "-o", "x", "-k", ftpsBase(t)+"/readme.txt")
	if r.code != 0 {
		t.Errorf("command, -k: exit %d, stderr %q", r.code, r.stderr)
	}
	// ftps:// to the cleartext port: the greeting is no TLS record.
	_, err = c.Fetch(t.Context(), "ftps://"+addr(t, "FTP")+"/readme.txt")
	if fetch.Class(err) != fetch.ErrTLS {
		t.Errorf("ftps to a cleartext server: %v; want ErrTLS", err)
	}
}

// wireTap is a TCP relay on loopback to a server, recording the bytes the
// client sends: the wire as an eavesdropper sees it.
type wireTap struct {
	addr string
	mu   sync.Mutex
	buf  bytes.Buffer
}

func newWireTap(t testing.TB, to string) *wireTap {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	r := &wireTap{addr: ln.Addr().String()}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			s, err := net.Dial("tcp", to)
			if err != nil {
				c.Close()
				continue
			}
			go func() {
				io.Copy(c, s)
				c.Close()
			}()
			go func() {
				io.Copy(io.MultiWriter(s, r), c)
				s.Close()
			}()
		}
	}()
	return r
}

func (r *wireTap) Write(p []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.buf.Write(p)
}

func (r *wireTap) sent() []byte {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]byte(nil), r.buf.Bytes()...)
}
