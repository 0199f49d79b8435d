package fetch_test

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
	"testing"

	"github.com/urlfetch/urlfetch/fetch"
	"github.com/urlfetch/urlfetch/uri"
)

// TestStartTLS runs the handshake against an in-process TLS server (its
// certificate is httptest's): untrusted, it is a CertificateError of class
// ErrTLS naming the host; trusted through Client.TLSConfig, it is traced
// with version, cipher, subject and issuer, and a second connection
// resumes the session from the Client's cache.
func TestStartTLS(t *testing.T) {
	srv := httptest.NewTLSServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	defer srv.Close()
	addr := srv.Listener.Addr().String()
	u := uri.MustParse("https://" + addr + "/")
	ctx := context.Background()

	var trace []string
	c := &fetch.Client{Trace: func(_ fetch.Direction, line string) { trace = append(trace, line) }}
	req := fetch.NewRequest(c, u)
	conn, err := req.DialAddr(ctx, "https", addr)
	if err != nil {
		t.Fatal(err)
	}
	_, err = req.StartTLS(ctx, conn, u.Host, nil)
	conn.Close()
	var ce *fetch.CertificateError
	if !errors.As(err, &ce) || !errors.Is(err, fetch.ErrTLS) || fetch.Class(err) != fetch.ErrTLS || ce.Host != "127.0.0.1" {
		t.Fatalf("untrusted certificate: err = %v (%T); want a CertificateError for 127.0.0.1 of class ErrTLS", err, err)
	}
	if !strings.Contains(err.Error(), "127.0.0.1") {
		t.Errorf("error %q does not name the host", err)
	}

	pool := x509.NewCertPool()
	pool.AddCert(srv.Certificate())
	c = &fetch.Client{Trace: c.Trace, TLSConfig: &tls.Config{RootCAs: pool}}
	for i, wantResumed := range []bool{false, true} {
		trace = nil
		req := fetch.NewRequest(c, u)
		conn, err := req.DialAddr(ctx, "https", addr)
		if err != nil {
			t.Fatal(err)
		}
		tc, err := req.StartTLS(ctx, conn, u.Host, nil)
		if err != nil {
			t.Fatalf("connection %d: %v", i+1, err)
		}
		// TLS 1.3 tickets come after the handshake: reading the reply
		// takes them in.
		io.WriteString(tc, "GET / HTTP/1.0\r\n\r\n")
		io.ReadAll(tc)
		tc.Close()
		all := strings.Join(trace, "\n")
		for _, want := range []string{"TLS: TLS 1.3, TLS_", `subject "O=Acme Co"`, `issuer "O=Acme Co"`} {
			if !strings.Contains(all, want) {
				t.Errorf("connection %d: trace lacks %q:\n%s", i+1, want, all)
			}
		}
		if got := strings.Contains(all, "session resumed"); got != wantResumed {
			t.Errorf("connection %d: resumed = %v, want %v:\n%s", i+1, got, wantResumed, all)
		}
	}
}

// TestTLSErrorClasses: what is not about the certificate keeps the class
// of what happened.
func TestTLSErrorClasses(t *testing.T) {
	req := fetch.NewRequest(nil, uri.MustParse("ftps://h/"))
	ctx := context.Background()
	for _, tc := range []struct {
		err  error
		want error
	}{
		{x509.UnknownAuthorityError{}, fetch.ErrTLS},
		{errors.New("remote error: tls: handshake failure"), fetch.ErrTLS},
		{&net.OpError{Op: "read", Err: io.EOF}, fetch.ErrConnect},
		{fetch.Errorf(fetch.ErrTimeout, "no data"), fetch.ErrTimeout},
	} {
		if got := fetch.Class(req.TLSError(ctx, "h", tc.err)); got != tc.want {
			t.Errorf("TLSError(%v) class = %v, want %v", tc.err, got, tc.want)
		}
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if err := req.TLSError(cancelled, "h", errors.New("x")); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v", err)
	}
}
