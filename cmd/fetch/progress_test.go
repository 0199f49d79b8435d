//go:build linux

package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/creack/pty"

	"github.com/urlfetch/urlfetch/fetch"
	"github.com/urlfetch/urlfetch/uri"
)

// The bars are tested on a pseudo-terminal: the command's standard error,
// or a progress's, is the terminal's slave side, and the test replays
// what the master side read into the screen a user would see.

const termCols = 100

// screen replays what a terminal received and returns the lines it shows
// at the end, without trailing blanks or trailing empty lines. It knows
// what the bars write: text, CR, LF (the pty turns a program's LF into CR
// LF), cursor up (ESC [ n A) and erase below (ESC [ J); it skips other
// escape sequences. wide reports a line longer than the terminal, which a
// real terminal would have wrapped, throwing the bars' cursor moves off.
func screen(raw string) (lines []string, wide bool) {
	var rows [][]rune
	row, col := 0, 0
	rs := []rune(raw)
	for i := 0; i < len(rs); i++ {
		switch r := rs[i]; {
		case r == '\r':
			col = 0
		case r == '\n':
			row++
		case r == 0x1b && i+1 < len(rs) && rs[i+1] == '[':
			j := i + 2
			for j < len(rs) && (rs[j] < 0x40 || rs[j] > 0x7e) {
				j++
			}
			if j == len(rs) {
				i = j // cut short: the rest is not here yet
				break
			}
			switch rs[j] {
			case 'A':
				n, err := strconv.Atoi(string(rs[i+2 : j]))
				if err != nil {
					n = 1
				}
				row = max(0, row-n)
			case 'J':
				if row < len(rows) {
					rows[row] = rows[row][:min(col, len(rows[row]))]
					rows = rows[:row+1]
				}
			}
			i = j
		default:
			for len(rows) <= row {
				rows = append(rows, nil)
			}
			for len(rows[row]) < col {
				rows[row] = append(rows[row], ' ')
			}
			if col < len(rows[row]) {
				rows[row][col] = r
			} else {
				rows[row] = append(rows[row], r)
			}
			col++
			if col > termCols {
				wide = true
			}
		}
	}
	for _, r := range rows {
		lines = append(lines, strings.TrimRight(string(r), " "))
	}
	for len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines, wide
}

func TestScreen(t *testing.T) {
	tests := []struct {
		raw  string
		want []string
	}{
		{"a\r\nb\r\n", []string{"a", "b"}},
		{"bar 1%\r\n\x1b[1A\x1b[Jbar 2%\r\n", []string{"bar 2%"}},
		{"one\r\nbar\r\n\x1b[1A\x1b[Jtwo\r\nbar\r\n\x1b[1A\x1b[J", []string{"one", "two"}},
		{"x\x1b[?25lyz\rY", []string{"Yyz"}},
	}
	for _, tt := range tests {
		if got, _ := screen(tt.raw); !slicesEqual(got, tt.want) {
			t.Errorf("screen(%q) = %q, want %q", tt.raw, got, tt.want)
		}
	}
	if _, wide := screen(strings.Repeat("x", termCols+1)); !wide {
		t.Errorf("screen of a %d-column line: not wide", termCols+1)
	}
}

func slicesEqual(a, b []string) bool {
	return strings.Join(a, "\n") == strings.Join(b, "\n") && len(a) == len(b)
}

// openPty opens a pseudo-terminal of 24 rows and termCols columns and
// reads its master side into term until the slave side has no writer
// left.
func openPty(t *testing.T) (tty *os.File, term *syncBuffer, read <-chan struct{}) {
	t.Helper()
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Fatalf("opening a pty: %v", err)
	}
	if err := pty.Setsize(ptmx, &pty.Winsize{Rows: 24, Cols: termCols}); err != nil {
		t.Fatal(err)
	}
	term = &syncBuffer{}
	done := make(chan struct{})
	go func() {
		defer close(done)
		io.Copy(term, ptmx) // ends with EIO once no slave is open
	}()
	t.Cleanup(func() {
		tty.Close()
		ptmx.Close()
		<-done
	})
	return tty, term, done
}

