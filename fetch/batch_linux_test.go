package fetch

import (
	"context"
	"errors"
	"io"
	"net"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// batchServer serves one connection: n bytes as fast as it can, then,
// after a pause, tail, then it stalls, the connection open, until the
// test ends. A line from the client is answered with "ok\r\n".
func batchServer(t *testing.T, n int, tail []byte) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	t.Cleanup(func() { close(done); ln.Close() })
	go func() {
		s, err := ln.Accept()
		if err != nil {
			return
		}
		defer s.Close()
		go func() {
			buf := make([]byte, 64)
			for {
				if _, err := s.Read(buf); err != nil {
					return
				}
				s.Write([]byte("ok\r\n"))
			}
		}()
		chunk := make([]byte, 256<<10)
		for left := n; left > 0; left -= len(chunk) {
			if _, err := s.Write(chunk[:min(left, len(chunk))]); err != nil {
				return
			}
		}
		if tail != nil {
			time.Sleep(200 * time.Millisecond) // the client has read all and waits
			s.Write(tail)
		}
		<-done
	}()
	return ln.Addr().String()
}

func rcvLowat(c *Conn) int {
	var v int
	c.raw.Control(func(fd uintptr) { v, _ = unix.GetsockoptInt(int(fd), unix.SOL_SOCKET, unix.SO_RCVLOWAT) })
	return v
}

// Issue 24, point 4: a fast stream read with a transfer's buffer is read
// in batches (SO_RCVLOWAT), and a write (the next request) ends them.
func TestBatchFastStream(t *testing.T) {
	addr := batchServer(t, 32<<20, nil)
	c, err := (&Client{IdleTimeout: 5 * time.Second}).dial(context.Background(), "tcp", addr, addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	buf := make([]byte, 256<<10)
	seen := false
	for n := 0; n < 32<<20; {
		m, err := c.Read(buf)
		if err != nil {
			t.Fatalf("after %d bytes: %v", n, err)
		}
		n += m
		if rcvLowat(c) == batchBytes {
			seen = true
		}
	}
	if !seen {
		t.Errorf("32 MiB read 256 KiB at a time, and the socket never batched (SO_RCVLOWAT %d)", rcvLowat(c))
	}
	if _, err := c.Write([]byte("next\r\n")); err != nil {
		t.Fatal(err)
	}
	if got := rcvLowat(c); got != 1 {
		t.Errorf("SO_RCVLOWAT after a write = %d, want 1", got)
	}
	// A line protocol's small reads never batch.
	if _, err := io.ReadFull(c, make([]byte, 4)); err != nil {
		t.Fatal(err)
	}
	if got := rcvLowat(c); got != 1 {
		t.Errorf("SO_RCVLOWAT after a small read = %d, want 1", got)
	}
}

// A stream that slows after a fast start: its last bytes, less than a
// batch, come at once all the same (within batchPatience, not the idle
// timeout), and a stall then still ends at the idle timeout, not at the
// patience's.
func TestBatchSlowTail(t *testing.T) {
	tail := []byte("the last 27 bytes of it all")
	addr := batchServer(t, 8<<20, tail)
	const idle = 1500 * time.Millisecond
	c, err := (&Client{IdleTimeout: idle}).dial(context.Background(), "tcp", addr, addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	buf := make([]byte, 256<<10)
	n := 0
	var last time.Time
	for n < 8<<20+len(tail) {
		m, err := c.Read(buf)
		if err != nil {
			t.Fatalf("after %d bytes: %v", n, err)
		}
		if n < 8<<20 {
			last = time.Now()
		}
		n += m
	}
	if d := time.Since(last); d > 600*time.Millisecond {
		t.Errorf("the last %d bytes, sent 200 ms after the rest, came %v after it: held back for a batch", len(tail), d)
	}
	start := time.Now()
	_, err = c.Read(buf)
	var te *TimeoutError
	if !errors.As(err, &te) {
		t.Fatalf("read of a stalled stream: %v, want the idle timeout", err)
	}
	if d := time.Since(start); d < idle-200*time.Millisecond {
		t.Errorf("the stall ended after %v, want the idle timeout %v", d, idle)
	}
}

// Cancelling the context ends a batched read at once, with the context's
// error.
func TestBatchCancel(t *testing.T) {
	addr := batchServer(t, 8<<20, nil)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	c, err := (&Client{IdleTimeout: 10 * time.Second}).dial(ctx, "tcp", addr, addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	buf := make([]byte, 256<<10)
	for n := 0; n < 8<<20; {
		m, err := c.Read(buf)
		if err != nil {
			t.Fatal(err)
		}
		n += m
	}
	time.AfterFunc(300*time.Millisecond, cancel)
	start := time.Now()
	if _, err := c.Read(buf); !errors.Is(err, context.Canceled) {
		t.Errorf("read after cancel: %v, want context.Canceled", err)
	}
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("cancel took %v to end the read", d)
	}
}
