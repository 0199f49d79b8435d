//go:build unix

package telnet

import (
	"net"
	"syscall"
)

// inlineUrgent asks the system to leave TCP urgent data in the stream.
// A telnet server sends IAC DM, the data mark of a Synch (RFC 854), as
// urgent data, and Linux would take its IAC out of band, leaving a stray
// DM byte in the session's text.
func inlineUrgent(c net.Conn) {
	sc, ok := c.(syscall.Conn)
	if !ok {
		return
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		return
	}
	raw.Control(func(fd uintptr) {
		syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_OOBINLINE, 1)
	})
}
