package mailto

import (
	"bufio"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/base64"
	"errors"
	"io"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/emersion/go-sasl"
	"github.com/emersion/go-smtp"
	"github.com/urlfetch/urlfetch/fetch"
	"github.com/urlfetch/urlfetch/fetch/fetchtest"
)

// The harness's postfix (integration/mailto_test.go) shows what a real
// server does with the messages; it offers STARTTLS but no AUTH, and what
// it delivers has lost the wire's line ends. The tests here use
// go-smtp's own server, in process, for those, and scripted fakes for what
// no real server does on purpose: hostile replies and stalls. Their names
// say which.

// goSMTP is go-smtp's server with a backend that keeps what it receives.
type goSMTP struct {
	addr           string
	srv            *smtp.Server
	user, password string // AUTH PLAIN accepts these

	mu       sync.Mutex
	msgs     []received
	authed   []string // users who logged in
	sessions chan struct{}
}

type received struct {
	from  string
	rcpts []string
	data  string
	utf8  bool
}

// newGoSMTP starts go-smtp's server on 127.0.0.1:0; configure sets its
// options before it starts.
func newGoSMTP(t *testing.T, configure func(s *smtp.Server)) *goSMTP {
	t.Helper()
	g := &goSMTP{sessions: make(chan struct{}, 16)}
	g.srv = smtp.NewServer(smtp.BackendFunc(func(c *smtp.Conn) (smtp.Session, error) {
		return &goSession{g: g}, nil
	}))
	g.srv.Domain = "inprocess.test"
	g.srv.ReadTimeout = 10 * time.Second
	g.srv.WriteTimeout = 10 * time.Second
	if configure != nil {
		configure(g.srv)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	g.addr = l.Addr().String()
	done := make(chan struct{})
	go func() {
		defer close(done)
		g.srv.Serve(l)
	}()
	t.Cleanup(func() {
		g.srv.Close()
		<-done
	})
	return g
}

func (g *goSMTP) logins() []string {
	g.mu.Lock()
	defer g.mu.Unlock()
	return append([]string(nil), g.authed...)
}

func (g *goSMTP) messages() []received {
	g.mu.Lock()
	defer g.mu.Unlock()
	return append([]received(nil), g.msgs...)
}

// waitSessionEnd waits until a session of the server has ended.
func (g *goSMTP) waitSessionEnd(t *testing.T) {
	t.Helper()
	select {
	case <-g.sessions:
	case <-time.After(5 * time.Second):
		t.Fatal("the server's session did not end within 5s")
	}
}

type goSession struct {
	g     *goSMTP
	from  string
	utf8  bool
	rcpts []string
}

func (s *goSession) AuthMechanisms() []string { return []string{sasl.Plain} }

func (s *goSession) Auth(mech string) (sasl.Server, error) {
	return sasl.NewPlainServer(func(identity, user, password string) error {
		if user != s.g.user || password != s.g.password {
			return smtp.ErrAuthFailed
		}
		s.g.mu.Lock()
		s.g.authed = append(s.g.authed, user)
		s.g.mu.Unlock()
		return nil
	}), nil
}

func (s *goSession) Mail(from string, opts *smtp.MailOptions) error {
	s.from, s.utf8 = from, opts != nil && opts.UTF8
	return nil
}

func (s *goSession) Rcpt(to string, opts *smtp.RcptOptions) error {
	if strings.HasPrefix(to, "refused@") {
		return &smtp.SMTPError{Code: 550, EnhancedCode: smtp.EnhancedCode{5, 1, 1}, Message: "no such user"}
	}
	s.rcpts = append(s.rcpts, to)
	return nil
}

func (s *goSession) Data(r io.Reader) error {
	b, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	s.g.mu.Lock()
	s.g.msgs = append(s.g.msgs, received{s.from, s.rcpts, string(b), s.utf8})
	s.g.mu.Unlock()
	return nil
}

func (s *goSession) Reset() { s.from, s.rcpts = "", nil }

func (s *goSession) Logout() error {
	s.g.sessions <- struct{}{}
	return nil
}

// newClient returns a Client with d registered and its trace recorded.
func newClient(d *Driver) (*fetch.Client, *fetchtest.TraceLog) {
	log := &fetchtest.TraceLog{}
	c := &fetch.Client{NetrcFile: "-", Trace: log.Add, IdleTimeout: 5 * time.Second}
	c.Register("mailto", d)
	return c, log
}

// newTLSClient is newClient with a Client that trusts the certificates of
// pool, and only them.
func newTLSClient(d *Driver, pool *x509.CertPool) (*fetch.Client, *fetchtest.TraceLog) {
	c, log := newClient(d)
	c.TLSConfig = &tls.Config{RootCAs: pool}
	return c, log
}

// send fetches rawURL with input as the message.
func send(t *testing.T, c *fetch.Client, rawURL, input string) (*fetch.Response, error) {
	t.Helper()
	req, err := c.NewRequest(rawURL)
	if err != nil {
		t.Fatalf("NewRequest(%q): %v", rawURL, err)
	}
	req.Input = strings.NewReader(input)
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	t.Cleanup(cancel)
	return c.Do(ctx, req)
}

// bodyOf returns what follows a message's header block.
func bodyOf(data string) string {
	_, body, _ := strings.Cut(data, "\r\n\r\n")
	return body
}

// TestWireCRLFGoSMTPServer: the lines reach the server with CRLF ends,
// whatever the input's, and dot-stuffed, so that the server's unstuffing
// gives back every line, the lone "." too. go-smtp's server keeps the
// line ends it receives; postfix's Maildir does not.
func TestWireCRLFGoSMTPServer(t *testing.T) {
	g := newGoSMTP(t, nil)
	c, _ := newClient(&Driver{Server: g.addr, From: "ann@example.org"})
	input := "one\n.two\n..three\r\n.\nfour\r\nlast, no end"
	want := "one\r\n.two\r\n..three\r\n.\r\nfour\r\nlast, no end\r\n"
	resp, err := send(t, c, "mailto:bob@example.org", input)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	msgs := g.messages()
	if len(msgs) != 1 {
		t.Fatalf("server received %d messages, want 1", len(msgs))
	}
	data := msgs[0].data
	if got := bodyOf(data); got != want {
		t.Errorf("body on the wire = %q, want %q", got, want)
	}
	if strings.Count(data, "\n") != strings.Count(data, "\r\n") {
		t.Errorf("message on the wire %q has a bare LF", data)
	}
	if msgs[0].from != "ann@example.org" || strings.Join(msgs[0].rcpts, ",") != "bob@example.org" {
		t.Errorf("envelope = %q -> %q, want ann@example.org -> bob@example.org", msgs[0].from, msgs[0].rcpts)
	}
}

// newCert returns a self-signed certificate for 127.0.0.1 and a pool
// that trusts it.
func newCert(t *testing.T) (tls.Certificate, *x509.CertPool) {
	return fetchtest.SelfSigned(t, "inprocess.test")
}

// newTLSServer starts go-smtp's server offering STARTTLS and AUTH PLAIN
// (over TLS only) for ann with password.
func newTLSServer(t *testing.T, password string) (*goSMTP, *x509.CertPool) {
	cert, pool := newCert(t)
	g := newGoSMTP(t, func(s *smtp.Server) {
		s.TLSConfig = &tls.Config{Certificates: []tls.Certificate{cert}}
	})
	g.user, g.password = "ann", password
	return g, pool
}

// TestSTARTTLSAndAuthGoSMTPServer: STARTTLS when offered, then EHLO
// again and AUTH PLAIN; the password shows in no trace line, raw or in
// base64.
func TestSTARTTLSAndAuthGoSMTPServer(t *testing.T) {
	const password = "s3cr@t pw%"
	g, pool := newTLSServer(t, password)
	d := &Driver{Server: g.addr, From: "ann@example.org", Username: "ann", Password: password}
	c, log := newTLSClient(d, pool)
	resp, err := send(t, c, "mailto:bob@example.org?subject=over%20TLS", "hello\n")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if got := resp.Meta.Get("Tls"); got != "TLS 1.3" {
		t.Errorf("Meta Tls = %q, want TLS 1.3", got)
	}
	if len(g.messages()) != 1 || strings.Join(g.logins(), ",") != "ann" {
		t.Errorf("server got %d messages, logins %q; want 1 message from ann, logged in", len(g.messages()), g.logins())
	}
	lines := log.Lines()
	ehlos := 0
	for _, l := range lines {
		if strings.HasPrefix(l, "> EHLO ") {
			ehlos++
		}
		for _, secret := range []string{password, base64.StdEncoding.EncodeToString([]byte("\x00ann\x00" + password))} {
			if strings.Contains(l, secret) {
				t.Errorf("traced %q: it shows the password", l)
			}
		}
	}
	if ehlos != 2 {
		t.Errorf("traced %d EHLO, want 2 (before and after STARTTLS): %q", ehlos, lines)
	}
	for _, want := range []string{"> STARTTLS", "* TLS: TLS 1.3, TLS_AES_128_GCM_SHA256", "> AUTH PLAIN ***", "< 235 2.0.0 Authentication succeeded"} {
		if !slices.Contains(log.Lines(), want) {
			t.Errorf("trace lacks %q: %q", want, lines)
		}
	}
}

// TestAuthPasswordFromNetrcGoSMTPServer: without a Password setting the
// password comes from netrc for the server's host.
func TestAuthPasswordFromNetrcGoSMTPServer(t *testing.T) {
	g, pool := newTLSServer(t, "from-netrc")
	netrc := filepath.Join(t.TempDir(), "netrc")
	if err := os.WriteFile(netrc, []byte("machine 127.0.0.1 login ann password from-netrc\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	c, log := newTLSClient(&Driver{Server: g.addr, From: "ann@example.org", Username: "ann"}, pool)
	c.NetrcFile = netrc
	resp, err := send(t, c, "mailto:bob@example.org", "hi\n")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if got := g.logins(); len(got) != 1 {
		t.Errorf("logins = %q, want ann", got)
	}
	for _, l := range log.Lines() {
		if strings.Contains(l, "from-netrc") {
			t.Errorf("traced %q: it shows the password", l)
		}
	}
}

// TestAuthRefusedGoSMTPServer: a wrong password is ErrAuth with the
// server's words, and the password shows nowhere in the error.
func TestAuthRefusedGoSMTPServer(t *testing.T) {
	g, pool := newTLSServer(t, "right")
	c, _ := newTLSClient(&Driver{Server: g.addr, From: "ann@example.org", Username: "ann", Password: "wrong-pw"}, pool)
	_, err := send(t, c, "mailto:bob@example.org", "hi\n")
	if !errors.Is(err, fetch.ErrAuth) {
		t.Fatalf("error = %v, want ErrAuth", err)
	}
	var re *ReplyError
	if !errors.As(err, &re) || re.Command != "AUTH PLAIN" || re.Code != 535 {
		t.Errorf("error = %v, want a *ReplyError: 535 to AUTH PLAIN", err)
	}
	if msg := err.Error(); !strings.Contains(msg, "535 5.7.8 Authentication failed") || strings.Contains(msg, "wrong-pw") {
		t.Errorf("error = %q, want the server's words and no password", msg)
	}
	if len(g.messages()) != 0 {
		t.Errorf("server received %d messages, want none", len(g.messages()))
	}
}

// TestTLSUnverifiedGoSMTPServer: a certificate that does not verify
// (the Client trusts only the system's roots, or another certificate)
// ends the session before anything is sent, as a *fetch.CertificateError
// naming the server.
func TestTLSUnverifiedGoSMTPServer(t *testing.T) {
	g, _ := newTLSServer(t, "pw")
	_, other := newCert(t)
	system, _ := newClient(&Driver{Server: g.addr, From: "ann@example.org", Username: "ann", Password: "pw"})
	wrong, _ := newTLSClient(&Driver{Server: g.addr, From: "ann@example.org", Username: "ann", Password: "pw"}, other)
	for name, c := range map[string]*fetch.Client{"system roots": system, "another certificate": wrong} {
		_, err := send(t, c, "mailto:bob@example.org", "hi\n")
		var ce *fetch.CertificateError
		if !errors.As(err, &ce) || ce.Host != "127.0.0.1" || fetch.Class(err) != fetch.ErrTLS || !strings.Contains(err.Error(), g.addr+": STARTTLS: the certificate of 127.0.0.1 is not trusted") {
			t.Errorf("%s: error = %v, want a *fetch.CertificateError for 127.0.0.1 from STARTTLS with %s", name, err, g.addr)
		}
	}
	if len(g.messages()) != 0 || len(g.logins()) != 0 {
		t.Errorf("server received %d messages, %d logins; want none", len(g.messages()), len(g.logins()))
	}
}

// TestSTARTTLSRequiredGoSMTPServer: with fetch.UpgradeRequire (--ssl-reqd),
// a server that offers no STARTTLS gets neither AUTH nor a message, and
// the error is ErrTLS naming it; one that offers it is used over TLS.
func TestSTARTTLSRequiredGoSMTPServer(t *testing.T) {
	plain := newGoSMTP(t, func(s *smtp.Server) { s.AllowInsecureAuth = true })
	plain.user, plain.password = "ann", "pw"
	c, log := newClient(&Driver{Server: plain.addr, From: "ann@example.org", Username: "ann", Password: "pw"})
	c.TLSUpgrade = fetch.UpgradeRequire
	_, err := send(t, c, "mailto:bob@example.org", "hi\n")
	if fetch.Class(err) != fetch.ErrTLS || !strings.Contains(err.Error(), plain.addr+" does not offer STARTTLS") {
		t.Errorf("error = %v, want ErrTLS: %s does not offer STARTTLS", err, plain.addr)
	}
	for _, l := range log.Lines() {
		if strings.HasPrefix(l, "> AUTH") || strings.HasPrefix(l, "> MAIL") {
			t.Errorf("traced %q, want nothing after EHLO but QUIT", l)
		}
	}
	if len(plain.messages()) != 0 || len(plain.logins()) != 0 {
		t.Errorf("server received %d messages, %d logins; want none", len(plain.messages()), len(plain.logins()))
	}

	g, pool := newTLSServer(t, "pw")
	c, _ = newTLSClient(&Driver{Server: g.addr, From: "ann@example.org", Username: "ann", Password: "pw"}, pool)
	c.TLSUpgrade = fetch.UpgradeRequire
	resp, err := send(t, c, "mailto:bob@example.org", "hi\n")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.Meta.Get("Tls") == "" || len(g.messages()) != 1 {
		t.Errorf("Meta = %v, server received %d messages; want one, over TLS", resp.Meta, len(g.messages()))
	}
}

// TestAuthLoginFakeServer: AUTH LOGIN sends the password on a line of
// its own after the AUTH command; the trace hides that line too. (The
// harness's postfix has no AUTH, and go-sasl has no LOGIN server: a
// scripted server plays one, on loopback, where no TLS is needed.)
func TestAuthLoginFakeServer(t *testing.T) {
	const password = "login-secret"
	b64 := base64.StdEncoding.EncodeToString
	var got []string
	addr := fakeServer(t, func(r *bufio.Reader, w net.Conn) {
		io.WriteString(w, "220 fake\r\n")
		until(r, w, "EHLO", map[string]string{"EHLO": "250-fake\r\n250 AUTH LOGIN\r\n"})
		got = append(got, expect(r))
		io.WriteString(w, "334 "+b64([]byte("Password:"))+"\r\n")
		got = append(got, expect(r))
		io.WriteString(w, "235 2.7.0 welcome\r\n")
		until(r, w, "DATA", ordinary)
		readData(r)
		io.WriteString(w, "250 2.0.0 queued as L1\r\n")
		until(r, w, "QUIT", ordinary)
	})
	c, log := newClient(&Driver{Server: addr, From: "ann@example.org", Username: "ann", Password: password})
	resp, err := send(t, c, "mailto:bob@example.org", "hi\n")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if want := []string{"AUTH LOGIN " + b64([]byte("ann")), b64([]byte(password))}; strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("server read %q, want %q", got, want)
	}
	for _, want := range []string{"> AUTH LOGIN ***", "< 334 UGFzc3dvcmQ6", "> ***", "< 235 2.7.0 welcome"} {
		if !slices.Contains(log.Lines(), want) {
			t.Errorf("trace lacks %q: %q", want, log.Lines())
		}
	}
	for _, l := range log.Lines() {
		if strings.Contains(l, password) || strings.Contains(l, b64([]byte(password))) {
			t.Errorf("traced %q: it shows the password", l)
		}
	}
}

// remoteConn reports a remote address that is not a loopback one.
type remoteConn struct{ net.Conn }

func (remoteConn) RemoteAddr() net.Addr { return &net.TCPAddr{IP: net.IPv4(192, 0, 2, 25), Port: 25} }

// TestAuthNotInTheClearGoSMTPServer: with no TLS, the password goes to
// no server off this host. (go-smtp's server offers AUTH without TLS when
// told to; the Client's dialer makes it look remote.)
func TestAuthNotInTheClearGoSMTPServer(t *testing.T) {
	g := newGoSMTP(t, func(s *smtp.Server) { s.AllowInsecureAuth = true })
	g.user, g.password = "ann", "pw"
	c, log := newClient(&Driver{Server: g.addr, From: "ann@example.org", Username: "ann", Password: "pw"})
	c.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		nc, err := (&net.Dialer{}).DialContext(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		return remoteConn{nc}, nil
	}
	_, err := send(t, c, "mailto:bob@example.org", "hi\n")
	if !errors.Is(err, fetch.ErrUnsafe) || !strings.Contains(err.Error(), "in the clear") {
		t.Fatalf("error = %v, want ErrUnsafe: no password in the clear", err)
	}
	for _, l := range log.Lines() {
		if strings.HasPrefix(l, "> AUTH") {
			t.Errorf("traced %q, want no AUTH", l)
		}
	}
	// Loopback is this host: the same server, dialed plainly, is fine.
	c, _ = newClient(&Driver{Server: g.addr, From: "ann@example.org", Username: "ann", Password: "pw"})
	resp, err := send(t, c, "mailto:bob@example.org", "hi\n")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
}

// TestSMTPUTF8GoSMTPServer: a non-ASCII address needs SMTPUTF8 (RFC
// 6531): without it nothing is sent; with it, MAIL says SMTPUTF8.
func TestSMTPUTF8GoSMTPServer(t *testing.T) {
	const raw = "mailto:j%C3%B6ran@b%C3%BCcher.example"
	g := newGoSMTP(t, nil)
	c, log := newClient(&Driver{Server: g.addr, From: "ann@example.org"})
	if _, err := send(t, c, raw, "hi\n"); !errors.Is(err, fetch.ErrUnsupported) || !strings.Contains(err.Error(), "SMTPUTF8") {
		t.Errorf("error = %v, want ErrUnsupported: no SMTPUTF8", err)
	}
	for _, l := range log.Lines() {
		if strings.HasPrefix(l, "> MAIL") {
			t.Errorf("traced %q, want no MAIL", l)
		}
	}

	g = newGoSMTP(t, func(s *smtp.Server) { s.EnableSMTPUTF8 = true })
	c, _ = newClient(&Driver{Server: g.addr, From: "ann@example.org"})
	resp, err := send(t, c, raw, "hi\n")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if m := g.messages(); len(m) != 1 || !m[0].utf8 || m[0].rcpts[0] != "jöran@bücher.example" || !strings.Contains(m[0].data, "To: jöran@bücher.example\r\n") {
		t.Errorf("server received %+v, want one message to jöran@bücher.example with SMTPUTF8", m)
	}
}

// failingReader yields data, then fails.
type failingReader struct {
	data string
	err  error
}

func (f *failingReader) Read(p []byte) (int, error) {
	if f.data == "" {
		return 0, f.err
	}
	n := copy(p, f.data)
	f.data = f.data[n:]
	return n, nil
}

// TestInputFailsInDataGoSMTPServer: when the message cannot be read to
// its end, no final "." goes out and the server keeps nothing.
func TestInputFailsInDataGoSMTPServer(t *testing.T) {
	g := newGoSMTP(t, nil)
	c, _ := newClient(&Driver{Server: g.addr, From: "ann@example.org"})
	broken := errors.New("disk on fire")
	req, _ := c.NewRequest("mailto:bob@example.org")
	req.Input = &failingReader{data: "Subject: half\n\nthe first half\n" + strings.Repeat("more\n", 10000), err: broken}
	_, err := c.Do(context.Background(), req)
	if !errors.Is(err, broken) {
		t.Fatalf("error = %v, want the input's error", err)
	}
	g.waitSessionEnd(t)
	if n := len(g.messages()); n != 0 {
		t.Errorf("server kept %d messages, want none", n)
	}
}

// TestCancelInDataGoSMTPServer: cancelling while the message streams
// from a source that blocks ends the fetch at once; nothing is kept.
func TestCancelInDataGoSMTPServer(t *testing.T) {
	g := newGoSMTP(t, nil)
	c, log := newClient(&Driver{Server: g.addr, From: "ann@example.org"})
	pr, pw := io.Pipe()
	defer pw.Close()
	req, _ := c.NewRequest("mailto:bob@example.org")
	req.Input = pr
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	errc := make(chan error, 1)
	go func() {
		_, err := c.Do(ctx, req)
		errc <- err
	}()
	// The header is read before connecting; the body streams in DATA.
	if _, err := io.WriteString(pw, "Subject: blocked\n\nfirst line\n"); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(5 * time.Second)
	for !slices.Contains(log.Lines(), "< 354 Go ahead. End your data with <CR><LF>.<CR><LF>") {
		if time.Now().After(deadline) {
			t.Fatalf("no DATA after 5s: %q", log.Lines())
		}
		time.Sleep(10 * time.Millisecond)
	}
	cancel()
	select {
	case err := <-errc:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("error = %v, want context.Canceled", err)
		}
	case <-time.After(time.Second):
		t.Fatal("Fetch still running a second after cancel()")
	}
	g.waitSessionEnd(t)
	if n := len(g.messages()); n != 0 {
		t.Errorf("server kept %d messages, want none", n)
	}
}

// TestRefusedOneOfTwoGoSMTPServer: the message goes to the accepted
// recipient; the error says so and carries the refusal.
func TestRefusedOneOfTwoGoSMTPServer(t *testing.T) {
	g := newGoSMTP(t, nil)
	c, _ := newClient(&Driver{Server: g.addr, From: "ann@example.org"})
	_, err := send(t, c, "mailto:refused@example.org,bob@example.org", "hi\n")
	var re *RecipientError
	if !errors.As(err, &re) || strings.Join(re.Accepted, ",") != "bob@example.org" || len(re.Refused) != 1 {
		t.Fatalf("error = %v, want a *RecipientError: bob accepted, one refused", err)
	}
	if !errors.Is(err, fetch.ErrNotFound) || !strings.Contains(err.Error(), "RCPT TO:<refused@example.org>: 550 5.1.1 no such user") {
		t.Errorf("error = %v, want ErrNotFound with the server's words", err)
	}
	if m := g.messages(); len(m) != 1 || strings.Join(m[0].rcpts, ",") != "bob@example.org" {
		t.Errorf("server received %+v, want one message for bob", m)
	}
}

// fakeServer runs a scripted SMTP server for one connection: serve
// talks to it. It is for replies and stalls no real server produces.
func fakeServer(t *testing.T, serve func(r *bufio.Reader, w net.Conn)) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		nc, err := l.Accept()
		if err != nil {
			return
		}
		defer nc.Close()
		serve(bufio.NewReader(nc), nc)
	}()
	t.Cleanup(func() {
		l.Close()
		<-done
	})
	return l.Addr().String()
}

