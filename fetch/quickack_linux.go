package fetch

import "golang.org/x/sys/unix"

// quickAckWorks: Linux has TCP_QUICKACK (tcp(7)).
const quickAckWorks = true

// setQuickAck turns on quick ACKs on the socket fd; an error leaves
// delayed ACKs, which only cost time.
func setQuickAck(fd uintptr) {
	unix.SetsockoptInt(int(fd), unix.IPPROTO_TCP, unix.TCP_QUICKACK, 1)
}
