package misbehaving_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/urlfetch/urlfetch/fetch"
	"github.com/urlfetch/urlfetch/fetch/all"
	"github.com/urlfetch/urlfetch/fetch/mailto"
	"github.com/urlfetch/urlfetch/fetch/telnet"
	"github.com/urlfetch/urlfetch/fetch/wais"
	"github.com/urlfetch/urlfetch/internal/misbehaving"
	"github.com/urlfetch/urlfetch/internal/misbehaving/want"
)

const (
	// idleTimeout is the Client's idle timeout in these tests: a stall
	// must end the fetch this long after the server's last byte.
	idleTimeout = 500 * time.Millisecond
	// stallMargin is the time a stalled fetch may take beyond the idle
	// timeout: a few round trips on a loaded machine under -race.
	stallMargin = 3 * time.Second
	// boundTime bounds a fetch that is not a stall: the driver must see
	// the misbehaviour, or reach its size limit, within it (16 MiB of an
	// endless NNTP listing take some seconds under -race on a busy
	// machine).
	boundTime = 30 * time.Second
	// maxGrowth bounds the heap a fetch may add while the server sends
	// an endless line or listing or a huge reply: a driver that keeps a
	// whole line, listing or reply fails here.
	maxGrowth = 64 << 20
	// maxMessage bounds an error's text: an error that quotes what the
	// server sent must cut it short.
	maxMessage = 1024
)

// Issue 12: every driver ends a fetch from a misbehaving server with a
// clear error of a sensible kind, within its timeout, in bounded memory;
// a short document is never reported complete.
func TestDriversEndWithClearErrors(t *testing.T) {
	for _, c := range misbehaving.Cases() {
		if c.NA != "" {
			continue // TestCases checks the reason is given
		}
		t.Run(c.Name(), func(t *testing.T) {
			if c.Gap != "" {
				t.Skip(c.Gap)
			}
			if c.Stall() {
				// Nothing to measure but the wait: the stalls wait
				// together, after the cases that measure the heap.
				t.Parallel()
			}
			r := run(t, c)
			t.Logf("%s: %v after %v, heap +%s, server sent %s: %v",
				c.Name(), fetch.Class(r.err), r.elapsed.Round(time.Millisecond), size(int64(r.growth)), size(r.sent), r.err)
			switch {
			case r.err == nil:
				t.Fatalf("fetch %s ended without an error (%s)", r.url, r.stage)
			case fetch.Class(r.err) != want.Kind(c):
				t.Errorf("fetch %s: %s error %q is of kind %v, want %v", r.url, r.stage, r.err, fetch.Class(r.err), want.Kind(c))
			}
			if msg := r.err.Error(); len(msg) > maxMessage || strings.ContainsAny(msg, "\n\x00") {
				t.Errorf("fetch %s: the error is %d bytes or holds a line break or NUL: %.200q...", r.url, len(msg), msg)
			}
			if c.Stall() {
				if errors.Is(r.err, context.DeadlineExceeded) {
					t.Errorf("fetch %s: ended by the test's own deadline, not the idle timeout: %v", r.url, r.err)
				}
				if r.elapsed < idleTimeout || r.elapsed > idleTimeout+stallMargin {
					t.Errorf("fetch %s: a stall ended after %v, want the idle timeout %v (+%v at most)", r.url, r.elapsed, idleTimeout, stallMargin)
				}
			} else if r.elapsed > boundTime {
				t.Errorf("fetch %s: took %v, want at most %v", r.url, r.elapsed, boundTime)
			}
			if r.growth > maxGrowth {
				t.Errorf("fetch %s: the heap grew by %s while the server sent %s, want at most %s", r.url, size(int64(r.growth)), size(r.sent), size(maxGrowth))
			}
			if r.serverErr != nil {
				t.Errorf("the server did not reach its misbehaviour: %v", r.serverErr)
			}
		})
	}
}

// result is how one fetch from a misbehaving server ended.
type result struct {
	url       string
	stage     string // "Fetch", "Body", "Entries", "Close"
	err       error
	elapsed   time.Duration
	growth    uint64 // the peak heap in use above the heap before
	sent      int64
	serverErr error
}

// run fetches the URL of c's server through all.NewClient and reads all
// it gives, as a program would: the Body of a Document, the Entries of a
// Listing.
func run(t *testing.T, c misbehaving.Case) result {
	t.Helper()
	srv, err := misbehaving.Start(c)
	if err != nil {
		t.Fatal(err)
	}
	cl := all.NewClient()
	cl.IdleTimeout = idleTimeout
	cl.ConnectTimeout = 2 * time.Second
	cl.NetrcFile = "-"
	configure(cl, srv)
	// A safety net only: each case must end long before it.
	ctx, cancel := context.WithTimeout(context.Background(), 2*boundTime)

	r := result{url: srv.URL()}
	m := startMeter()
	start := time.Now()
	r.stage, r.err = fetchAll(ctx, cl, r.url)
	r.elapsed = time.Since(start)
	r.growth = m.stop()

	cancel()
	cl.Close()
	srv.Close()
	r.sent, r.serverErr = srv.Sent(), srv.Err()
	return r
}

