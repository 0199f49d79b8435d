package ftp

import (
	"bufio"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/urlfetch/urlfetch/fetch"
	"github.com/urlfetch/urlfetch/uri"
)

// poolKey is what a control connection can be reused for: the same
// server, the same login, the same TLS.
type poolKey struct {
	host     string
	port     int
	user     string
	password string
	ask      bool
	tls      tlsMode
}

// tlsMode is how a session uses TLS.
type tlsMode int

const (
	tlsNone     tlsMode = iota // cleartext
	tlsExplicit                // AUTH TLS after the greeting (RFC 4217)
	tlsImplicit                // ftps: TLS from the first byte
)

// session is one control connection, logged in, with what the driver
// knows of its state.
type session struct {
	d   *Driver
	key poolKey

	ctrl     *fetch.Conn   // the dial path's connection
	conn     net.Conn      // what commands go over: ctrl, or TLS over it
	r        *bufio.Reader // replies, from conn
	host     string        // the URL's host: TLS's server name
	dataHost string        // where data connections go: the control connection's peer
	// dataTLS is the TLS configuration of data connections once PROT P
	// was accepted: the control connection's, whose session cache lets
	// them resume its session; nil while data goes in cleartext.
	dataTLS *tls.Config

	// The fetch the session serves now; nil while it is idle.
	mu  sync.Mutex
	ctx context.Context
	req *fetch.Request

	reused   bool
	entryDir string   // PWD after login; "" if unknown
	at       []string // CWD arguments run since the entry directory
	typ      byte     // 'A', 'I', or 0 before the first TYPE
	feat     features

	// pending are the commands written whose final replies are unread,
	// in order. A session released with some is closed: its state is
	// unknown.
	pending    []string
	broken     bool   // the conversation's state is unknown: never reuse
	lastCmd    string // masked
	lastPrelim string // the last preliminary (1xx) reply line
	usePASV    bool   // EPSV was refused: PASV from now on
	dataOK     bool   // a data connection worked on this connection

	// sizeIn150 says this server's 150 reply to a binary RETR ends with
	// the file's size, "(N bytes).", as vsftpd's, wu-ftpd's and ProFTPD's
	// do: seen to equal what SIZE said, it spares later files the SIZE.
	sizeIn150 bool
}

// session returns a logged-in control connection for f: an idle one,
// in the directories cwds lead to if one is, or a new one.
func (d *Driver) session(ctx context.Context, req *fetch.Request, f *uri.FTP, lg login, cwds []string) (*session, error) {
	mode := tlsNone
	switch {
	case f.Secure:
		mode = tlsImplicit
	case req.TLSUpgrade() != fetch.UpgradeDefault:
		mode = tlsExplicit
	}
	key := poolKey{host: strings.ToLower(f.Host), port: req.URL.PortNumber(), user: lg.user, password: lg.password, ask: lg.ask, tls: mode}
	if s := d.get(key, cwds); s != nil {
		s.bind(ctx, req)
		req.Tracef(fetch.Note, "reusing the connection to %s as %s (entry directory %q)", s.ctrl.RemoteAddr(), lg.user, s.entryDir)
		return s, nil
	}
	s := &session{d: d, key: key, host: f.Host, dataHost: f.Host}
	s.bind(ctx, req)
	if err := s.connect(ctx, req, mode); err != nil {
		s.close()
		return nil, err
	}
	if err := s.login(ctx, req, f, lg); err != nil {
		s.close()
		return nil, err
	}
	return s, nil
}

