//go:build integration

package integration

import (
	"context"
	"errors"
	"io"
	"net"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"
	"golang.org/x/sys/unix"

	"github.com/urlfetch/urlfetch/fetch"
	"github.com/urlfetch/urlfetch/fetch/telnet"
)

// The telnet tests run against the harness's inetutils telnetd, whose
// login-like program prints a banner, asks "login: " and "Password: "
// (not echoed), then answers a few commands at "urlfetch$ ".

const telnetBanner = "urlfetch test bed telnet service"

// telnetURL returns the telnet URL of the harness's server, with the
// test account when login is set.
func telnetURL(t testing.TB, login bool) string {
	a := addr(t, "TELNET")
	if !login {
		return "telnet://" + a + "/"
	}
	return "telnet://" + env(t, "TELNET_USER") + ":" + env(t, "TELNET_PASSWORD") + "@" + a + "/"
}

// traced returns a Client like client's whose trace lines are also kept,
// and a function that returns them.
func traced(t testing.TB) (*fetch.Client, func() []string) {
	c := client(t)
	var mu sync.Mutex
	var lines []string
	next := c.Trace
	c.Trace = func(dir fetch.Direction, line string) {
		mu.Lock()
		lines = append(lines, string(dir)+" "+line)
		mu.Unlock()
		next(dir, line)
	}
	return c, func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), lines...)
	}
}

// telnetDriver returns the telnet driver of c.
func telnetDriver(t testing.TB, c *fetch.Client) *telnet.Driver {
	d, ok := c.Driver("telnet").(*telnet.Driver)
	if !ok {
		t.Fatalf("the Client's telnet driver is %T, want *telnet.Driver", c.Driver("telnet"))
	}
	return d
}

// transcript reads a session and remembers all of it, so a test can wait
// for one piece of text after another.
type transcript struct {
	t    testing.TB
	r    io.Reader
	all  []byte
	mark int
}

// expect reads until want appears after the previous mark and returns
// the text up to and including it. The reader's own deadline (a context,
// a pty deadline) bounds the wait.
func (tr *transcript) expect(want string) string {
	tr.t.Helper()
	buf := make([]byte, 4096)
	for {
		if i := strings.Index(string(tr.all[tr.mark:]), want); i >= 0 {
			got := string(tr.all[tr.mark : tr.mark+i+len(want)])
			tr.mark += i + len(want)
			return got
		}
		n, err := tr.r.Read(buf)
		tr.all = append(tr.all, buf[:n]...)
		if err != nil && n == 0 {
			tr.t.Fatalf("waiting for %q: %v; read since the last step: %q", want, err, tr.all[tr.mark:])
		}
	}
}

// rest reads to the end of the session and returns what followed the
// last mark, with the error that ended it.
func (tr *transcript) rest() (string, error) {
	b, err := io.ReadAll(tr.r)
	tr.all = append(tr.all, b...)
	s := string(tr.all[tr.mark:])
	tr.mark = len(tr.all)
	return s, err
}

