//go:build integration

package integration

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"
)

// The progress bars of the fetch command against the real servers, with
// its standard error on a pseudo-terminal. The test reads the terminal's
// master side, strips the escape sequences and looks at the lines: the
// frames of the bars as they were drawn, and the lines that stay.

// termBuffer is what a terminal received, for one writer and one reader.
type termBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *termBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *termBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

var ansiEscape = regexp.MustCompile(`\x1b\[[0-9;?]*[A-Za-z]`)

// lines returns the lines the terminal received, escape sequences
// stripped, empty lines left out, in the order they were written.
func (s *termBuffer) lines() []string {
	var out []string
	for _, l := range strings.Split(ansiEscape.ReplaceAllString(s.String(), ""), "\n") {
		if l = strings.TrimRight(l, "\r "); l != "" {
			out = append(out, l)
		}
	}
	return out
}

// index returns the index of the first line from from on that matches
// re, or -1.
func index(lines []string, from int, re *regexp.Regexp) int {
	for i := from; i < len(lines); i++ {
		if re.MatchString(lines[i]) {
			return i
		}
	}
	return -1
}

// ptyFetch is the fetch command running with its standard error on a
// terminal.
type ptyFetch struct {
	cmd    *exec.Cmd
	term   *termBuffer
	read   chan struct{}
	exited chan struct{}
	err    error
}

// startOnPty starts the command in dir with its standard error on a new
// 24x100 terminal and its standard output on stdout, or on the terminal
// too if stdout is nil.
func startOnPty(t testing.TB, dir string, stdout *os.File, args ...string) *ptyFetch {
	t.Helper()
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Fatalf("opening a pty: %v", err)
	}
	if err := pty.Setsize(ptmx, &pty.Winsize{Rows: 24, Cols: 100}); err != nil {
		t.Fatal(err)
	}
	r := &ptyFetch{term: &termBuffer{}, read: make(chan struct{}), exited: make(chan struct{})}
	go func() {
		defer close(r.read)
		io.Copy(r.term, ptmx) // ends with EIO once the command has exited
	}()
	r.cmd = exec.Command(fetchBin, args...)
	r.cmd.Dir = dir
	r.cmd.Env = append(os.Environ(), "NETRC=/nonexistent")
	r.cmd.Stdout, r.cmd.Stderr = stdout, tty
	if stdout == nil {
		r.cmd.Stdout = tty
	}
	if err := r.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	tty.Close()
	go func() {
		r.err = r.cmd.Wait()
		close(r.exited)
	}()
	t.Cleanup(func() {
		r.cmd.Process.Kill()
		<-r.exited
		ptmx.Close()
		<-r.read
	})
	return r
}

// wait waits for the command to exit and its terminal to be read to the
// end, and returns the exit code.
func (r *ptyFetch) wait(t testing.TB) int {
	t.Helper()
	select {
	case <-r.exited:
	case <-time.After(30 * time.Second):
		t.Fatalf("fetch %q still running after 30s; the terminal shows %q", r.cmd.Args[1:], r.term.lines())
	}
	<-r.read
	var ee *exec.ExitError
	if errors.As(r.err, &ee) {
		return ee.ExitCode()
	} else if r.err != nil {
		t.Fatal(r.err)
	}
	return 0
}

// shows polls the terminal until a line matches re, for up to 10s.
func (r *ptyFetch) shows(re *regexp.Regexp) bool {
	deadline := time.Now().Add(10 * time.Second)
	for index(r.term.lines(), 0, re) < 0 {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(20 * time.Millisecond)
	}
	return true
}

// outputFIFO makes a FIFO at path for the command to write its document
// into; open returns its read end once the command has opened it. The
// FIFO holds the transfer back until the test reads, so the bars are
// drawn however fast loopback is. Make it before starting the command.
func outputFIFO(t testing.TB, path string) (open func() *os.File) {
	t.Helper()
	if err := syscall.Mkfifo(path, 0o644); err != nil {
		t.Fatal(err)
	}
	opened := make(chan *os.File, 1)
	go func() {
		f, err := os.Open(path) // waits for the command's open
		if err != nil {
			close(opened)
			return
		}
		opened <- f
	}()
	var f *os.File
	t.Cleanup(func() {
		// Release the open above if the command never made its own.
		if w, err := os.OpenFile(path, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
			w.Close()
		}
		if f == nil {
			f = <-opened
		}
		if f != nil {
			f.Close()
		}
	})
	return func() *os.File {
		t.Helper()
		select {
		case f = <-opened:
			if f == nil {
				t.Fatalf("opening %s failed", path)
			}
			return f
		case <-time.After(10 * time.Second):
			t.Fatalf("fetch did not open %s within 10s", path)
			return nil
		}
	}
}

