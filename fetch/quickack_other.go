//go:build !linux

package fetch

// quickAckWorks: only Linux has TCP_QUICKACK.
const quickAckWorks = false

func setQuickAck(uintptr) {}

func setRcvLowat(uintptr, int) {}
