package main

import (
	"io"
	"net"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/urlfetch/urlfetch/fetch"
)

// Issue 12, point 4, as a user meets it: a URL (or the --news-server and
// --smtp-server settings) at another protocol's port exits 7 without
// connecting; --allow-port lets the same command connect.

// unprivilegedBadPorts are ports of the bad-ports list above 1023, which a
// test can listen on without privileges.
var unprivilegedBadPorts = []int{6665, 6666, 6667, 6668, 6669, 6679, 6697, 10080, 4190, 5060, 5061, 6566, 3659, 1719, 1720, 1723}

// A portWitness listens on 127.0.0.1 at a bad port and counts the
// connections it accepts, hanging up on each at once.
type portWitness struct {
	ln   net.Listener
	port int

	mu       sync.Mutex
	remotes  []string
	returned int
	wg       sync.WaitGroup
}

func newPortWitness(t *testing.T) *portWitness {
	t.Helper()
	for _, p := range unprivilegedBadPorts {
		if !fetch.BadPort("gopher", p) {
			t.Fatalf("port %d is not on the bad-ports list", p)
		}
		ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(p)))
		if err != nil {
			continue
		}
		w := &portWitness{ln: ln, port: p}
		w.wg.Add(1)
		go w.serve()
		t.Cleanup(func() { ln.Close(); w.wg.Wait() })
		return w
	}
	t.Fatalf("none of the ports %v is free to listen on", unprivilegedBadPorts)
	return nil
}

func (w *portWitness) serve() {
	defer w.wg.Done()
	for {
		c, err := w.ln.Accept()
		if err != nil {
			return
		}
		w.mu.Lock()
		w.remotes = append(w.remotes, c.RemoteAddr().String())
		w.mu.Unlock()
		w.wg.Add(1)
		go func() {
			defer w.wg.Done()
			defer c.Close()
			c.SetDeadline(time.Now().Add(10 * time.Second))
			c.(*net.TCPConn).CloseWrite()
			io.Copy(io.Discard, c)
		}()
	}
}

// accepted returns how many connections came since the last call, after
// connecting itself and waiting for that connection: the kernel hands
// them to accept in order, so every earlier one is counted.
func (w *portWitness) accepted(t *testing.T) int {
	t.Helper()
	c, err := net.Dial("tcp", w.ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	me := c.LocalAddr().String()
	c.Close()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		w.mu.Lock()
		for i := w.returned; i < len(w.remotes); i++ {
			if w.remotes[i] == me {
				n := i - w.returned
				w.returned = i + 1
				w.mu.Unlock()
				return n
			}
		}
		w.mu.Unlock()
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatal("the witness did not accept its own connection within 10s")
	return 0
}

func TestAllowPortFlag(t *testing.T) {
	w := newPortWitness(t)
	at := "127.0.0.1:" + strconv.Itoa(w.port)
	dir := t.TempDir()
	for _, args := range [][]string{
		{"gopher://" + at + "/"},
		{"gopher://" + at + "/0HELO%20x"},
		{"http://" + at + "/"},
		{"ftp://" + at + "/f.txt"},
		{"nntp://" + at + "/comp.lang"},
		{"telnet://" + at + "/"},
		{"wais://" + at + "/db?words"},
		{"--news-server", at, "news:comp.lang"},
		{"--smtp-server", at, "--from", "tester@example.org", "mailto:ok@example.org"},
	} {
		r := fetchCmd(t, dir, "hello\n", append([]string{"--connect-timeout", "5s", "--idle-timeout", "5s"}, args...)...)
		if r.code != exitUnsafe || !strings.Contains(r.stderr, "--allow-port "+strconv.Itoa(w.port)) {
			t.Errorf("fetch %q: exit %d, stderr %q; want exit %d naming --allow-port %d", args, r.code, r.stderr, exitUnsafe, w.port)
		}
		if n := w.accepted(t); n != 0 {
			t.Errorf("fetch %q: %d connections to port %d, want none", args, n, w.port)
		}

		allowed := append([]string{"--allow-port", strconv.Itoa(w.port), "--connect-timeout", "5s", "--idle-timeout", "5s"}, args...)
		r = fetchCmd(t, dir, "hello\n", allowed...)
		if r.code == exitUnsafe {
			t.Errorf("fetch %q: exit %d, stderr %q", allowed, r.code, r.stderr)
		}
		if n := w.accepted(t); n == 0 {
			t.Errorf("fetch %q: no connection to port %d (exit %d, stderr %q)", allowed, w.port, r.code, r.stderr)
		}
	}
}
