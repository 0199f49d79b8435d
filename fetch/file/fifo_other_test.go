//go:build !unix

package file_test

import "testing"

// fifoStall is nil: without FIFOs there is no local file that stalls.
func fifoStall() func(t testing.TB) string { return nil }