// connect dials the server, reads its greeting and, as mode says, starts
// TLS: at once for ftps (RFC 4217 section 3's implicit mode), with AUTH
// TLS after the greeting when asked.
func (s *session) connect(ctx context.Context, req *fetch.Request, mode tlsMode) error {
	c, err := req.Dial(ctx)
	if err != nil {
		return err // the dial path's own error: ErrConnect, ErrUnsafe, ...
	}
	s.ctrl, s.conn = c, c
	if ta, ok := c.RemoteAddr().(*net.TCPAddr); ok {
		s.dataHost = ta.IP.String()
	}
	if mode == tlsImplicit {
		if err := s.startTLS(ctx, req); err != nil {
			return err
		}
	} else {
		s.r = bufio.NewReaderSize(c, 4096)
	}
	// The greeting is the reply to no command (RFC 959 section 5.4: 120
	// first means "ready in a while", then 220).
	s.pending = []string{""}
	if _, err := s.expect("", 220); err != nil {
		return s.greetingError(err)
	}
	if mode != tlsExplicit {
		return nil
	}
	rp, err := s.do("AUTH TLS")
	switch {
	case err != nil:
		return err
	case rp.Code == 234:
		// Nothing may follow the reply before the handshake: bytes
		// already read would be taken as sent under TLS (the injection
		// of CVE-2011-0411).
		if s.r.Buffered() > 0 {
			return fetch.Errorf(fetch.ErrProtocol, "ftp: the server sent %d bytes after its 234 reply to AUTH TLS, before the TLS handshake", s.r.Buffered())
		}
		return s.startTLS(ctx, req)
	case req.TLSUpgrade() == fetch.UpgradeRequire:
		return fetch.Errorf(fetch.ErrTLS, "ftp: %s refused AUTH TLS (%s), and TLS is required (--ssl-reqd): nothing was sent in the clear", s.host, oneLine(rp.Line))
	}
	req.Tracef(fetch.Note, "%s refused AUTH TLS (%s): going on in the clear", s.host, oneLine(rp.Line))
	return nil
}

// greetingError is the error of a greeting other than 220: the server's
// own words, of the class their code gives (421: busy, try later).
func (s *session) greetingError(err error) error {
	var re *ReplyError
	if errors.As(err, &re) && fetch.Class(err) == nil {
		return fetch.Errorf(fetch.ErrConnect, "ftp: the server's greeting: %w", re)
	}
	return err
}

// startTLS turns the control connection to TLS, and data connections
// from then on (their protection is PROT P's, after login).
func (s *session) startTLS(ctx context.Context, req *fetch.Request) error {
	cfg := req.TLSConfig(s.host)
	tc, err := req.StartTLS(ctx, s.ctrl, s.host, cfg)
	if err != nil {
		return fmt.Errorf("ftp: %w", err)
	}
	s.conn, s.dataTLS = tc, cfg
	s.r = bufio.NewReaderSize(tc, 4096)
	return nil
}

// login logs in as lg (RFC 959 section 5.4: USER, then PASS when the
// server asks for it with 331), protects data connections under TLS
// (PBSZ 0, PROT P: RFC 4217 section 9), learns the server's features
// (FEAT) and the entry directory (PWD), in one round trip after PASS.
func (s *session) login(ctx context.Context, req *fetch.Request, f *uri.FTP, lg login) error {
	rp, err := s.do("USER " + lg.user)
	if err != nil {
		return s.loginError(lg.user, err)
	}
	if rp.Code == 331 {
		password := lg.password
		if lg.ask {
			// The server asked for a password: only now is it needed.
			// A listing's entry on the server of the user's URL (a
			// recursive retrieval) logs in with the password that URL
			// was fetched with (Request.Credentials, UserOrigin);
			// anything else asks netrc, then the user.
			var ok bool
			if _, password, ok, err = req.Credentials(ctx); err != nil {
				return err
			}
			if !ok || password == "" {
				if password, err = req.Password(ctx, f.Host, lg.user); err != nil {
					return err
				}
			}
			if err := fetch.CheckLine("ftp password", password); err != nil {
				return err
			}
		}
		rp, err = s.do("PASS " + password)
		if err != nil {
			return s.loginError(lg.user, err)
		}
	}
	if rp.Code != 230 && rp.Code != 202 {
		return s.loginError(lg.user, s.refusal(s.lastCmd, rp))
	}
	var cmds []string
	if s.dataTLS != nil {
		cmds = append(cmds, "PBSZ 0", "PROT P")
	}
	cmds = append(cmds, "FEAT", "PWD")
	if err := s.plan(cmds...); err != nil {
		return err
	}
	if s.dataTLS != nil {
		if err := s.protect(req); err != nil {
			return err
		}
	}
	rp, err = s.do("FEAT")
	if err != nil {
		return err
	}
	if rp.Code == 211 {
		s.feat = parseFeatures(rp.Lines)
	}
	// The entry directory, to come back to when the connection is reused
	// for a URL in other directories.
	rp, err = s.do("PWD")
	if err != nil {
		return err
	}
	if rp.Code == 257 {
		var ok bool
		if s.entryDir, ok = parsePWD(rp.Msg); !ok {
			return fetch.Errorf(fetch.ErrProtocol, "ftp: PWD: the server's reply %q quotes no directory", clipReply(rp.Line))
		}
	}
	if s.feat.utf8 {
		// RFC 2640: names in UTF-8, not the server's code page.
		if _, err := s.do("OPTS UTF8 ON"); err != nil {
			return err
		}
	}
	return nil
}

