// Package misbehaving runs servers that break their protocols on purpose,
// on 127.0.0.1, for the tests that prove every driver ends a fetch from
// such a server with a clear error, in bounded time and memory (issue
// 12). A Server speaks just enough of its protocol to reach the point of
// misbehaviour (HTTP; FTP control and data connections; Gopher and
// Gopher+; NNTP; SMTP; Telnet; WAIS and Z39.50) and then does one
// Behaviour: it stalls before or during a reply, sends an endless line or
// an endless listing, a reply larger than any sane limit, garbage instead
// of a reply, a length that does not match what it sends, or closes in
// the middle of a transfer.
//
// Cases is the table of every protocol and behaviour, and says why a
// behaviour does not apply where it does not. Like net/http/httptest,
// the package imports nothing of the client it serves: it knows the wire,
// addresses and URLs. What a client must make of each case, and how it is
// set up to reach the server, are the business of the tests that use it;
// the kinds of error fetch's tests want are in internal/misbehaving/want.
// These are fakes, and meant as such: nothing here is a server to use.
package misbehaving

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// Protocol is what a Server speaks.
type Protocol int

const (
	HTTP       Protocol = iota + 1
	FTP                 // control and data connections
	Gopher              // RFC 1436
	GopherPlus          // the Gopher+ replies: +N headers, attribute blocks
	NNTP
	SMTP // for mailto: URLs
	Telnet
	WAIS  // the 1988 dialect
	Z3950 // Z39.50-1995 in BER, the other dialect of wais: URLs
	File  // no server: in the table for completeness
)

var protocolNames = map[Protocol]string{
	HTTP: "http", FTP: "ftp", Gopher: "gopher", GopherPlus: "gopher+", NNTP: "nntp",
	SMTP: "smtp", Telnet: "telnet", WAIS: "wais", Z3950: "z3950", File: "file",
}

func (p Protocol) String() string {
	if s, ok := protocolNames[p]; ok {
		return s
	}
	return "Protocol(" + strconv.Itoa(int(p)) + ")"
}

// Behaviour is the way a Server breaks its protocol.
type Behaviour int

const (
	// StallBefore: the server accepts the connection (and reads the
	// request) but never answers.
	StallBefore Behaviour = iota + 1
	// StallDuring: the server sends part of a reply, then nothing more,
	// the connection left open.
	StallDuring
	// EndlessLine: a line that never ends: a greeting, a status line, a
	// menu line (for BER, an element of indefinite length that never
	// ends).
	EndlessLine
	// EndlessListing: a listing of well-formed lines that never ends.
	EndlessListing
	// Huge: a reply of well-formed parts larger than any sane limit: a
	// header block, a multi-line reply, an attribute block, a declared
	// message length of gigabytes.
	Huge
	// Garbage: bytes that are not a reply of the protocol at all (another
	// protocol's banner, an HTTP error page).
	Garbage
	// WrongLength: the server declares one length and sends another:
	// Content-Length, FTP SIZE, Gopher+ "+N", a WAIS document length, a
	// BER length.
	WrongLength
	// CloseMidTransfer: the server closes the connection in the middle
	// of a reply whose end it has not sent.
	CloseMidTransfer
)

var behaviourNames = [...]string{"", "StallBefore", "StallDuring", "EndlessLine", "EndlessListing", "Huge", "Garbage", "WrongLength", "CloseMidTransfer"}

func (b Behaviour) String() string {
	if b > 0 && int(b) < len(behaviourNames) {
		return behaviourNames[b]
	}
	return "Behaviour(" + strconv.Itoa(int(b)) + ")"
}

// behaviours lists every Behaviour, in order.
var behaviours = []Behaviour{StallBefore, StallDuring, EndlessLine, EndlessListing, Huge, Garbage, WrongLength, CloseMidTransfer}

// Case is one cell of the protocol × behaviour table.
type Case struct {
	Protocol  Protocol
	Behaviour Behaviour
	// Variant tells apart the cases of one cell where a protocol has more
	// than one place to misbehave ("active" and "group" for the two NNTP
	// listings, "short" and "long" for an FTP transfer that does not match
	// its SIZE); "" for most.
	Variant string
	// NA, when not "", says why the behaviour does not apply to the
	// protocol; no Server serves the case.
	NA string
	// Gap, when not "", names a known failure not fixed yet: the server
	// serves the case, and the tests skip it with this text.
	Gap string
}

// Name is "protocol/Behaviour", with "/variant" when there is one.
func (c Case) Name() string {
	n := c.Protocol.String() + "/" + c.Behaviour.String()
	if c.Variant != "" {
		n += "/" + c.Variant
	}
	return n
}

