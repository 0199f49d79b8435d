package all_test

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/urlfetch/urlfetch/fetch"
	"github.com/urlfetch/urlfetch/fetch/all"
	"github.com/urlfetch/urlfetch/fetch/fetchtest"
	"github.com/urlfetch/urlfetch/fetch/mailto"
	"github.com/urlfetch/urlfetch/fetch/nntp"
)

// A recorder is a TCP server on 127.0.0.1:0 that keeps every connection
// it accepts and every byte each one sends: the witness that a refused
// URL sent nothing. Its script, if set, plays the server's side of a
// conversation; without one it only reads.
type recorder struct {
	ln     net.Listener
	host   string
	port   int
	script func(c *recConn)

	mu      sync.Mutex
	conns   []*recConn
	checked int // conns[:checked] were returned by an earlier accepted call
	wg      sync.WaitGroup
}

// A recConn is one accepted connection and what it sent.
type recConn struct {
	net.Conn
	remote string
	r      *bufio.Reader // reads through the recording

	mu   sync.Mutex
	got  bytes.Buffer
	done chan struct{} // closed when the server side has finished
}

func (c *recConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	c.mu.Lock()
	c.got.Write(p[:n])
	c.mu.Unlock()
	return n, err
}

// line reads one line of the client's, "" at the end.
func (c *recConn) line() string {
	s, _ := c.r.ReadString('\n')
	return s
}

// bytes returns everything the client sent, once the server side is
// done (the client closed, or the script ended and the rest was read).
func (c *recConn) bytes(t testing.TB) []byte {
	t.Helper()
	select {
	case <-c.done:
	case <-time.After(10 * time.Second):
		t.Fatalf("the connection from %s is still open after 10s", c.remote)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return bytes.Clone(c.got.Bytes())
}

func newRecorder(t testing.TB, script func(c *recConn)) *recorder {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	a := ln.Addr().(*net.TCPAddr)
	r := &recorder{ln: ln, host: a.IP.String(), port: a.Port, script: script}
	r.wg.Add(1)
	go r.serve()
	t.Cleanup(func() {
		ln.Close()
		r.mu.Lock()
		for _, c := range r.conns {
			c.Conn.Close()
		}
		r.mu.Unlock()
		r.wg.Wait()
	})
	return r
}

func (r *recorder) addr() string { return net.JoinHostPort(r.host, strconv.Itoa(r.port)) }

func (r *recorder) serve() {
	defer r.wg.Done()
	for {
		nc, err := r.ln.Accept()
		if err != nil {
			return
		}
		c := &recConn{Conn: nc, remote: nc.RemoteAddr().String(), done: make(chan struct{})}
		c.r = bufio.NewReader(c)
		r.mu.Lock()
		r.conns = append(r.conns, c)
		r.mu.Unlock()
		r.wg.Add(1)
		go func() {
			defer r.wg.Done()
			defer close(c.done)
			defer nc.Close()
			nc.SetDeadline(time.Now().Add(20 * time.Second))
			if r.script != nil {
				r.script(c)
			}
			io.Copy(io.Discard, c.r) // whatever else the client sends
		}()
	}
}

// accepted returns the connections accepted since the last call. It first
// connects to the recorder itself and waits until that connection is
// accepted: the kernel hands connections to accept in the order they
// came, so every connection a fetch made before it returned, through the
// dial path or around it, is in the list.
func (r *recorder) accepted(t testing.TB) []*recConn {
	t.Helper()
	sentinel, err := net.Dial("tcp", r.addr())
	if err != nil {
		t.Fatal(err)
	}
	me := sentinel.LocalAddr().String()
	sentinel.Close()
	deadline := time.Now().Add(10 * time.Second)
	for {
		r.mu.Lock()
		for i := r.checked; i < len(r.conns); i++ {
			if r.conns[i].remote == me {
				got := append([]*recConn(nil), r.conns[r.checked:i]...)
				r.checked = i + 1
				r.mu.Unlock()
				return got
			}
		}
		r.mu.Unlock()
		if time.Now().After(deadline) {
			t.Fatalf("the recorder did not accept its own connection within 10s")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// A dialLog is a Client.DialContext that notes every address dialed.
// Addresses in pass are connected for real; any other dial fails with
// errDialRecorded.
type dialLog struct {
	mu    sync.Mutex
	addrs []string
	pass  map[string]bool
}

var errDialRecorded = errors.New("test: dial recorded and not made")

func (l *dialLog) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	l.mu.Lock()
	l.addrs = append(l.addrs, addr)
	pass := l.pass[addr]
	l.mu.Unlock()
	if !pass {
		return nil, errDialRecorded
	}
	var d net.Dialer
	return d.DialContext(ctx, network, addr)
}

func (l *dialLog) all() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.addrs...)
}

func (l *dialLog) dialed(addr string) bool {
	for _, a := range l.all() {
		if a == addr {
			return true
		}
	}
	return false
}

// recordingClient returns a Client with every driver whose connections
// all go to rec: its port allowed, news and mailto pointed at it, every
// dial through a dialLog that lets only rec's address through.
func recordingClient(t testing.TB, rec *recorder) (*fetch.Client, *dialLog, *fetchtest.TraceLog) {
	c := all.NewClient()
	c.NetrcFile = "-"
	c.ConnectTimeout = 5 * time.Second
	c.IdleTimeout = 5 * time.Second
	c.AllowPorts = []int{rec.port}
	dl := &dialLog{pass: map[string]bool{rec.addr(): true}}
	c.DialContext = dl.dial
	tl := &fetchtest.TraceLog{}
	c.Trace = tl.Add
	c.Driver("news").(*nntp.Driver).Server = rec.addr()
	m := c.Driver("mailto").(*mailto.Driver)
	m.Server = rec.addr()
	m.From = "tester@example.org"
	m.LocalName = "client.example.org"
	t.Cleanup(func() { c.Close() })
	return c, dl, tl
}

// fetchAll fetches rawURL and, on success, reads and closes the body.
func fetchAll(c *fetch.Client, rawURL string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	resp, err := c.Fetch(ctx, rawURL)
	if err != nil {
		return nil, err
	}
	b, err := io.ReadAll(resp.Body)
	if cerr := resp.Body.Close(); err == nil {
		err = cerr
	}
	return b, err
}

// expand fills a URL template: {A} is the recorder's host:port.
func (r *recorder) expand(tmpl string) string {
	return strings.ReplaceAll(tmpl, "{A}", r.addr())
}
