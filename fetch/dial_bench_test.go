package fetch

import (
	"context"
	"io"
	"net"
	"testing"
	"time"
)

// The cost a read of the dial path's Conn and of a Body adds to the read
// of the socket (issue 24, point 4): a server in-process writes without
// end, and each benchmark reads 64 KiB at a time from the plain socket,
// through Conn (the idle deadline set, the context looked at), and
// through a Body over Conn, as a driver's Body reads. The difference of
// ns/op is the overhead of one read.
func BenchmarkRead(b *testing.B) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	defer ln.Close()
	go func() {
		chunk := make([]byte, 256<<10)
		for {
			s, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer s.Close()
				for {
					if _, err := s.Write(chunk); err != nil {
						return
					}
				}
			}()
		}
	}()
	dial := func(b *testing.B) *Conn {
		c, err := (&Client{}).dial(context.Background(), "tcp", ln.Addr().String(), ln.Addr().String())
		if err != nil {
			b.Fatal(err)
		}
		return c
	}
	run := func(b *testing.B, r io.Reader) {
		buf := make([]byte, 64<<10)
		b.SetBytes(int64(len(buf)))
		for b.Loop() {
			if _, err := io.ReadFull(r, buf); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.Run("Socket", func(b *testing.B) {
		c := dial(b)
		defer c.Close()
		run(b, c.Conn)
	})
	b.Run("Conn", func(b *testing.B) {
		c := dial(b)
		defer c.Close()
		run(b, c)
	})
	b.Run("Body", func(b *testing.B) {
		c := dial(b)
		defer c.Close()
		run(b, NewBody(context.Background(), c, BodyFuncs{}))
	})
}

// BenchmarkReadOverhead is what Conn's Read does besides reading: the
// idle deadline moved on and the context looked at, on a TCP socket.
func BenchmarkReadOverhead(b *testing.B) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	defer ln.Close()
	go func() {
		if s, err := ln.Accept(); err == nil {
			defer s.Close()
			io.Copy(io.Discard, s)
		}
	}()
	c, err := (&Client{}).dial(context.Background(), "tcp", ln.Addr().String(), ln.Addr().String())
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	for b.Loop() {
		c.Conn.SetReadDeadline(time.Now().Add(c.idle))
		if err := c.context().Err(); err != nil {
			b.Fatal(err)
		}
		c.quickAck()
	}
}