// Stall reports whether the case waits on a silent server: its fetch
// ends when the idle timeout expires.
func (c Case) Stall() bool {
	return c.Behaviour == StallBefore || c.Behaviour == StallDuring
}

// Why a behaviour does not apply to a protocol.
const (
	naNoListing     = "the protocol has no listing"
	naNoLength      = "nothing in the protocol declares a length the client could check"
	naLengthPrefix  = "every message is length-prefixed: there are no lines, and a reply cannot be endless without declaring a length (that is Huge)"
	naGopherEnd     = "RFC 1436 ends text and binary replies with the close itself (servers that send no \".\" line are common and accepted): a close cannot be told from the end; Gopher+ \"+-1\" replies can, in the gopher+ row"
	naGopherGarbage = "Gopher has no reply code: a menu line that does not parse is an entry error by contract and the listing goes on; Gopher+ garbage is in the gopher+ row"
	naGopherHuge    = "a plain Gopher reply has no bounded unit but its menu (EndlessLine, EndlessListing); Gopher+ attribute replies are the Huge case, in the gopher+ row"
	naPlusListing   = "a Gopher+ menu is read by the same menu reader as a Gopher menu: the gopher row's EndlessListing covers it"
	naFile          = "file: reads the local file system, not a server; a stalled FIFO is cmd/fetch's TestTimeoutMidTransferLeavesNoFile"
	naTelnetClose   = "a server that closes before its login prompt (\"too many users\") is not an error by the driver's contract: the session with what the server said is returned, and reading it ends with io.EOF"
	naZListing      = "the driver presents at most MaxHits records (40) whatever count the server claims, one Present of at most 10 at a time, each reply bounded by MaxMessageSize: a listing cannot be endless"
)

