// Package buildflags says how the fetch command is built, for the tests
// that build it: the build tags the file "tags" beside this one holds,
// which make install and the benchmarks read too.
package buildflags

import (
	_ "embed"
	"strings"
)

//go:embed tags
var tagsFile string

// Tags returns the -tags argument fetch is built with: the one line of
// the file "tags" that is neither blank nor a comment.
func Tags() string {
	for line := range strings.Lines(tagsFile) {
		if line = strings.TrimSpace(line); line != "" && !strings.HasPrefix(line, "#") {
			return line
		}
	}
	return ""
}
