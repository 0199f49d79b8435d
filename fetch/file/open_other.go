//go:build !unix

package file

import "os"

// openFlags open a file for reading.
const openFlags = os.O_RDONLY
