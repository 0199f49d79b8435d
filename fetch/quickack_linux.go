package fetch

import "golang.org/x/sys/unix"

// quickAckWorks: Linux has TCP_QUICKACK (tcp(7)).
const quickAckWorks = true

// setQuickAck turns on quick ACKs on the socket fd; an error leaves
// delayed ACKs, which only cost time.
func setQuickAck(fd uintptr) {
	unix.SetsockoptInt(int(fd), unix.IPPROTO_TCP, unix.TCP_QUICKACK, 1)
}

// setRcvLowat sets the least a read of the socket fd waits for
// (SO_RCVLOWAT, socket(7)); an error leaves reads as they were, which
// only costs CPU time.
func setRcvLowat(fd uintptr, n int) {
	unix.SetsockoptInt(int(fd), unix.SOL_SOCKET, unix.SO_RCVLOWAT, n)
}
