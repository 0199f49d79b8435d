package nntp_test

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"net"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/urlfetch/urlfetch/fetch"
	"github.com/urlfetch/urlfetch/fetch/fetchtest"
	"github.com/urlfetch/urlfetch/fetch/nntp"
)

// The TLS tests: STARTTLS (RFC 4642) where the harness's INN cannot show
// it (a refusal, no offer, bytes after the 382, no reply at all, other
// capabilities under TLS, a mode-switching server), and the addresses of
// snews: and nntps: URLs, which need no server. INN's STARTTLS and its
// nntps port are in integration/nntps_test.go.

// tlsClient returns a Client with d for the four schemes, trusting pool,
// with up as its TLSUpgrade.
func tlsClient(t testing.TB, d *nntp.Driver, pool *x509.CertPool, up fetch.Upgrade) (*fetch.Client, *fetchtest.TraceLog) {
	c, log := newClient(t, d)
	c.Register("snews", d)
	c.Register("nntps", d)
	c.TLSConfig = &tls.Config{RootCAs: pool}
	c.TLSUpgrade = up
	return c, log
}

// A server that refuses STARTTLS or does not offer it: --ssl goes on in
// cleartext and says so; --ssl-reqd fails with ErrTLS naming the server,
// before any AUTHINFO (the server wants one, and the URL has a login).
func TestStartTLSNotGiven_FakeServer(t *testing.T) {
	cfg, pool := fakeTLS(t)
	for _, tc := range []struct {
		name string
		opts fakeOpts
		why  string // in the error and the trace
		sent []string
	}{
		{"Refused580", fakeOpts{caps: []string{"OVER"}, tls: cfg, replies: map[string]string{"STARTTLS": "580 Can not initiate TLS negotiation\r\n"}},
			"580 Can not initiate TLS negotiation", []string{"CAPABILITIES", "STARTTLS"}},
		{"Refused502", fakeOpts{caps: []string{"OVER"}, tls: cfg, replies: map[string]string{"STARTTLS": "502 Command unavailable\r\n"}},
			"502 Command unavailable", []string{"CAPABILITIES", "STARTTLS"}},
		{"NotOffered", fakeOpts{caps: []string{"OVER"}},
			"do not list STARTTLS", []string{"CAPABILITIES"}},
		{"NoCapabilities", fakeOpts{},
			"knows no CAPABILITIES", []string{"CAPABILITIES"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.opts.user, tc.opts.pass = "joe", "pw"
			tc.opts.groups = []*fakeGroup{smallGroup("misc.test", testArticles()...)}
			url := func(f *fake) string { return "nntp://joe:pw@" + f.addr + "/misc.test/1" }

			f := newFake(t, tc.opts)
			c, _ := tlsClient(t, &nntp.Driver{}, pool, fetch.UpgradeRequire)
			_, err := c.Fetch(t.Context(), url(f))
			if !errors.Is(err, fetch.ErrTLS) || fetch.Class(err) != fetch.ErrTLS || !strings.Contains(err.Error(), f.addr) || !strings.Contains(err.Error(), tc.why) {
				t.Errorf("UpgradeRequire: error %v; want ErrTLS naming %s and saying %q", err, f.addr, tc.why)
			}
			if got := f.commands(); !slices.Equal(got, tc.sent) {
				t.Errorf("UpgradeRequire: the server got %q, want %q and nothing after (no AUTHINFO)", got, tc.sent)
			}

			f = newFake(t, tc.opts)
			c, log := tlsClient(t, &nntp.Driver{}, pool, fetch.UpgradeTry)
			if _, body := fetchBody(t, c, url(f)); !strings.HasSuffix(body, "\n\nhello\n") {
				t.Errorf("UpgradeTry: body %q", body)
			}
			if !strings.Contains(log.String(), "going on in cleartext") || !strings.Contains(log.String(), tc.why) {
				t.Errorf("UpgradeTry: the trace does not say why it goes on in cleartext:\n%s", log)
			}
			if got := f.commands(); !slices.Equal(got[:len(tc.sent)], tc.sent) || slices.ContainsFunc(got, func(s string) bool { return strings.HasPrefix(s, "[tls]") }) {
				t.Errorf("UpgradeTry: the server got %q; want %q first, all in cleartext", got, tc.sent)
			}
		})
	}
}

// RFC 4642 section 2.2.2: the TLS negotiation begins right after the
// 382 line. A server (or a man in the middle: CVE-2011-0411) that sends
// more before it is refused, whether the bytes look like a reply or not:
// none of them may be read as the reply to a command sent under TLS.
func TestStartTLSBytesAfter382_FakeServer(t *testing.T) {
	cfg, pool := fakeTLS(t)
	for _, up := range []fetch.Upgrade{fetch.UpgradeTry, fetch.UpgradeRequire} {
		f := newFake(t, fakeOpts{
			caps:    []string{"OVER"},
			tls:     cfg,
			groups:  []*fakeGroup{smallGroup("misc.test", testArticles()...)},
			replies: map[string]string{"STARTTLS": "382 Continue with TLS negotiation\r\n211 9 1 9 misc.test\r\n"},
		})
		c, _ := tlsClient(t, &nntp.Driver{}, pool, up)
		_, err := c.Fetch(t.Context(), "nntp://"+f.addr+"/misc.test/1")
		if !errors.Is(err, fetch.ErrTLS) || !strings.Contains(err.Error(), "after its 382") || !strings.Contains(err.Error(), f.addr) {
			t.Errorf("Upgrade %d: error %v; want ErrTLS saying %s sent bytes after its 382", up, err, f.addr)
		}
		if got, want := f.commands(), []string{"CAPABILITIES", "STARTTLS"}; !slices.Equal(got, want) {
			t.Errorf("Upgrade %d: the server got %q, want %q", up, got, want)
		}
	}
}

