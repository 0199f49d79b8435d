package misbehaving

import (
	"fmt"
	"strconv"
	"strings"
)

// serveNNTP runs a news server: the greeting, CAPABILITIES, MODE READER,
// GROUP, ARTICLE, OVER and XOVER, LIST ACTIVE. It misbehaves at the
// greeting, in the capability list, an article, the overview or the list
// of groups. For the capability list (Huge) it is an older mode-switching
// server in transit mode, which answers a reader command with 500, so
// that a client asks for the capabilities to learn what to do.
func (s *Server) serveNNTP(c *conn) error {
	b := s.Case.Behaviour
	if done, err := c.greet(b, "200 misbehaving news server ", "200 misbehaving news server ready, posting allowed\r\n"); done {
		return err
	}
	for {
		line, err := c.readLine()
		if err != nil {
			return err
		}
		verb, arg, _ := strings.Cut(line, " ")
		verb = strings.ToUpper(verb)
		if b == Huge && verb != "CAPABILITIES" && verb != "QUIT" {
			if err := c.print("500 What?\r\n"); err != nil {
				return err
			}
			continue
		}
		switch verb {
		case "CAPABILITIES":
			if b == Huge {
				if err := c.print("101 Capability list:\r\nVERSION 2\r\nREADER\r\n"); err != nil {
					return err
				}
				// Capability lines, each well-formed, and never the dot.
				return c.endless(func(b []byte, i int) []byte {
					b = append(b, "X-CAPABILITY-"...)
					b = strconv.AppendInt(b, int64(i), 10)
					return append(b, " of a list that does not end\r\n"...)
				})
			}
			err = c.print("101 Capability list:\r\nVERSION 2\r\nREADER\r\nOVER\r\nLIST ACTIVE\r\n.\r\n")
		case "MODE":
			err = c.print("200 Posting allowed\r\n")
		case "GROUP":
			err = c.printf("211 3 1 3 %s\r\n", arg)
		case "ARTICLE":
			if err := c.print("220 1 <1@misbehaving.example> article follows\r\n" +
				"From: ann@example.org\r\nSubject: misbehaving\r\nMessage-ID: <1@misbehaving.example>\r\n\r\n" +
				"The first line of the body\r\n"); err != nil {
				return err
			}
			switch b {
			case StallDuring:
				return c.stall()
			case CloseMidTransfer:
				return c.print("and the second, but never the dot line\r\n")
			}
			return fmt.Errorf("no %v for an nntp article", b)
		case "OVER", "XOVER":
			// The three articles asked for, and more lines without end.
			if err := c.print("224 Overview information follows\r\n"); err != nil {
				return err
			}
			return c.endless(func(b []byte, i int) []byte {
				n := strconv.AppendInt(nil, int64(i%3+1), 10)
				b = append(b, n...)
				b = append(b, "\tSubject "...)
				b = strconv.AppendInt(b, int64(i), 10)
				b = append(b, "\tann@example.org\tMon, 1 Jan 2024 00:00:00 +0000\t<"...)
				b = strconv.AppendInt(b, int64(i), 10)
				return append(b, "@misbehaving.example>\t\t1000\t10\r\n"...)
			})
		case "LIST":
			if err := c.print("215 list of newsgroups follows\r\n"); err != nil {
				return err
			}
			return c.endless(func(b []byte, i int) []byte {
				b = append(b, "misbehaving.group"...)
				b = strconv.AppendInt(b, int64(i), 10)
				return append(b, " 0000001000 0000000001 y\r\n"...)
			})
		case "QUIT":
			c.print("205 closing connection\r\n")
			return nil
		default:
			err = c.print("500 Unknown command\r\n")
		}
		if err != nil {
			return err
		}
	}
}
