package buildflags

import (
	"os/exec"
	"strings"
	"testing"
)

// The tags file has one line of tags, and the Makefile and the bench
// scripts read it rather than naming tags of their own.
func TestTags(t *testing.T) {
	if got := Tags(); got != "urfave_cli_no_docs,netgo,osusergo" {
		t.Errorf("Tags() = %q", got)
	}
	out, err := exec.Command("make", "-s", "-C", "../..", "print-fetch-tags").Output()
	if err != nil {
		t.Fatalf("make print-fetch-tags: %v", err)
	}
	if got := strings.TrimSpace(string(out)); got != Tags() {
		t.Errorf("the Makefile builds with -tags %q, want %q", got, Tags())
	}
}
