package ftp

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/urlfetch/urlfetch/fetch"
)

// This file is the control connection of RFC 959: commands out, replies
// in, each traced. It is the only reader and writer of the connection, so
// commands can go out several at once (pipelining) and TLS can start on
// it (AUTH TLS) without a library in between.

// reply is one complete reply of the server (RFC 959 section 4.2).
type reply struct {
	Code int
	// Msg is the text: the first line's after its code, then the other
	// lines, joined by "\n", the last one's code taken off, as
	// net/textproto gives it.
	Msg string
	// Lines are a multi-line reply's lines between its first and last:
	// FEAT's features.
	Lines []string
	// Line is the last line as the server sent it, for messages.
	Line string
}

// Limits on what the control connection reads.
const (
	// maxLine bounds a reply line (and a listing line).
	maxLine = 64 << 10
	// maxReply bounds a multi-line reply, from its first line to its
	// last: FEAT and HELP replies are a few KiB.
	maxReply = 1 << 20
)

// write sends cmds in one write, in order, and notes that their replies
// are due. RFC 959 lets a client send a command before the reply to the
// last: the replies come back in order.
func (s *session) write(cmds ...string) error {
	var b strings.Builder
	_, req := s.current()
	for _, c := range cmds {
		b.WriteString(c)
		b.WriteString("\r\n")
		if req != nil {
			req.Trace(fetch.Out, c)
		}
	}
	s.pending = append(s.pending, cmds...)
	s.lastCmd = fetch.MaskLine(cmds[len(cmds)-1], nil)
	if _, err := io.WriteString(s.conn, b.String()); err != nil {
		return s.ioError(cmds[0], err)
	}
	return nil
}

// do returns the next reply to cmd: the reply due next, when cmd was
// written ahead; else cmd is written first. A preliminary reply (1xx) is
// returned as it is, and the final one is due after it.
func (s *session) do(cmd string) (reply, error) {
	if len(s.pending) == 0 {
		if err := s.write(cmd); err != nil {
			return reply{}, err
		}
	}
	if s.pending[0] != cmd {
		// The driver reads replies in the order it wrote: a mismatch is
		// a bug here, and the conversation is lost.
		s.broken = true
		return reply{}, fmt.Errorf("ftp: internal error: reading the reply to %q while %q is due", fetch.MaskLine(cmd, nil), fetch.MaskLine(s.pending[0], nil))
	}
	rp, err := s.readReply()
	if err != nil {
		s.broken = true
		return reply{}, s.ioError(cmd, err)
	}
	if rp.Code >= 200 {
		s.pending = s.pending[1:]
	} else {
		s.lastPrelim = rp.Line
	}
	return rp, nil
}

// expect is do for a command whose only good final reply is one of
// codes; another is the command's error.
func (s *session) expect(cmd string, codes ...int) (reply, error) {
	rp, err := s.do(cmd)
	for err == nil && rp.Code < 200 {
		// A preliminary reply to a command that has no transfer: the
		// final one follows.
		rp, err = s.do(cmd)
	}
	if err != nil {
		return rp, err
	}
	for _, c := range codes {
		if rp.Code == c {
			return rp, nil
		}
	}
	return rp, s.refusal(cmd, rp)
}

// refusal is the error of a reply other than the one cmd wants: a
// *ReplyError of the fetch class its code gives.
func (s *session) refusal(cmd string, rp reply) error {
	cmd = fetch.MaskLine(cmd, nil)
	if cmd == "" {
		cmd = "the greeting"
	}
	re := replyError(cmd, rp.Code, rp.Msg)
	if kind := replyKind(rp.Code, rp.Msg); kind != nil {
		return fetch.Errorf(kind, "ftp: %s: %w", cmd, re)
	}
	if rp.Code < 400 {
		// A positive reply, but not the one the command wants (229 to
		// PASV): the server broke its protocol.
		return fetch.Errorf(fetch.ErrProtocol, "ftp: %s: an unexpected reply: %w", cmd, re)
	}
	return fmt.Errorf("ftp: %s: %w", cmd, re)
}