// drainBig reads the rest of the 64 MiB file after head and checks it.
func drainBig(t *testing.T, head []byte, r io.Reader) {
	t.Helper()
	h := sha256.New()
	h.Write(head)
	n, err := io.Copy(h, r)
	n += int64(len(head))
	if sum := hex.EncodeToString(h.Sum(nil)); err != nil || n != 64<<20 || sum != env(t, "BIG_SHA256") {
		t.Errorf("the document: %d bytes, sha256 %s, %v; want %d bytes, %s", n, sum, err, 64<<20, env(t, "BIG_SHA256"))
	}
}

const (
	size         = `[0-9.]+ (B|KiB|MiB|GiB)`
	spinnerFrame = `[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏]`
)

// The 64 MiB file from nginx and from vsftpd: while it transfers, a bar
// with the bytes, the percentage, the rate and the ETA; when done, one
// line with the size, the time and the rate.
func TestProgressBarBigFile(t *testing.T) {
	for _, tc := range []struct{ name, url string }{
		{"nginx", "http://" + addr(t, "HTTP") + "/big.bin"},
		{"vsftpd", "ftp://" + addr(t, "FTP") + "/big.bin"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			open := outputFIFO(t, filepath.Join(dir, "big.fifo"))
			r := startOnPty(t, dir, nil, "-o", "big.fifo", tc.url)
			out := open()
			head := make([]byte, 1<<20)
			if _, err := io.ReadFull(out, head); err != nil {
				t.Fatal(err)
			}
			bar := regexp.MustCompile(`^big\.fifo +` + size + ` / 64\.0 MiB \[[=>-]+\] +[0-9]+% +` + size + `/s +ETA ([0-9hms]+|--)$`)
			if !r.shows(bar) {
				t.Fatalf("no bar matching %v; the terminal shows %q", bar, r.term.lines())
			}
			drainBig(t, head, out)
			if code := r.wait(t); code != 0 {
				t.Fatalf("exit %d; the terminal shows %q", code, r.term.lines())
			}
			done := regexp.MustCompile(`^big\.fifo  64\.0 MiB in [0-9.]+m?s, ` + size + `/s$`)
			if lines := r.term.lines(); index(lines, 0, done) < 0 {
				t.Errorf("no line matching %v: %q", done, lines)
			}
		})
	}
}

// A gopher item of type 9 has no length: a spinner with the bytes and
// the rate, no percentage and no ETA.
func TestProgressSpinnerGopher(t *testing.T) {
	dir := t.TempDir()
	open := outputFIFO(t, filepath.Join(dir, "big.fifo"))
	r := startOnPty(t, dir, nil, "-o", "big.fifo", pygopherd(t).url("/9/big.bin"))
	out := open()
	head := make([]byte, 1<<20)
	if _, err := io.ReadFull(out, head); err != nil {
		t.Fatal(err)
	}
	spinner := regexp.MustCompile(`^big\.fifo +` + size + ` ` + spinnerFrame + ` +` + size + `/s +[0-9hms]+$`)
	if !r.shows(spinner) {
		t.Fatalf("no spinner matching %v; the terminal shows %q", spinner, r.term.lines())
	}
	drainBig(t, head, out)
	if code := r.wait(t); code != 0 {
		t.Fatalf("exit %d; the terminal shows %q", code, r.term.lines())
	}
	lines := r.term.lines()
	if i := index(lines, 0, regexp.MustCompile(`%|ETA`)); i >= 0 {
		t.Errorf("a percentage or ETA for a document of unknown length: %q", lines[i])
	}
	if done := regexp.MustCompile(`^big\.fifo  64\.0 MiB in `); index(lines, 0, done) < 0 {
		t.Errorf("no line matching %v: %q", done, lines)
	}
}

