package fetch

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

// fakeDriver is an in-process stand-in for a protocol driver: it serves
// fixed bodies and records what it was asked.
type fakeDriver struct {
	body  string
	err   error
	calls int
	dial  bool // dial the URL's host through the dial path
}

func (d *fakeDriver) Fetch(ctx context.Context, req *Request) (*Response, error) {
	d.calls++
	if d.dial {
		c, err := req.Dial(ctx)
		if err != nil {
			return nil, err
		}
		c.Close()
	}
	if d.err != nil {
		return nil, d.err
	}
	return &Response{Kind: Document, Type: "text/plain", Length: int64(len(d.body)), Body: io.NopCloser(strings.NewReader(d.body))}, nil
}

func TestRegisterPanics(t *testing.T) {
	for name, f := range map[string]func(c *Client){
		"empty scheme": func(c *Client) { c.Register("", &fakeDriver{}) },
		"nil driver":   func(c *Client) { c.Register("x", nil) },
		"duplicate":    func(c *Client) { c.Register("x", &fakeDriver{}); c.Register("x", &fakeDriver{}) },
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("Register with %s did not panic", name)
				}
			}()
			f(&Client{})
		}()
	}
}

func TestUnknownScheme(t *testing.T) {
	c := &Client{}
	c.Register("x-test", &fakeDriver{body: "hi"})
	_, err := c.Fetch(context.Background(), "gopher://h/")
	if !errors.Is(err, ErrUnsupported) || !strings.Contains(err.Error(), `"gopher"`) {
		t.Errorf(`Fetch("gopher://h/") error = %v, want ErrUnsupported naming "gopher"`, err)
	}
	resp, err := c.Fetch(context.Background(), "x-test://h/")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	if string(b) != "hi" || resp.URL.String() != "x-test://h/" {
		t.Errorf("Fetch body %q URL %v", b, resp.URL)
	}
}

func TestInvalidURL(t *testing.T) {
	c := &Client{}
	_, err := c.Fetch(context.Background(), "ftp://u:hunter2@h/a b")
	if !errors.Is(err, ErrURL) {
		t.Fatalf("error = %v, want ErrURL", err)
	}
	if msg := err.Error(); strings.Contains(msg, "hunter2") || !strings.Contains(msg, "offset 19") || !strings.Contains(msg, "space") {
		t.Errorf("error %q: want the offset and reason, never the password", msg)
	}
}

func TestPortPolicy(t *testing.T) {
	dials := 0
	c := &Client{DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
		dials++
		return nil, errors.New("fake dialer: no network in this test")
	}}
	c.Register("gopher", &fakeDriver{dial: true})
	c.Register("ftp", &fakeDriver{dial: true})
	for _, u := range []string{"gopher://127.0.0.1:25/", "gopher://127.0.0.1:6667/", "ftp://127.0.0.1:25/"} {
		_, err := c.Fetch(context.Background(), u)
		if !errors.Is(err, ErrUnsafe) {
			t.Errorf("Fetch(%q) error = %v, want ErrUnsafe", u, err)
		}
	}
	if dials != 0 {
		t.Errorf("port policy: %d dials made, want none", dials)
	}
	// The scheme's own default is never refused; another port is dialled.
	for _, u := range []string{"ftp://127.0.0.1:21/", "gopher://127.0.0.1:7070/"} {
		_, err := c.Fetch(context.Background(), u)
		if !errors.Is(err, ErrConnect) {
			t.Errorf("Fetch(%q) error = %v, want the fake dialer's ErrConnect", u, err)
		}
	}
	if dials != 2 {
		t.Errorf("dials = %d, want 2", dials)
	}
	c.AllowPorts = []int{25}
	if _, err := c.Fetch(context.Background(), "gopher://127.0.0.1:25/"); errors.Is(err, ErrUnsafe) {
		t.Errorf("allowed port 25 still refused: %v", err)
	}
	if !BadPort("gopher", 119) || BadPort("nntp", 119) || BadPort("telnet", 23) || BadPort("http", 8080) {
		t.Error("BadPort table wrong")
	}
}