// Cases returns the protocol × behaviour table, one Case per cell (two
// for the cells where a protocol has two places to misbehave).
func Cases() []Case {
	return []Case{
		{Protocol: HTTP, Behaviour: StallBefore},
		{Protocol: HTTP, Behaviour: StallDuring},
		{Protocol: HTTP, Behaviour: EndlessLine},
		{Protocol: HTTP, Behaviour: EndlessListing, NA: naNoListing + ": a server's index page is a document"},
		{Protocol: HTTP, Behaviour: Huge},
		{Protocol: HTTP, Behaviour: Garbage},
		{Protocol: HTTP, Behaviour: WrongLength},
		{Protocol: HTTP, Behaviour: CloseMidTransfer},

		{Protocol: FTP, Behaviour: StallBefore},
		{Protocol: FTP, Behaviour: StallDuring},
		{Protocol: FTP, Behaviour: EndlessLine},
		{Protocol: FTP, Behaviour: EndlessListing},
		{Protocol: FTP, Behaviour: Huge},
		// Preliminary (1xx) replies to a command, one after another,
		// and never the final one.
		{Protocol: FTP, Behaviour: Huge, Variant: "preliminary"},
		{Protocol: FTP, Behaviour: Garbage},
		// Fewer bytes come than SIZE said ("short"), or more ("long").
		{Protocol: FTP, Behaviour: WrongLength, Variant: "short"},
		{Protocol: FTP, Behaviour: WrongLength, Variant: "long"},
		{Protocol: FTP, Behaviour: CloseMidTransfer},

		{Protocol: Gopher, Behaviour: StallBefore},
		{Protocol: Gopher, Behaviour: StallDuring},
		{Protocol: Gopher, Behaviour: EndlessLine},
		{Protocol: Gopher, Behaviour: EndlessListing},
		{Protocol: Gopher, Behaviour: Huge, NA: naGopherHuge},
		{Protocol: Gopher, Behaviour: Garbage, NA: naGopherGarbage},
		{Protocol: Gopher, Behaviour: WrongLength, NA: naNoLength + " (RFC 1436); Gopher+ \"+N\" is in the gopher+ row"},
		{Protocol: Gopher, Behaviour: CloseMidTransfer, NA: naGopherEnd},

		{Protocol: GopherPlus, Behaviour: StallBefore},
		{Protocol: GopherPlus, Behaviour: StallDuring},
		{Protocol: GopherPlus, Behaviour: EndlessLine},
		{Protocol: GopherPlus, Behaviour: EndlessListing, NA: naPlusListing},
		{Protocol: GopherPlus, Behaviour: Huge},
		{Protocol: GopherPlus, Behaviour: Garbage},
		{Protocol: GopherPlus, Behaviour: WrongLength},
		{Protocol: GopherPlus, Behaviour: CloseMidTransfer},

		{Protocol: NNTP, Behaviour: StallBefore},
		{Protocol: NNTP, Behaviour: StallDuring},
		{Protocol: NNTP, Behaviour: EndlessLine},
		{Protocol: NNTP, Behaviour: EndlessListing, Variant: "active"},
		{Protocol: NNTP, Behaviour: EndlessListing, Variant: "group"},
		{Protocol: NNTP, Behaviour: Huge},
		{Protocol: NNTP, Behaviour: Garbage},
		{Protocol: NNTP, Behaviour: WrongLength, NA: naNoLength + ": every block ends at its dot line"},
		{Protocol: NNTP, Behaviour: CloseMidTransfer},

		{Protocol: SMTP, Behaviour: StallBefore},
		{Protocol: SMTP, Behaviour: StallDuring},
		{Protocol: SMTP, Behaviour: EndlessLine},
		{Protocol: SMTP, Behaviour: EndlessListing, NA: naNoListing + ": a mailto: URL sends a message"},
		{Protocol: SMTP, Behaviour: Huge},
		{Protocol: SMTP, Behaviour: Garbage},
		{Protocol: SMTP, Behaviour: WrongLength, NA: naNoLength + ": the message ends with the dot line the client sends"},
		{Protocol: SMTP, Behaviour: CloseMidTransfer},

		{Protocol: Telnet, Behaviour: StallBefore},
		{Protocol: Telnet, Behaviour: StallDuring},
		{Protocol: Telnet, Behaviour: EndlessLine},
		{Protocol: Telnet, Behaviour: EndlessListing, NA: naNoListing + ": a session"},
		{Protocol: Telnet, Behaviour: Huge},
		{Protocol: Telnet, Behaviour: Garbage},
		{Protocol: Telnet, Behaviour: WrongLength, NA: naNoLength + " (RFC 854)"},
		{Protocol: Telnet, Behaviour: CloseMidTransfer, NA: naTelnetClose},

		{Protocol: WAIS, Behaviour: StallBefore},
		{Protocol: WAIS, Behaviour: StallDuring},
		{Protocol: WAIS, Behaviour: EndlessLine, NA: naLengthPrefix},
		{Protocol: WAIS, Behaviour: EndlessListing, NA: "a search result is one length-prefixed message, bounded by MaxMessageSize: Huge covers it"},
		{Protocol: WAIS, Behaviour: Huge},
		{Protocol: WAIS, Behaviour: Garbage},
		{Protocol: WAIS, Behaviour: WrongLength},
		{Protocol: WAIS, Behaviour: CloseMidTransfer},

		{Protocol: Z3950, Behaviour: StallBefore},
		{Protocol: Z3950, Behaviour: StallDuring},
		{Protocol: Z3950, Behaviour: EndlessLine},
		{Protocol: Z3950, Behaviour: EndlessListing, NA: naZListing},
		{Protocol: Z3950, Behaviour: Huge},
		{Protocol: Z3950, Behaviour: Garbage},
		{Protocol: Z3950, Behaviour: WrongLength},
		{Protocol: Z3950, Behaviour: CloseMidTransfer},

		{Protocol: File, Behaviour: StallBefore, NA: naFile},
		{Protocol: File, Behaviour: StallDuring, NA: naFile},
		{Protocol: File, Behaviour: EndlessLine, NA: naFile},
		{Protocol: File, Behaviour: EndlessListing, NA: naFile},
		{Protocol: File, Behaviour: Huge, NA: naFile},
		{Protocol: File, Behaviour: Garbage, NA: naFile},
		{Protocol: File, Behaviour: WrongLength, NA: naFile},
		{Protocol: File, Behaviour: CloseMidTransfer, NA: naFile},
	}
}

// A Server is a misbehaving server on 127.0.0.1: it serves every
// connection it accepts as its Case says, until Close.
type Server struct {
	Case Case

	ln    net.Listener
	serve func(c *conn) error
	sent  atomic.Int64
	wg    sync.WaitGroup

	mu     sync.Mutex
	closed bool
	conns  map[io.Closer]bool
	err    error // the first error of a connection's script
}