// expect reads one command line; it returns "" when the client is gone.
func expect(r *bufio.Reader) string {
	line, _ := r.ReadString('\n')
	return strings.TrimRight(line, "\r\n")
}

// until answers each command with its reply in replies (by prefix)
// until the one called last, and returns when that is answered.
func until(r *bufio.Reader, w net.Conn, last string, replies map[string]string) bool {
	for {
		cmd := expect(r)
		if cmd == "" {
			return false
		}
		for prefix, reply := range replies {
			if strings.HasPrefix(cmd, prefix) {
				io.WriteString(w, reply)
				break
			}
		}
		if strings.HasPrefix(cmd, last) {
			return true
		}
	}
}

var ordinary = map[string]string{
	"EHLO": "250-fake\r\n250 8BITMIME\r\n",
	"MAIL": "250 2.1.0 ok\r\n",
	"RCPT": "250 2.1.5 ok\r\n",
	"DATA": "354 go on\r\n",
	"QUIT": "221 bye\r\n",
	"RSET": "250 ok\r\n",
}

// readData reads the message up to its "." line and returns its lines.
func readData(r *bufio.Reader) []string {
	var lines []string
	for {
		line, err := r.ReadString('\n')
		if err != nil || line == ".\r\n" {
			return lines
		}
		lines = append(lines, strings.TrimSuffix(line, "\r\n"))
	}
}