// A bar named after its URL never shows the URL's password, neither
// while it runs nor in the line it leaves. (http URLs carry no password:
// RFC 1738 gives them none, and the command refuses one.)
func TestProgressMasksPassword(t *testing.T) {
	ftpPassword := env(t, "FTP_PASSWORD")
	for _, tc := range []struct {
		scheme, url, secret, name string
		big                       bool
	}{
		// vsftpd takes any password for anonymous: one to watch for.
		{"anonymous", "ftp://anonymous:hunter2-secret@" + addr(t, "FTP") + "/big.bin", "hunter2-secret", `ftp://anony`, true},
		{"local user", "ftp://" + env(t, "FTP_USER") + ":" + ftpPassword + "@" + addr(t, "FTP") + "/welcome.txt", ftpPassword, `ftp://urlfe`, false},
	} {
		t.Run(tc.scheme, func(t *testing.T) {
			pr, pw, err := os.Pipe()
			if err != nil {
				t.Fatal(err)
			}
			defer pr.Close()
			r := startOnPty(t, t.TempDir(), pw, tc.url)
			pw.Close()
			name := regexp.QuoteMeta(tc.name) + `\S*`
			if tc.big {
				head := make([]byte, 1<<20)
				if _, err := io.ReadFull(pr, head); err != nil {
					t.Fatal(err)
				}
				if bar := regexp.MustCompile(`^` + name + ` +` + size + ` / 64\.0 MiB \[`); !r.shows(bar) {
					t.Fatalf("no bar matching %v; the terminal shows %q", bar, r.term.lines())
				}
			}
			if _, err := io.Copy(io.Discard, pr); err != nil {
				t.Fatal(err)
			}
			if code := r.wait(t); code != 0 {
				t.Fatalf("exit %d; the terminal shows %q", code, r.term.lines())
			}
			if done := regexp.MustCompile(`^` + name + `  ` + size + ` in `); index(r.term.lines(), 0, done) < 0 {
				t.Errorf("no line matching %v: %q", done, r.term.lines())
			}
			if strings.Contains(r.term.String(), tc.secret) {
				t.Errorf("the terminal showed the password: %q", r.term.lines())
			}
		})
	}
}

// With -P, an error line printed while another transfer's bar is running
// lands whole above the bar, and the bar goes on below it.
func TestProgressErrorLineWithLiveBar(t *testing.T) {
	dir := t.TempDir()
	base := "http://" + addr(t, "HTTP")
	open := outputFIFO(t, filepath.Join(dir, "big.bin"))
	r := startOnPty(t, dir, nil, "-P", "2", "-O", "--dir", dir, base+"/big.bin", base+"/no-such-file")
	out := open()
	head := make([]byte, 1<<20)
	if _, err := io.ReadFull(out, head); err != nil {
		t.Fatal(err)
	}
	errLine := regexp.MustCompile(`^fetch: ` + regexp.QuoteMeta(base) + `/no-such-file: 404 Not Found$`)
	if !r.shows(errLine) {
		t.Fatalf("no error line matching %v; the terminal shows %q", errLine, r.term.lines())
	}
	bar := regexp.MustCompile(`^big\.bin +` + size + ` / 64\.0 MiB \[`)
	// The bar is drawn again after the line: it was not torn down by it.
	if !r.shows(bar) || index(r.term.lines(), index(r.term.lines(), 0, errLine)+1, bar) < 0 {
		t.Fatalf("no bar drawn after the error line; the terminal shows %q", r.term.lines())
	}
	drainBig(t, head, out)
	if code := r.wait(t); code != 4 {
		t.Errorf("exit %d, want 4 (not found)", code)
	}
	lines := r.term.lines()
	if done := regexp.MustCompile(`^big\.bin  64\.0 MiB in `); index(lines, 0, done) < 0 {
		t.Errorf("no line matching %v: %q", done, lines)
	}
	for _, l := range lines {
		if strings.Contains(l, "404") && !errLine.MatchString(l) {
			t.Errorf("the error line is torn: %q", l)
		}
	}
}

// BenchmarkProgressBigFile times the 64 MiB file from nginx into a file,
// with standard error on a terminal: with the bar, and with -q.
func BenchmarkProgressBigFile(b *testing.B) {
	url := "http://" + addr(b, "HTTP") + "/big.bin"
	for _, tc := range []struct {
		name string
		args []string
	}{
		{"bar", nil},
		{"quiet", []string{"-q"}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			dir := b.TempDir()
			args := append(tc.args, "-o", "big.bin", url)
			b.SetBytes(64 << 20)
			for b.Loop() {
				r := startOnPty(b, dir, nil, args...)
				if code := r.wait(b); code != 0 {
					b.Fatalf("exit %d: %q", code, r.term.lines())
				}
			}
		})
	}
}
