package fetchtest

import (
	"net"
	"sync"
	"testing"
)

// SilentServer starts a server on 127.0.0.1:0 that accepts connections
// and never answers, and returns its host:port: the stalled server of a
// Stall URL, since no real server stalls on demand. When the test ends
// it closes its listener and every connection it accepted.
func SilentServer(t testing.TB) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	var conns []net.Conn
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return // the listener is closed: the test has ended
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		// Once the accepting goroutine has ended no connection can be
		// added behind the loop below.
		wg.Wait()
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			c.Close()
		}
	})
	return ln.Addr().String()
}

// ServeOnce starts a server on 127.0.0.1:0 that accepts one connection
// and runs script on it (a server saying what no real one would), and
// returns its host:port. The connection closes when script returns, the
// listener when the test ends.
func ServeOnce(t testing.TB, script func(c net.Conn)) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		script(c)
	}()
	return ln.Addr().String()
}