func TestHostileRepliesFakeServer(t *testing.T) {
	for _, tc := range []struct {
		name  string
		serve func(r *bufio.Reader, w net.Conn)
		kind  error
		says  string
	}{
		{"greeting that is no reply", func(r *bufio.Reader, w net.Conn) {
			io.WriteString(w, "hello there\r\n")
			expect(r)
		}, fetch.ErrProtocol, "greeting: bad reply"},
		{"greeting that refuses", func(r *bufio.Reader, w net.Conn) {
			io.WriteString(w, "554 5.3.2 no service for you\r\n")
			expect(r)
		}, fetch.ErrConnect, "greeting: 554 5.3.2 no service for you"},
		{"close after EHLO", func(r *bufio.Reader, w net.Conn) {
			io.WriteString(w, "220 fake\r\n")
			expect(r)
		}, fetch.ErrConnect, "EHLO " + hostname() + ": the server closed the connection"},
		{"multi-line refusal", func(r *bufio.Reader, w net.Conn) {
			io.WriteString(w, "220 fake\r\n")
			until(r, w, "RCPT", map[string]string{
				"EHLO": ordinary["EHLO"], "MAIL": ordinary["MAIL"],
				"RCPT": "550-5.1.1 first line\r\n550-5.1.1 second line\r\n550 5.1.1 last line\r\n",
			})
			until(r, w, "QUIT", ordinary)
		}, fetch.ErrNotFound, "RCPT TO:<bob@example.org>: 550 5.1.1 first line second line last line"},
		{"message refused after data", func(r *bufio.Reader, w net.Conn) {
			io.WriteString(w, "220 fake\r\n")
			until(r, w, "DATA", ordinary)
			readData(r)
			io.WriteString(w, "554 5.7.1 looks like spam\r\n")
			until(r, w, "QUIT", ordinary)
		}, fetch.ErrAuth, "end of data: 554 5.7.1 looks like spam"},
		// Issue 23, the sweep: "221" lines inside a "220-" greeting are
		// text of it (RFC 5321 section 4.2.1); an endless one is an
		// error at the bound, not a heap that grows for ever.
		{"endless greeting of other codes", func(r *bufio.Reader, w net.Conn) {
			io.WriteString(w, "220-hello\r\n")
			line := "221 " + strings.Repeat("x", 1000) + "\r\n"
			for i := 0; i < 4096; i++ {
				if _, err := io.WriteString(w, line); err != nil {
					return
				}
			}
		}, fetch.ErrProtocol, "multi-line reply of more than"},
		{"garbage after data", func(r *bufio.Reader, w net.Conn) {
			io.WriteString(w, "220 fake\r\n")
			until(r, w, "DATA", ordinary)
			readData(r)
			io.WriteString(w, "2x0 what\r\n")
			expect(r)
		}, fetch.ErrProtocol, "end of data: bad reply"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			addr := fakeServer(t, tc.serve)
			c, _ := newClient(&Driver{Server: addr, From: "ann@example.org"})
			_, err := send(t, c, "mailto:bob@example.org", "hi\n")
			if !errors.Is(err, tc.kind) || !strings.Contains(err.Error(), tc.says) {
				t.Errorf("error = %v, want %v saying %q", err, tc.kind, tc.says)
			}
			if err != nil && strings.ContainsAny(err.Error(), "\r\n") {
				t.Errorf("error = %q, want one line", err)
			}
		})
	}
}

