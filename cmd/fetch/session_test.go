//go:build linux

package main

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/creack/pty"
	"golang.org/x/sys/unix"

	"github.com/urlfetch/urlfetch/fetch"
)

// The terminal bridge against the real telnetd, through a pty and the
// built command (raw mode, Ctrl-], signals, restored modes), is tested in
// integration/telnet_test.go. Here the bridge runs in this process, on a
// pty, with a fake session (one end of a net.Pipe), so that its
// goroutines can be counted: none may be left when it returns.

// syncBuffer is a bytes.Buffer for one writer and one reader goroutine.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func termiosOf(t *testing.T, tty *os.File) unix.Termios {
	t.Helper()
	tio, err := unix.IoctlGetTermios(int(tty.Fd()), unix.TCGETS)
	if err != nil {
		t.Fatalf("reading the terminal's modes: %v", err)
	}
	return *tio
}

// eventually polls cond every 10ms until it holds or limit passes.
func eventually(limit time.Duration, cond func() bool) bool {
	deadline := time.Now().Add(limit)
	for !cond() {
		if time.Now().After(deadline) {
			return false
		}
		time.Sleep(10 * time.Millisecond)
	}
	return true
}

func TestTerminalBridge_FakeSession(t *testing.T) {
	// The first signal.Notify of a process starts the runtime's signal
	// loop, a goroutine that never ends: start it before counting.
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt)
	signal.Stop(sigs)
	for _, end := range []string{"escape", "server closes", "context cancelled"} {
		t.Run(end, func(t *testing.T) {
			ptmx, tty, err := pty.Open()
			if err != nil {
				t.Fatalf("opening a pty: %v", err)
			}
			defer ptmx.Close()
			defer tty.Close()
			before := termiosOf(t, tty)
			client, server := net.Pipe()
			defer server.Close()
			server.SetDeadline(time.Now().Add(10 * time.Second))
			resp := &fetch.Response{Kind: fetch.Session, Conn: client, Body: client}
			out := &syncBuffer{}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()

			baseline := runtime.NumGoroutine()
			done := make(chan error, 1)
			go func() { done <- runSession(ctx, resp, tty, out) }()

			raw := func() bool { return termiosOf(t, tty).Lflag&(unix.ICANON|unix.ECHO|unix.ISIG) == 0 }
			if !eventually(2*time.Second, raw) {
				t.Fatal("the terminal never went into raw mode")
			}
			ptmx.WriteString("ls\r")
			got := make([]byte, 3)
			if _, err := io.ReadFull(server, got); err != nil || string(got) != "ls\r" {
				t.Fatalf("the session read %q, %v; want the keys as typed, Return as CR", got, err)
			}
			io.WriteString(server, "hello from the server")
			if !eventually(2*time.Second, func() bool { return strings.Contains(out.String(), "hello from the server") }) {
				t.Fatalf("stdout = %q, want the session's text", out.String())
			}

			var want error
			switch end {
			case "escape":
				ptmx.Write([]byte("x\x1dnot sent"))
				if _, err := io.ReadFull(server, got[:1]); err != nil || got[0] != 'x' {
					t.Errorf("the session read %q, %v; want the key before Ctrl-]", got[:1], err)
				}
			case "server closes":
				server.Close()
			case "context cancelled":
				cancel()
				want = context.Canceled
			}
			select {
			case err := <-done:
				if !errors.Is(err, want) || (want == nil && err != nil) {
					t.Errorf("runSession = %v, want %v", err, want)
				}
			case <-time.After(5 * time.Second):
				t.Fatal("runSession still running 5s after the session ended")
			}
			if after := termiosOf(t, tty); after != before {
				t.Errorf("terminal modes after the session:\n%+v\nwant as before:\n%+v", after, before)
			}
			if !eventually(2*time.Second, func() bool { return runtime.NumGoroutine() <= baseline }) {
				buf := make([]byte, 1<<16)
				t.Errorf("%d goroutines after the session, %d before it:\n%s", runtime.NumGoroutine(), baseline, buf[:runtime.Stack(buf, true)])
			}
		})
	}
}

// fakePrograms writes stand-ins for rlogin and c3270 (neither is
// installed here) that print their arguments, and returns their directory.
func fakePrograms(t *testing.T) string {
	dir := t.TempDir()
	for _, name := range []string{"rlogin", "c3270"} {
		script := "#!/bin/sh\necho " + name + " \"$@\"\n"
		if err := os.WriteFile(filepath.Join(dir, name), []byte(script), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// fetchWithPath runs the command with PATH set to path.
func fetchWithPath(t *testing.T, path string, args ...string) result {
	t.Helper()
	cmd := exec.Command(fetchBin, args...)
	cmd.Env = append(os.Environ(), "NETRC=/nonexistent-netrc-for-tests", "PATH="+path)
	return runCmd(t, cmd)
}

// Acceptance 4: rlogin and tn3270 URLs go to an installed client with
// the host, port and user; the password goes nowhere.
func TestHandoff_FakeProgram(t *testing.T) {
	dir := fakePrograms(t)
	for _, tc := range []struct{ url, want string }{
		{"rlogin://joe:secret@host.example:1513/", "rlogin -l joe -p 1513 host.example\n"},
		{"rlogin://host.example", "rlogin host.example\n"},
		{"tn3270://op@mainframe.example:2323/", "c3270 -user op mainframe.example:2323\n"},
	} {
		r := fetchWithPath(t, dir, tc.url)
		if r.code != 0 || r.stdout != tc.want || r.stderr != "" {
			t.Errorf("fetch %s = exit %d, stdout %q, stderr %q; want 0 and %q", tc.url, r.code, r.stdout, r.stderr, tc.want)
		}
	}
	// None installed: the command says which program to install.
	r := fetchWithPath(t, t.TempDir(), "rlogin://joe:secret@host.example/")
	if r.code != exitUnsupported || !strings.Contains(r.stderr, "rlogin (Debian: rsh-client or rsh-redone-client)") ||
		strings.Count(strings.TrimSpace(r.stderr), "\n") != 0 || strings.Contains(r.stderr, "secret") {
		t.Errorf("fetch rlogin:// without rlogin = exit %d, stderr %q; want %d and one line naming the program", r.code, r.stderr, exitUnsupported)
	}
}

func TestLoginPromptFlagInvalid(t *testing.T) {
	r := fetchCmd(t, t.TempDir(), "", "--login", "--login-prompt", "(", "telnet://127.0.0.1:1/")
	if r.code != exitUsage || !strings.Contains(r.stderr, "--login-prompt") {
		t.Errorf("fetch --login-prompt '(' = exit %d, stderr %q; want %d naming the flag", r.code, r.stderr, exitUsage)
	}
}