func TestErrorsMaskPassword(t *testing.T) {
	var lines []string
	c := &Client{Trace: func(dir Direction, line string) { lines = append(lines, string(dir)+" "+line) }}
	c.Register("ftp", DriverFunc(func(ctx context.Context, req *Request) (*Response, error) {
		req.Trace(Out, "USER joe")
		req.Trace(Out, "PASS s3cret-pw")
		req.Trace(In, "530 Login incorrect for s3cret-pw")
		return nil, Errorf(ErrAuth, "530 login with s3cret-pw refused")
	}))
	_, err := c.Fetch(context.Background(), "ftp://joe:s3cret-pw@h/")
	if !errors.Is(err, ErrAuth) {
		t.Fatalf("error = %v, want ErrAuth", err)
	}
	if msg := err.Error(); strings.Contains(msg, "s3cret-pw") || !strings.Contains(msg, "ftp://joe:***@h/") {
		t.Errorf("error %q shows the password or not the masked URL", msg)
	}
	for _, l := range lines {
		if strings.Contains(l, "s3cret-pw") {
			t.Errorf("trace line %q shows the password", l)
		}
	}
	if want := "> PASS ***"; len(lines) < 2 || lines[1] != want {
		t.Errorf("trace = %q, want line 2 %q", lines, want)
	}
}

func TestCheckLine(t *testing.T) {
	for _, v := range []string{"a\rb", "a\nb", "a\x00b"} {
		err := CheckLine("ftp path segment", v)
		if !errors.Is(err, ErrUnsafe) || !strings.Contains(err.Error(), "ftp path segment") {
			t.Errorf("CheckLine(%q) = %v, want ErrUnsafe naming the component", v, err)
		}
	}
	if err := CheckLine("x", "plain text\t"); err != nil {
		t.Errorf("CheckLine(plain) = %v", err)
	}
}

func TestClass(t *testing.T) {
	tests := []struct {
		err  error
		want error
	}{
		{Errorf(ErrNotFound, "550 no such file"), ErrNotFound},
		{&Error{Op: "fetch", URL: "x", Err: Errorf(ErrTimeout, "slow")}, ErrTimeout},
		{context.Canceled, context.Canceled},
		// Issue 19: Class is exactly errors.Is over the classes; a
		// deadline is ErrTimeout once the Client or a Body says so.
		{context.DeadlineExceeded, nil},
		{contextError(context.DeadlineExceeded), ErrTimeout},
		{errors.New("other"), nil},
	}
	for _, tt := range tests {
		if got := Class(tt.err); got != tt.want {
			t.Errorf("Class(%v) = %v, want %v", tt.err, got, tt.want)
		}
		if tt.want != nil && !errors.Is(tt.err, tt.want) {
			t.Errorf("Class(%v) = %v but errors.Is does not find it", tt.err, tt.want)
		}
	}

	// Through a Client and a Body: a passed deadline is ErrTimeout and
	// context.DeadlineExceeded at once.
	ctx, cancel := context.WithTimeout(context.Background(), time.Nanosecond)
	defer cancel()
	<-ctx.Done()
	c := &Client{}
	c.Register("x", DriverFunc(func(ctx context.Context, req *Request) (*Response, error) {
		return nil, ctx.Err()
	}))
	_, err := c.Fetch(ctx, "x://h/")
	if !errors.Is(err, ErrTimeout) || !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Fetch after the deadline = %v; want ErrTimeout wrapping context.DeadlineExceeded", err)
	}
	_, err = NewBody(ctx, strings.NewReader("x"), BodyFuncs{}).Read(make([]byte, 1))
	if !errors.Is(err, ErrTimeout) || !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Body.Read after the deadline = %v; want ErrTimeout wrapping context.DeadlineExceeded", err)
	}
	e := Errorf(ErrNotFound, "RETR %s: %w", "x", io.ErrUnexpectedEOF)
	if e.Error() != "RETR x: unexpected EOF" || !errors.Is(e, io.ErrUnexpectedEOF) || !errors.Is(e, ErrNotFound) {
		t.Errorf("Errorf = %q", e)
	}
}