// A server that never answers STARTTLS: the idle timeout ends the fetch
// (ErrTimeout), and so does a cancellation (context.Canceled).
func TestStartTLSNoReply_FakeServer(t *testing.T) {
	cfg, pool := fakeTLS(t)
	opts := fakeOpts{caps: []string{"OVER"}, tls: cfg, stall: map[string]bool{"STARTTLS": true}}

	f := newFake(t, opts)
	c, _ := tlsClient(t, &nntp.Driver{}, pool, fetch.UpgradeRequire)
	c.IdleTimeout = 200 * time.Millisecond
	start := time.Now()
	_, err := c.Fetch(t.Context(), "nntp://"+f.addr+"/misc.test/1")
	if !errors.Is(err, fetch.ErrTimeout) || time.Since(start) > 5*time.Second {
		t.Errorf("no reply to STARTTLS: error %v after %v; want ErrTimeout after the idle timeout", err, time.Since(start))
	}

	f = newFake(t, opts)
	c, _ = tlsClient(t, &nntp.Driver{}, pool, fetch.UpgradeTry)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		_, err := c.Fetch(ctx, "nntp://"+f.addr+"/misc.test/1")
		done <- err
	}()
	deadline := time.Now().Add(5 * time.Second)
	for !slices.Contains(f.commands(), "STARTTLS") && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	cancel()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("cancelled while waiting for the reply to STARTTLS: error %v, want context.Canceled", err)
		}
	case <-time.After(5 * time.Second):
		t.Errorf("cancelled while waiting for the reply to STARTTLS: still waiting after 5s")
	}
}

// RFC 4642 section 2.2.2: after TLS the client forgets the capabilities
// it learned in cleartext and asks again. This server lists no OVER in
// cleartext and OVER under TLS (as a man in the middle might strip
// capabilities): the client uses OVER, as the list under TLS says.
func TestStartTLSCapabilitiesAgain_FakeServer(t *testing.T) {
	cfg, pool := fakeTLS(t)
	f := newFake(t, fakeOpts{
		caps:    []string{},
		capsTLS: []string{"OVER"},
		tls:     cfg,
		groups:  []*fakeGroup{smallGroup("misc.test", testArticles()...)},
	})
	c, log := tlsClient(t, &nntp.Driver{Server: f.addr}, pool, fetch.UpgradeRequire)
	fetchBody(t, c, "news:misc.test")
	want := []string{"CAPABILITIES", "STARTTLS", "[tls] CAPABILITIES", "[tls] GROUP misc.test", "[tls] OVER 1-2"}
	if got := f.commands(); !slices.Equal(got, want) {
		t.Errorf("the server got %q, want %q", got, want)
	}
	for _, line := range []string{"< 382 Continue with TLS negotiation", "* TLS: TLS 1.3", "* TLS certificate: subject \"CN=fake news server\""} {
		if !strings.Contains(log.String(), line) {
			t.Errorf("the trace has no %q:\n%s", line, log)
		}
	}
}

// A mode-switching server may offer STARTTLS in reader mode only (RFC
// 3977 section 5.3.3): MODE READER first, in cleartext and without
// AUTHINFO, then STARTTLS; INN's nnrpd is a reader from the start.
func TestStartTLSModeSwitching_FakeServer(t *testing.T) {
	cfg, pool := fakeTLS(t)
	f := newFake(t, fakeOpts{
		caps:             []string{"OVER"},
		modeReader:       true,
		startTLSInReader: true,
		tls:              cfg,
		groups:           []*fakeGroup{smallGroup("misc.test", testArticles()...)},
	})
	c, _ := tlsClient(t, &nntp.Driver{Server: f.addr}, pool, fetch.UpgradeRequire)
	fetchBody(t, c, "news:one@fake.test")
	want := []string{"CAPABILITIES", "MODE READER", "CAPABILITIES", "STARTTLS", "[tls] CAPABILITIES", "[tls] ARTICLE <one@fake.test>"}
	if got := f.commands(); !slices.Equal(got, want) {
		t.Errorf("the server got %q, want %q", got, want)
	}
}

// snews: goes to the news server at port 563 when the setting names no
// port, nntps: to its host at 563; news: and nntp: stay at 119. The
// dialer records the address and connects nowhere.
func TestTLSSchemeAddresses(t *testing.T) {
	for _, tc := range []struct{ server, url, want string }{
		{"news.test", "snews:misc.test", "news.test:563"},
		{"news.test:1563", "snews:misc.test", "news.test:1563"},
		{"news.test", "news:misc.test", "news.test:119"},
		{"", "nntps://news.test/misc.test/1", "news.test:563"},
		{"", "nntps://news.test:1563/misc.test/1", "news.test:1563"},
		{"", "nntp://news.test/misc.test/1", "news.test:119"},
	} {
		var dialed string
		c, _ := tlsClient(t, &nntp.Driver{Server: tc.server}, nil, fetch.UpgradeDefault)
		c.DialContext = func(_ context.Context, _, addr string) (net.Conn, error) {
			dialed = addr
			return nil, errors.New("no network in this test")
		}
		if _, err := c.Fetch(t.Context(), tc.url); err == nil || dialed != tc.want {
			t.Errorf("Server %q, Fetch(%q): dialed %q (error %v), want %q", tc.server, tc.url, dialed, err, tc.want)
		}
	}
}
