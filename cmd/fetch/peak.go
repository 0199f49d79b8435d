package main

import (
	"bytes"
	"os"
)

// peakRSSEnv names a file fetch writes its peak resident set size to
// (VmHWM from /proc/self/status, as "12345 kB") when it exits. The
// integration tests and benchmarks read it: the rusage a parent gets from
// wait4 can carry the parent's own high-water mark across the exec, so
// only the process itself knows its peak.
const peakRSSEnv = "URLFETCH_PEAK_RSS_FILE"

func writePeakRSS() {
	path := os.Getenv(peakRSSEnv)
	if path == "" {
		return
	}
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return
	}
	for _, line := range bytes.Split(status, []byte("\n")) {
		if v, ok := bytes.CutPrefix(line, []byte("VmHWM:")); ok {
			os.WriteFile(path, bytes.TrimSpace(v), 0o644)
			return
		}
	}
}
