package telnet

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/urlfetch/urlfetch/fetch"
)

// command is a Telnet command, the byte after IAC (RFC 854).
type command byte

const (
	cmdEOR  command = 239 // end of record (RFC 885)
	cmdSE   command = 240 // end of subnegotiation
	cmdNOP  command = 241
	cmdDM   command = 242 // Data Mark, the data stream part of a Synch
	cmdBRK  command = 243
	cmdIP   command = 244 // interrupt process
	cmdAO   command = 245 // abort output
	cmdAYT  command = 246 // are you there
	cmdEC   command = 247 // erase character
	cmdEL   command = 248 // erase line
	cmdGA   command = 249 // go ahead
	cmdSB   command = 250 // subnegotiation
	cmdWILL command = 251
	cmdWONT command = 252
	cmdDO   command = 253
	cmdDONT command = 254
	cmdIAC  command = 255 // interpret as command
)

var commandNames = map[command]string{
	cmdEOR: "EOR", cmdSE: "SE", cmdNOP: "NOP", cmdDM: "DM", cmdBRK: "BRK", cmdIP: "IP",
	cmdAO: "AO", cmdAYT: "AYT", cmdEC: "EC", cmdEL: "EL", cmdGA: "GA", cmdSB: "SB",
	cmdWILL: "WILL", cmdWONT: "WONT", cmdDO: "DO", cmdDONT: "DONT", cmdIAC: "IAC",
}

func (c command) String() string {
	if s, ok := commandNames[c]; ok {
		return s
	}
	return fmt.Sprintf("command %d", byte(c))
}

// option is a Telnet option code (RFC 855 and the RFCs of each option).
type option byte

const (
	optBinary      option = 0  // RFC 856
	optEcho        option = 1  // RFC 857
	optSGA         option = 3  // suppress go ahead, RFC 858
	optStatus      option = 5  // RFC 859
	optTimingMark  option = 6  // RFC 860
	optTerminal    option = 24 // terminal type, RFC 1091
	optNAWS        option = 31 // window size, RFC 1073
	optSpeed       option = 32 // terminal speed, RFC 1079
	optFlow        option = 33 // remote flow control, RFC 1372
	optLinemode    option = 34 // RFC 1184
	optXDisplay    option = 35 // RFC 1096
	optOldEnviron  option = 36 // RFC 1408
	optAuth        option = 37 // RFC 2941
	optEncrypt     option = 38 // RFC 2946
	optNewEnviron  option = 39 // RFC 1572
	optEndOfRecord option = 25 // RFC 885
)

var optionNames = map[option]string{
	optBinary: "BINARY", optEcho: "ECHO", optSGA: "SUPPRESS-GO-AHEAD", optStatus: "STATUS",
	optTimingMark: "TIMING-MARK", optTerminal: "TERMINAL-TYPE", optNAWS: "NAWS",
	optSpeed: "TERMINAL-SPEED", optFlow: "TOGGLE-FLOW-CONTROL", optLinemode: "LINEMODE",
	optXDisplay: "X-DISPLAY-LOCATION", optOldEnviron: "OLD-ENVIRON", optAuth: "AUTHENTICATION",
	optEncrypt: "ENCRYPT", optNewEnviron: "NEW-ENVIRON", optEndOfRecord: "END-OF-RECORD",
}

func (o option) String() string {
	if s, ok := optionNames[o]; ok {
		return s
	}
	return fmt.Sprintf("option %d", byte(o))
}

// Subnegotiation verbs of TERMINAL-TYPE (RFC 1091).
const (
	ttypeIS   = 0
	ttypeSEND = 1
)

// Limits that keep a hostile server from making the client work, write
// or remember without bound.
const (
	// maxReplies bounds the negotiation commands the client sends in one
	// session; a session needs a few dozen. Past it, the server's requests
	// are read and ignored.
	maxReplies = 256
	// maxSubneg bounds the bytes of one subnegotiation kept; the rest is
	// skipped up to its IAC SE.
	maxSubneg = 256
)

// parse states of the incoming byte stream.
type parseState int

