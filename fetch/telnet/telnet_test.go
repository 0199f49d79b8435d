package telnet_test

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"testing"
	"testing/iotest"
	"time"

	"github.com/urlfetch/urlfetch/fetch"
	"github.com/urlfetch/urlfetch/fetch/fetchtest"
	"github.com/urlfetch/urlfetch/fetch/telnet"
	"github.com/urlfetch/urlfetch/uri"
)

// The real-server tests are in integration/telnet_test.go (inetutils
// telnetd). The fake servers here produce what that server does not: a
// session that ends by itself (the conformance suite reads a Body to its
// end, and telnetd waits for input for ever), a server that never
// answers, hostile and rare commands, exact bytes to compare, an echo of
// the password every time.

// Telnet bytes, spelt out for the fake servers.
const (
	iac  = "\xff"
	will = iac + "\xfb"
	wont = iac + "\xfc"
	do   = iac + "\xfd"
	dont = iac + "\xfe"
	sb   = iac + "\xfa"
	se   = iac + "\xf0"

	echo  = "\x01"
	sga   = "\x03"
	ttype = "\x18"
	naws  = "\x1f"
	bin   = "\x00"
)

// fakeServer listens on loopback and runs serve on each connection until
// the test ends; it returns the host:port.
func fakeServer(t *testing.T, serve func(c net.Conn)) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	var conns []net.Conn
	wg.Go(func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
			wg.Go(func() {
				defer c.Close()
				serve(c)
			})
		}
	})
	t.Cleanup(func() {
		l.Close()
		mu.Lock()
		for _, c := range conns {
			c.Close()
		}
		mu.Unlock()
		wg.Wait()
	})
	return l.Addr().String()
}

// finish ends a fake session: it stops writing, reads what the client
// still sends (so that closing does not reset the connection under data
// the client has not read) and returns it.
func finish(c net.Conn) []byte {
	c.(*net.TCPConn).CloseWrite()
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	b, _ := io.ReadAll(c)
	return b
}

func newClient(d *telnet.Driver) *fetch.Client {
	c := &fetch.Client{NetrcFile: "-"}
	c.Register("telnet", d)
	return c
}

