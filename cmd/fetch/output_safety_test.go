package main

import (
	"bytes"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
	"unicode/utf8"
)

// Issue 12, point 6: -O and --dir never write outside the target
// directory, whatever the URL says, and never through a symbolic link
// planted there. The name rule (outputName, sanitizeName):
//
//   - the name is the URL's last path segment (the FTP name, the gopher
//     selector, the news id or group, the WAIS database or document path),
//     decoded, after anything up to its last "/" or "\": "..%2F..%2Fx",
//     "%2Fetc%2Fpasswd" and "..%5Cx" leave only their last part;
//   - C0 and C1 control characters (NUL, CR, LF, ESC, DEL, CSI U+009B),
//     the bidirectional overrides and isolates (U+202A-U+202E,
//     U+2066-U+2069) and bytes that are not UTF-8 become "_";
//   - leading dots go, so the name is never ".", ".." or a hidden file;
//     nothing left is "index";
//   - a name over 255 bytes keeps its extension (up to 16 bytes) and as
//     much of its start as fits, joined by "~" and 12 hex digits of the
//     SHA-256 of the whole name: two long names that differ anywhere stay
//     apart;
//   - the file is written under a temporary name in the directory, opened
//     once (os.Root), and renamed over the final name, which replaces a
//     symbolic link planted there instead of writing through it.
//
// --dir is the user's own path: a symbolic link as --dir or as one of its
// parents is followed, as every tool follows the paths a user names (a
// symlinked home or /tmp), but only once: the directory is opened when
// the file is created, and the temporary file and the rename both happen
// in that directory, so changing the link mid-transfer does not move the
// file elsewhere.

const payload = "payload of the hostile URL\n"

// anyPathServer answers every path with payload.
func anyPathServer(t *testing.T) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte(payload))
	}))
	t.Cleanup(srv.Close)
	return srv
}

// outputLayout is a run's directories: the command runs in cwd and
// writes to target; root holds both and nothing else.
type outputLayout struct {
	root, cwd, target string
}

func newOutputLayout(t *testing.T) outputLayout {
	root := t.TempDir()
	l := outputLayout{root: root, cwd: filepath.Join(root, "cwd"), target: filepath.Join(root, "target")}
	for _, d := range []string{l.cwd, l.target} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return l
}