// ioError is the error of a read or write of the control connection
// during cmd: a broken connection is ErrConnect (a retry may help).
func (s *session) ioError(cmd string, err error) error {
	cmd = fetch.MaskLine(cmd, nil)
	if cmd == "" {
		cmd = "waiting for the greeting"
	}
	switch {
	case fetch.Class(err) != nil:
		if strings.HasPrefix(err.Error(), "ftp: ") {
			return err
		}
		return fmt.Errorf("ftp: %s: %w", cmd, err)
	case fetch.ConnBroken(err):
		return fetch.Errorf(fetch.ErrConnect, "ftp: %s: the connection broke: %w", cmd, err)
	}
	return fmt.Errorf("ftp: %s: %w", cmd, err)
}

// readReply reads one reply. A multi-line reply ends at a line that
// begins with its own code and a space (RFC 959 section 4.2): "221 x"
// inside a 220- reply is text of it. It fails on what no FTP server
// sends: a reply that does not begin with a code, a line longer than
// maxLine, a multi-line reply longer than maxReply.
func (s *session) readReply() (reply, error) {
	first, err := s.readLine()
	if err != nil {
		return reply{}, err
	}
	if !replyStart(first) {
		return reply{}, fetch.Errorf(fetch.ErrProtocol, "ftp: the server sent %q, which is not an FTP reply: it begins with no reply code", clipReply(first))
	}
	code, _ := strconv.Atoi(first[:3])
	rp := reply{Code: code, Line: first}
	if len(first) > 4 {
		rp.Msg = first[4:]
	}
	if len(first) == 3 || first[3] != '-' {
		return rp, nil
	}
	var msg strings.Builder
	msg.WriteString(rp.Msg)
	size := len(first)
	for {
		line, err := s.readLine()
		if err != nil {
			return reply{}, err
		}
		size += len(line) + 2
		if size > maxReply {
			return reply{}, fetch.Errorf(fetch.ErrProtocol, "ftp: the server sent a multi-line reply of more than %d bytes without its last line", maxReply)
		}
		msg.WriteByte('\n')
		if len(line) >= 4 && line[:3] == first[:3] && line[3] == ' ' {
			msg.WriteString(line[4:])
			rp.Msg, rp.Line = msg.String(), line
			return rp, nil
		}
		msg.WriteString(strings.TrimPrefix(line, first[:4]))
		rp.Lines = append(rp.Lines, line)
	}
}

// readLine reads one line of the control connection, without its line
// end, and traces it.
func (s *session) readLine() (string, error) {
	var long []byte
	for {
		b, err := s.r.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			if len(long)+len(b) > maxLine {
				return "", fetch.Errorf(fetch.ErrProtocol, "ftp: the server sent a reply line longer than %d bytes", maxLine)
			}
			long = append(long, b...)
			continue
		}
		if err != nil {
			if err == io.EOF && (len(b) > 0 || len(long) > 0) {
				err = io.ErrUnexpectedEOF
			}
			return "", err
		}
		if long != nil {
			b = append(long, b...)
		}
		if len(b) > maxLine {
			return "", fetch.Errorf(fetch.ErrProtocol, "ftp: the server sent a reply line longer than %d bytes", maxLine)
		}
		line := strings.TrimRight(string(b), "\r\n")
		if _, req := s.current(); req != nil {
			req.Trace(fetch.In, line)
		}
		return line, nil
	}
}