// ptyRun is the command running with its standard error on a terminal.
type ptyRun struct {
	cmd    *exec.Cmd
	term   *syncBuffer // what the terminal received
	read   <-chan struct{}
	exited chan struct{}
	err    error
}

// startOnPty starts the command in dir with its standard error on a new
// terminal and its standard output on stdout, or on the terminal too if
// stdout is nil.
func startOnPty(t *testing.T, dir string, stdout *os.File, args ...string) *ptyRun {
	t.Helper()
	tty, term, read := openPty(t)
	cmd := exec.Command(fetchBin, args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "NETRC=/nonexistent-netrc-for-tests")
	cmd.Stdout, cmd.Stderr = stdout, tty
	if stdout == nil {
		cmd.Stdout = tty
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	tty.Close() // the command holds the only slave left
	r := &ptyRun{cmd: cmd, term: term, read: read, exited: make(chan struct{})}
	go func() {
		r.err = cmd.Wait()
		close(r.exited)
	}()
	t.Cleanup(func() {
		cmd.Process.Kill()
		<-r.exited
	})
	return r
}

// wait waits for the command to exit and for its terminal to be read to
// the end, and returns its exit code and the final screen.
func (r *ptyRun) wait(t *testing.T) (code int, lines []string) {
	t.Helper()
	code = r.finish(t)
	lines, wide := screen(r.term.String())
	if wide {
		t.Errorf("a line wider than the terminal's %d columns: %q", termCols, r.term.String())
	}
	return code, lines
}

// finish waits for the command to exit and for its terminal to be read
// to the end, and returns its exit code.
func (r *ptyRun) finish(t *testing.T) (code int) {
	t.Helper()
	select {
	case <-r.exited:
	case <-time.After(15 * time.Second):
		t.Fatalf("fetch %q still running after 15s; the terminal shows %q", r.cmd.Args[1:], r.term.String())
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

// shows polls the screen until a line matches re, for up to limit.
func shows(term *syncBuffer, re *regexp.Regexp, limit time.Duration) bool {
	return eventually(limit, func() bool {
		lines, _ := screen(term.String())
		for _, l := range lines {
			if re.MatchString(l) {
				return true
			}
		}
		return false
	})
}

// fifoSource makes a FIFO in dir for the command to read as its document
// (a file of unknown length) and returns its path and its write end. The
// write end is opened read-write, so opening never waits for the reader;
// writes of up to the pipe's 64 KiB never wait either.
func fifoSource(t *testing.T, dir string) (string, *os.File) {
	t.Helper()
	path := filepath.Join(dir, "src.fifo")
	if err := syscall.Mkfifo(path, 0o644); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	w, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	return path, w
}

var (
	spinnerFrame = "[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏]"
	size         = `[0-9.]+ (B|KiB|MiB|GiB)`
	// A bar of a known length: name, bytes of total, the bar, percentage,
	// rate, ETA.
	knownBar = regexp.MustCompile(`^file:/.+ ` + size + ` / 4\.0 MiB \[[=>-]+\] +[0-9]+% +` + size + `/s +ETA ([0-9hms]+|--)$`)
)

// A document of known length shows a bar with its bytes, percentage,
// rate and ETA while it transfers, and leaves one line when done. Its
// standard output is a pipe, so the bar is named after the URL.
func TestProgressBarKnownLength(t *testing.T) {
	dir := t.TempDir()
	data := bytes.Repeat([]byte("0123456789abcdef"), 4<<20/16)
	src := filepath.Join(dir, "four-mib.bin")
	if err := os.WriteFile(src, data, 0o644); err != nil {
		t.Fatal(err)
	}
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer pr.Close()
	r := startOnPty(t, dir, pw, fileURL(src))
	pw.Close()

	// The pipe holds the transfer back until the bar is seen.
	head := make([]byte, 64<<10)
	if _, err := io.ReadFull(pr, head); err != nil {
		t.Fatal(err)
	}
	if !shows(r.term, knownBar, 5*time.Second) {
		t.Fatalf("no bar matching %v while the transfer was held; the terminal shows %q", knownBar, r.term.String())
	}
	rest, err := io.ReadAll(pr)
	if err != nil || !bytes.Equal(append(head, rest...), data) {
		t.Errorf("standard output: %d bytes, %v; want the %d bytes of the file", len(head)+len(rest), err, len(data))
	}
	code, lines := r.wait(t)
	done := regexp.MustCompile(`^file:/.+ +4\.0 MiB in [0-9.]+m?s, ` + size + `/s$`)
	if code != 0 || len(lines) != 1 || !done.MatchString(lines[0]) {
		t.Errorf("exit %d, screen %q; want 0 and one line matching %v", code, lines, done)
	}
}

// A document of unknown length (a FIFO here, a gopher item or an NNTP
// article elsewhere) shows a spinner with its bytes and rate.
func TestProgressBarUnknownLength(t *testing.T) {
	dir := t.TempDir()
	src, w := fifoSource(t, dir)
	out, err := os.Create(filepath.Join(dir, "stdout"))
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	r := startOnPty(t, dir, out, fileURL(src))

	w.Write(bytes.Repeat([]byte("a"), 48<<10))
	spinner := regexp.MustCompile(`^file:/.+ 48\.0 KiB ` + spinnerFrame + ` +` + size + `/s +[0-9hms]+$`)
	if !shows(r.term, spinner, 5*time.Second) {
		t.Fatalf("no spinner matching %v; the terminal shows %q", spinner, r.term.String())
	}
	w.Write(bytes.Repeat([]byte("b"), 976<<10))
	w.Close()
	code, lines := r.wait(t)
	done := regexp.MustCompile(`^file:/.+ +1\.0 MiB in [0-9.]+m?s, ` + size + `/s$`)
	if code != 0 || len(lines) != 1 || !done.MatchString(lines[0]) {
		t.Errorf("exit %d, screen %q; want 0 and one line matching %v", code, lines, done)
	}
	if fi, err := out.Stat(); err != nil || fi.Size() != 1<<20 {
		t.Errorf("standard output holds %v bytes, %v; want %d", fi.Size(), err, 1<<20)
	}
}

// A transfer that fails ends its bar with a line that says how far it got,
// and the error line follows it, whole.
func TestProgressBarFailure(t *testing.T) {
	dir := t.TempDir()
	src, w := fifoSource(t, dir)
	w.Write(bytes.Repeat([]byte("a"), 48<<10))
	r := startOnPty(t, dir, nil, "--timeout", "1s", "-o", "out.bin", fileURL(src))
	if !shows(r.term, regexp.MustCompile(`^out\.bin 48\.0 KiB `+spinnerFrame), 5*time.Second) {
		t.Fatalf("no spinner for out.bin; the terminal shows %q", r.term.String())
	}
	code, lines := r.wait(t)
	failed := regexp.MustCompile(`^out\.bin +48\.0 KiB, failed after [0-9.]+m?s$`)
	if code != exitTimeout || len(lines) != 2 || !failed.MatchString(lines[0]) ||
		!strings.HasPrefix(lines[1], "fetch: ") || !strings.Contains(lines[1], "src.fifo") {
		t.Fatalf("exit %d, screen %q; want %d, a line matching %v and the error line", code, lines, exitTimeout, failed)
	}
	if _, err := os.Stat(filepath.Join(dir, "out.bin")); err == nil {
		t.Error("the failed transfer left out.bin")
	}
}

// -q, -v, a standard error that is not a terminal, and a document going
// to the terminal draw no bar: the same held transfer that draws one
// above draws nothing here, and leaves no line.
func TestProgressBarOff(t *testing.T) {
	tests := []struct {
		name       string
		args       []string
		stdoutTerm bool // standard output is the terminal too
		stderrPipe bool // standard error is a pipe, not the terminal
	}{
		{name: "-q", args: []string{"-q"}},
		{name: "-v", args: []string{"-v"}},
		{name: "stderr not a terminal", stderrPipe: true},
		{name: "document to the terminal", stdoutTerm: true},
		{name: "document to the terminal with -o -", args: []string{"-o", "-"}, stdoutTerm: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			src, w := fifoSource(t, dir)
			args := append(tt.args, fileURL(src))
			var out *os.File
			if !tt.stdoutTerm {
				var err error
				if out, err = os.Create(filepath.Join(dir, "stdout")); err != nil {
					t.Fatal(err)
				}
				defer out.Close()
			}
			var term *syncBuffer
			var wait func() (code int, screenLines []string)
			if tt.stderrPipe {
				term = &syncBuffer{}
				cmd := exec.Command(fetchBin, args...)
				cmd.Dir, cmd.Stdout, cmd.Stderr = dir, out, term
				if err := cmd.Start(); err != nil {
					t.Fatal(err)
				}
				defer cmd.Process.Kill()
				wait = func() (int, []string) {
					var ee *exec.ExitError
					if err := cmd.Wait(); errors.As(err, &ee) {
						return ee.ExitCode(), nil
					} else if err != nil {
						t.Fatal(err)
					}
					return 0, nil
				}
			} else {
				r := startOnPty(t, dir, out, args...)
				term = r.term
				wait = func() (int, []string) { return r.wait(t) }
			}

			w.Write([]byte(strings.Repeat("document line\n", 3000)))
			// A bar, if on, is drawn within one refresh; give it five.
			barOrLine := regexp.MustCompile(`\x1b\[|B/s|` + spinnerFrame)
			if eventually(5*refreshRate, func() bool { return barOrLine.MatchString(term.String()) }) {
				t.Errorf("a bar was drawn: %q", term.String())
			}
			w.Write([]byte("last line\n"))
			w.Close()
			code, lines := wait()
			if code != 0 || barOrLine.MatchString(term.String()) {
				t.Errorf("exit %d, standard error %q; want 0 and no bar", code, term.String())
			}
			if tt.stderrPipe && term.String() != "" {
				t.Errorf("standard error = %q, want nothing", term.String())
			}
			if tt.stdoutTerm && (len(lines) == 0 || lines[len(lines)-1] != "last line") {
				t.Errorf("the document does not end the screen: %q", lines[max(0, len(lines)-3):])
			}
		})
	}
}

// gatedReader yields first, then blocks until gate is closed, then
// yields rest.
type gatedReader struct {
	first, rest io.Reader
	gate        <-chan struct{}
}

func (g *gatedReader) Read(p []byte) (int, error) {
	if n, err := g.first.Read(p); err != io.EOF {
		return n, err
	}
	<-g.gate
	return g.rest.Read(p)
}

// Several transfers at once, as with -P, of known and unknown lengths:
// each has its bar on the screen at the same time, lines written
// meanwhile land above the bars whole, and each transfer leaves exactly
// its one line. Run with -race, this is
// also the check that start, done and writer are safe together.
func TestProgressConcurrentBars(t *testing.T) {
	tty, term, read := openPty(t)
	p := newProgress(tty, true)
	const n = 6
	gate := make(chan struct{})
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			total := int64(2 << 20)
			if i%3 == 2 {
				total = -1
			}
			b := p.start(fmt.Sprintf("file-%d.bin", i), total, 0)
			half := bytes.NewReader(make([]byte, 1<<20))
			body := b.body(io.NopCloser(&gatedReader{half, bytes.NewReader(make([]byte, 1<<20)), gate}))
			_, err := io.Copy(io.Discard, body)
			if err == nil && i%2 == 1 {
				err = errors.New("boom")
			}
			b.done(err)
		})
	}
	for i := range n {
		bar := regexp.MustCompile(fmt.Sprintf(`^file-%d\.bin +1\.0 MiB / 2\.0 MiB \[[=>-]+\] +50%% `, i))
		if i%3 == 2 {
			bar = regexp.MustCompile(fmt.Sprintf(`^file-%d\.bin +1\.0 MiB +%s +%s/s`, i, spinnerFrame, size))
		}
		if !shows(term, bar, 5*time.Second) {
			t.Fatalf("no bar matching %v; the terminal shows %q", bar, term.String())
		}
	}
	live, _ := screen(term.String())
	if len(live) != n {
		t.Errorf("%d lines on the screen with %d bars running: %q", len(live), n, live)
	}
	var notes sync.WaitGroup
	for i := range 3 {
		notes.Go(func() { fmt.Fprintf(p.writer(), "fetch: note %d\n", i) })
	}
	notes.Wait()
	if !shows(term, regexp.MustCompile(`^fetch: note 2$`), 5*time.Second) {
		t.Fatalf("a line written with the bars running was not shown: %q", term.String())
	}
	close(gate)
	wg.Wait()
	p.wait()
	tty.Close()
	<-read // all the terminal received is in term

	lines, wide := screen(term.String())
	if wide {
		t.Errorf("a line wider than %d columns: %q", termCols, term.String())
	}
	var want []*regexp.Regexp
	for i := range 3 {
		want = append(want, regexp.MustCompile(fmt.Sprintf(`^fetch: note %d$`, i)))
	}
	for i := range n {
		switch {
		case i%2 == 1 && i%3 == 2:
			want = append(want, regexp.MustCompile(fmt.Sprintf(`^file-%d\.bin +2\.0 MiB, failed after `, i)))
		case i%2 == 1:
			want = append(want, regexp.MustCompile(fmt.Sprintf(`^file-%d\.bin +2\.0 MiB of 2\.0 MiB \(100%%\), failed after `, i)))
		default:
			want = append(want, regexp.MustCompile(fmt.Sprintf(`^file-%d\.bin +2\.0 MiB in [0-9.]+[mµn]?s, `+size+`/s$`, i)))
		}
	}
	if len(lines) != len(want) {
		t.Fatalf("the final screen has %d lines, want %d (%d transfers, 3 notes): %q", len(lines), len(want), n, lines)
	}
	for _, re := range want {
		found := 0
		for _, l := range lines {
			if re.MatchString(l) {
				found++
			}
		}
		if found != 1 {
			t.Errorf("%d lines match %v, want 1: %q", found, re, lines)
		}
	}
}

