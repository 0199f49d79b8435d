package fetch

import (
	"bufio"
	"context"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// A conversation of commands and replies: a reply read in two reads is
// acknowledged at once before the second (the socket is in quick-ACK
// mode after it), a reply read whole asks for nothing (the next command
// carries its ACK), and after quickAckBytes of one reply the connection
// is left alone: a bulk stream costs no call a read. The server is
// in-process: only the client's socket is looked at.
func TestQuickAckCalls(t *testing.T) {
	addr := serveOnce(t, func(s net.Conn) {
		r := bufio.NewReader(s)
		for {
			line, err := r.ReadString('\n')
			if err != nil {
				return
			}
			switch {
			case strings.HasPrefix(line, "BULK"):
				s.Write(make([]byte, 4*quickAckBytes))
			case strings.HasPrefix(line, "SPLIT"):
				s.Write([]byte("150 here it comes\r\n"))
				r.ReadString('\n') // the client's go-ahead, after its first read
				s.Write([]byte("226 done\r\n"))
			default:
				s.Write([]byte("200 ok\r\n"))
			}
		}
	})
	c, err := (&Client{}).dial(context.Background(), "tcp", addr, addr)
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
		if n := c.asked.Load(); n != 0 {
			t.Fatalf("exchange %d: %d quick ACKs asked for replies read whole, want 0", i+1, n)
		}
	}
	for i := range 20 {
		before := c.asked.Load()
		if _, err := c.Write([]byte("SPLIT\r\n")); err != nil {
			t.Fatal(err)
		}
		if _, err := c.Read(buf); err != nil {
			t.Fatal(err)
		}
		// The go-ahead goes on the server's own connection state, not
		// through c: the next read follows a read.
		c.Conn.Write([]byte("GO\r\n"))
		if _, err := c.Read(buf); err != nil {
			t.Fatal(err)
		}
		if n := c.asked.Load() - before; n != 1 {
			t.Fatalf("split exchange %d: %d quick ACKs asked, want 1", i+1, n)
		}
		if q := quickAck(); q != 1 {
			t.Fatalf("split exchange %d: TCP_QUICKACK is %d after the second read, want 1", i+1, q)
		}
	}
	c.Write([]byte("BULK\r\n"))
	before := c.asked.Load()
	big := make([]byte, 4<<10)
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
	if asked := c.asked.Load() - before; asked > quickAckBytes/(4<<10)+1 {
		t.Errorf("%d quick ACKs asked in %d bytes of one reply read 4 KiB at a time, want at most %d", asked, n, quickAckBytes/(4<<10)+1)
	}
}

// The stall quick ACKs are for, end to end: a server with Nagle's
// algorithm on (INN, like most servers in C) writes each reply as a status
// line and then the rest; the rest waits for the ACK of the status line.
// With delayed ACKs that is some 40 ms an exchange; acknowledged when the
// client reads on, it is none. The server is in-process, with Nagle put
// back on (Go turns it off). Without quick ACKs the 20 exchanges take a
// second or more.
func TestQuickAckSplitReplies(t *testing.T) {
	addr := serveOnce(t, func(s net.Conn) {
		s.(*net.TCPConn).SetNoDelay(false)
		r := bufio.NewReader(s)
		for {
			if _, err := r.ReadString('\n'); err != nil {
				return
			}
			s.Write([]byte("220 0 <a@b> article\r\n"))
			s.Write([]byte("Subject: a split reply\r\n\r\nbody\r\n.\r\n"))
		}
	})
	c, err := (&Client{}).dial(context.Background(), "tcp", addr, addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	r := bufio.NewReaderSize(c, 4096)
	exchange := func() {
		if _, err := c.Write([]byte("ARTICLE <a@b>\r\n")); err != nil {
			t.Fatal(err)
		}
		for {
			line, err := r.ReadString('\n')
			if err != nil {
				t.Fatal(err)
			}
			if line == ".\r\n" {
				return
			}
		}
	}
	// Linux acknowledges the first segments of a connection at once:
	// the stall comes once the exchange looks interactive.
	for range 20 {
		exchange()
	}
	start := time.Now()
	const n = 20
	for range n {
		exchange()
	}
	if d := time.Since(start); d > n*10*time.Millisecond {
		t.Errorf("%d exchanges of split replies took %v: a delayed ACK held each reply's rest", n, d)
	}
}

// A stream (an FTP data connection: Conn.Stream) asks for no quick ACKs,
// however it is read.
func TestQuickAckStream(t *testing.T) {
	addr := serveOnce(t, func(s net.Conn) { s.Write(make([]byte, 256<<10)) })
	c, err := (&Client{}).dial(context.Background(), "tcp", addr, addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.Stream()
	n, err := io.CopyBuffer(io.Discard, struct{ io.Reader }{c}, make([]byte, 1<<10))
	if err != nil || n != 256<<10 {
		t.Fatalf("read %d bytes, %v", n, err)
	}
	if asked := c.asked.Load(); asked != 0 {
		t.Errorf("a stream asked for %d quick ACKs, want 0", asked)
	}
}