// Start starts the server of c on 127.0.0.1:0.
func Start(c Case) (*Server, error) {
	if c.NA != "" {
		return nil, fmt.Errorf("misbehaving: %s does not apply: %s", c.Name(), c.NA)
	}
	s := &Server{Case: c, conns: make(map[io.Closer]bool)}
	switch c.Protocol {
	case HTTP:
		s.serve = s.serveHTTP
	case FTP:
		s.serve = s.serveFTP
	case Gopher, GopherPlus:
		s.serve = s.serveGopher
	case NNTP:
		s.serve = s.serveNNTP
	case SMTP:
		s.serve = s.serveSMTP
	case Telnet:
		s.serve = s.serveTelnet
	case WAIS:
		s.serve = s.serveWAIS
	case Z3950:
		s.serve = s.serveZ3950
	default:
		return nil, fmt.Errorf("misbehaving: no server for %s", c.Name())
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	s.ln = ln
	s.wg.Add(1)
	go s.accept()
	return s, nil
}

// Serve starts the server that speaks p and does b, for the test t: t
// fails if it cannot start, and the server closes when t ends.
func Serve(t testing.TB, p Protocol, b Behaviour) *Server {
	t.Helper()
	s, err := Start(Case{Protocol: p, Behaviour: b})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// Addr is the server's host:port.
func (s *Server) Addr() string { return s.ln.Addr().String() }

// URL is the URL whose fetch meets the misbehaviour. A mailto: URL names
// no server: the client must send it to Addr. A telnet: URL carries a
// user and password, and the server misbehaves before the login prompt
// that a client logging in waits for. The wais: URLs of the WAIS and
// Z3950 servers look alike: the client must know which protocol it
// speaks.
func (s *Server) URL() string {
	a := s.Addr()
	switch s.Case.Protocol {
	case HTTP:
		return "http://" + a + "/doc.txt"
	case FTP:
		if s.Case.Behaviour == EndlessListing {
			return "ftp://" + a + "/pub/"
		}
		return "ftp://" + a + "/pub/file.bin"
	case Gopher:
		if s.Case.Behaviour == StallDuring {
			return "gopher://" + a + "/0/doc.txt"
		}
		return "gopher://" + a + "/1/menu"
	case GopherPlus:
		switch s.Case.Behaviour {
		case EndlessLine, Huge, Garbage:
			return "gopher://" + a + "/0/doc.txt%09%09!" // its attributes
		case CloseMidTransfer:
			return "gopher://" + a + "/0/doc.txt%09%09+"
		}
		return "gopher://" + a + "/9/file.bin%09%09+"
	case NNTP:
		switch {
		case s.Case.Variant == "active":
			return "nntp://" + a + "/" // the server's groups: LIST ACTIVE
		case s.Case.Variant == "group":
			return "nntp://" + a + "/misc.test" // GROUP and OVER
		}
		return "nntp://" + a + "/misc.test/1"
	case SMTP:
		return "mailto:ann@example.org?subject=misbehaving&body=hello"
	case Telnet:
		return "telnet://ann:secret@" + a + "/"
	case WAIS:
		if s.Case.Behaviour == WrongLength {
			// A document whose URL gives its length: 5000 bytes.
			return "wais://" + a + "/db/TEXT/5000/2=db;3=0%205000%20/doc.txt;"
		}
		return "wais://" + a + "/db?flamingo"
	case Z3950:
		return "wais://" + a + "/db?flamingo"
	}
	return ""
}

// Sent is how many bytes the server has written, on every connection.
func (s *Server) Sent() int64 { return s.sent.Load() }

// Err returns the first error a connection's script met before the
// client went away: a server that could not even reach its misbehaviour
// makes a test prove nothing.
func (s *Server) Err() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.err
}

// Close stops the server: it closes the listener and every connection,
// and waits for their goroutines to end.
func (s *Server) Close() error {
	s.mu.Lock()
	s.closed = true
	for c := range s.conns {
		c.Close()
	}
	s.mu.Unlock()
	err := s.ln.Close()
	s.wg.Wait()
	return err
}

func (s *Server) accept() {
	defer s.wg.Done()
	for {
		nc, err := s.ln.Accept()
		if err != nil {
			return
		}
		c := s.newConn(nc)
		if c == nil {
			return
		}
		s.wg.Add(1)
		go func() {
			defer s.wg.Done()
			defer s.forget(nc)
			err := s.serve(c)
			nc.Close()
			s.fail(err)
		}()
	}
}

// track registers a connection or listener for Close; false once the
// server is closed (the caller then closes it).
func (s *Server) track(c io.Closer) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return false
	}
	s.conns[c] = true
	return true
}

func (s *Server) forget(c io.Closer) {
	s.mu.Lock()
	delete(s.conns, c)
	s.mu.Unlock()
}

func (s *Server) newConn(nc net.Conn) *conn {
	if !s.track(nc) {
		nc.Close()
		return nil
	}
	return &conn{Conn: nc, br: bufio.NewReader(nc), s: s}
}