// TestSTARTTLSRefusedFakeServer: a server that offers STARTTLS and then
// refuses it (454) is used without TLS.
func TestSTARTTLSRefusedFakeServer(t *testing.T) {
	var data []string
	addr := fakeServer(t, func(r *bufio.Reader, w net.Conn) {
		io.WriteString(w, "220 fake\r\n")
		until(r, w, "STARTTLS", map[string]string{"EHLO": "250-fake\r\n250 STARTTLS\r\n", "STARTTLS": "454 4.7.0 TLS not available\r\n"})
		until(r, w, "DATA", ordinary)
		data = readData(r)
		io.WriteString(w, "250 2.0.0 queued as X1\r\n")
		until(r, w, "QUIT", ordinary)
	})
	c, log := newClient(&Driver{Server: addr, From: "ann@example.org"})
	resp, err := send(t, c, "mailto:bob@example.org", "hi\n")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.Meta.Get("Tls") != "" || resp.Meta.Get("Queue-Id") != "X1" {
		t.Errorf("Meta = %v, want no Tls and Queue-Id X1", resp.Meta)
	}
	if !slices.Contains(log.Lines(), "* STARTTLS refused (454 4.7.0 TLS not available): going on without TLS") {
		t.Errorf("trace %q lacks the note on STARTTLS", log.Lines())
	}
	if len(data) == 0 || data[len(data)-1] != "hi" {
		t.Errorf("server read %q, want the message", data)
	}
}

