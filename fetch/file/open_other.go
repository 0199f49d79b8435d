//go:build !unix

package file

import "os"

// openFlags open a file for reading.
const openFlags = os.O_RDONLY

// waitForWriter has nothing to wait for: without O_NONBLOCK, opening a
// FIFO waited for its writer.
func waitForWriter(*os.File) error { return nil }
