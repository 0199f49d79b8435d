package gopher_test

import (
	"bufio"
	"context"
	"io"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/urlfetch/urlfetch/fetch"
	"github.com/urlfetch/urlfetch/fetch/fetchtest"
	"github.com/urlfetch/urlfetch/fetch/gopher"
)

// fakeServer is a scripted Gopher server on 127.0.0.1:0 for what no real
// server does on demand: hostile, malformed, endless or stalled replies,
// and a record of the exact bytes a client sent.
type fakeServer struct {
	t       testing.TB
	l       net.Listener
	ctx     context.Context // cancelled when the test ends
	wg      sync.WaitGroup
	mu      sync.Mutex
	got     []string
	replies map[string]func(c net.Conn)
}

func newFakeServer(t testing.TB) *fakeServer {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	s := &fakeServer{t: t, l: l, ctx: ctx, replies: map[string]func(net.Conn){}}
	s.wg.Add(1)
	go s.accept()
	t.Cleanup(func() {
		cancel()
		l.Close()
		s.wg.Wait()
	})
	return s
}

// URL returns the gopher URL of path on the server.
func (s *fakeServer) URL(path string) string { return "gopher://" + s.l.Addr().String() + path }

// Reply answers the request line req (without its CR LF) with reply.
func (s *fakeServer) Reply(req, reply string) {
	s.ReplyFunc(req, func(c net.Conn) { io.WriteString(c, reply) })
}

// ReplyFunc answers the request line req by running fn on the connection.
func (s *fakeServer) ReplyFunc(req string, fn func(c net.Conn)) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.replies[req] = fn
}

// Stall answers req with nothing until the test ends.
func (s *fakeServer) Stall(req string) {
	s.ReplyFunc(req, func(net.Conn) { <-s.ctx.Done() })
}

// Got returns the requests received, each as the exact bytes sent.
func (s *fakeServer) Got() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.got...)
}

func (s *fakeServer) accept() {
	defer s.wg.Done()
	for {
		c, err := s.l.Accept()
		if err != nil {
			return
		}
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			defer c.Close()
			stop := context.AfterFunc(s.ctx, func() { c.Close() })
			defer stop()
			s.serve(c)
		}()
	}
}

// serve reads one request: a line, and for a Gopher+ request with data
// (a line ending in TAB "1") the data block up to its "." line.
func (s *fakeServer) serve(c net.Conn) {
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	br := bufio.NewReader(c)
	line, err := br.ReadString('\n')
	if err != nil {
		return
	}
	req := strings.TrimSuffix(strings.TrimSuffix(line, "\n"), "\r")
	all := line
	if strings.HasSuffix(req, "\t1") {
		for {
			l, err := br.ReadString('\n')
			all += l
			if err != nil || l == ".\r\n" {
				break
			}
		}
	}
	c.SetReadDeadline(time.Time{})
	s.mu.Lock()
	s.got = append(s.got, all)
	fn := s.replies[req]
	s.mu.Unlock()
	if fn == nil {
		io.WriteString(c, "3'"+req+"' is not on this fake server\t\terror.host\t1\r\n")
		return
	}
	fn(c)
}

// host and port of the fake server as a menu names them.
func (s *fakeServer) hostPort() (string, int) {
	a := s.l.Addr().(*net.TCPAddr)
	return a.IP.String(), a.Port
}

// newClient returns a Client with d registered for gopher, tracing into a
// log.
func newClient(t testing.TB, d *gopher.Driver) (*fetch.Client, *fetchtest.TraceLog) {
	log := &fetchtest.TraceLog{}
	c := &fetch.Client{NetrcFile: "-", IdleTimeout: 5 * time.Second, Trace: log.Add}
	c.Register("gopher", d)
	t.Cleanup(func() { c.Close() })
	return c, log
}

// noDial is a Client that fails the test if anything is dialed.
func noDial(t testing.TB, d *gopher.Driver) (*fetch.Client, *fetchtest.TraceLog) {
	c, log := newClient(t, d)
	c.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		t.Errorf("dialed %s; want nothing sent", addr)
		return nil, net.ErrClosed
	}
	return c, log
}

func fetchBody(t testing.TB, c *fetch.Client, rawURL string) (*fetch.Response, string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	resp, err := c.Fetch(ctx, rawURL)
	if err != nil {
		return nil, "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp, string(b), err
}