// TestSTARTTLSRefusedRequiredFakeServer: with fetch.UpgradeRequire, a
// server that refuses STARTTLS (454) is ErrTLS with its reply, and gets
// QUIT next: no MAIL, no message.
func TestSTARTTLSRefusedRequiredFakeServer(t *testing.T) {
	got := make(chan []string, 1)
	addr := fakeServer(t, func(r *bufio.Reader, w net.Conn) {
		io.WriteString(w, "220 fake\r\n")
		until(r, w, "STARTTLS", map[string]string{"EHLO": "250-fake\r\n250 STARTTLS\r\n", "STARTTLS": "454 4.7.0 TLS not available\r\n"})
		var after []string
		for cmd := expect(r); cmd != ""; cmd = expect(r) {
			after = append(after, cmd)
			if cmd == "QUIT" {
				io.WriteString(w, ordinary["QUIT"])
			}
		}
		got <- after
	})
	c, _ := newClient(&Driver{Server: addr, From: "ann@example.org"})
	c.TLSUpgrade = fetch.UpgradeRequire
	_, err := send(t, c, "mailto:bob@example.org", "hi\n")
	var re *ReplyError
	if fetch.Class(err) != fetch.ErrTLS || !errors.As(err, &re) || re.Code != 454 || re.Command != "STARTTLS" ||
		!strings.Contains(err.Error(), addr+" refused STARTTLS, and TLS is required: 454 4.7.0 TLS not available") {
		t.Errorf("error = %v, want ErrTLS with the 454 reply to STARTTLS", err)
	}
	select {
	case after := <-got:
		if !slices.Equal(after, []string{"QUIT"}) {
			t.Errorf("after STARTTLS the server read %q, want only QUIT", after)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("the client did not close the connection within 5s")
	}
}

// stallAfterData is a server that takes the message and never answers.
func stallAfterData(t *testing.T) string {
	release := make(chan struct{})
	addr := fakeServer(t, func(r *bufio.Reader, w net.Conn) {
		io.WriteString(w, "220 fake\r\n")
		until(r, w, "DATA", ordinary)
		readData(r)
		<-release
	})
	t.Cleanup(func() { close(release) })
	return addr
}

// TestStallAfterDataFakeServer: a server that never answers the message
// is given up after the idle timeout, or at once on cancel.
func TestStallAfterDataFakeServer(t *testing.T) {
	t.Run("idle timeout", func(t *testing.T) {
		c, _ := newClient(&Driver{Server: stallAfterData(t), From: "ann@example.org"})
		c.IdleTimeout = 200 * time.Millisecond
		start := time.Now()
		_, err := send(t, c, "mailto:bob@example.org", "hi\n")
		if !errors.Is(err, fetch.ErrTimeout) {
			t.Errorf("error = %v, want ErrTimeout", err)
		}
		if d := time.Since(start); d > 2*time.Second {
			t.Errorf("gave up after %v, want about 200ms", d)
		}
	})
	t.Run("cancel", func(t *testing.T) {
		c, log := newClient(&Driver{Server: stallAfterData(t), From: "ann@example.org"})
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		errc := make(chan error, 1)
		go func() {
			req, _ := c.NewRequest("mailto:bob@example.org")
			req.Input = strings.NewReader("hi\n")
			_, err := c.Do(ctx, req)
			errc <- err
		}()
		deadline := time.Now().Add(5 * time.Second)
		for !slices.Contains(log.Lines(), "< 354 go on") {
			if time.Now().After(deadline) {
				t.Fatalf("no DATA after 5s: %q", log.Lines())
			}
			time.Sleep(10 * time.Millisecond)
		}
		cancel()
		select {
		case err := <-errc:
			if !errors.Is(err, context.Canceled) {
				t.Errorf("error = %v, want context.Canceled", err)
			}
		case <-time.After(time.Second):
			t.Fatal("Fetch still running a second after cancel()")
		}
	})
}

// TestCancelWhileInputBlocks: the message's source blocks before anything
// is dialed (a terminal nobody types at); cancel ends the fetch.
func TestCancelWhileInputBlocks(t *testing.T) {
	c, log := newClient(&Driver{Server: "127.0.0.1:1", From: "ann@example.org"})
	pr, pw := io.Pipe()
	defer pw.Close()
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := c.NewRequest("mailto:bob@example.org")
	req.Input = pr
	errc := make(chan error, 1)
	go func() {
		_, err := c.Do(ctx, req)
		errc <- err
	}()
	// A write that the driver's read takes shows the read has begun.
	if _, err := io.WriteString(pw, "Subject: x\n"); err != nil {
		t.Fatal(err)
	}
	cancel()
	select {
	case err := <-errc:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("error = %v, want context.Canceled", err)
		}
	case <-time.After(time.Second):
		t.Fatal("Fetch still running a second after cancel()")
	}
	if lines := log.Lines(); len(lines) != 0 {
		t.Errorf("traced %q, want nothing dialed", lines)
	}
}