// openSession fetches rawURL with c and returns the Response and a
// transcript of its Body. The fetch is bounded by a context that ends
// with the test or after a minute.
func openSession(t testing.TB, c *fetch.Client, rawURL string) (*fetch.Response, *transcript) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	resp, err := c.Fetch(ctx, rawURL)
	if err != nil {
		t.Fatalf("Fetch(%q): %v", rawURL, err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	if resp.Kind != fetch.Session {
		t.Fatalf("Fetch(%q).Kind = %v, want session", rawURL, resp.Kind)
	}
	if resp.Conn == nil {
		t.Fatalf("Fetch(%q).Conn = nil, want the session's connection", rawURL)
	}
	return resp, &transcript{t: t, r: resp.Body}
}

// Acceptance 1: a session with option negotiation, as Kind Session with
// its connection; the banner and the login prompt arrive with every
// telnet command taken out.
func TestTelnetBannerAndNegotiation(t *testing.T) {
	c, lines := traced(t)
	resp, tr := openSession(t, c, telnetURL(t, false))
	got := tr.expect("login: ")
	if !strings.Contains(got, telnetBanner) {
		t.Errorf("before the login prompt: %q, want the banner %q", got, telnetBanner)
	}
	if strings.ContainsRune(got, 0xFF) || strings.Contains(got, "\xff") {
		t.Errorf("session text %q holds an IAC byte: a command was not taken out", got)
	}
	trace := strings.Join(lines(), "\n")
	// telnetd offers to echo and asks for the terminal type: both must
	// have been answered (RFC 855).
	for _, want := range []string{"< WILL ECHO", "> DO ECHO", "< DO TERMINAL-TYPE", "> WONT TERMINAL-TYPE"} {
		if !strings.Contains(trace, want) {
			t.Errorf("trace lacks %q; it was:\n%s", want, trace)
		}
	}
	s, ok := resp.Conn.(*telnet.Session)
	if !ok {
		t.Fatalf("Conn is %T, want *telnet.Session", resp.Conn)
	}
	if !s.RemoteEcho() {
		t.Error("RemoteEcho() = false after telnetd offered WILL ECHO")
	}
	if err := resp.Body.Close(); err != nil {
		t.Errorf("Close() = %v", err)
	}
	if n, err := resp.Body.Read(make([]byte, 10)); err == nil {
		t.Errorf("Read after Close = %d, nil; want an error", n)
	}
}

// Acceptance 3 and 5 through the library: the advisory login at the
// server's prompts, one command and its answer, a clean close.
func TestTelnetLoginRunsCommand(t *testing.T) {
	c, lines := traced(t)
	telnetDriver(t, c).Login = true
	resp, tr := openSession(t, c, telnetURL(t, true))
	got := tr.expect("urlfetch$ ")
	for _, want := range []string{telnetBanner, "login: ", "Password: ", "Welcome to the urlfetch test bed, tester."} {
		if !strings.Contains(got, want) {
			t.Errorf("before the first prompt: %q, want %q in it", got, want)
		}
	}
	if _, err := io.WriteString(resp.Conn, "whoami\n"); err != nil {
		t.Fatal(err)
	}
	if got := tr.expect("urlfetch$ "); !strings.Contains(got, "\r\ntester\r\n") {
		t.Errorf("whoami answered %q, want tester on a line", got)
	}
	if _, err := io.WriteString(resp.Conn, "exit\n"); err != nil {
		t.Fatal(err)
	}
	// telnetd closes when the login program exits, sometimes before it
	// has passed on the program's last words ("Goodbye."): only the
	// clean end is certain.
	if rest, err := tr.rest(); err != nil {
		t.Errorf("after exit: reading to the end: %v (after %q), want a clean EOF", err, rest)
	}
	if err := resp.Body.Close(); err != nil {
		t.Errorf("Close() after the server closed = %v", err)
	}
	password := env(t, "TELNET_PASSWORD")
	if strings.Contains(string(tr.all), password) {
		t.Errorf("the session text shows the password: %q", tr.all)
	}
	trace := strings.Join(lines(), "\n")
	if strings.Contains(trace, password) {
		t.Errorf("the trace shows the password:\n%s", trace)
	}
	for _, want := range []string{"> tester", "> ***"} {
		if !strings.Contains(trace, want) {
			t.Errorf("trace lacks %q; it was:\n%s", want, trace)
		}
	}
}

// The harness's login program prints "Password: " before it turns the
// terminal's echo off, so a client that answers at once is sometimes
// echoed (about one login in ten). The password must never show.
func TestTelnetPasswordNeverEchoed(t *testing.T) {
	c := client(t)
	c.Trace = nil
	telnetDriver(t, c).Login = true
	password := env(t, "TELNET_PASSWORD")
	for i := range 30 {
		resp, tr := openSession(t, c, telnetURL(t, true))
		got := tr.expect("urlfetch$ ")
		resp.Body.Close()
		if strings.Contains(got, password) {
			t.Fatalf("login %d: the session shows the password: %q", i, got)
		}
		if !strings.Contains(got, "Welcome to the urlfetch test bed") {
			t.Fatalf("login %d: %q, want the welcome line", i, got)
		}
	}
}

// telnetd answers an interrupt with IAC DM (RFC 854's Synch), sent as
// TCP urgent data, before the login program dies of the SIGINT: the
// client takes the command out and ends with the server's close, not
// with an error. When the program dies first, telnetd closes without
// the echo and the DM; the test tries until it has seen them once.
func TestTelnetInterruptEndsCleanly(t *testing.T) {
	for attempt := 1; ; attempt++ {
		c, lines := traced(t)
		telnetDriver(t, c).Login = true
		resp, tr := openSession(t, c, telnetURL(t, true))
		tr.expect("urlfetch$ ")
		if _, err := resp.Conn.Write([]byte{0x03}); err != nil {
			t.Fatal(err)
		}
		rest, err := tr.rest()
		if err != nil {
			t.Fatalf("after Ctrl-C: %v, want the server's close as EOF", err)
		}
		if strings.ContainsAny(rest, "\xff\xf2") {
			t.Fatalf("after Ctrl-C: %q holds a byte of IAC DM", rest)
		}
		resp.Body.Close()
		sawDM := strings.Contains(strings.Join(lines(), "\n"), "< DM")
		if sawDM && strings.Contains(rest, "^C") {
			return
		}
		if attempt == 10 {
			t.Fatalf("in %d sessions telnetd never answered Ctrl-C with its echo and IAC DM (last: %q, DM seen %v)", attempt, rest, sawDM)
		}
	}
}

func TestTelnetClosedPort(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := l.Addr().String()
	l.Close()
	raw := "telnet://" + closed + "/"
	_, err = client(t).Fetch(context.Background(), raw)
	if !errors.Is(err, fetch.ErrConnect) {
		t.Errorf("Fetch(%q) error = %v, want ErrConnect", raw, err)
	}
	r := runFetchInput(t, t.TempDir(), "", raw)
	if r.code != 10 || strings.Count(strings.TrimSpace(r.stderr), "\n") != 0 || !strings.Contains(r.stderr, "connect") {
		t.Errorf("fetch %s: exit %d, stderr %q; want 10 and one line saying it cannot connect", raw, r.code, r.stderr)
	}
}

// Acceptance 2 (pipe mode) and 3 through the command: the input is sent
// after the login; when it ends, the session goes on until the server
// has answered and fallen silent, then the command ends with success.
func TestTelnetCLILoginPipe(t *testing.T) {
	password := env(t, "TELNET_PASSWORD")
	start := time.Now()
	r := runFetchInput(t, t.TempDir(), "whoami\necho lingering here\n", "-v", "--login", telnetURL(t, true))
	if r.code != 0 {
		t.Fatalf("exit %d; stderr %q", r.code, r.stderr)
	}
	if d := time.Since(start); d > 15*time.Second {
		t.Errorf("the command took %v to end after its input", d)
	}
	for _, want := range []string{telnetBanner, "Welcome to the urlfetch test bed, tester."} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("stdout %q lacks %q", r.stdout, want)
		}
	}
	// The input goes out as soon as the login is done, so the server may
	// echo it early (type-ahead) or not at all (while the login program's
	// echo is still off): look for the answers after the welcome, and
	// not for the echo of "echo lingering here".
	_, after, _ := strings.Cut(r.stdout, "Welcome to the urlfetch test bed, tester.\r\n")
	if !strings.Contains(after, "tester\r\n") {
		t.Errorf("stdout %q lacks the answer to whoami after the welcome", r.stdout)
	}
	if answers := strings.Count(after, "lingering here\r\n") - strings.Count(after, "echo lingering here\r\n"); answers != 1 {
		t.Errorf("stdout %q holds %d answers to the last command, want 1", r.stdout, answers)
	}
	if strings.Contains(r.stdout, password) || strings.Contains(r.stderr, password) {
		t.Errorf("the password shows: stdout %q, stderr %q", r.stdout, r.stderr)
	}
	for _, want := range []string{"> tester", "> ***", "> DO ECHO"} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("-v trace lacks %q: %q", want, r.stderr)
		}
	}
}

