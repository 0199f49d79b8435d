package fetch

import (
	"net"
	"testing"
)

// serveOnce starts a server on 127.0.0.1:0 that accepts one connection
// and runs script on it (what no real server does: a stall, a reply cut
// in two), and returns its host:port. The connection closes when script
// returns, the listener when the test ends. It is fetchtest.ServeOnce,
// which package fetch's own tests cannot import (fetchtest imports
// fetch).
func serveOnce(t testing.TB, script func(c net.Conn)) string {
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