// TestMetaAndBodyGoSMTPServer checks the Response against go-smtp's server: Kind
// Sent, the final reply as Body and in Meta, and a Body that honours the
// context and refuses reads after Close.
func TestMetaAndBodyGoSMTPServer(t *testing.T) {
	g := newGoSMTP(t, nil)
	c, _ := newClient(&Driver{Server: g.addr, From: "Ann <ann@example.org>"})
	resp, err := send(t, c, "mailto:bob@example.org?cc=cy@example.org&bcc=di@example.org&x-unknown=1", "hi\n")
	if err != nil {
		t.Fatal(err)
	}
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	const reply = "250 2.0.0 OK: queued"
	if resp.Kind != fetch.Sent || string(body) != reply || resp.Meta.Get("Reply") != reply || resp.Length != int64(len(reply)) {
		t.Errorf("Response = %v %q, Meta Reply %q, Length %d; want sent %q", resp.Kind, body, resp.Meta.Get("Reply"), resp.Length, reply)
	}
	if got := strings.Join(resp.Meta.Values("Recipient"), ","); got != "bob@example.org,cy@example.org,di@example.org" {
		t.Errorf("Meta Recipient = %q, want bob, cy and di", got)
	}
	if resp.Meta.Get("Envelope-From") != "ann@example.org" || resp.Meta.Get("Server") != g.addr {
		t.Errorf("Meta = %v, want Envelope-From ann@example.org and Server %s", resp.Meta, g.addr)
	}
	m := g.messages()
	if len(m) != 1 {
		t.Fatalf("server received %d messages, want 1", len(m))
	}
	head, _, _ := strings.Cut(m[0].data, "\r\n\r\n")
	for _, want := range []string{`From: "Ann" <ann@example.org>`, "To: bob@example.org", "Cc: cy@example.org", "Message-ID: " + resp.Meta.Get("Message-Id")} {
		if !strings.Contains(head+"\r\n", want+"\r\n") {
			t.Errorf("header %q lacks %q", head, want)
		}
	}
	if strings.Contains(head, "di@example.org") || strings.Contains(head, "x-unknown") {
		t.Errorf("header %q shows the bcc or the unknown field", head)
	}
	resp.Body.Close()
	if _, err := resp.Body.Read(make([]byte, 1)); err == nil {
		t.Error("Body.Read after Close = nil error, want one")
	}
}
