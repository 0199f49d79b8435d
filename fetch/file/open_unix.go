//go:build unix

package file

import (
	"os"
	"syscall"
)

// openFlags open a file without blocking: opening a FIFO does not wait
// for a writer, and its reads go through the poller, where a deadline
// can interrupt them. The flag changes nothing for a regular file.
const openFlags = os.O_RDONLY | syscall.O_NONBLOCK
