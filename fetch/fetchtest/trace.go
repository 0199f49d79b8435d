package fetchtest

import (
	"strings"
	"sync"

	"github.com/urlfetch/urlfetch/fetch"
)

// TraceLog collects the lines a Client traces, from any goroutine: a
// driver may trace from the goroutine of a Body's reads or of a data
// connection while the test looks. Set a Client's Trace to its Add.
type TraceLog struct {
	mu    sync.Mutex
	lines []string
}

// Add records one line as its direction, a space and the line: "> QUIT".
// It is a fetch.TraceFunc.
func (l *TraceLog) Add(dir fetch.Direction, line string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lines = append(l.lines, string(dir)+" "+line)
}

// Lines returns a copy of the lines recorded so far.
func (l *TraceLog) Lines() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.lines...)
}

// String returns the lines recorded so far, each ended by "\n", for a
// test to search ("> QUIT\n") and for its failure message.
func (l *TraceLog) String() string {
	var b strings.Builder
	for _, line := range l.Lines() {
		b.WriteString(line)
		b.WriteByte('\n')
	}
	return b.String()
}

// Reset forgets the lines recorded so far.
func (l *TraceLog) Reset() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lines = nil
}