// Without --login the input is the whole conversation, login included.
func TestTelnetCLIPipeWithoutLogin(t *testing.T) {
	input := env(t, "TELNET_USER") + "\n" + env(t, "TELNET_PASSWORD") + "\nhostname\n"
	r := runFetchInput(t, t.TempDir(), input, telnetURL(t, false))
	if r.code != 0 {
		t.Fatalf("exit %d; stderr %q", r.code, r.stderr)
	}
	for _, want := range []string{telnetBanner, "telnet.urlfetch.test\r\n"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("stdout %q lacks %q", r.stdout, want)
		}
	}
}

// The server ends the session while the input is still open: the
// command ends at once, with success.
func TestTelnetCLIPipeServerCloses(t *testing.T) {
	cmd := exec.Command(fetchBin, "--login", telnetURL(t, true))
	cmd.Env = append(os.Environ(), "NETRC=/nonexistent")
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	io.WriteString(in, "exit\n") // and the input stays open
	if code := waitExit(t, cmd, 15*time.Second); code != 0 {
		t.Errorf("exit %d, want 0; stdout %q, stderr %q", code, out.String(), errb.String())
	}
	if !strings.Contains(out.String(), "Welcome to the urlfetch test bed, tester.") {
		t.Errorf("stdout %q lacks the welcome", out.String())
	}
}

// ptySession runs the fetch command on a new pseudo-terminal, as a user
// at a terminal would, and returns the pty's master side, the slave's
// termios before the command started, and the command.
func ptySession(t *testing.T, args ...string) (*os.File, *os.File, unix.Termios, *exec.Cmd) {
	t.Helper()
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Fatalf("opening a pty: %v", err)
	}
	t.Cleanup(func() { ptmx.Close(); tty.Close() })
	if err := pty.Setsize(ptmx, &pty.Winsize{Rows: 24, Cols: 80}); err != nil {
		t.Fatal(err)
	}
	before := termios(t, tty)
	cmd := exec.Command(fetchBin, args...)
	cmd.Env = append(os.Environ(), "NETRC=/nonexistent", "TERM=xterm")
	cmd.Stdin, cmd.Stdout, cmd.Stderr = tty, tty, tty
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			cmd.Process.Kill()
			cmd.Wait()
		}
	})
	ptmx.SetReadDeadline(time.Now().Add(time.Minute))
	return ptmx, tty, before, cmd
}

