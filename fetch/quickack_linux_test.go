package fetch

import (
	"bufio"
	"context"
	"net"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

// A conversation of commands and short replies: after every read of a
// reply the socket is in quick-ACK mode again (Linux falls back to
// delayed ACKs once the exchange looks interactive), and after
// quickAckBytes of one reply it is left alone. The server is in-process:
// only the client's socket is looked at.
func TestQuickAckAfterEachRead(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		s, err := ln.Accept()
		if err != nil {
			return
		}
		defer s.Close()
		r := bufio.NewReader(s)
		for {
			line, err := r.ReadString('\n')
			if err != nil {
				return
			}
			if strings.HasPrefix(line, "BULK") {
				s.Write(make([]byte, 4*quickAckBytes))
				continue
			}
			s.Write([]byte("200 ok\r\n"))
		}
	}()
	c, err := (&Client{}).dial(context.Background(), "tcp", ln.Addr().String(), ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	quickAck := func() int {
		var v int
		c.ack.Control(func(fd uintptr) { v, _ = unix.GetsockoptInt(int(fd), unix.IPPROTO_TCP, unix.TCP_QUICKACK) })
		return v
	}
	buf := make([]byte, 64)
	for i := range 20 {
		if _, err := c.Write([]byte("NOOP\r\n")); err != nil {
			t.Fatal(err)
		}
		if _, err := c.Read(buf); err != nil {
			t.Fatal(err)
		}
		if q := quickAck(); q != 1 {
			t.Fatalf("exchange %d: TCP_QUICKACK is %d after the read of the reply, want 1", i+1, q)
		}
	}
	c.Write([]byte("BULK\r\n"))
	big := make([]byte, 32<<10)
	var n int64
	for n < 4*quickAckBytes {
		m, err := c.Read(big)
		if err != nil {
			t.Fatal(err)
		}
		n += int64(m)
	}
	if got := c.acked.Load(); got < quickAckBytes {
		t.Errorf("after %d bytes of one reply, %d counted", n, got)
	}
}