const (
	stData   parseState = iota
	stCR                // after a CR in the data
	stIAC               // after IAC
	stOption            // after IAC WILL/WONT/DO/DONT
	stSB                // inside a subnegotiation, the option byte next
	stSBData            // inside a subnegotiation
	stSBIAC             // after IAC inside a subnegotiation
)

// Session is a telnet session: a net.Conn whose Read returns what the
// server sends, with the protocol's commands taken out (and answered),
// and whose Write sends keys and lines as the Network Virtual Terminal of
// RFC 854 wants them. Options are negotiated as the server asks for them
// while the session is read; the client asks for none itself.
//
// A Session is the Body and the Conn of the Response Fetch returns. One
// goroutine may read while another writes.
type Session struct {
	conn  *fetch.Conn
	req   atomic.Pointer[fetch.Request] // for the trace; dropped at Close
	term  string
	size  func() (width, height int, ok bool)
	close sync.Once
	done  atomic.Bool

	readMu  sync.Mutex
	raw     []byte // bytes read from the connection, not yet parsed
	state   parseState
	verb    command // the WILL/WONT/DO/DONT being parsed
	sbOpt   option
	sb      []byte
	pending []byte // parsed data not yet returned: the login's output
	scrub   []byte // the password, dropped if the server echoes it next
	held    []byte // output that may be the start of that echo
	readErr error  // an error met in negotiation, returned once data runs out
	// received counts the bytes read from the connection, commands
	// included; past limit (when not 0) a read fails with errLimit.
	received, limit int64

	writeMu sync.Mutex // guards what follows and every write to conn
	lastCR  bool       // the last byte written was a CR sent as CR NUL
	us      [256]bool  // options in effect on the client's side
	him     [256]bool  // options in effect on the server's side
	replies int
	width   int
	height  int
}

var _ net.Conn = (*Session)(nil)

func newSession(conn *fetch.Conn, req *fetch.Request, term string, size func() (int, int, bool)) *Session {
	s := &Session{conn: conn, term: term, size: size, raw: make([]byte, 0, 4096)}
	s.req.Store(req)
	return s
}

// trace sends a line to the request's trace while the session is open.
func (s *Session) trace(dir fetch.Direction, format string, args ...any) {
	if r := s.req.Load(); r != nil && r.Tracing() {
		r.Tracef(dir, format, args...)
	}
}

// Read reads what the server sends. Telnet commands are taken out and
// negotiation requests answered; a CR NUL pair reads as CR (RFC 854).
func (s *Session) Read(p []byte) (int, error) {
	if s.done.Load() {
		return 0, net.ErrClosed
	}
	if len(p) == 0 {
		return 0, nil
	}
	s.readMu.Lock()
	defer s.readMu.Unlock()
	for {
		if len(s.pending) > 0 {
			n := copy(p, s.pending)
			s.pending = s.pending[n:]
			return n, nil
		}
		n, err := s.readData(p)
		if n > 0 && s.scrub != nil {
			n = s.unecho(p, n)
			if n == 0 {
				continue
			}
		}
		if err != nil && len(s.held) > 0 {
			// The output ended inside what might have been the echo:
			// it was not, so hand it out before the error.
			s.pending, s.held, s.scrub = append(s.pending, s.held...), nil, nil
			s.keep(err)
			continue
		}
		if n > 0 || err != nil {
			return n, err
		}
	}
}

// unecho drops the server's echo of the password from the start of the
// output that follows it. p[:n] is new output; the bytes that may still
// turn out to be the echo are held back. It returns how many bytes of p
// to hand out now; the rest goes to pending.
func (s *Session) unecho(p []byte, n int) int {
	s.held = append(s.held, p[:n]...)
	switch {
	case hasEchoPrefix(s.held, s.scrub):
		s.trace(fetch.Note, "the server echoed the password; it is left out of the session's text")
		s.held = s.held[len(s.scrub):]
	case hasEchoPrefix(s.scrub, s.held):
		return 0 // still maybe the echo: wait for more
	}
	s.scrub = nil
	out := s.held
	s.held = nil
	m := copy(p, out)
	s.pending = append(s.pending, out[m:]...)
	return m
}