func fetchSession(t *testing.T, c *fetch.Client, rawURL string) *fetch.Response {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	resp, err := c.Fetch(ctx, rawURL)
	if err != nil {
		t.Fatalf("Fetch(%q): %v", rawURL, err)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return resp
}

// A service that says its piece and ends the session, as a daytime-like
// telnet service does.
const serviceText = "fake telnet service\r\nbye\r\n"

func endingService(c net.Conn) {
	io.WriteString(c, will+echo+do+ttype+serviceText)
	finish(c)
}

func TestConformance_FakeServer(t *testing.T) {
	host := fakeServer(t, endingService)
	stall := fakeServer(t, func(c net.Conn) {
		// Accepts, says nothing, reads until the client goes.
		c.SetReadDeadline(time.Now().Add(30 * time.Second))
		io.Copy(io.Discard, c)
	})
	fetchtest.Run(t, fetchtest.Opt{
		Scheme: "telnet",
		// With Login, so that a user and a password reach a protocol
		// line and Inject applies.
		NewClient: func(testing.TB) *fetch.Client { return newClient(&telnet.Driver{Login: true}) },
		Found:     []fetchtest.Case{{URL: "telnet://" + host + "/", Want: serviceText, Kind: fetch.Session}},
		Inject: []string{
			"telnet://a%0D%0Ab:pw@" + host + "/",
			"telnet://user:p%0Aw@" + host + "/",
			"telnet://user:p%00w@" + host + "/",
		},
		Stall:   func(testing.TB) string { return "telnet://" + stall + "/" },
		Invalid: []string{"telnet://" + host + "/a/path"},
		Caps:    fetchtest.Caps{NoNotFound: true, NoHead: true},
	})
}

// A storm of negotiation: every request for every option, again and
// again, subnegotiations without end. The client answers a bounded
// number, keeps its memory bounded, and the data after it arrives.
func TestOptionStorm_FakeServer(t *testing.T) {
	var storm bytes.Buffer
	for range 20 {
		for o := range 256 {
			for _, verb := range []string{will, do, wont, dont, will, do} {
				storm.WriteString(verb)
				storm.WriteByte(byte(o))
			}
			storm.WriteString(sb + ttype + "\x01" + se)
		}
	}
	storm.WriteString(sb + naws + strings.Repeat("x", 16<<20) + se)
	storm.WriteString(sb + ttype + "\x01" + strings.Repeat(iac+iac, 1000) + se)
	storm.WriteString("after the storm\r\n")
	sent := make(chan int, 1)
	host := fakeServer(t, func(c net.Conn) {
		// The client's answers are bounded well below what the socket
		// buffers hold: the fake may write it all before reading.
		c.Write(storm.Bytes())
		sent <- len(finish(c))
	})
	d := &telnet.Driver{Term: "xterm", WindowSize: func() (int, int, bool) { return 80, 24, true }}
	resp := fetchSession(t, newClient(d), "telnet://"+host+"/")
	start := time.Now()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	body, err := io.ReadAll(resp.Body)
	runtime.ReadMemStats(&after)
	if err != nil {
		t.Fatalf("reading the session: %v", err)
	}
	if string(body) != "after the storm\r\n" {
		t.Errorf("session text = %q, want only the text after the storm", body)
	}
	// A 16 MiB subnegotiation is skipped, not kept.
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 4<<20 {
		t.Errorf("reading the storm allocated %d bytes, want under 4 MiB", alloc)
	}
	resp.Body.Close()
	if n := <-sent; n > 8<<10 {
		t.Errorf("the client sent %d bytes of answers to the storm, want at most 8 KiB", n)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("the storm took %v", d)
	}
}

// Commands a reader of the data never sees, CR NUL, a doubled IAC, and a
// subnegotiation the server forgot to end, read one byte at a time so
// that every state of the parser meets the end of a buffer.
func TestRareCommands_FakeServer(t *testing.T) {
	script := []string{
		"a" + iac + "\xf1" + "b",                         // NOP
		iac + "\xf9" + "c",                               // GA
		iac + "\xf6" + iac + "\xf3" + iac + "\xef" + "d", // AYT, BRK, EOR
		iac + "\xf2" + "e",                               // DM
		"f" + iac + iac + "g",                            // a data byte 255
		"h\r\x00i\r\nj",                                  // CR NUL is CR
		sb + naws + "\x00" + iac + iac + "\x10\x00\x18" + se + "k",
		sb + "\x99" + "no end" + will + echo + "l",
		"\r",
		"\x00m\r",
		"\nn",
	}
	host := fakeServer(t, func(c net.Conn) {
		for _, s := range script {
			for i := range len(s) {
				c.Write([]byte{s[i]})
			}
		}
		finish(c)
	})
	resp := fetchSession(t, newClient(&telnet.Driver{}), "telnet://"+host+"/")
	body, err := io.ReadAll(iotest.OneByteReader(resp.Body))
	if err != nil {
		t.Fatalf("reading the session: %v", err)
	}
	if want := "abcdef\xffgh\ri\r\njkl\rm\r\nn"; string(body) != want {
		t.Errorf("session text = %q, want %q", body, want)
	}
	if !resp.Conn.(*telnet.Session).RemoteEcho() {
		t.Error("RemoteEcho() = false: the WILL ECHO after the unended subnegotiation was lost")
	}
}

// expectBytes reads exactly len(want) bytes from c and compares them.
func expectBytes(t *testing.T, c net.Conn, want string, after string) bool {
	t.Helper()
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	got := make([]byte, len(want))
	if _, err := io.ReadFull(c, got); err != nil {
		t.Errorf("after %s: reading the client's answer %q: %v (got %q)", after, want, err, got)
		return false
	}
	if string(got) != want {
		t.Errorf("after %s: the client sent %q, want %q", after, got, want)
		return false
	}
	return true
}

// The client's answers, byte for byte: what it agrees to, what it
// refuses, what it never repeats (RFC 854's loop rule), the terminal
// type (RFC 1091) and the window size (RFC 1073) with IAC doubled.
func TestNegotiationReplies_FakeServer(t *testing.T) {
	host := fakeServer(t, func(c net.Conn) {
		steps := []struct{ send, want, what string }{
			{will + echo, do + echo, "WILL ECHO"},
			{will + echo + will + sga, do + sga, "WILL ECHO again, WILL SGA"},
			{do + bin, wont + bin, "DO BINARY"},
			{will + bin, dont + bin, "WILL BINARY"},
			{do + ttype, will + ttype, "DO TERMINAL-TYPE"},
			{sb + ttype + "\x01" + se, sb + ttype + "\x00XTERM-256COLOR" + se, "SB TERMINAL-TYPE SEND"},
			{do + naws, will + naws + sb + naws + "\x00\xff\xff\x01\xff\xff" + se, "DO NAWS"},
			{wont + sga, dont + sga, "WONT SGA"},
			{wont + sga + do + "\x05", wont + "\x05", "WONT SGA again, DO STATUS"},
		}
		for _, s := range steps {
			io.WriteString(c, s.send)
			if !expectBytes(t, c, s.want, s.what) {
				return
			}
		}
		io.WriteString(c, "resize now\r\n")
		expectBytes(t, c, sb+naws+"\x00\x64\x00\x1e"+se, "SetWindowSize(100, 30)")
		// The client reads this only after its second SetWindowSize, which
		// must have sent nothing: the next bytes are the answer to it.
		io.WriteString(c, dont+naws)
		expectBytes(t, c, wont+naws, "DONT NAWS")
		finish(c)
	})
	d := &telnet.Driver{Term: "xterm-256color", WindowSize: func() (int, int, bool) { return 255, 511, true }}
	resp := fetchSession(t, newClient(d), "telnet://"+host+"/")
	s := resp.Conn.(*telnet.Session)
	r := bufio.NewReader(resp.Body)
	if line, err := r.ReadString('\n'); line != "resize now\r\n" {
		t.Fatalf("session text %q, %v; want the fake's cue", line, err)
	}
	if err := s.SetWindowSize(100, 30); err != nil {
		t.Errorf("SetWindowSize(100, 30) = %v", err)
	}
	if err := s.SetWindowSize(100, 30); err != nil { // unchanged: nothing sent
		t.Errorf("SetWindowSize(100, 30) again = %v", err)
	}
	if rest, err := io.ReadAll(r); err != nil || len(rest) != 0 {
		t.Errorf("after the cue: %q, %v; want nothing and EOF", rest, err)
	}
	if !s.RemoteEcho() {
		t.Error("RemoteEcho() = false after WILL ECHO")
	}
	if err := s.SetWindowSize(90, 20); err != nil {
		t.Errorf("SetWindowSize after DONT NAWS = %v, want nil (nothing to send)", err)
	}
}

// What Write puts on the wire (RFC 854's NVT): CR LF line ends, CR NUL
// for a lone CR, IAC doubled.
func TestWriteNVT_FakeServer(t *testing.T) {
	got := make(chan []byte, 1)
	host := fakeServer(t, func(c net.Conn) {
		io.WriteString(c, "ready\r\n")
		got <- finish(c)
	})
	resp := fetchSession(t, newClient(&telnet.Driver{}), "telnet://"+host+"/")
	for _, w := range []string{"unix line\n", "dos line\r\n", "return key\r", "\n", "after\r", "x", "\xffbyte\r", "\r\n"} {
		if n, err := resp.Conn.Write([]byte(w)); n != len(w) || err != nil {
			t.Errorf("Write(%q) = %d, %v", w, n, err)
		}
	}
	resp.Body.Close()
	// "\n" right after a lone CR is the same line end; "\r\n" after one
	// is a second.
	want := "unix line\r\ndos line\r\nreturn key\r\x00after\r\x00x\xff\xffbyte\r\x00\r\n"
	if b := <-got; string(b) != want {
		t.Errorf("the server read %q, want %q", b, want)
	}
}

// loginServer is a fake login: prompts, the lines it read, and what it
// says after the password.
type loginServer struct {
	loginPrompt, passwordPrompt string
	afterPassword               string
	lines                       chan string
}

func (s *loginServer) serve(c net.Conn) {
	r := bufio.NewReader(c)
	readLine := func() bool {
		c.SetReadDeadline(time.Now().Add(5 * time.Second))
		line, err := r.ReadString('\n')
		if err != nil {
			return false
		}
		s.lines <- strings.TrimSuffix(line, "\r\n")
		return true
	}
	io.WriteString(c, "Welcome to the fake\r\n"+s.loginPrompt)
	if !readLine() {
		return
	}
	io.WriteString(c, "\r\n"+s.passwordPrompt)
	if !readLine() {
		return
	}
	io.WriteString(c, s.afterPassword)
	close(s.lines)
	c.(*net.TCPConn).CloseWrite()
	io.Copy(io.Discard, r)
}

func TestLogin_FakeServer(t *testing.T) {
	netrc := filepath.Join(t.TempDir(), "netrc")
	os.WriteFile(netrc, []byte("machine 127.0.0.1 login tester password from-netrc\n"), 0o600)
	for _, tc := range []struct {
		name          string
		user          string // user:password@ of the URL
		netrc         bool
		loginPrompt   string
		driver        telnet.Driver
		afterPassword string
		wantLines     []string
		wantText      string
	}{{
		name: "echoed password dropped", user: "tester:s3cret@",
		loginPrompt: "myhost login: ", afterPassword: "s3cret\r\n\r\n$ ",
		wantLines: []string{"tester", "s3cret"},
		wantText:  "Welcome to the fake\r\nmyhost login: \r\nPassword: \r\n\r\n$ ",
	}, {
		name: "output that starts like the password kept", user: "tester:s3cret@",
		loginPrompt: "login: ", afterPassword: "s3c and more\r\n$ ",
		wantLines: []string{"tester", "s3cret"},
		wantText:  "Welcome to the fake\r\nlogin: \r\nPassword: s3c and more\r\n$ ",
	}, {
		name: "output ends inside what could be the echo", user: "tester:s3cret@",
		loginPrompt: "login: ", afterPassword: "s3",
		wantLines: []string{"tester", "s3cret"},
		wantText:  "Welcome to the fake\r\nlogin: \r\nPassword: s3",
	}, {
		name: "password from netrc", user: "tester@", netrc: true,
		loginPrompt: "Username: ", afterPassword: "ok\r\n",
		wantLines: []string{"tester", "from-netrc"},
		wantText:  "Welcome to the fake\r\nUsername: \r\nPassword: ok\r\n",
	}, {
		name: "no password: handed over at the prompt", user: "tester@",
		loginPrompt: "login: ",
		wantLines:   []string{"tester"},
		wantText:    "Welcome to the fake\r\nlogin: \r\nPassword: ",
	}, {
		name: "own prompt patterns", user: "tester:pw@",
		loginPrompt: "Who are you? ", afterPassword: "in\r\n",
		driver:    telnet.Driver{LoginPrompt: regexp.MustCompile(`Who are you\? $`)},
		wantLines: []string{"tester", "pw"},
		wantText:  "Welcome to the fake\r\nWho are you? \r\nPassword: in\r\n",
	}} {
		t.Run(tc.name, func(t *testing.T) {
			srv := &loginServer{loginPrompt: tc.loginPrompt, passwordPrompt: "Password: ", afterPassword: tc.afterPassword, lines: make(chan string, 4)}
			host := fakeServer(t, srv.serve)
			d := tc.driver
			d.Login = true
			c := newClient(&d)
			if tc.netrc {
				c.NetrcFile = netrc
			}
			var trace []string
			c.Trace = func(dir fetch.Direction, line string) { trace = append(trace, string(dir)+" "+line) }
			resp := fetchSession(t, c, "telnet://"+tc.user+host+"/")
			var text []byte
			if len(tc.wantLines) == 2 {
				var err error
				text, err = io.ReadAll(resp.Body)
				if err != nil {
					t.Fatalf("reading the session: %v", err)
				}
			} else {
				// Handed over at the password prompt: the fake waits.
				r := bufio.NewReader(resp.Body)
				for !strings.HasSuffix(string(text), "Password: ") {
					b, err := r.ReadByte()
					if err != nil {
						t.Fatalf("reading the session: %v after %q", err, text)
					}
					text = append(text, b)
				}
			}
			if string(text) != tc.wantText {
				t.Errorf("session text = %q, want %q", text, tc.wantText)
			}
			resp.Body.Close()
			var lines []string
			for range tc.wantLines {
				lines = append(lines, <-srv.lines)
			}
			if strings.Join(lines, "|") != strings.Join(tc.wantLines, "|") {
				t.Errorf("the server read %q, want %q", lines, tc.wantLines)
			}
			for _, l := range trace {
				if len(tc.wantLines) == 2 && strings.Contains(l, tc.wantLines[1]) {
					t.Errorf("trace line %q shows the password", l)
				}
			}
		})
	}
}

// A server that shows no login prompt fails the login at the idle
// timeout, saying which pattern it waited for and what it saw.
func TestLoginNoPrompt_FakeServer(t *testing.T) {
	host := fakeServer(t, func(c net.Conn) {
		io.WriteString(c, "hello, no prompt here\r\nready> ")
		c.SetReadDeadline(time.Now().Add(30 * time.Second))
		io.Copy(io.Discard, c)
	})
	c := newClient(&telnet.Driver{Login: true})
	c.IdleTimeout = 200 * time.Millisecond
	_, err := c.Fetch(context.Background(), "telnet://tester:pw@"+host+"/")
	if !errors.Is(err, fetch.ErrTimeout) || !strings.Contains(err.Error(), "login prompt") || !strings.Contains(err.Error(), "ready>") {
		t.Errorf("Fetch error = %v, want ErrTimeout naming the login prompt and the last line", err)
	}
}

// A decoded CR or LF in the user or password, which the login would send
// as a line, is refused before the client connects.
func TestLoginUnsafeBeforeConnecting(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	host := l.Addr().String()
	c := newClient(&telnet.Driver{Login: true})
	for _, raw := range []string{"telnet://a%0Db:pw@" + host + "/", "telnet://user:p%0D%0Aw@" + host + "/"} {
		_, err := c.Fetch(context.Background(), raw)
		if !errors.Is(err, fetch.ErrUnsafe) {
			t.Errorf("Fetch(%q) error = %v, want ErrUnsafe", uri.MustParse(raw).Redacted(), err)
		}
	}
	l.(*net.TCPListener).SetDeadline(time.Now().Add(100 * time.Millisecond))
	if conn, err := l.Accept(); err == nil {
		conn.Close()
		t.Error("the client connected although the URL was refused")
	}
	// Without Login the user is advisory and never sent: no refusal.
	c = newClient(&telnet.Driver{})
	resp, err := c.Fetch(context.Background(), "telnet://a%0Db@"+host+"/")
	if err != nil {
		t.Fatalf("without Login: Fetch error = %v, want the session", err)
	}
	resp.Body.Close()
}

func TestDefaultPrompts(t *testing.T) {
	login := regexp.MustCompile(telnet.DefaultLoginPrompt)
	password := regexp.MustCompile(telnet.DefaultPasswordPrompt)
	for _, tc := range []struct {
		line            string
		login, password bool
	}{
		{"login: ", true, false},
		{"\rlogin:", true, false},
		{"debian login: ", true, false},
		{"Username: ", true, false},
		{"User Name :", true, false},
		{"user:", true, false},
		{"Password: ", false, true},
		{"password:", false, true},
		{"Password for tester: ", false, true},
		{"Passcode:", false, true},
		{"Last login: Mon Jan  1 00:00:00 from 10.0.0.1", false, false},
		{"urlfetch$ ", false, false},
		{"Welcome, please login", false, false},
		{"blogin: ", false, false},
	} {
		if got := login.MatchString(tc.line); got != tc.login {
			t.Errorf("DefaultLoginPrompt matches %q = %v, want %v", tc.line, got, tc.login)
		}
		if got := password.MatchString(tc.line); got != tc.password {
			t.Errorf("DefaultPasswordPrompt matches %q = %v, want %v", tc.line, got, tc.password)
		}
	}
}

// rlogin and tn3270 URLs name the program that runs them and its
// arguments; the password goes nowhere.
func TestHandoff(t *testing.T) {
	c := &fetch.Client{NetrcFile: "-"}
	d := &telnet.Driver{}
	c.Register("rlogin", d)
	c.Register("tn3270", d)
	for _, tc := range []struct {
		url      string
		programs string
		args     string
	}{
		{"rlogin://host.example/", "rlogin", "host.example"},
		{"rlogin://joe:secret@host.example:1513/", "rlogin", "-l|joe|-p|1513|host.example"},
		{"rlogin://joe@host.example:513", "rlogin", "-l|joe|host.example"},
		{"tn3270://mainframe.example/", "c3270|x3270", "mainframe.example"},
		{"tn3270://op%20one@mainframe.example:2323/", "c3270|x3270", "-user|op one|mainframe.example:2323"},
		{"tn3270://[2001:db8::1]:992/", "c3270|x3270", "[2001:db8::1]:992"},
		// Issue 21, point 5: the program gets a host in Unicode in A-labels.
		{"rlogin://bücher.example/", "rlogin", "xn--bcher-kva.example"},
		{"tn3270://b%C3%BCcher.example:2323/", "c3270|x3270", "xn--bcher-kva.example:2323"},
	} {
		_, err := c.Fetch(context.Background(), tc.url)
		var he *telnet.HandoffError
		if !errors.As(err, &he) || !errors.Is(err, fetch.ErrUnsupported) {
			t.Errorf("Fetch(%q) error = %v, want a *HandoffError wrapping ErrUnsupported", tc.url, err)
			continue
		}
		if got := strings.Join(he.Programs, "|"); got != tc.programs {
			t.Errorf("Fetch(%q): Programs = %q, want %q", tc.url, got, tc.programs)
		}
		if got := strings.Join(he.Args, "|"); got != tc.args {
			t.Errorf("Fetch(%q): Args = %q, want %q", tc.url, got, tc.args)
		}
		if strings.Contains(err.Error(), "secret") || strings.Contains(strings.Join(he.Args, " "), "secret") {
			t.Errorf("Fetch(%q): the password shows in %q", tc.url, err)
		}
	}
	for _, raw := range []string{"rlogin://-oops@host.example/", "rlogin://a%0Ab@host.example/", "tn3270://-e@host.example/"} {
		if _, err := c.Fetch(context.Background(), raw); !errors.Is(err, fetch.ErrUnsafe) {
			t.Errorf("Fetch(%q) error = %v, want ErrUnsafe", raw, err)
		}
	}
}

// Command finds the first installed program; without one, the error
// says what to install.
func TestHandoffCommand_FakeProgram(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("PATH", dir)
	he := &telnet.HandoffError{Scheme: "tn3270", Programs: []string{"c3270", "x3270"}, Args: []string{"host"}}
	_, err := he.Command(context.Background())
	if !errors.Is(err, fetch.ErrUnsupported) || !strings.Contains(err.Error(), "c3270 (Debian: c3270) or x3270") {
		t.Errorf("Command() with none installed: error %v, want ErrUnsupported naming c3270 and x3270", err)
	}
	// A stand-in for x3270, which is not installed here.
	if err := os.WriteFile(filepath.Join(dir, "x3270"), []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	cmd, err := he.Command(context.Background())
	if err != nil || cmd.Path != filepath.Join(dir, "x3270") || strings.Join(cmd.Args[1:], " ") != "host" {
		t.Errorf("Command() = %v, %v; want x3270 host", cmd, err)
	}
}