// names returns the entries of dir.
func names(t *testing.T, dir string) []string {
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

// checkConfined checks that the run created one regular file in target,
// holding want, and nothing in root or cwd; it returns the file's name.
func (l outputLayout) checkConfined(t *testing.T, what, want string) string {
	t.Helper()
	if got := names(t, l.root); !slices.Equal(got, []string{"cwd", "target"}) {
		t.Errorf("%s: the directory around --dir holds %q", what, got)
	}
	if got := names(t, l.cwd); len(got) > 0 {
		t.Errorf("%s: the working directory holds %q", what, got)
	}
	got := names(t, l.target)
	if len(got) != 1 {
		t.Errorf("%s: --dir holds %q, want one file", what, got)
		return ""
	}
	p := filepath.Join(l.target, got[0])
	fi, err := os.Lstat(p)
	if err != nil || !fi.Mode().IsRegular() {
		t.Errorf("%s: %q is %v, %v; want a regular file", what, got[0], fi.Mode(), err)
		return got[0] // and not read through
	}
	if b, _ := os.ReadFile(p); string(b) != want {
		t.Errorf("%s: %q holds %q, want %q", what, got[0], b, want)
	}
	return got[0]
}

func TestRemoteNameHostileURLs(t *testing.T) {
	srv := anyPathServer(t)
	token := fmt.Sprintf("urlfetch-escape-%d", time.Now().UnixNano())
	long := strings.Repeat("a", 300)
	tests := []struct {
		path string
		want string // the file's name; "" for the long names, checked below
	}{
		{"/..", "index"},
		{"/%2E%2E", "index"},
		{"/...", "index"},
		{"/", "index"},
		{"/%2F", "index"},
		{"/dir/", "dir"},
		{"/a%2F..%2F..%2F" + token, token},
		{"/x/..%2F..%2F..%2F" + token, token},
		{"/..%5C..%5C" + token, token},
		{"/%2Ftmp%2F" + token, token},
		{"//tmp/" + token, token},
		{"/.bashrc", "bashrc"},
		{"/..hidden", "hidden"},
		{"/a%00b.txt", "a_b.txt"},
		{"/a%0D%0Ab.txt", "a__b.txt"},
		{"/t%09ab%0Bv.txt", "t_ab_v.txt"},
		{"/%1B%5B31mred%1B%5B0m.txt", "_[31mred_[0m.txt"},
		{"/%1B%5D0%3Btitle%07.txt", "_]0;title_.txt"},
		{"/del%7F.txt", "del_.txt"},
		{"/csi%C2%9B2J.txt", "csi_2J.txt"},
		{"/evil%E2%80%AEtxt.exe", "evil_txt.exe"},
		{"/iso%E2%81%A6x%E2%81%A9.txt", "iso_x_.txt"},
		{"/bad%FFutf8.txt", "bad_utf8.txt"},
		{"/caf%C3%A9%20menu.txt", "café menu.txt"},
		{"/dl?name=../../" + token, "dl"},
		{"/" + long + ".tar.gz", ""},
		{"/" + long + "b.tar.gz", ""},
		{"/" + strings.Repeat("%C3%A9", 150) + ".txt", ""},
		{"/" + strings.Repeat("%E2%82%AC", 100) + ".txt", ""},
		{"/short." + long, ""},
	}
	seen := map[string]string{}
	for _, tc := range tests {
		l := newOutputLayout(t)
		rawURL := srv.URL + tc.path
		r := fetchCmd(t, l.cwd, "", "-O", "--dir", l.target, rawURL)
		if r.code != 0 {
			t.Errorf("fetch -O %s: exit %d, %q", rawURL, r.code, r.stderr)
			continue
		}
		name := l.checkConfined(t, rawURL, payload)
		switch {
		case tc.want != "" && name != tc.want:
			t.Errorf("fetch -O %s wrote %q, want %q", rawURL, name, tc.want)
		case tc.want == "":
			checkLongName(t, rawURL, name)
			if other, dup := seen[name]; dup {
				t.Errorf("fetch -O %s and %s both wrote %q", other, rawURL, name)
			}
			seen[name] = rawURL
		}
	}
	for _, p := range []string{"/" + token, "/tmp/" + token, "/etc/" + token, filepath.Join(os.TempDir(), token)} {
		if _, err := os.Lstat(p); err == nil {
			t.Errorf("%s exists: a hostile name escaped", p)
			os.Remove(p)
		}
	}
}

// checkLongName checks the rule for names over 255 bytes.
func checkLongName(t *testing.T, rawURL, name string) {
	t.Helper()
	full := rawURL[strings.LastIndex(rawURL, "/")+1:]
	ext := ""
	if i := strings.LastIndex(full, "."); i >= 0 && len(full)-i <= 16 {
		ext = full[i:]
	}
	if len(name) > 255 || !utf8.ValidString(name) || !strings.HasSuffix(name, ext) || !strings.Contains(name, "~") {
		t.Errorf("fetch -O %s wrote %q (%d bytes); want at most 255 bytes of UTF-8 with ~hash and the extension %q", rawURL, name, len(name), ext)
	}
	if len(name) < 200 {
		t.Errorf("fetch -O %s wrote %q: %d bytes, shortened more than needed", rawURL, name, len(name))
	}
}

// File names that exist on disk, fetched with file: URLs.
func TestRemoteNameHostileFileNames(t *testing.T) {
	src := t.TempDir()
	tests := []struct{ disk, want string }{
		{"\x1b]0;pwn\x07.txt", "_]0;pwn_.txt"},
		{"..hidden", "hidden"},
		{"back\\..\\slash.txt", "slash.txt"},
		{"line\nbreak.txt", "line_break.txt"},
		{strings.Repeat("n", 251) + ".txt", strings.Repeat("n", 251) + ".txt"},
	}
	for _, tc := range tests {
		p := filepath.Join(src, tc.disk)
		if err := os.WriteFile(p, []byte(payload), 0o644); err != nil {
			t.Fatal(err)
		}
		l := newOutputLayout(t)
		r := fetchCmd(t, l.cwd, "", "-O", "--dir", l.target, fileURL(p))
		if r.code != 0 {
			t.Errorf("fetch -O %s: exit %d, %q", fileURL(p), r.code, r.stderr)
			continue
		}
		if name := l.checkConfined(t, fileURL(p), payload); name != tc.want {
			t.Errorf("fetch -O %s wrote %q, want %q", fileURL(p), name, tc.want)
		}
	}
}

// A symbolic link planted in --dir under the output's name is replaced
// by the file; what it points to, a file, a directory, nothing or a
// FIFO, is left alone.
func TestRemoteNamePlantedSymlinkTargets(t *testing.T) {
	srv := anyPathServer(t)
	for _, kind := range []string{"file", "dangling", "directory", "fifo"} {
		t.Run(kind, func(t *testing.T) {
			l := newOutputLayout(t)
			outside := filepath.Join(t.TempDir(), "outside")
			var fifo *os.File
			switch kind {
			case "file":
				os.WriteFile(outside, []byte("precious"), 0o644)
			case "directory":
				os.Mkdir(outside, 0o755)
			case "fifo":
				if err := syscall.Mkfifo(outside, 0o644); err != nil {
					t.Skip("no FIFOs here:", err)
				}
				// Held open for reading and writing, so that a writer
				// neither blocks nor goes unseen.
				f, err := os.OpenFile(outside, os.O_RDWR, 0)
				if err != nil {
					t.Fatal(err)
				}
				fifo = f
				defer f.Close()
			}
			if err := os.Symlink(outside, filepath.Join(l.target, "victim.txt")); err != nil {
				t.Fatal(err)
			}
			r := fetchCmd(t, l.cwd, "", "-O", "--dir", l.target, srv.URL+"/victim.txt")
			if r.code != 0 {
				t.Fatalf("fetch -O: exit %d %q", r.code, r.stderr)
			}
			l.checkConfined(t, kind, payload)
			switch kind {
			case "file":
				if b, _ := os.ReadFile(outside); string(b) != "precious" {
					t.Errorf("the link's target holds %q", b)
				}
			case "dangling":
				if _, err := os.Lstat(outside); err == nil {
					t.Errorf("the dangling link's target was created")
				}
			case "directory":
				if got := names(t, outside); len(got) > 0 {
					t.Errorf("the link's directory holds %q", got)
				}
			case "fifo":
				fifo.SetReadDeadline(time.Now().Add(100 * time.Millisecond))
				b := make([]byte, 100)
				if n, _ := fifo.Read(b); n > 0 {
					t.Errorf("the FIFO behind the link got %q", b[:n])
				}
			}
		})
	}
}

// With -C (continue a partial file) the output is opened in place, not
// renamed into place: a planted link must still not be written through.
func TestRemoteNameContinueDoesNotFollowPlantedSymlink(t *testing.T) {
	srv := anyPathServer(t)
	l := newOutputLayout(t)
	outside := filepath.Join(t.TempDir(), "outside")
	os.WriteFile(outside, []byte("precious"), 0o644)
	if err := os.Symlink(outside, filepath.Join(l.target, "victim.txt")); err != nil {
		t.Fatal(err)
	}
	r := fetchCmd(t, l.cwd, "", "-C", "-O", "--dir", l.target, srv.URL+"/victim.txt")
	if b, _ := os.ReadFile(outside); string(b) != "precious" {
		t.Errorf("fetch -C -O (exit %d, %q) wrote through the planted link: it holds %q", r.code, r.stderr, b)
	}
}

// A symbolic link as --dir, or as a parent of it, is the user's path and
// is followed: the file lands where it leads and nowhere else.
func TestRemoteNameDirThroughSymlink(t *testing.T) {
	srv := anyPathServer(t)
	root := t.TempDir()
	real := filepath.Join(root, "real")
	os.MkdirAll(filepath.Join(real, "sub"), 0o755)
	os.Symlink(real, filepath.Join(root, "link"))
	for _, sub := range []string{"", "sub"} {
		dir := filepath.Join(root, "link", sub)
		r := fetchCmd(t, root, "", "-O", "--dir", dir, srv.URL+"/f.txt")
		if r.code != 0 {
			t.Fatalf("fetch -O --dir %s: exit %d %q", dir, r.code, r.stderr)
		}
		resolved := filepath.Join(real, sub)
		if b, err := os.ReadFile(filepath.Join(resolved, "f.txt")); err != nil || string(b) != payload {
			t.Errorf("fetch -O --dir %s: %s/f.txt = %q, %v", dir, resolved, b, err)
		}
		os.Remove(filepath.Join(resolved, "f.txt"))
	}
	if got := names(t, root); !slices.Equal(got, []string{"link", "real"}) {
		t.Errorf("the directory around --dir holds %q", got)
	}
	if fi, err := os.Lstat(filepath.Join(root, "link")); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the --dir link is now %v, %v", fi, err)
	}
}