// protect reads the replies to PBSZ 0 and PROT P. A server that refuses
// PROT P sends data in the clear: an error when TLS is required.
func (s *session) protect(req *fetch.Request) error {
	if _, err := s.do("PBSZ 0"); err != nil {
		return err
	}
	rp, err := s.do("PROT P")
	if err != nil || rp.Code/100 == 2 {
		return err
	}
	if s.key.tls == tlsImplicit || req.TLSUpgrade() == fetch.UpgradeRequire {
		return fetch.Errorf(fetch.ErrTLS, "ftp: %s refused PROT P (%s): data connections would go in the clear", s.host, oneLine(rp.Line))
	}
	req.Tracef(fetch.Note, "%s refused PROT P (%s): data connections go in the clear", s.host, oneLine(rp.Line))
	s.dataTLS = nil
	return nil
}

// plan writes cmds at once, their replies to be read in order by do,
// unless the Driver does not pipeline: then do writes each when its turn
// comes.
func (s *session) plan(cmds ...string) error {
	if s.d.NoPipelining || len(cmds) < 2 {
		return nil
	}
	return s.write(cmds...)
}

// loginError classifies a failed login: a refusal is ErrAuth.
func (s *session) loginError(user string, err error) error {
	var re *ReplyError
	if !errors.As(err, &re) {
		return err // a broken connection, a timeout, a cancellation
	}
	if sessionDied(re.Code, re.Msg) {
		return fetch.Errorf(fetch.ErrConnect, "ftp: login as %s: %w", user, re)
	}
	return fetch.Errorf(fetch.ErrAuth, "ftp: login as %s: %w", user, re)
}

// bind makes the session serve the fetch of req under ctx.
func (s *session) bind(ctx context.Context, req *fetch.Request) {
	s.mu.Lock()
	s.ctx, s.req = ctx, req
	s.mu.Unlock()
	if s.ctrl != nil {
		s.ctrl.Bind(ctx)
	}
}

// unbind leaves the session idle: it keeps no request and no context.
func (s *session) unbind() {
	s.mu.Lock()
	s.ctx, s.req = nil, nil
	s.mu.Unlock()
	if s.ctrl != nil {
		s.ctrl.Bind(context.Background())
	}
}

func (s *session) current() (context.Context, *fetch.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.ctx, s.req
}

// chdir brings the session to the directory the CWD arguments cwds lead
// to from the entry directory. When the session is there already (the
// last URL had the same directories) it sends nothing; when it is on the
// way (the last URL's directories begin this one's) it sends the CWDs
// past it; when it is elsewhere it first returns to the entry directory.
func (s *session) chdir(cwds []string) error {
	dirs, back, err := s.route(cwds)
	if err != nil {
		return err
	}
	for i, dir := range dirs {
		if _, err := s.cwd(dir); err != nil {
			if i == 0 && back {
				return fmt.Errorf("%w %q: %v", errStale, s.entryDir, err)
			}
			return err
		}
		if i == 0 && back {
			s.at = nil
		} else {
			s.at = append(s.at, dir)
		}
	}
	return nil
}

// route returns the CWD arguments that bring the session to where cwds
// lead from the entry directory, as chdir would send them, and whether
// the first is the way back to the entry directory; none when the
// session is there already. A session on the way, where the first CWDs
// of cwds led, goes on from there: the same CWDs from the same place,
// as RFC 1738 has them. It never climbs with CDUP, which after a CWD
// into a symbolic link leads elsewhere than the way back would.
func (s *session) route(cwds []string) (dirs []string, back bool, err error) {
	if slices.Equal(s.at, cwds) {
		if len(cwds) > 0 {
			s.note("in the directories of the last URL already: no CWD")
		}
		return nil, false, nil
	}
	if n := len(s.at); n > 0 && n < len(cwds) && slices.Equal(s.at, cwds[:n]) {
		s.note("in the first directories of the URL already: CWD from there")
		return cwds[n:], false, nil
	}
	if len(s.at) > 0 {
		if s.entryDir == "" {
			return nil, false, fmt.Errorf("%w: PWD gave none", errStale)
		}
		dirs, back = append(dirs, s.entryDir), true
	}
	return append(dirs, cwds...), back, nil
}