// hasEchoPrefix reports whether b begins with prefix, comparing bytes
// without their eighth bit: a server in NVT ASCII (no BINARY option, RFC
// 854) echoes the non-ASCII bytes of a password with that bit stripped,
// and the echo must still be recognised. Issue 12: "ü" came back as "C<".
func hasEchoPrefix(b, prefix []byte) bool {
	if len(b) < len(prefix) {
		return false
	}
	for i, c := range prefix {
		if b[i]&0x7f != c&0x7f {
			return false
		}
	}
	return true
}

// readData parses the connection's bytes into p, reading more when none
// are buffered, until p holds some data or an error happens.
func (s *Session) readData(p []byte) (int, error) {
	for {
		if len(s.raw) > 0 {
			n := s.parse(p)
			if n > 0 {
				return n, nil
			}
		}
		if s.readErr != nil {
			err := s.readErr
			s.readErr = nil
			return 0, err
		}
		m, err := s.conn.Read(s.raw[len(s.raw):cap(s.raw)])
		s.raw = s.raw[:len(s.raw)+m]
		s.received += int64(m)
		if s.limit > 0 && s.received > s.limit {
			// Negotiation alone, or a subnegotiation that never ends,
			// yields no data: only the count of bytes can stop it.
			return 0, errLimit
		}
		if m == 0 && err != nil {
			return 0, err
		}
	}
}

// parse consumes s.raw, writing data bytes into p, until p is full or
// s.raw is used up, and returns the number of data bytes.
func (s *Session) parse(p []byte) int {
	n, i := 0, 0
	for ; i < len(s.raw) && n < len(p); i++ {
		b := s.raw[i]
		switch s.state {
		case stCR:
			s.state = stData
			if b == 0 { // CR NUL is a bare CR
				continue
			}
			fallthrough
		case stData:
			switch b {
			case byte(cmdIAC):
				s.state = stIAC
			case '\r':
				p[n] = b
				n++
				s.state = stCR
			default:
				p[n] = b
				n++
			}
		case stIAC:
			s.state = stData
			switch c := command(b); c {
			case cmdIAC:
				p[n] = b
				n++
			case cmdWILL, cmdWONT, cmdDO, cmdDONT:
				s.verb = c
				s.state = stOption
			case cmdSB:
				s.state = stSB
			default:
				// NOP, DM, GA, BRK, IP, AO, AYT, EC, EL, EOR and a stray
				// SE carry nothing a reader of the data needs.
				s.trace(fetch.In, "%v", c)
			}
		case stOption:
			s.state = stData
			s.keep(s.negotiate(s.verb, option(b)))
		case stSB:
			s.sbOpt, s.sb = option(b), s.sb[:0]
			s.state = stSBData
		case stSBData:
			if b == byte(cmdIAC) {
				s.state = stSBIAC
			} else if len(s.sb) < maxSubneg {
				s.sb = append(s.sb, b)
			}
		case stSBIAC:
			switch command(b) {
			case cmdIAC:
				s.state = stSBData
				if len(s.sb) < maxSubneg {
					s.sb = append(s.sb, b)
				}
			case cmdSE:
				s.state = stData
				s.keep(s.subnegotiation(s.sbOpt, s.sb))
			default:
				// IAC and a command inside a subnegotiation: the server
				// forgot its IAC SE. End the subnegotiation there.
				s.keep(s.subnegotiation(s.sbOpt, s.sb))
				s.state = stIAC
				i--
			}
		}
	}
	s.raw = s.raw[:copy(s.raw, s.raw[i:])]
	return n
}

// keep remembers the first error of a negotiation reply for the reader,
// who meets the same broken connection when the data runs out.
func (s *Session) keep(err error) {
	if err != nil && s.readErr == nil {
		s.readErr = err
	}
}

// wanted reports whether the client agrees to option o on its own side
// (us) or on the server's (him).
func (s *Session) wanted(o option, us bool) bool {
	if !us {
		// The server may echo and may stop sending go-aheads: the
		// character-at-a-time mode a terminal session needs.
		return o == optEcho || o == optSGA
	}
	switch o {
	case optSGA:
		return true
	case optTerminal:
		return s.term != ""
	case optNAWS:
		if s.size == nil {
			return false
		}
		_, _, ok := s.size()
		return ok
	}
	return false
}

