package misbehaving

import "fmt"

// Telnet commands and options (RFC 854, RFC 1091) the server sends.
const (
	telnetIAC  = 255
	telnetDONT = 254
	telnetDO   = 253
	telnetWONT = 252
	telnetWILL = 251
	telnetSB   = 250
	telnetNOP  = 241
	optEcho    = 1
	optTType   = 24
)

// serveTelnet misbehaves before the login prompt the client waits for.
func (s *Server) serveTelnet(c *conn) error {
	switch s.Case.Behaviour {
	case StallBefore:
		return c.stall()
	case StallDuring:
		// A banner, and never the prompt.
		if err := c.print("Welcome to the misbehaving system\r\n\r\n"); err != nil {
			return err
		}
		return c.stall()
	case EndlessLine:
		// Output without a line end and without a prompt.
		if err := c.print("Welcome to the misbehaving system\r\n"); err != nil {
			return err
		}
		return c.endless(endlessByte('a'))
	case Huge:
		// Option negotiation without end: requests to enable and disable
		// options, and NOPs, and never a byte of data. Each is a command
		// the client reads; none is output.
		seq := []byte{
			telnetIAC, telnetDO, optTType, telnetIAC, telnetDONT, optTType,
			telnetIAC, telnetWILL, optEcho, telnetIAC, telnetWONT, optEcho,
			telnetIAC, telnetNOP,
		}
		return c.endless(func(b []byte, _ int) []byte { return append(b, seq...) })
	case Garbage:
		// A subnegotiation that is never ended by IAC SE: everything after
		// it is inside it.
		if _, err := c.Write([]byte{telnetIAC, telnetSB, optTType}); err != nil {
			return err
		}
		return c.endless(endlessByte('g'))
	}
	return fmt.Errorf("no %v for telnet", s.Case.Behaviour)
}