// arrive reads the replies to the CWDs of route (dirs, back), written
// ahead with other commands, and notes where the session is: at
// the entry directory and then every CWD that succeeded, which is where
// the server is, a refused one left out. The first refusal is the error;
// after it, the replies to what was written ahead are read too (it ran
// in another directory than the URL's, which changes nothing but TYPE).
// A session that cannot get back to its entry directory is stale.
func (s *session) arrive(dirs []string, back bool) error {
	var first error
	for i, dir := range dirs {
		_, err := s.cwd(dir)
		switch {
		case err != nil && !refused(err):
			return err // the connection broke: nothing more to read
		case i == 0 && back && err != nil:
			// Where the server is, nobody knows now.
			s.broken = true
			return fmt.Errorf("%w %q: %v", errStale, s.entryDir, err)
		case i == 0 && back:
			s.at = nil
		case err == nil:
			s.at = append(s.at, dir)
		case first == nil:
			first = err
		}
	}
	if first == nil {
		return nil
	}
	for len(s.pending) > 0 && !s.broken {
		cmd := s.pending[0]
		_, err := s.expect(cmd, 200, 213, 227, 229)
		if err != nil && !refused(err) {
			break // release closes the session: its state is unknown
		}
		if err == nil && strings.HasPrefix(cmd, "TYPE ") {
			s.typ = cmd[len("TYPE ")]
		}
	}
	return first
}

// cwd sends CWD dir. RFC 959 gives 250; some servers answer 200.
func (s *session) cwd(dir string) (reply, error) {
	return s.expect("CWD "+dir, 250, 200)
}

// setType sends TYPE unless the connection is in that type already.
func (s *session) setType(t byte) error {
	if s.typ == t {
		return nil
	}
	if _, err := s.expect("TYPE "+string(t), 200); err != nil {
		return err
	}
	s.typ = t
	return nil
}

// dataConn is a data connection being opened: the dial's result, and
// under PROT P the TLS handshake, which runs while the reply to the
// transfer command is read (servers differ on whether the 150 comes
// before the handshake or after).
type dataConn struct {
	conn net.Conn
	err  error
	hs   chan error // the handshake's result; nil without TLS
}

// open sets up the data connection for cmd (RETR, LIST, MLSD, NLST) and
// sends cmd, unless the caller wrote both ahead (cmdSent), then returns
// the connection once the server's preliminary reply (125, 150) came.
// The data connection goes to the control connection's peer, at the
// port EPSV or PASV gave.
func (s *session) open(ctx context.Context, req *fetch.Request, cmd string, cmdSent bool) (net.Conn, error) {
	if s.feat.pret {
		// PRET (distributed servers: drftpd) names the transfer before
		// EPSV, so the server can choose where data comes from.
		if _, err := s.expect("PRET "+cmd, 200); err != nil {
			return nil, err
		}
	}
	port, err := s.passive()
	if err != nil {
		if cmdSent {
			// The transfer command went out after the data command the
			// server refused: read its reply (425) too.
			rp, err2 := s.do(cmd)
			if err2 != nil {
				return nil, err2
			}
			if rp.Code < 200 {
				s.broken = true
				return nil, fmt.Errorf("%w (and the server opened %s anyway: %q)", err, fetch.MaskLine(cmd, nil), clipReply(rp.Line))
			}
		}
		if !errors.Is(err, errEPSVRefused) {
			return nil, err
		}
		// Refused EPSV: PASV from now on.
		s.usePASV, cmdSent = true, false
		if port, err = s.passive(); err != nil {
			return nil, err
		}
	}
	dc := s.dial(ctx, req, port)
	if dc.err != nil && !cmdSent {
		return nil, dc.err
	}
	if !cmdSent {
		if err := s.write(cmd); err != nil {
			dc.close()
			return nil, err
		}
	}
	rp, err := s.do(cmd)
	if err == nil && rp.Code >= 200 {
		err = s.refusal(cmd, rp)
		if rp.Code < 300 {
			// A final reply without the transfer's preliminary one.
			err = fetch.Errorf(fetch.ErrProtocol, "ftp: %s: the server answered %q with no data connection opened", fetch.MaskLine(cmd, nil), clipReply(rp.Line))
		}
	}
	if err != nil {
		dc.close()
		return nil, err
	}
	if dc.err != nil {
		// The server opened the transfer; the client could not connect.
		s.broken = true
		return nil, dc.err
	}
	if dc.hs != nil {
		if err := <-dc.hs; err != nil {
			dc.conn.Close()
			s.broken = true
			return nil, fmt.Errorf("ftp: %s: the data connection: %w", fetch.MaskLine(cmd, nil), req.TLSError(ctx, s.dataTLS.ServerName, err))
		}
		st := dc.conn.(*tls.Conn).ConnectionState()
		req.TraceTLS(st)
		if !st.DidResume {
			req.Tracef(fetch.Note, "the data connection's TLS session is a new one, not the control connection's")
		}
	}
	s.dataOK = true
	return dc.conn, nil
}