// A resumed transfer's bar starts at its offset, and its rate counts only
// the bytes of this run.
func TestProgressResumedBar(t *testing.T) {
	tty, term, read := openPty(t)
	p := newProgress(tty, true)
	gate := make(chan struct{})
	b := p.start("resumed.bin", 4<<20, 3<<20)
	done := make(chan struct{})
	go func() {
		defer close(done)
		body := b.body(io.NopCloser(&gatedReader{bytes.NewReader(make([]byte, 512<<10)), bytes.NewReader(make([]byte, 512<<10)), gate}))
		io.Copy(io.Discard, body)
	}()
	if !shows(term, regexp.MustCompile(`^resumed\.bin 3\.5 MiB / 4\.0 MiB \[[=>-]+\] 88% `), 5*time.Second) {
		t.Fatalf("no bar at 3.5 MiB of 4.0 MiB: %q", term.String())
	}
	close(gate)
	<-done
	b.done(nil)
	p.wait()
	tty.Close()
	<-read
	lines, _ := screen(term.String())
	summary := regexp.MustCompile(`^resumed\.bin  4\.0 MiB in ([0-9.]+m?s), ([0-9.]+) (B|KiB|MiB|GiB)/s$`)
	if len(lines) != 1 || !summary.MatchString(lines[0]) {
		t.Fatalf("screen %q, want one line matching %v", lines, summary)
	}
	m := summary.FindStringSubmatch(lines[0])
	took, _ := time.ParseDuration(m[1])
	rate, _ := strconv.ParseFloat(m[2], 64)
	rate *= map[string]float64{"B": 1, "KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30}[m[3]]
	// This run brought 1 MiB; the 3 MiB resumed from must not count.
	if got := rate * took.Seconds(); got < 0.5*(1<<20) || got > 1.5*(1<<20) {
		t.Errorf("%q: rate × time = %.0f bytes, want about the 1 MiB of this run", lines[0], got)
	}
}

// An off progress hands out nil bars, which do nothing, and its writer is
// standard error itself.
func TestProgressOff(t *testing.T) {
	var stderr bytes.Buffer
	p := newProgress(&stderr, false)
	b := p.start("x", 10, 0)
	if b != nil {
		t.Fatalf("start on an off progress = %v, want nil", b)
	}
	rc := io.NopCloser(strings.NewReader("abc"))
	if got := b.body(rc); got != rc {
		t.Errorf("nil bar's body = %T, want the body itself", got)
	}
	b.done(errors.New("x"))
	if w := p.writer(); w != io.Writer(&stderr) {
		t.Errorf("off progress's writer = %T, want standard error", w)
	}
	p.wait()
	if stderr.Len() != 0 {
		t.Errorf("an off progress wrote %q", stderr.String())
	}
}

// wait ends a run whose transfers did not all end (an interrupt): it does
// not hang on their bars, and the bars, writer and start act sanely
// after it.
func TestProgressWaitDropsRunningBars(t *testing.T) {
	tty, term, read := openPty(t)
	p := newProgress(tty, true)
	b := p.start("stuck.bin", -1, 0)
	if b == nil {
		t.Fatal("start = nil on a terminal")
	}
	waited := make(chan struct{})
	go func() { p.wait(); close(waited) }()
	select {
	case <-waited:
	case <-time.After(5 * time.Second):
		t.Fatal("wait hung on a bar whose transfer never ended")
	}
	b.done(nil) // after wait: no line
	if b := p.start("late.bin", 1, 0); b != nil {
		t.Error("start after wait made a bar")
	}
	fmt.Fprintln(p.writer(), "fetch: after the bars")
	tty.Close()
	<-read
	if lines, _ := screen(term.String()); len(lines) != 1 || lines[0] != "fetch: after the bars" {
		t.Errorf("screen %q, want only the line written after wait", lines)
	}
}

func TestProgressOn(t *testing.T) {
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer ptmx.Close()
	defer tty.Close()
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer pr.Close()
	defer pw.Close()
	tests := []struct {
		opts           options
		stdout, stderr io.Writer
		want           bool
	}{
		{options{}, pw, tty, true},
		{options{output: "f"}, tty, tty, true},
		{options{remoteName: true}, tty, tty, true},
		{options{}, tty, tty, false},
		{options{output: "-"}, tty, tty, false},
		{options{quiet: true}, pw, tty, false},
		{options{verbose: true}, pw, tty, false},
		{options{}, pw, pw, false},
		{options{output: "f"}, tty, &bytes.Buffer{}, false},
	}
	name := func(w io.Writer) string {
		switch w {
		case tty:
			return "terminal"
		case pw:
			return "pipe"
		}
		return "buffer"
	}
	for _, tt := range tests {
		if got := progressOn(&tt.opts, tt.stdout, tt.stderr); got != tt.want {
			t.Errorf("progressOn(%+v, stdout %s, stderr %s) = %v, want %v", tt.opts, name(tt.stdout), name(tt.stderr), got, tt.want)
		}
	}
}

func TestShortName(t *testing.T) {
	tests := []struct{ in, want string }{
		{"big.bin", "big.bin"},
		{"http://joe:***@example.org/pub/very/long/path/big.bin", "http://joe:…path/big.bin"},
		{"bell\a and\ttab", "bell? and?tab"},
		{"ünïcödé-ünïcödé-ünïcödé-ünïcödé", "ünïcödé-ünï…cödé-ünïcödé"},
		{"bad \xff byte", "bad ? byte"},
	}
	for _, tt := range tests {
		got := shortName(tt.in, 24)
		if got != tt.want || utf8.RuneCountInString(got) > 24 {
			t.Errorf("shortName(%q, 24) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestByteSize(t *testing.T) {
	tests := []struct {
		in   float64
		want string
	}{
		{0, "0 B"},
		{1023, "1023 B"},
		{1024, "1.0 KiB"},
		{1536, "1.5 KiB"},
		{64 << 20, "64.0 MiB"},
		{3 << 30, "3.0 GiB"},
		{1 << 60, "1.0 EiB"},
	}
	for _, tt := range tests {
		if got := byteSize(tt.in); got != tt.want {
			t.Errorf("byteSize(%v) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestETA(t *testing.T) {
	tests := []struct {
		remaining int64
		rate      float64
		want      string
	}{
		{0, 0, "0s"},
		{100, 0, "--"},
		{100 << 20, 1 << 20, "1m40s"},
		{1 << 20, 3 << 20, "0s"},
		{5 << 20, 2 << 20, "3s"},
	}
	for _, tt := range tests {
		if got := eta(tt.remaining, tt.rate); got != tt.want {
			t.Errorf("eta(%d, %v) = %q, want %q", tt.remaining, tt.rate, got, tt.want)
		}
	}
}

// The window rate follows the last three seconds, not the whole
// transfer: after a fast start and a stall, it falls.
func TestBarRate(t *testing.T) {
	t0 := time.Unix(1000, 0)
	b := &bar{begin: t0}
	b.window[0] = sample{t0, 0}
	b.samples = 1
	at := t0
	n := int64(0)
	for range rateWindow {
		at, n = at.Add(refreshRate), n+10<<20
		b.observe(at, n)
	}
	fast := b.rate()
	if want := float64(10<<20) / refreshRate.Seconds(); fast < want*0.99 || fast > want*1.01 {
		t.Errorf("rate after a steady %v per sync = %.0f B/s, want %.0f", byteSize(10<<20), fast, want)
	}
	for range rateWindow {
		at = at.Add(refreshRate)
		b.observe(at, n)
	}
	if got := b.rate(); got != 0 {
		t.Errorf("rate after a stall of the whole window = %.0f B/s, want 0", got)
	}
}

// startBar names a bar after the output file, or after the URL with its
// password masked, and counts a resumed document's offset into its total.
func TestStartBar(t *testing.T) {
	tests := []struct {
		url            string
		length, offset int64
		path           string
		name           string
		total          int64
	}{
		{"ftp://joe:hunter2@h/f", 10, 0, "", "ftp://joe:***@h/f", 10},
		{"ftp://joe:hunter2@h/f", 10, 5, "", "ftp://joe:***@h/f", 15},
		{"gopher://h/9/big", -1, 0, "", "gopher://h/9/big", -1},
		{"ftp://joe:hunter2@h/f", -1, 0, filepath.Join("dir", "out.bin"), "out.bin", -1},
	}
	for _, tt := range tests {
		u, err := uri.Parse(tt.url)
		if err != nil {
			t.Fatal(err)
		}
		var stderr syncBuffer
		o := &options{progress: newProgress(&stderr, true)}
		b := startBar(o, &fetch.Response{URL: u, Length: tt.length, Offset: tt.offset}, tt.path)
		if b == nil {
			t.Fatalf("startBar(%s) = nil with the progress on", tt.url)
		}
		if b.name != tt.name || b.total != tt.total || b.n.Load() != tt.offset {
			t.Errorf("startBar(%s, length %d, offset %d, path %q) = name %q, total %d, count %d; want %q, %d, %d",
				tt.url, tt.length, tt.offset, tt.path, b.name, b.total, b.n.Load(), tt.name, tt.total, tt.offset)
		}
		b.done(nil)
		o.progress.wait()
		if strings.Contains(stderr.String(), "hunter2") {
			t.Errorf("the bar of %s printed the password: %q", tt.url, stderr.String())
		}
	}
}

// Counting the bytes costs a transfer one atomic add per Read: no
// allocation, no lock, no channel send to mpb.
func TestCountingBodyAllocs(t *testing.T) {
	tty, _, _ := openPty(t)
	p := newProgress(tty, true)
	defer p.wait()
	b := p.start("big.bin", -1, 0)
	defer b.done(nil)
	src := bytes.NewReader(make([]byte, 1<<10))
	body := b.body(io.NopCloser(src))
	buf := make([]byte, 1<<10)
	allocs := testing.AllocsPerRun(1000, func() {
		src.Seek(0, io.SeekStart)
		body.Read(buf)
	})
	if allocs != 0 {
		t.Errorf("a Read through the bar allocates %v times, want 0", allocs)
	}
	if got, want := b.n.Load(), int64(1001<<10); got != want {
		t.Errorf("the bar counted %d bytes, want %d", got, want)
	}
}
