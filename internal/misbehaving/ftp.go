package misbehaving

import (
	"bytes"
	"fmt"
	"net"
	"strconv"
	"strings"
)

// serveFTP runs an FTP control connection: the greeting, USER and PASS,
// FEAT, TYPE, PWD, CWD, SIZE, EPSV or PASV and their data connection,
// RETR, LIST, MLSD and NLST; it misbehaves at the greeting, in FEAT's
// multi-line reply, with 1xx replies to TYPE that never end (Huge,
// "preliminary"), or in a transfer.
func (s *Server) serveFTP(c *conn) error {
	b := s.Case.Behaviour
	if done, err := c.greet(b, "220-misbehaving FTP server ", "220 misbehaving FTP server ready\r\n"); done {
		return err
	}
	var data net.Listener // opened by EPSV or PASV for the next transfer
	defer func() {
		if data != nil {
			data.Close()
		}
	}()
	for {
		line, err := c.readLine()
		if err != nil {
			return err
		}
		verb, arg, _ := strings.Cut(line, " ")
		switch strings.ToUpper(verb) {
		case "USER":
			err = c.print("331 Please specify the password.\r\n")
		case "PASS":
			err = c.print("230 Login successful.\r\n")
		case "FEAT":
			if b == Huge {
				if err := c.print("211-Features:\r\n"); err != nil {
					return err
				}
				// Feature lines, each well-formed, and never the final
				// "211 End".
				return c.endless(func(b []byte, i int) []byte {
					b = append(b, " X-FEATURE-"...)
					b = strconv.AppendInt(b, int64(i), 10)
					return append(b, " of a list that does not end\r\n"...)
				})
			}
			err = c.print("211-Features:\r\n EPSV\r\n PASV\r\n SIZE\r\n211 End\r\n")
		case "TYPE":
			if b == Huge && s.Case.Variant == "preliminary" {
				// Preliminary replies, each well-formed, and never the
				// final one.
				return c.endless(func(b []byte, i int) []byte {
					b = append(b, "120 Service ready in a minute, ("...)
					b = strconv.AppendInt(b, int64(i), 10)
					return append(b, ")\r\n"...)
				})
			}
			err = c.print("200 Switching to Binary mode.\r\n")
		case "PWD":
			err = c.print("257 \"/\" is the current directory\r\n")
		case "CWD":
			err = c.print("250 Directory successfully changed.\r\n")
		case "SIZE":
			switch {
			case b == CloseMidTransfer:
				// No size: only the missing 226 can tell the end.
				err = c.print("550 Could not get file size.\r\n")
			case s.Case.Variant == "long":
				err = c.print("213 1000\r\n")
			default:
				err = c.print("213 100000\r\n")
			}
		case "EPSV", "PASV":
			if data != nil {
				data.Close()
			}
			if data, err = net.Listen("tcp", "127.0.0.1:0"); err != nil {
				return err
			}
			port := data.Addr().(*net.TCPAddr).Port
			if strings.EqualFold(verb, "EPSV") {
				err = c.printf("229 Entering Extended Passive Mode (|||%d|)\r\n", port)
			} else {
				err = c.printf("227 Entering Passive Mode (127,0,0,1,%d,%d).\r\n", port>>8, port&0xff)
			}
		case "RETR", "LIST", "MLSD", "NLST":
			if data == nil {
				err = c.print("425 Use PORT or PASV first.\r\n")
				break
			}
			ln := data
			data = nil
			return s.transfer(c, ln, strings.ToUpper(verb), arg)
		case "QUIT":
			c.print("221 Goodbye.\r\n")
			return nil
		default:
			err = c.print("502 Command not implemented.\r\n")
		}
		if err != nil {
			return err
		}
	}
}

// transfer serves the command cmd on its data connection and misbehaves:
// the control connection is not used for another command.
func (s *Server) transfer(c *conn, ln net.Listener, cmd, arg string) error {
	dc, err := s.acceptData(ln)
	if err != nil {
		return err
	}
	defer s.forget(dc)
	defer dc.Close()
	if err := c.printf("150 Here comes the data for %s %s.\r\n", cmd, arg); err != nil {
		return err
	}
	switch s.Case.Behaviour {
	case StallDuring:
		if _, err := dc.Write(bytes.Repeat([]byte("x"), 1000)); err != nil {
			return err
		}
		return c.stall() // both connections stay open and silent
	case EndlessListing:
		return dc.endless(func(b []byte, i int) []byte {
			b = append(b, "-rw-r--r--    1 ftp      ftp          4096 Jan 01  2024 file"...)
			b = strconv.AppendInt(b, int64(i), 10)
			return append(b, ".txt\r\n"...)
		})
	case WrongLength:
		// SIZE said 100000 and 1000 bytes come ("short"), or it said 1000
		// and 100000 come ("long"); then a 226 as if all was well.
		n := 1000
		if s.Case.Variant == "long" {
			n = 100000
		}
		if _, err := dc.Write(bytes.Repeat([]byte("x"), n)); err != nil {
			return err
		}
		dc.Close()
		if err := c.print("226 Transfer complete.\r\n"); err != nil {
			return err
		}
		return c.stall()
	case CloseMidTransfer:
		// 1000 bytes, then both connections close: no 226 ever comes.
		_, err := dc.Write(bytes.Repeat([]byte("x"), 1000))
		return err
	}
	return fmt.Errorf("no %v for an ftp transfer", s.Case.Behaviour)
}