// errEPSVRefused: the server refused EPSV; PASV may work.
var errEPSVRefused = errors.New("ftp: EPSV refused")

// passive reads the reply to EPSV or PASV (sending it unless written
// ahead) and returns the data port.
func (s *session) passive() (int, error) {
	if s.d.DisableEPSV || s.usePASV {
		rp, err := s.expect("PASV", StatusPassiveMode)
		if err != nil {
			return 0, err
		}
		return parsePASV(rp)
	}
	rp, err := s.do("EPSV")
	if err != nil {
		return 0, err
	}
	if rp.Code == StatusExtendedPassiveMode {
		return parseEPSV(rp)
	}
	if rp.Code >= 500 && !sessionDied(rp.Code, rp.Msg) {
		s.note("the server refused EPSV (%s): PASV from now on", oneLine(rp.Line))
		return 0, errEPSVRefused
	}
	return 0, s.refusal("EPSV", rp)
}

// dial connects to the data port on the control connection's peer. RFC
// 1738 section 6: the port a reply names is held to the policy an ftp
// URL's port is, or a server could aim the client at another protocol's
// port. Under PROT P the handshake starts at once, in the background.
func (s *session) dial(ctx context.Context, req *fetch.Request, port int) dataConn {
	c, err := req.DialAddr(ctx, "ftp", net.JoinHostPort(s.dataHost, strconv.Itoa(port)))
	if errors.Is(err, fetch.ErrUnsafe) {
		return dataConn{err: fmt.Errorf("ftp: the data connection the server names: %w", err)}
	}
	if err != nil {
		return dataConn{err: fmt.Errorf("ftp: the data connection: %w", err)}
	}
	if s.dataTLS == nil {
		c.Stream()
		return dataConn{conn: c}
	}
	tc := tls.Client(c, s.dataTLS)
	hs := make(chan error, 1)
	go func() { hs <- tc.HandshakeContext(ctx) }()
	return dataConn{conn: tc, hs: hs}
}

func (dc dataConn) close() {
	if dc.conn != nil {
		dc.conn.Close()
	}
	if dc.hs != nil {
		<-dc.hs
	}
}

func (s *session) note(format string, args ...any) {
	if _, req := s.current(); req != nil {
		req.Tracef(fetch.Note, format, args...)
	}
}

// close ends the session: QUIT, without waiting for the reply.
func (s *session) close() {
	s.unbind()
	if s.conn != nil && !s.broken {
		s.conn.Write([]byte("QUIT\r\n"))
	}
	if s.conn != nil {
		s.conn.Close()
	}
}

// release gives a session back after a fetch: kept for reuse when the
// fetch ended well or with a plain refusal, closed otherwise.
func (d *Driver) release(s *session, err error) {
	var re *ReplyError
	if s.broken || len(s.pending) > 0 || err != nil && (!errors.As(err, &re) || sessionDied(re.Code, re.Msg)) {
		s.close()
		return
	}
	d.put(s)
}

// get takes an idle session for key from the pool, one in the
// directories cwds lead to if there is one (no CWD then), or returns nil.
func (d *Driver) get(key poolKey, cwds []string) *session {
	s, ok := d.idle.GetPreferred(key, func(s *session) bool { return slices.Equal(s.at, cwds) })
	if !ok {
		return nil
	}
	s.reused = true
	return s
}

// put keeps s as an idle session under the limits of its fetch's Client,
// or closes it.
func (d *Driver) put(s *session) {
	_, req := s.current()
	s.unbind()
	if req == nil {
		s.close()
		return
	}
	d.idle.Put(req, s.key, s, (*session).close)
}

// Close closes the idle connections.
func (d *Driver) Close() error {
	d.idle.CloseIdle()
	return nil
}

// oneLine folds a reply onto one line for a message.
func oneLine(s string) string { return strings.Join(strings.Fields(clipReply(s)), " ") }
