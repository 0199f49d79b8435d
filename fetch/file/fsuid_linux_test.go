package file_test

import (
	"runtime"
	"syscall"
)

// nobody is the user ID of the unprivileged user.
const nobody = 65534

// asNobody runs f on a thread whose file system user is nobody, so that
// the kernel checks file modes even for root: Linux drops the capability
// to override them when the file system user stops being 0. The thread
// stays locked and ends with the goroutine, taking its lowered identity
// with it. It reports whether f ran.
func asNobody(f func()) bool {
	ran := make(chan bool)
	go func() {
		runtime.LockOSThread()
		if err := syscall.Setfsuid(nobody); err != nil {
			ran <- false
			return
		}
		f()
		ran <- true
	}()
	return <-ran
}