// negotiate answers one WILL, WONT, DO or DONT from the server, following
// RFC 854's rules: agree or refuse a request to change an option, and
// never acknowledge one for the state the option is already in, so that
// no two parties loop.
func (s *Session) negotiate(verb command, o option) error {
	s.trace(fetch.In, "%v %v", verb, o)
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	us := verb == cmdDO || verb == cmdDONT
	state := &s.him
	if us {
		state = &s.us
	}
	switch verb {
	case cmdWILL, cmdDO:
		if state[o] {
			return nil
		}
		yes, no := cmdDO, cmdDONT
		if us {
			yes, no = cmdWILL, cmdWONT
		}
		if !s.wanted(o, us) {
			return s.sendLocked(no, o)
		}
		state[o] = true
		if err := s.sendLocked(yes, o); err != nil {
			return err
		}
		if us && o == optNAWS {
			if w, h, ok := s.size(); ok {
				s.width, s.height = min(max(w, 0), 0xFFFF), min(max(h, 0), 0xFFFF)
				return s.sendSizeLocked()
			}
		}
	case cmdWONT, cmdDONT:
		if !state[o] {
			return nil
		}
		state[o] = false
		if us {
			return s.sendLocked(cmdWONT, o)
		}
		return s.sendLocked(cmdDONT, o)
	}
	return nil
}

// subnegotiation answers the server's IAC SB ... IAC SE.
func (s *Session) subnegotiation(o option, data []byte) error {
	if o == optTerminal && len(data) > 0 && data[0] == ttypeSEND {
		s.trace(fetch.In, "SB %v SEND", o)
		s.writeMu.Lock()
		defer s.writeMu.Unlock()
		if !s.us[optTerminal] {
			return nil
		}
		// RFC 1091: the type in upper case, as in RFC 1700's list.
		name := strings.ToUpper(s.term)
		return s.sendSubLocked(optTerminal, append([]byte{ttypeIS}, name...), "IS "+name)
	}
	s.trace(fetch.In, "SB %v (%d bytes)", o, len(data))
	return nil
}

// sendLocked sends IAC verb option; s.writeMu is held.
func (s *Session) sendLocked(verb command, o option) error {
	if !s.budgetLocked() {
		return nil
	}
	s.trace(fetch.Out, "%v %v", verb, o)
	_, err := s.conn.Write([]byte{byte(cmdIAC), byte(verb), byte(o)})
	return err
}

// sendSubLocked sends IAC SB option data IAC SE, with every IAC in the
// data doubled (RFC 855); s.writeMu is held.
func (s *Session) sendSubLocked(o option, data []byte, what string) error {
	if !s.budgetLocked() {
		return nil
	}
	s.trace(fetch.Out, "SB %v %s", o, what)
	b := []byte{byte(cmdIAC), byte(cmdSB), byte(o)}
	for _, c := range data {
		if c == byte(cmdIAC) {
			b = append(b, c)
		}
		b = append(b, c)
	}
	_, err := s.conn.Write(append(b, byte(cmdIAC), byte(cmdSE)))
	return err
}

// sendSizeLocked sends the window size (RFC 1073); s.writeMu is held.
func (s *Session) sendSizeLocked() error {
	var d [4]byte
	binary.BigEndian.PutUint16(d[0:], uint16(s.width))
	binary.BigEndian.PutUint16(d[2:], uint16(s.height))
	return s.sendSubLocked(optNAWS, d[:], fmt.Sprintf("%d %d", s.width, s.height))
}

// budgetLocked counts one negotiation reply and reports whether the
// session may still send it.
func (s *Session) budgetLocked() bool {
	s.replies++
	if s.replies == maxReplies+1 {
		s.trace(fetch.Note, "the server has asked for %d option changes; its further requests are ignored", maxReplies)
	}
	return s.replies <= maxReplies
}

