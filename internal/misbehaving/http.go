package misbehaving

import (
	"bytes"
	"fmt"
	"strconv"
)

// serveHTTP reads a request's header block and misbehaves in its reply.
func (s *Server) serveHTTP(c *conn) error {
	for n := 0; ; n++ {
		line, err := c.readLine()
		if err != nil {
			return err
		}
		if line == "" {
			break
		}
		if n > 100 {
			return fmt.Errorf("a request header of more than %d lines", n)
		}
	}
	const head = "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\n"
	switch s.Case.Behaviour {
	case StallBefore:
		return c.stall()
	case StallDuring:
		if err := c.print(head + "Content-Length: 1048576\r\n\r\n"); err != nil {
			return err
		}
		if _, err := c.Write(bytes.Repeat([]byte("x"), 1000)); err != nil {
			return err
		}
		return c.stall()
	case EndlessLine:
		// A header line that never ends.
		if err := c.print(head + "X-Endless: "); err != nil {
			return err
		}
		return c.endless(endlessByte('a'))
	case Huge:
		// Header lines, each well-formed, without an end.
		if err := c.print(head); err != nil {
			return err
		}
		value := bytes.Repeat([]byte("v"), 1000)
		return c.endless(func(b []byte, i int) []byte {
			b = append(b, "X-Huge-"...)
			b = strconv.AppendInt(b, int64(i), 10)
			b = append(b, ": "...)
			b = append(b, value...)
			return append(b, "\r\n"...)
		})
	case Garbage:
		// Not an HTTP status line; the connection stays open, so only the
		// bytes can tell the client something is wrong.
		if err := c.print(sshBanner); err != nil {
			return err
		}
		return c.stall()
	case WrongLength:
		// Content-Length says 100000; 1000 bytes come, then the close.
		if err := c.print(head + "Content-Length: 100000\r\n\r\n"); err != nil {
			return err
		}
		_, err := c.Write(bytes.Repeat([]byte("x"), 1000))
		return err
	case CloseMidTransfer:
		// A chunked body cut in the middle of its second chunk.
		if err := c.print(head + "Transfer-Encoding: chunked\r\n\r\n1000\r\n"); err != nil {
			return err
		}
		if _, err := c.Write(bytes.Repeat([]byte("x"), 0x1000)); err != nil {
			return err
		}
		if err := c.print("\r\n1000\r\n"); err != nil {
			return err
		}
		_, err := c.Write(bytes.Repeat([]byte("y"), 100))
		return err
	}
	return fmt.Errorf("no %v for http", s.Case.Behaviour)
}
