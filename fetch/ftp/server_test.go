package ftp

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"path"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/urlfetch/urlfetch/fetch/fetchtest"
)

// fakeServer is a scripted FTP server on 127.0.0.1:0: enough of RFC 959
// for the driver, over a tree of files held in memory. Every control
// connection and every command it gets is recorded.
type fakeServer struct {
	t    testing.TB
	ln   net.Listener
	addr string

	// The tree: absolute paths. A directory exists when listed in dirs
	// or when a file is below it.
	files map[string]string
	dirs  map[string]bool
	// users and their passwords; "anonymous" takes any password.
	users map[string]string
	// home is a user's entry directory ("/" when unset).
	home map[string]string

	greeting   string // "220 ..." unless set
	mlsd       bool   // FEAT offers MLST; MLSD works
	noEPSV     bool   // EPSV gets 500
	noMDTM     bool   // no MDTM in FEAT
	noREST     bool   // REST gets 502
	noPassword map[string]bool
	// rawList, if set, is the LIST output of a directory, as sent.
	rawList map[string]string
	// shortBy cuts this many bytes off every RETR.
	shortBy int
	// The 150 reply to RETR ends with "(N bytes)." unless no150Size; the
	// N it states is off150 more than the bytes sent.
	no150Size bool
	off150    int
	// size, if set, is the SIZE reply's number whatever the file holds.
	size string
	// sizeReply and mdtmReply, if set, are the whole replies to every
	// SIZE and MDTM, whatever the name.
	sizeReply, mdtmReply string
	// passive, if set, is the whole reply to EPSV and PASV; with
	// passiveDies, the session ends after it, as vsftpd's does after
	// "500 OOPS: vsf_sysutil_bind".
	passive     string
	passiveDies bool
	// pwd, if set, is the whole reply to PWD.
	pwd string

	mu    sync.Mutex
	conns int
	cmds  []string   // every command line, as received
	open  []net.Conn // control connections still open
	wg    sync.WaitGroup
}

func newFakeServer(t testing.TB) *fakeServer {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &fakeServer{
		t: t, ln: ln, addr: ln.Addr().String(),
		files: map[string]string{
			"/readme.txt":              "hello, ftp\n",
			"/empty.txt":               "",
			"/etc/motd":                "message of the day\n",
			"/pub/a/b/nested.txt":      "nested\n",
			"/pub/lines.txt":           "one\ntwo\r\nthree\rfour\n",
			"/pub/name with space.txt": "space\n",
			"/pub/semi;colon.txt":      "semicolon\n",
			"/home/joe/welcome.txt":    "welcome, joe\n",
		},
		dirs:       map[string]bool{"/": true, "/emptydir": true},
		users:      map[string]string{"joe": "secret"},
		home:       map[string]string{"joe": "/home/joe"},
		noPassword: map[string]bool{},
		rawList:    map[string]string{},
	}
	s.wg.Add(1)
	go s.serve()
	t.Cleanup(s.close)
	return s
}

// URL returns ftp://host:port followed by rest ("/readme.txt").
func (s *fakeServer) URL(rest string) string { return "ftp://" + s.addr + rest }

// URLAs is URL with a login: "joe:secret@" is userinfo.
func (s *fakeServer) URLAs(userinfo, rest string) string {
	return "ftp://" + userinfo + "@" + s.addr + rest
}

func (s *fakeServer) close() {
	s.ln.Close()
	s.mu.Lock()
	for _, c := range s.open {
		c.Close()
	}
	s.mu.Unlock()
	s.wg.Wait()
}

// set changes the server under its lock.
func (s *fakeServer) set(change func()) {
	s.mu.Lock()
	defer s.mu.Unlock()
	change()
}

// connections returns how many control connections were accepted.
func (s *fakeServer) connections() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.conns
}

// commands returns the command lines received so far, and forgets them.
func (s *fakeServer) commands() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.cmds
	s.cmds = nil
	return c
}

