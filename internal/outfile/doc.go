// Package outfile writes output files safely: names made from what a
// server sent (SanitizeName, SafeJoin: no path separator, no "." or "..",
// no control characters, no name too long for a file system), and files
// that appear under their name only when complete (Create, CreateIn).
// The fetch command's -o and -O and recursive retrieval's layout share
// it, so one rule decides what a server's name may become on disk.
package outfile
