package main

import (
	"bytes"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Messages a person understands (issue 21, point 6): the words of the
// option that ended a fetch, "interrupted", one mention of the URL, the
// output file named, a likely URL for something without a scheme.

// silentServer accepts connections and never sends a byte: the stalled
// server no real one is on purpose.
func silentServer(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var conns []net.Conn
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			conns = append(conns, c)
		}
	}()
	t.Cleanup(func() { ln.Close() })
	return ln.Addr().String()
}

func TestMessages_SilentServer(t *testing.T) {
	addr := silentServer(t)
	_, port, _ := net.SplitHostPort(addr)
	allow := []string{"--allow-port", port}
	for _, tt := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--timeout", "0.5", "gopher://" + addr + "/"}, exitTimeout,
			"fetch: gopher://" + addr + "/: gave up after 0.5s (--timeout)\n"},
		{[]string{"--idle-timeout", "0.5", "gopher://" + addr + "/"}, exitTimeout,
			"fetch: gopher://" + addr + "/: no data from " + addr + " for 500ms (--idle-timeout)\n"},
		{[]string{"--idle-timeout", "0.5", "ftp://" + addr + "/f"}, exitTimeout,
			"fetch: ftp://" + addr + "/f: waiting for the greeting: no data from " + addr + " for 500ms (--idle-timeout)\n"},
	} {
		r := fetchCmd(t, "", "", append(allow, tt.args...)...)
		if r.code != tt.code || r.stderr != tt.want {
			t.Errorf("fetch %q = %d %q, want %d %q", tt.args, r.code, r.stderr, tt.code, tt.want)
		}
	}

	// Ctrl-C: "interrupted", exit 130.
	cmd := exec.Command(fetchBin, append(allow, "gopher://"+addr+"/")...)
	var errb bytes.Buffer
	cmd.Stderr = &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	time.Sleep(300 * time.Millisecond)
	cmd.Process.Signal(syscall.SIGINT)
	cmd.Wait()
	want := "fetch: gopher://" + addr + "/: interrupted\n"
	if code := cmd.ProcessState.ExitCode(); code != exitInterrupted || errb.String() != want {
		t.Errorf("fetch interrupted = %d %q, want %d %q", code, errb.String(), exitInterrupted, want)
	}
}

func TestMessages(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	src := "file://" + filepath.Join(dir, "notes.txt")
	for _, tt := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"-O", "--dir", "notes.txt/sub", src}, exitFailure,
			"fetch: " + src + ": cannot write notes.txt/sub/notes.txt: cannot make the directory notes.txt/sub: not a directory\n"},
		{[]string{"-o", "notes.txt/out.txt", "--create-dirs", src}, exitFailure,
			"fetch: " + src + ": cannot write notes.txt/out.txt: cannot make the directory notes.txt: not a directory\n"},
		{[]string{"-o", "missing/out.txt", src}, exitFailure,
			"fetch: " + src + ": cannot write missing/out.txt: no directory missing\n"},
		{[]string{"-o", "/dev/full", src}, exitFailure,
			"fetch: " + src + ": cannot write /dev/full: no space left on device\n"},
		{[]string{"notes.txt"}, exitURL,
			"fetch: notes.txt: not a URL: missing scheme (a URL begins with a name such as \"http:\"); try: fetch " + src + "\n"},
		{[]string{"example.org"}, exitURL,
			"fetch: example.org: not a URL: missing scheme (a URL begins with a name such as \"http:\"); try: fetch http://example.org/\n"},
		{[]string{"www.example.org/a/b"}, exitURL,
			"fetch: www.example.org/a/b: not a URL: missing scheme (a URL begins with a name such as \"http:\"); try: fetch http://www.example.org/a/b\n"},
		{[]string{src + ".gone"}, exitNotFound,
			"fetch: " + src + ".gone: open " + filepath.Join(dir, "notes.txt.gone") + ": no such file or directory\n"},
	} {
		r := fetchCmd(t, dir, "", tt.args...)
		if r.code != tt.code || r.stderr != tt.want {
			t.Errorf("fetch %q = %d %q,\nwant %d %q", tt.args, r.code, r.stderr, tt.code, tt.want)
		}
		for _, l := range strings.Split(strings.TrimSpace(r.stderr), "\n") {
			l, _, _ = strings.Cut(l, "; try: ") // the suggestion repeats it, mended
			if n := strings.Count(l, tt.args[len(tt.args)-1]); n != 1 {
				t.Errorf("%q names the URL %d times", l, n)
			}
		}
	}
}