// configure sets on cl's drivers, fetch/all's, what the URL of srv
// needs: the SMTP server of mailto: URLs, the telnet login (the URL
// carries a user and password), the dialect the WAIS server speaks.
func configure(cl *fetch.Client, srv *misbehaving.Server) {
	switch srv.Case.Protocol {
	case misbehaving.SMTP:
		cl.Driver("mailto").(*mailto.Driver).Server = srv.Addr()
	case misbehaving.Telnet:
		cl.Driver("telnet").(*telnet.Driver).Login = true
	case misbehaving.WAIS:
		cl.Driver("wais").(*wais.Driver).Dialect = wais.DialectWAIS
	case misbehaving.Z3950:
		cl.Driver("wais").(*wais.Driver).Dialect = wais.DialectZ3950
	}
}

// fetchAll fetches rawURL and reads what comes back to its end. It
// returns where the fetch ended and with which error: nil only if the
// whole resource came, as the server's misbehaviour must never let it.
func fetchAll(ctx context.Context, cl *fetch.Client, rawURL string) (string, error) {
	resp, err := cl.Fetch(ctx, rawURL)
	if err != nil {
		return "Fetch", err
	}
	defer resp.Body.Close()
	if resp.Kind == fetch.Listing {
		// A line that does not parse is an error and the listing goes on:
		// the listing failed only if its last word is an error.
		var last error
		for _, err := range resp.Entries() {
			last = err
		}
		if last != nil {
			return "Entries", last
		}
	} else if _, err := io.Copy(io.Discard, resp.Body); err != nil {
		return "Body", err
	}
	return "Close", resp.Body.Close()
}

// meter samples the heap in use while a fetch runs.
type meter struct {
	base, peak uint64
	done, quit chan struct{}
}

func startMeter() *meter {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	m := &meter{base: ms.HeapInuse, peak: ms.HeapInuse, done: make(chan struct{}), quit: make(chan struct{})}
	go func() {
		defer close(m.done)
		tick := time.NewTicker(5 * time.Millisecond)
		defer tick.Stop()
		for {
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			m.peak = max(m.peak, ms.HeapInuse)
			select {
			case <-m.quit:
				return
			case <-tick.C:
			}
		}
	}()
	return m
}

// stop ends the sampling and returns the peak growth.
func (m *meter) stop() uint64 {
	close(m.quit)
	<-m.done
	return m.peak - m.base
}

// size formats a count of bytes for a person.
func size(n int64) string {
	if n < 1<<20 {
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
}

// The table has one cell per protocol and behaviour, each either with
// the kind of error it wants (in package want) or with the reason it
// does not apply.
func TestCases(t *testing.T) {
	seen := map[string]bool{}
	for _, c := range misbehaving.Cases() {
		if seen[c.Name()] {
			t.Errorf("case %s is in the table twice", c.Name())
		}
		seen[c.Name()] = true
		seen[c.Protocol.String()+"/"+c.Behaviour.String()] = true
		switch kind := want.Kind(c); {
		case (c.NA == "") == (kind == nil):
			t.Errorf("case %s: NA %q and want.Kind %v: exactly one must be set", c.Name(), c.NA, kind)
		case kind != nil && fetch.Class(kind) != kind:
			t.Errorf("case %s: want.Kind %v is not a kind of fetch error", c.Name(), kind)
		}
	}
	for p := misbehaving.HTTP; p <= misbehaving.File; p++ {
		for _, b := range misbehaving.Behaviours {
			if name := p.String() + "/" + b.String(); !seen[name] {
				t.Errorf("the table has no cell %s", name)
			}
		}
	}
}

// A server closed while a client waits on it ends every connection and
// goroutine it has: Close returns, and the client sees the close.
func TestCloseEndsStalls(t *testing.T) {
	srv, err := misbehaving.Start(misbehaving.Case{Protocol: misbehaving.HTTP, Behaviour: misbehaving.StallBefore})
	if err != nil {
		t.Fatal(err)
	}
	cl := all.NewClient()
	cl.IdleTimeout = time.Minute
	cl.NetrcFile = "-"
	defer cl.Close()
	done := make(chan error, 1)
	go func() {
		_, err := fetchAll(context.Background(), cl, srv.URL())
		done <- err
	}()
	// Wait until the server holds the connection, then close it.
	deadline := time.Now().Add(5 * time.Second)
	for {
		if srv.Conns() > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the client never connected")
		}
		time.Sleep(time.Millisecond)
	}
	srv.Close()
	select {
	case err := <-done:
		if err == nil {
			t.Error("a fetch from a server closed before it answered succeeded")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the fetch did not end when the server closed")
	}
}
