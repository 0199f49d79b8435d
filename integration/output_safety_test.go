//go:build integration

package integration

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/urlfetch/urlfetch/uri"
)

// Issue 12, point 6, against a real server: files with hostile names made
// in the FTP account's home, fetched with -O --dir, land in --dir under
// the sanitized name (cmd/fetch/output_safety_test.go has the rule) and
// nowhere else.
func TestRemoteNameFromRealFTP(t *testing.T) {
	sub := fmt.Sprintf("issue12-%d", time.Now().UnixNano())
	home := filepath.Join(env(t, "FTP_HOME"), sub)
	if err := os.Mkdir(home, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(home) })
	long := strings.Repeat("n", 251) + ".txt"
	tests := []struct{ disk, want string }{
		{"\x1b[31mred.txt", "_[31mred.txt"},
		{"..hidden", "hidden"},
		{"back\\..\\slash.txt", "slash.txt"},
		{"tab\there.txt", "tab_here.txt"},
		{"evil\u202etxt.exe", "evil_txt.exe"},
		{"\u009b2J.txt", "_2J.txt"},
		{long, long},
	}
	base := ftpLocal(t, env(t, "FTP_PASSWORD")) + "/" + sub + "/"
	for _, tc := range tests {
		content := "the file named " + fmt.Sprintf("%q", tc.disk) + "\n"
		if err := os.WriteFile(filepath.Join(home, tc.disk), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		raw := base + uri.Escape(tc.disk, uri.ComponentFTPSegment)
		root := t.TempDir()
		target := filepath.Join(root, "target")
		os.Mkdir(target, 0o755)
		r := runFetch(t, root, "-O", "--dir", target, raw)
		if r.code != 0 {
			t.Errorf("fetch -O %q: exit %d, %q", tc.disk, r.code, r.stderr)
			continue
		}
		if got := dirNames(t, root); !slices.Equal(got, []string{"target"}) {
			t.Errorf("fetch -O %q: the directory around --dir holds %q", tc.disk, got)
		}
		got := dirNames(t, target)
		if !slices.Equal(got, []string{tc.want}) {
			t.Errorf("fetch -O %q wrote %q, want [%q]", tc.disk, got, tc.want)
			continue
		}
		if b, err := os.ReadFile(filepath.Join(target, tc.want)); err != nil || string(b) != content {
			t.Errorf("fetch -O %q: %q holds %q, %v", tc.disk, tc.want, b, err)
		}
	}
	// The listing of the directory, by -O: an ftp URL's name is empty
	// for a directory, so the file is "index".
	root := t.TempDir()
	r := runFetch(t, root, "-O", base)
	if got := dirNames(t, root); r.code != 0 || !slices.Equal(got, []string{"index"}) {
		t.Errorf("fetch -O %s/: exit %d, wrote %q, want [index]; stderr %q", sub, r.code, got, r.stderr)
	}
}

func dirNames(t *testing.T, dir string) []string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range es {
		out = append(out, e.Name())
	}
	return out
}
