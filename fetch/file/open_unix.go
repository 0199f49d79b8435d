//go:build unix

package file

import (
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// openFlags open a file without blocking: opening a FIFO does not wait
// for a writer, and its reads go through the poller, where a deadline
// can interrupt them. The flag changes nothing for a regular file.
const openFlags = os.O_RDONLY | syscall.O_NONBLOCK

// waitForWriter waits until the FIFO f, opened without blocking, has data
// or had a writer that is gone: until then a read would say end of file,
// as if the writer had come and gone. The wait goes through the poller,
// so a read deadline ends it.
func waitForWriter(f *os.File) error {
	rc, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var perr error
	err = rc.Read(func(fd uintptr) bool {
		pfd := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}
		n, err := unix.Poll(pfd, 0)
		if err != nil && err != unix.EINTR {
			perr = err
			return true
		}
		return n > 0 && pfd[0].Revents&(unix.POLLIN|unix.POLLHUP|unix.POLLERR) != 0
	})
	if err != nil {
		return err
	}
	return perr
}
