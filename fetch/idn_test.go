package fetch_test

import (
	"context"
	"crypto/tls"
	"errors"
	"net"
	"strings"
	"sync"
	"testing"

	"github.com/urlfetch/urlfetch/fetch"
	"github.com/urlfetch/urlfetch/fetch/fetchtest"
	"github.com/urlfetch/urlfetch/uri"
)

// Issue 21, point 5: a host in Unicode is dialed, sent (SNI) and verified
// by its A-labels, and named in Unicode in traces and errors. No resolver
// is needed: the Client's DialContext notes the address the dial path asks
// for and connects to an in-process TLS server whose certificate names
// the A-label, and which notes the server name the client sent.
func TestIDNDialAndTLS_FakeServer(t *testing.T) {
	const aLabel = "xn--bcher-kva.example"
	cert, pool := fetchtest.SelfSigned(t, aLabel)
	var mu sync.Mutex
	var sni []string
	ln, err := tls.Listen("tcp", "127.0.0.1:0", &tls.Config{
		Certificates: []tls.Certificate{cert},
		GetConfigForClient: func(h *tls.ClientHelloInfo) (*tls.Config, error) {
			mu.Lock()
			sni = append(sni, h.ServerName)
			mu.Unlock()
			return nil, nil
		},
	})
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
			go func() {
				c.(*tls.Conn).Handshake()
				c.Close()
			}()
		}
	}()

	var dialed, trace []string
	c := &fetch.Client{
		TLSConfig: &tls.Config{RootCAs: pool},
		Trace:     func(_ fetch.Direction, line string) { trace = append(trace, line) },
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			dialed = append(dialed, addr)
			return (&net.Dialer{}).DialContext(ctx, network, ln.Addr().String())
		},
	}
	ctx := context.Background()
	for _, tt := range []struct{ raw, shown string }{
		{"https://bücher.example:8443/", "bücher.example"},
		{"https://b%C3%BCcher.example:8443/", "bücher.example"},
		{"https://BÜCHER.example:8443/", "BÜCHER.example"}, // as written
	} {
		raw := tt.raw
		dialed, trace, sni = nil, nil, nil
		u := uri.MustParse(raw)
		req := fetch.NewRequest(c, u)
		conn, err := req.Dial(ctx)
		if err != nil {
			t.Fatalf("%s: Dial: %v", raw, err)
		}
		tc, err := req.StartTLS(ctx, conn, u.Host, nil)
		if err != nil {
			t.Fatalf("%s: StartTLS: %v (the certificate names %s)", raw, err, aLabel)
		}
		tc.Close()
		if want := []string{aLabel + ":8443"}; !equalStrings(dialed, want) {
			t.Errorf("%s: dialed %q, want %q", raw, dialed, want)
		}
		mu.Lock()
		if want := []string{aLabel}; !equalStrings(sni, want) {
			t.Errorf("%s: the server got SNI %q, want %q", raw, sni, want)
		}
		mu.Unlock()
		if want := "connecting to " + tt.shown + ":8443 (" + aLabel + ":8443)"; len(trace) == 0 || trace[0] != want {
			t.Errorf("%s: trace %q, want it to begin with %q", raw, trace, want)
		}
	}

	// Without the certificate trusted, the error names the host in Unicode.
	untrusting := &fetch.Client{DialContext: c.DialContext}
	u := uri.MustParse("https://bücher.example:8443/")
	req := fetch.NewRequest(untrusting, u)
	conn, err := req.Dial(ctx)
	if err != nil {
		t.Fatal(err)
	}
	_, err = req.StartTLS(ctx, conn, u.Host, nil)
	conn.Close()
	var ce *fetch.CertificateError
	if !errors.As(err, &ce) || ce.Host != "bücher.example" || !strings.HasPrefix(err.Error(), "the certificate of bücher.example is not trusted") {
		t.Errorf("untrusted: error %v, want a CertificateError naming bücher.example", err)
	}
}

// A failed lookup names the host as the person wrote it, not the A-labels
// the resolver was asked for; a host IDNA refuses is ErrURL, never dialed.
func TestIDNDialErrors(t *testing.T) {
	dials := 0
	c := &fetch.Client{DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
		dials++
		host, _, _ := net.SplitHostPort(addr)
		return nil, &net.OpError{Op: "dial", Net: network, Err: &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}}
	}}
	req := fetch.NewRequest(c, uri.MustParse("gopher://bücher.example/"))
	_, err := req.Dial(context.Background())
	if want := "connect to bücher.example:70: lookup bücher.example: no such host"; !errors.Is(err, fetch.ErrConnect) || err.Error() != want {
		t.Errorf("Dial error = %v, want ErrConnect %q", err, want)
	}
	var de *net.DNSError
	if !errors.As(err, &de) || !de.IsNotFound {
		t.Errorf("Dial error = %v, want the *net.DNSError kept", err)
	}

	dials = 0
	_, err = req.DialAddr(context.Background(), "nntp", "⒈.example:119")
	if !errors.Is(err, fetch.ErrURL) || !strings.Contains(err.Error(), "⒈.example:119") || !strings.Contains(err.Error(), "disallowed rune U+2488") {
		t.Errorf("DialAddr(⒈.example) error = %v, want ErrURL naming the host and the reason", err)
	}
	if dials != 0 {
		t.Errorf("a host IDNA refuses was dialed %d times", dials)
	}
}

func equalStrings(a, b []string) bool {
	return strings.Join(a, "\n") == strings.Join(b, "\n") && len(a) == len(b)
}

// An IRI's password is masked in every form a line may carry it: as
// written, decoded, and as its URI encodes it.
func TestIDNPasswordMasked(t *testing.T) {
	var trace []string
	c := &fetch.Client{Trace: func(_ fetch.Direction, line string) { trace = append(trace, line) }}
	req := fetch.NewRequest(c, uri.MustParse("ftp://jöran:pä%20sse@bücher.example/"))
	req.Trace(fetch.Out, "GET ftp://j%C3%B6ran:p%C3%A4%20sse@xn--bcher-kva.example/")
	req.Trace(fetch.Out, "raw pä%20sse, decoded pä sse")
	want := []string{"GET ftp://j%C3%B6ran:***@xn--bcher-kva.example/", "raw ***, decoded ***"}
	if !equalStrings(trace, want) {
		t.Errorf("trace %q, want %q", trace, want)
	}
}