// stallServer is an in-process fake server that accepts and never writes:
// no real server stalls on demand.
func stallServer(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	t.Cleanup(func() { ln.Close(); close(done) })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() { <-done; c.Close() }()
		}
	}()
	return ln.Addr().String()
}

func TestConnCancelInterruptsRead_FakeStallServer(t *testing.T) {
	addr := stallServer(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	req := NewRequest(&Client{}, nil)
	conn, err := req.DialAddr(ctx, "x-test", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	errc := make(chan error, 1)
	go func() {
		_, err := conn.Read(make([]byte, 1))
		errc <- err
	}()
	cancel()
	select {
	case err := <-errc:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("Read after cancel = %v, want context.Canceled", err)
		}
	case <-time.After(time.Second):
		t.Fatal("Read still blocked 1s after cancel")
	}
}

func TestConnIdleTimeout_FakeStallServer(t *testing.T) {
	addr := stallServer(t)
	req := NewRequest(&Client{IdleTimeout: 50 * time.Millisecond}, nil)
	conn, err := req.DialAddr(context.Background(), "x-test", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	_, err = conn.Read(make([]byte, 1))
	if !errors.Is(err, ErrTimeout) {
		t.Errorf("Read = %v, want ErrTimeout", err)
	}
}

func TestDialRefused(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	_, err = NewRequest(nil, nil).DialAddr(context.Background(), "x-test", addr)
	if !errors.Is(err, ErrConnect) || !strings.Contains(err.Error(), "refused") {
		t.Errorf("DialAddr(closed port) = %v, want ErrConnect saying refused", err)
	}
}

func TestTransport(t *testing.T) {
	c := &Client{}
	c.Register("x-test", &fakeDriver{body: "hello"})
	c.Register("x-missing", &fakeDriver{err: Errorf(ErrNotFound, "no such thing")})
	tr := &http.Transport{}
	tr.RegisterProtocol("x-test", &Transport{Client: c})
	tr.RegisterProtocol("x-missing", &Transport{Client: c})
	hc := &http.Client{Transport: tr}
	resp, err := hc.Get("x-test://h/a")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || string(b) != "hello" || resp.Header.Get("Content-Type") != "text/plain" {
		t.Errorf("GET x-test://h/a = %d %q %v", resp.StatusCode, b, resp.Header)
	}
	resp, err = hc.Get("x-missing://h/a")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 404 {
		t.Errorf("GET x-missing://h/a status = %d, want 404", resp.StatusCode)
	}
}

func TestTemporary(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want bool
	}{
		{nil, false},
		{Errorf(ErrTimeout, "idle"), true},
		{Errorf(ErrConnect, "refused"), true},
		{&Error{Op: "read", URL: "http://h/", Err: io.ErrUnexpectedEOF}, true},
		{fmt.Errorf("ftp: RETR x: %w", tempErr(true)), true},
		{fmt.Errorf("ftp: RETR x: %w", tempErr(false)), false},
		{Errorf(ErrNotFound, "550"), false},
		{Errorf(ErrAuth, "530"), false},
		{Errorf(ErrUnsafe, "CR"), false},
		{Errorf(ErrNotFound, "%w", tempErr(true)), false}, // never, whatever else it says
		{context.Canceled, false},
		{Errorf(ErrProtocol, "garbage"), false},
	} {
		if got := Temporary(tc.err); got != tc.want {
			t.Errorf("Temporary(%v) = %v, want %v", tc.err, got, tc.want)
		}
	}
}

type tempErr bool

func (e tempErr) Error() string   { return fmt.Sprintf("temporary: %v", bool(e)) }
func (e tempErr) Temporary() bool { return bool(e) }