// fail records a script's error, unless it only says the client went
// away, which is what a client that gives up on a misbehaving server
// does at any point.
func (s *Server) fail(err error) {
	if err == nil || gone(err) {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.err == nil && !s.closed {
		s.err = fmt.Errorf("misbehaving %s: %w", s.Case.Name(), err)
	}
}

// gone reports whether err says the peer closed the connection or the
// server was closed.
func gone(err error) bool {
	return errors.Is(err, io.EOF) || errors.Is(err, net.ErrClosed) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE)
}

// conn is one connection of a Server.
type conn struct {
	net.Conn
	br *bufio.Reader
	s  *Server
}

// maxRequestLine bounds a line the servers read from a client.
const maxRequestLine = 64 << 10

// readLine reads one line from the client, without its CR LF.
func (c *conn) readLine() (string, error) {
	var b []byte
	for {
		frag, err := c.br.ReadSlice('\n')
		b = append(b, frag...)
		if len(b) > maxRequestLine {
			return "", fmt.Errorf("a request line longer than %d bytes", maxRequestLine)
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if err != nil {
			return "", err
		}
		return strings.TrimRight(string(b), "\r\n"), nil
	}
}

func (c *conn) Write(p []byte) (int, error) {
	n, err := c.Conn.Write(p)
	c.s.sent.Add(int64(n))
	return n, err
}

func (c *conn) print(s string) error {
	_, err := io.WriteString(c, s)
	return err
}

func (c *conn) printf(format string, args ...any) error {
	_, err := fmt.Fprintf(c, format, args...)
	return err
}

// stall sends nothing more and waits, reading and dropping what the
// client sends, until the client closes the connection or the server is
// closed.
// greet sends a line protocol's greeting, or misbehaves in its place: b
// StallBefore says nothing, EndlessLine sends start and never ends the
// line, Garbage sends another protocol's banner and stalls. done says the
// connection's script has ended, with err.
func (c *conn) greet(b Behaviour, start, greeting string) (done bool, err error) {
	switch b {
	case StallBefore:
		return true, c.stall()
	case EndlessLine:
		if err := c.print(start); err != nil {
			return true, err
		}
		return true, c.endless(endlessByte('a'))
	case Garbage:
		if err := c.print(sshBanner); err != nil {
			return true, err
		}
		return true, c.stall()
	}
	if err := c.print(greeting); err != nil {
		return true, err
	}
	return false, nil
}

func (c *conn) stall() error {
	_, err := io.Copy(io.Discard, c.br)
	return err
}

// chunkSize is about how many bytes endless writes at a time.
const chunkSize = 64 << 10

// endless writes unit(b, 0), unit(b, 1), ... for as long as the client
// reads: the bytes of a line or a listing that never ends. Each call
// appends one unit to b and returns it.
func (c *conn) endless(unit func(b []byte, i int) []byte) error {
	buf := make([]byte, 0, 2*chunkSize)
	for i := 0; ; {
		buf = buf[:0]
		for len(buf) < chunkSize {
			buf = unit(buf, i)
			i++
		}
		if _, err := c.Write(buf); err != nil {
			return err
		}
	}
}

// endlessByte is the unit of an endless line: one byte again and again.
func endlessByte(ch byte) func(b []byte, i int) []byte {
	return func(b []byte, _ int) []byte {
		for range 1024 {
			b = append(b, ch)
		}
		return b
	}
}

// garbage is what a server of another protocol says first: the reply of
// an HTTP server that was sent something it does not understand. It is
// longer than any fixed-size header a client might read first.
const garbage = "HTTP/1.1 400 Bad Request\r\nServer: nginx\r\nContent-Type: text/html\r\nContent-Length: 157\r\nConnection: close\r\n\r\n" +
	"<html>\r\n<head><title>400 Bad Request</title></head>\r\n<body>\r\n<center><h1>400 Bad Request</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n"

// sshBanner is another protocol's greeting, for the line protocols whose
// client expects a reply code.
const sshBanner = "SSH-2.0-OpenSSH_9.6p1 Debian-3\r\n"

// acceptData accepts the one connection a data listener is for, within
// a deadline, and tracks it for Close.
func (s *Server) acceptData(ln net.Listener) (*conn, error) {
	if !s.track(ln) {
		ln.Close()
		return nil, net.ErrClosed
	}
	defer s.forget(ln)
	defer ln.Close()
	if tl, ok := ln.(*net.TCPListener); ok {
		tl.SetDeadline(time.Now().Add(10 * time.Second))
	}
	nc, err := ln.Accept()
	if err != nil {
		return nil, fmt.Errorf("no data connection: %w", err)
	}
	c := s.newConn(nc)
	if c == nil {
		return nil, net.ErrClosed
	}
	return c, nil
}
