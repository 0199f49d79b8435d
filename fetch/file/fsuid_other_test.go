//go:build !linux

package file_test

// asNobody would run f with the file system user of nobody; only Linux
// can do that for one thread, so elsewhere it reports that f did not run.
func asNobody(f func()) bool { return false }