// --dir is resolved once: a link swapped while the body is on its way
// does not move the file to where the link leads now.
func TestRemoteNameDirResolvedOnce(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", "8")
		w.Write([]byte("first"))
		w.(http.Flusher).Flush()
		select {
		case <-release:
		case <-time.After(10 * time.Second):
		}
		w.Write([]byte("end"))
	}))
	defer srv.Close()
	root := t.TempDir()
	first, second := filepath.Join(root, "first"), filepath.Join(root, "second")
	os.Mkdir(first, 0o755)
	os.Mkdir(second, 0o755)
	link := filepath.Join(root, "link")
	os.Symlink(first, link)

	cmd := exec.Command(fetchBin, "-O", "--dir", link, srv.URL+"/f.txt")
	cmd.Dir = root
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// The transfer has begun once its temporary file is there.
	deadline := time.Now().Add(10 * time.Second)
	for len(names(t, first)) == 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	os.Remove(link)
	os.Symlink(second, link)
	close(release)
	if err := cmd.Wait(); err != nil {
		t.Fatalf("fetch -O --dir link: %v %q", err, stderr.String())
	}
	if b, err := os.ReadFile(filepath.Join(first, "f.txt")); err != nil || !bytes.Equal(b, []byte("firstend")) {
		t.Errorf("first/f.txt = %q, %v; want the file where --dir led when it was opened", b, err)
	}
	if got := names(t, second); len(got) > 0 {
		t.Errorf("the link's new target holds %q", got)
	}
}