// dropIdle closes every control connection from the server's side, as a
// server does with idle clients: with a 421 reply first, or without.
func (s *fakeServer) dropIdle(say421 bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, c := range s.open {
		if say421 {
			fmt.Fprintf(c, "421 Timeout.\r\n")
		}
		c.Close()
	}
	s.open = nil
}

func (s *fakeServer) serve() {
	defer s.wg.Done()
	for {
		c, err := s.ln.Accept()
		if err != nil {
			return
		}
		s.mu.Lock()
		s.conns++
		s.open = append(s.open, c)
		s.mu.Unlock()
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			defer c.Close()
			(&fakeSession{s: s, c: c, cwd: "/", typ: "A"}).run()
		}()
	}
}

// fakeSession is one control connection of the fake server.
type fakeSession struct {
	s      *fakeServer
	c      net.Conn
	w      *bufio.Writer
	user   string
	logged bool
	cwd    string
	typ    string
	rest   int64
	pasv   net.Listener
}

func (f *fakeSession) reply(format string, args ...any) {
	fmt.Fprintf(f.w, format+"\r\n", args...)
	f.w.Flush()
}

func (f *fakeSession) run() {
	f.w = bufio.NewWriter(f.c)
	defer func() {
		if f.pasv != nil {
			f.pasv.Close()
		}
	}()
	f.s.mu.Lock()
	g := f.s.greeting
	f.s.mu.Unlock()
	if g == "" {
		g = "220 fake FTP server ready"
	}
	f.reply("%s", g)
	if !strings.HasPrefix(g, "220") {
		return
	}
	r := bufio.NewReader(f.c)
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return
		}
		line = strings.TrimRight(line, "\r\n")
		f.s.mu.Lock()
		f.s.cmds = append(f.s.cmds, line)
		f.s.mu.Unlock()
		cmd, arg, _ := strings.Cut(line, " ")
		if !f.command(strings.ToUpper(cmd), arg) {
			return
		}
	}
}

// abs resolves a path argument against the working directory.
func (f *fakeSession) abs(p string) string {
	if strings.HasPrefix(p, "/") {
		return path.Clean(p)
	}
	return path.Join(f.cwd, p)
}

func (s *fakeServer) isDir(p string) bool {
	if s.dirs[p] {
		return true
	}
	prefix := strings.TrimSuffix(p, "/") + "/"
	for name := range s.files {
		if strings.HasPrefix(name, prefix) {
			return true
		}
	}
	for name := range s.dirs {
		if strings.HasPrefix(name, prefix) {
			return true
		}
	}
	return false
}

