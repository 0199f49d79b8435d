package misbehaving

import (
	"bytes"
	"fmt"
	"strconv"
)

// serveGopher reads the request line (selector, and a Gopher+ string for
// the gopher+ cases) and misbehaves in the reply.
func (s *Server) serveGopher(c *conn) error {
	if _, err := c.readLine(); err != nil {
		return err
	}
	if s.Case.Protocol == GopherPlus {
		return s.serveGopherPlus(c)
	}
	switch s.Case.Behaviour {
	case StallBefore:
		return c.stall()
	case StallDuring:
		if err := c.print("The first lines of a text,\r\nand then nothing more\r\n"); err != nil {
			return err
		}
		return c.stall()
	case EndlessLine:
		// An info line of a menu that never ends.
		if err := c.print("iWelcome\t\terror.host\t1\r\niThis line does not end: "); err != nil {
			return err
		}
		return c.endless(endlessByte('a'))
	case EndlessListing:
		return c.endless(func(b []byte, i int) []byte {
			n := strconv.AppendInt(nil, int64(i), 10)
			b = append(b, "0File "...)
			b = append(b, n...)
			b = append(b, "\t/files/"...)
			b = append(b, n...)
			return append(b, ".txt\tgopher.example.org\t70\r\n"...)
		})
	}
	return fmt.Errorf("no %v for gopher", s.Case.Behaviour)
}

// serveGopherPlus answers a Gopher+ request.
func (s *Server) serveGopherPlus(c *conn) error {
	switch s.Case.Behaviour {
	case StallBefore:
		return c.stall()
	case StallDuring:
		// "+5000", 1000 bytes of the 5000, then silence.
		if err := c.print("+5000\r\n"); err != nil {
			return err
		}
		if _, err := c.Write(bytes.Repeat([]byte{0xA5}, 1000)); err != nil {
			return err
		}
		return c.stall()
	case EndlessLine:
		// The attribute reply ("!"): its first line never ends.
		if err := c.print("+-2\r\n+INFO: 0doc.txt\t/doc.txt\tgopher.example.org\t70\t+\r\n+ABSTRACT:\r\n "); err != nil {
			return err
		}
		return c.endless(endlessByte('a'))
	case Huge:
		// An abstract of well-formed lines without an end.
		if err := c.print("+-2\r\n+INFO: 0doc.txt\t/doc.txt\tgopher.example.org\t70\t+\r\n+ABSTRACT:\r\n"); err != nil {
			return err
		}
		return c.endless(func(b []byte, i int) []byte {
			b = append(b, " Line "...)
			b = strconv.AppendInt(b, int64(i), 10)
			return append(b, " of an abstract that goes on and on\r\n"...)
		})
	case Garbage:
		// No attribute blocks: an HTTP server's error page, and the
		// connection left open, so only the bytes can tell.
		if err := c.print(garbage); err != nil {
			return err
		}
		return c.stall()
	case WrongLength:
		// "+100000", then 1000 bytes and the close.
		if err := c.print("+100000\r\n"); err != nil {
			return err
		}
		_, err := c.Write(bytes.Repeat([]byte{0xA5}, 1000))
		return err
	case CloseMidTransfer:
		// "+-1" promises a "." line; the close comes first.
		return c.print("+-1\r\nThe first line of a text\r\nand the second, after which the server hangs up\r\n")
	}
	return fmt.Errorf("no %v for gopher+", s.Case.Behaviour)
}