func termios(t testing.TB, tty *os.File) unix.Termios {
	t.Helper()
	tio, err := unix.IoctlGetTermios(int(tty.Fd()), unix.TCGETS)
	if err != nil {
		t.Fatalf("reading the terminal's modes: %v", err)
	}
	return *tio
}

// waitExit waits for cmd to end, at most limit, and returns its exit code.
func waitExit(t testing.TB, cmd *exec.Cmd, limit time.Duration) int {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return ee.ExitCode()
		}
		if err != nil {
			t.Fatalf("waiting for fetch: %v", err)
		}
		return 0
	case <-time.After(limit):
		cmd.Process.Kill()
		<-done
		t.Fatalf("fetch still running %v after the session should have ended", limit)
		return -1
	}
}

// Acceptance 2 on a terminal: raw mode while the session runs, the keys
// go to the server, Ctrl-] closes the session, and the terminal's modes
// come back exactly as they were.
func TestTelnetTerminalRawModeAndEscape(t *testing.T) {
	ptmx, tty, before, cmd := ptySession(t, "-v", "--login", telnetURL(t, true))
	tr := &transcript{t: t, r: ptmx}
	tr.expect("urlfetch$ ")
	// On a terminal the client tells telnetd its type ($TERM) and size
	// when asked (RFC 1091, RFC 1073); -v shows the answers.
	for _, want := range []string{"> WILL TERMINAL-TYPE", "> SB TERMINAL-TYPE IS XTERM", "> WILL NAWS", "> SB NAWS 80 24"} {
		if !strings.Contains(string(tr.all), want) {
			t.Errorf("the -v trace on the terminal lacks %q: %q", want, tr.all)
		}
	}
	during := termios(t, tty)
	if during.Lflag&(unix.ICANON|unix.ECHO|unix.ISIG) != 0 {
		t.Errorf("during the session the terminal's lflag = %#x, want ICANON, ECHO and ISIG off (raw mode)", during.Lflag)
	}
	ptmx.WriteString("echo over the pty\r")
	if got := tr.expect("urlfetch$ "); !strings.Contains(got, "\r\nover the pty\r\n") {
		t.Errorf("echo over the pty answered %q", got)
	}
	if strings.Contains(string(tr.all), env(t, "TELNET_PASSWORD")) {
		t.Errorf("the terminal shows the password: %q", tr.all)
	}
	ptmx.Write([]byte{0x1d}) // Ctrl-]
	if code := waitExit(t, cmd, 5*time.Second); code != 0 {
		t.Errorf("after Ctrl-]: exit %d, want 0", code)
	}
	if after := termios(t, tty); after != before {
		t.Errorf("terminal modes after the session:\n%+v\nwant as before:\n%+v", after, before)
	}
}

// The server ends the session: the command ends with success and the
// terminal is restored.
func TestTelnetTerminalServerCloses(t *testing.T) {
	ptmx, tty, before, cmd := ptySession(t, "--login", telnetURL(t, true))
	tr := &transcript{t: t, r: ptmx}
	tr.expect("urlfetch$ ")
	ptmx.WriteString("exit\r")
	if code := waitExit(t, cmd, 5*time.Second); code != 0 {
		t.Errorf("after exit: exit code %d, want 0", code)
	}
	if after := termios(t, tty); after != before {
		t.Errorf("terminal modes after the session:\n%+v\nwant as before:\n%+v", after, before)
	}
}

// A signal ends the session (in raw mode the keyboard sends none: these
// come from kill) and the terminal's modes are restored all the same.
func TestTelnetTerminalSignalRestores(t *testing.T) {
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
		t.Run(sig.String(), func(t *testing.T) {
			ptmx, tty, before, cmd := ptySession(t, "--login", telnetURL(t, true))
			tr := &transcript{t: t, r: ptmx}
			tr.expect("urlfetch$ ")
			if err := cmd.Process.Signal(sig); err != nil {
				t.Fatal(err)
			}
			if code := waitExit(t, cmd, 5*time.Second); code != 130 {
				t.Errorf("after %v: exit %d, want 130 (interrupted)", sig, code)
			}
			if after := termios(t, tty); after != before {
				t.Errorf("terminal modes after %v:\n%+v\nwant as before:\n%+v", sig, after, before)
			}
		})
	}
}
