//go:build !unix

package telnet

import "net"

// inlineUrgent does nothing here: see oob_unix.go.
func inlineUrgent(net.Conn) {}