// children returns the names directly in directory p, sorted, with a
// "/" after each directory.
func (s *fakeServer) children(p string) []string {
	prefix := strings.TrimSuffix(p, "/") + "/"
	seen := map[string]bool{}
	add := func(name string) {
		if !strings.HasPrefix(name, prefix) || name == prefix {
			return
		}
		rest := name[len(prefix):]
		if i := strings.IndexByte(rest, '/'); i >= 0 {
			seen[rest[:i]+"/"] = true
		} else if s.isDir(name) {
			seen[rest+"/"] = true
		} else {
			seen[rest] = true
		}
	}
	for name := range s.files {
		add(name)
	}
	for name := range s.dirs {
		add(name)
	}
	var out []string
	for n := range seen {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// command answers one command. It holds the server's lock, but for the
// wait of a transfer, so that tests may change the server between
// commands.
func (f *fakeSession) command(cmd, arg string) bool {
	s := f.s
	s.mu.Lock()
	defer s.mu.Unlock()
	if !f.logged {
		switch cmd {
		case "USER", "PASS", "QUIT", "FEAT":
		default:
			f.reply("530 Please login with USER and PASS.")
			return true
		}
	}
	switch cmd {
	case "USER":
		f.user = arg
		if s.noPassword[arg] {
			f.logged = true
			f.cwd = f.homeDir()
			f.reply("230 Login successful.")
			return true
		}
		f.reply("331 Please specify the password.")
	case "PASS":
		if f.user == "" {
			f.reply("503 Login with USER first.")
			return true
		}
		want, ok := s.users[f.user]
		if f.user != "anonymous" && (!ok || want != arg) {
			f.reply("530 Login incorrect.")
			return true
		}
		f.logged = true
		f.cwd = f.homeDir()
		f.reply("230 Login successful.")
	case "FEAT":
		f.reply("211-Features:")
		fmt.Fprintf(f.w, " EPSV\r\n PASV\r\n REST STREAM\r\n SIZE\r\n")
		if !s.noMDTM {
			fmt.Fprintf(f.w, " MDTM\r\n")
		}
		if s.mlsd {
			fmt.Fprintf(f.w, " MLST type*;size*;modify*;\r\n")
		}
		f.reply("211 End")
	case "TYPE":
		f.typ = strings.ToUpper(arg)
		f.reply("200 Switching to %s mode.", map[string]string{"A": "ASCII", "I": "Binary"}[f.typ])
	case "OPTS":
		f.reply("200 OK")
	case "PWD":
		if s.pwd != "" {
			f.reply("%s", s.pwd)
			return true
		}
		f.reply(`257 "%s" is the current directory`, f.cwd)
	case "CWD":
		p := f.abs(arg)
		if arg == "" || !s.isDir(p) {
			f.reply("550 Failed to change directory.")
			return true
		}
		f.cwd = p
		f.reply("250 Directory successfully changed.")
	case "SIZE":
		if s.sizeReply != "" {
			f.reply("%s", s.sizeReply)
			return true
		}
		body, ok := s.files[f.abs(arg)]
		if !ok {
			f.reply("550 Could not get file size.")
			return true
		}
		if s.size != "" {
			f.reply("213 %s", s.size)
			return true
		}
		f.reply("213 %d", len(body))
	case "MDTM":
		if s.mdtmReply != "" {
			f.reply("%s", s.mdtmReply)
			return true
		}
		if _, ok := s.files[f.abs(arg)]; s.noMDTM || !ok {
			f.reply("550 Could not get file modification time.")
			return true
		}
		f.reply("213 20240102030405")
	case "EPSV", "PASV":
		if cmd == "EPSV" && s.noEPSV {
			f.reply("500 Unknown command.")
			return true
		}
		if s.passive != "" {
			f.reply("%s", s.passive)
			return !s.passiveDies
		}
		if f.pasv != nil {
			f.pasv.Close()
		}
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			f.reply("425 Cannot listen.")
			return true
		}
		f.pasv = ln
		port := ln.Addr().(*net.TCPAddr).Port
		if cmd == "EPSV" {
			f.reply("229 Entering Extended Passive Mode (|||%d|)", port)
		} else {
			// Another address than the control connection's (nothing
			// listens there): the client must use the control
			// connection's peer.
			f.reply("227 Entering Passive Mode (127,0,0,2,%d,%d).", port>>8, port&255)
		}
	case "REST":
		if s.noREST {
			f.reply("502 REST not implemented.")
			return true
		}
		n, err := strconv.ParseInt(arg, 10, 64)
		if err != nil {
			f.reply("501 Bad REST.")
			return true
		}
		f.rest = n
		f.reply("350 Restart position accepted (%d).", n)
	case "RETR":
		body, ok := s.files[f.abs(arg)]
		if !ok {
			f.closePasv()
			f.reply("550 Failed to open file.")
			return true
		}
		if f.typ == "A" {
			// NVT-ASCII: every line ends with CRLF.
			body = strings.ReplaceAll(strings.ReplaceAll(body, "\r\n", "\n"), "\n", "\r\n")
		}
		if f.rest > 0 && f.rest <= int64(len(body)) {
			body = body[f.rest:]
		}
		f.rest = 0
		if s.shortBy > 0 && len(body) >= s.shortBy {
			body = body[:len(body)-s.shortBy]
		}
		opening := fmt.Sprintf("150 Opening data connection for %s (%d bytes).", arg, len(body)+s.off150)
		if s.no150Size {
			opening = "150 Opening data connection for " + arg + "."
		}
		f.transfer(opening, body, "226 Transfer complete.")
	case "LIST", "MLSD", "NLST":
		f.list(cmd, arg)
	case "NOOP":
		f.reply("200 NOOP ok.")
	case "QUIT":
		f.reply("221 Goodbye.")
		return false
	default:
		f.reply("502 Command not implemented.")
	}
	return true
}

func (f *fakeSession) homeDir() string {
	if h, ok := f.s.home[f.user]; ok {
		return h
	}
	return "/"
}

func (f *fakeSession) closePasv() {
	if f.pasv != nil {
		f.pasv.Close()
		f.pasv = nil
	}
}

// transfer sends body over the passive data connection between the
// preliminary and final replies.
func (f *fakeSession) transfer(first, body, last string) {
	if f.pasv == nil {
		f.reply("425 Use PASV or EPSV first.")
		return
	}
	ln := f.pasv
	f.pasv = nil
	defer ln.Close()
	f.s.mu.Unlock()
	defer f.s.mu.Lock()
	ln.(*net.TCPListener).SetDeadline(time.Now().Add(5 * time.Second))
	dc, err := ln.Accept()
	if err != nil {
		f.reply("425 Failed to establish connection.")
		return
	}
	f.reply("%s", first)
	_, err = io.WriteString(dc, body)
	dc.Close()
	if err != nil {
		f.reply("426 Failure writing network stream.")
		return
	}
	f.reply("%s", last)
}

func (f *fakeSession) list(cmd, arg string) {
	s := f.s
	dir := f.cwd
	if arg != "" {
		dir = f.abs(arg)
	}
	if cmd == "MLSD" && !s.mlsd {
		f.closePasv()
		f.reply("500 Unknown command.")
		return
	}
	if !s.isDir(dir) {
		if cmd == "NLST" {
			if _, ok := s.files[dir]; ok {
				f.transfer("150 Here comes the directory listing.", arg+"\r\n", "226 Directory send OK.")
				return
			}
		}
		f.closePasv()
		f.reply("550 Failed to open directory.")
		return
	}
	var b strings.Builder
	if raw, ok := s.rawList[dir]; ok && cmd == "LIST" {
		b.WriteString(raw)
	} else {
		for _, name := range f.s.children(dir) {
			isDir := strings.HasSuffix(name, "/")
			name = strings.TrimSuffix(name, "/")
			size := len(s.files[path.Join(dir, name)])
			switch {
			case cmd == "NLST" && arg != "":
				fmt.Fprintf(&b, "%s/%s\r\n", arg, name)
			case cmd == "NLST":
				fmt.Fprintf(&b, "%s\r\n", name)
			case cmd == "MLSD" && isDir:
				fmt.Fprintf(&b, "type=dir;modify=20240102030405; %s\r\n", name)
			case cmd == "MLSD":
				fmt.Fprintf(&b, "type=file;size=%d;modify=20240102030405; %s\r\n", size, name)
			case isDir:
				fmt.Fprintf(&b, "drwxr-xr-x    2 0        0            4096 Jan 02  2024 %s\r\n", name)
			default:
				fmt.Fprintf(&b, "-rw-r--r--    1 0        0        %8d Jan 02  2024 %s\r\n", size, name)
			}
		}
	}
	f.transfer("150 Here comes the directory listing.", b.String(), "226 Directory send OK.")
}

// stallServer accepts connections and never answers: a server that hangs
// before its greeting. It returns the URL of a file on it.
func stallServer(t testing.TB) string {
	return "ftp://" + fetchtest.SilentServer(t) + "/stalled.txt"
}