// replyStart reports whether line can begin a reply: a code of three
// digits, the first 1 to 5, then a space, a hyphen or nothing.
func replyStart(line string) bool {
	if len(line) < 3 || line[0] < '1' || line[0] > '5' || !isDigit(line[1]) || !isDigit(line[2]) {
		return false
	}
	return len(line) == 3 || line[3] == ' ' || line[3] == '-'
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// clipReply shortens a line from the server for an error message.
func clipReply(s string) string {
	if len(s) > 80 {
		return s[:80] + "..."
	}
	return s
}

// features are what a FEAT reply (RFC 2389) offers that the driver uses.
type features struct {
	mdtm bool // MDTM (RFC 3659): the Response's Modified
	mlst bool // MLST, and so MLSD (RFC 3659): listings with facts
	pret bool // PRET: distributed servers want it before EPSV/PASV
	utf8 bool // UTF8 (RFC 2640): OPTS UTF8 ON
}

// parseFeatures reads the feature lines of a 211 reply to FEAT.
func parseFeatures(lines []string) features {
	var f features
	for _, l := range lines {
		name, _, _ := strings.Cut(strings.TrimSpace(l), " ")
		switch strings.ToUpper(name) {
		case "MDTM":
			f.mdtm = true
		case "MLST":
			f.mlst = true
		case "PRET":
			f.pret = true
		case "UTF8":
			f.utf8 = true
		}
	}
	return f
}

// parsePWD reads the directory a 257 reply quotes: RFC 959 appendix II
// doubles a quote inside the name. ok is false when it quotes none.
func parsePWD(msg string) (dir string, ok bool) {
	i := strings.IndexByte(msg, '"')
	if i < 0 {
		return "", false
	}
	var b strings.Builder
	for j := i + 1; j < len(msg); j++ {
		if msg[j] != '"' {
			b.WriteByte(msg[j])
			continue
		}
		if j+1 < len(msg) && msg[j+1] == '"' {
			b.WriteByte('"')
			j++
			continue
		}
		return b.String(), true
	}
	return "", false
}

// parseEPSV reads the port of a 229 reply: "(|||port|)", any printable
// delimiter in place of "|" (RFC 2428 section 3).
func parseEPSV(rp reply) (int, error) {
	start := strings.IndexByte(rp.Msg, '(')
	end := strings.LastIndexByte(rp.Msg, ')')
	if start >= 0 && end > start+4 {
		f := rp.Msg[start+1 : end]
		d := f[0]
		if f[1] == d && f[2] == d && f[len(f)-1] == d {
			if port, err := strconv.Atoi(f[3 : len(f)-1]); err == nil && port > 0 && port < 65536 {
				return port, nil
			}
		}
	}
	return 0, fetch.Errorf(fetch.ErrProtocol, "ftp: the server's reply %q names no data port (|||port|) of 1 to 65535", clipReply(rp.Line))
}

// parsePASV reads the port of a 227 reply: six numbers of 0 to 255,
// h1,h2,h3,h4,p1,p2 (RFC 959 section 4.1.2), found as RFC 1123 section
// 4.1.2.6 says, from the first digit, parentheses or not. The address is
// not used: data connections go to the control connection's peer, or a
// server could aim the client anywhere.
func parsePASV(rp reply) (int, error) {
	bad := fetch.Errorf(fetch.ErrProtocol, "ftp: the server's reply %q gives no h1,h2,h3,h4,p1,p2 of numbers 0 to 255", clipReply(rp.Line))
	text := rp.Msg
	if open := strings.IndexByte(text, '('); open >= 0 {
		// With parentheses, as RFC 959 writes it: the numbers are
		// inside them.
		end := strings.IndexByte(text[open:], ')')
		if end < 0 {
			return 0, bad
		}
		text = text[open+1 : open+end]
	}
	i := strings.IndexAny(text, "0123456789")
	if i < 0 {
		return 0, bad
	}
	text = text[i:]
	end := strings.IndexFunc(text, func(r rune) bool { return r != ',' && r != ' ' && (r < '0' || r > '9') })
	if end >= 0 {
		text = text[:end]
	}
	f := strings.Split(text, ",")
	if len(f) != 6 {
		return 0, bad
	}
	var n [6]int
	for i, s := range f {
		v, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || v < 0 || v > 255 {
			return 0, bad
		}
		n[i] = v
	}
	port := n[4]<<8 | n[5]
	if port == 0 {
		return 0, bad
	}
	return port, nil
}

// parseSize reads the number of a 213 reply to SIZE: -1 when it gives
// none a file can have.
func parseSize(msg string) int64 {
	n, err := strconv.ParseInt(strings.TrimRight(msg, " "), 10, 64)
	if err != nil || n < 0 {
		return -1
	}
	return n
}

// parseMDTM reads the time of a 213 reply to MDTM (RFC 3659 section 2.3):
// YYYYMMDDHHMMSS, perhaps with a fraction, in UTC.
func parseMDTM(msg string) (time.Time, bool) {
	msg = strings.TrimSpace(msg)
	whole, frac, _ := strings.Cut(msg, ".")
	t, err := time.Parse("20060102150405", whole)
	if err != nil {
		return time.Time{}, false
	}
	if frac != "" {
		if n, err := strconv.Atoi(frac); err == nil && len(frac) <= 9 {
			for range 9 - len(frac) {
				n *= 10
			}
			t = t.Add(time.Duration(n))
		}
	}
	return t, true
}