// Write sends p to the server as NVT data (RFC 854): a line end, "\n" or
// "\r\n", goes as CR LF; a CR alone, as a terminal's Return key sends
// it, goes as CR NUL; a 0xFF byte is doubled so that it is not read as
// IAC.
func (s *Session) Write(p []byte) (int, error) {
	if s.done.Load() {
		return 0, net.ErrClosed
	}
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	b := make([]byte, 0, len(p)+len(p)/8+2)
	for i, c := range p {
		lastCR := s.lastCR
		s.lastCR = false
		switch c {
		case '\n':
			if lastCR {
				continue // the CR before it already ended the line
			}
			b = append(b, '\r', '\n')
		case '\r':
			if i+1 < len(p) && p[i+1] == '\n' {
				continue // sent as CR LF with the LF
			}
			b = append(b, '\r', 0)
			s.lastCR = true
		case byte(cmdIAC):
			b = append(b, c, c)
		default:
			b = append(b, c)
		}
	}
	if _, err := s.conn.Write(b); err != nil {
		return 0, err
	}
	return len(p), nil
}

// RemoteEcho reports whether the server has agreed to echo what the
// client sends (RFC 857). When it has not, a terminal must echo itself.
func (s *Session) RemoteEcho() bool {
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	return s.him[optEcho]
}

// SetWindowSize tells the server the terminal's new size in characters
// (RFC 1073), if the server asked for it; otherwise it does nothing.
func (s *Session) SetWindowSize(width, height int) error {
	if s.done.Load() {
		return net.ErrClosed
	}
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	width, height = min(max(width, 0), 0xFFFF), min(max(height, 0), 0xFFFF)
	if !s.us[optNAWS] || (width == s.width && height == s.height) {
		return nil
	}
	s.width, s.height = width, height
	return s.sendSizeLocked()
}

// SetIdleTimeout changes how long a Read or Write waits for the server
// before it fails with fetch.ErrTimeout; 0 waits for ever, as a person at
// a terminal may. Call it before reading and writing concurrently.
func (s *Session) SetIdleTimeout(d time.Duration) { s.conn.SetIdleTimeout(d) }

// Close ends the session. It may be called more than once.
func (s *Session) Close() error {
	var err error
	s.close.Do(func() {
		s.done.Store(true)
		err = s.conn.Close()
		s.req.Store(nil)
	})
	return err
}

// LocalAddr returns the local network address.
func (s *Session) LocalAddr() net.Addr { return s.conn.LocalAddr() }

// RemoteAddr returns the server's network address.
func (s *Session) RemoteAddr() net.Addr { return s.conn.RemoteAddr() }

// SetDeadline sets the read and write deadlines. While an idle timeout is
// set, each Read and Write replaces the deadline with its own: call
// SetIdleTimeout(0) first.
func (s *Session) SetDeadline(t time.Time) error { return s.conn.SetDeadline(t) }

// SetReadDeadline sets the read deadline; see SetDeadline.
func (s *Session) SetReadDeadline(t time.Time) error { return s.conn.SetReadDeadline(t) }

// SetWriteDeadline sets the write deadline; see SetDeadline.
func (s *Session) SetWriteDeadline(t time.Time) error { return s.conn.SetWriteDeadline(t) }

// errLimit: the server sent more than the login reads.
var errLimit = errors.New("telnet: read limit reached")

// readLogin reads the next piece of the session's output during the
// login and keeps it for the Body, returning it too. Past the first
// maxLoginOutput bytes the server sends, commands included, it fails
// with errLimit.
func (s *Session) readLogin(buf []byte) ([]byte, error) {
	s.readMu.Lock()
	defer s.readMu.Unlock()
	s.limit = maxLoginOutput
	defer func() { s.limit = 0 }()
	n, err := s.readData(buf)
	s.pending = append(s.pending, buf[:n]...)
	return buf[:n], err
}

// expectEcho arms the removal of the password's echo from the output.
func (s *Session) expectEcho(password string) {
	s.readMu.Lock()
	defer s.readMu.Unlock()
	s.scrub = []byte(password)
}

var _ io.ReadWriteCloser = (*Session)(nil)
