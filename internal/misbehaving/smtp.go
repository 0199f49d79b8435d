package misbehaving

import (
	"fmt"
	"strconv"
	"strings"
)

// serveSMTP runs an SMTP server: the greeting, EHLO or HELO, MAIL, RCPT,
// DATA and the message. It misbehaves at the greeting, in the EHLO
// reply, or after the message.
func (s *Server) serveSMTP(c *conn) error {
	b := s.Case.Behaviour
	if done, err := c.greet(b, "220 misbehaving ESMTP ", "220 misbehaving ESMTP ready\r\n"); done {
		return err
	}
	for {
		line, err := c.readLine()
		if err != nil {
			return err
		}
		verb, _, _ := strings.Cut(line, " ")
		switch strings.ToUpper(verb) {
		case "EHLO", "HELO":
			switch b {
			case StallDuring:
				// The first line of a multi-line reply, and no more.
				if err := c.print("250-misbehaving greets you\r\n"); err != nil {
					return err
				}
				return c.stall()
			case Huge:
				if err := c.print("250-misbehaving greets you\r\n"); err != nil {
					return err
				}
				// Extension lines, each well-formed, never the last one.
				return c.endless(func(b []byte, i int) []byte {
					b = append(b, "250-X-EXTENSION-"...)
					b = strconv.AppendInt(b, int64(i), 10)
					return append(b, " of a list that does not end\r\n"...)
				})
			}
			err = c.print("250-misbehaving greets you\r\n250 8BITMIME\r\n")
		case "MAIL", "RCPT", "RSET", "NOOP":
			err = c.print("250 2.1.0 Ok\r\n")
		case "DATA":
			if err := c.print("354 End data with <CR><LF>.<CR><LF>\r\n"); err != nil {
				return err
			}
			for {
				l, err := c.readLine()
				if err != nil {
					return err
				}
				if l == "." {
					break
				}
			}
			if b == CloseMidTransfer {
				// The message is in, and the server hangs up without the
				// reply that says whether it took it.
				return nil
			}
			return fmt.Errorf("no %v for smtp after DATA", b)
		case "QUIT":
			c.print("221 2.0.0 Bye\r\n")
			return nil
		default:
			err = c.print("502 5.5.2 Error: command not recognized\r\n")
		}
		if err != nil {
			return err
		}
	}
}
