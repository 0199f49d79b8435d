// Package ftp implements the ftp scheme of RFC 1738 section 3.2 and ftps
// (FTP over implicit TLS, RFC 4217), with a control client of its own on
// RFC 959: the one reader and writer of the control connection, so that
// commands can be pipelined, listings streamed, and TLS started on it
// (AUTH TLS) under the driver's own trace.
//
// A URL ftp://user:password@host:port/cwd1/.../cwdN/name;type=X is
// dereferenced as the specification says:
//
//   - Login: without a user in the URL, the Client's Login (-u) on the
//     server of the user's URL, else "anonymous" with the user's e-mail
//     address as the password; a user without a password takes one from
//     netrc or, when the server asks for one (331), from the Client's
//     prompt. An empty user (ftp://@host/) or an empty password
//     (ftp://foo:@host/) is sent as it is.
//   - One CWD per decoded path segment, in order: "%2F" gives an argument
//     holding "/" (ftp://h/%2Fetc/motd is CWD /etc, RETR motd), an empty
//     segment a CWD with an empty argument. CWDMethod offers curl's
//     alternatives for servers that refuse this.
//   - ";type=d": NLST name (no argument when name is empty), a Listing of
//     names only. Otherwise TYPE A (";type=a", whose CRLF line ends are
//     converted to "\n") or TYPE I (";type=i" and no typecode), SIZE and
//     MDTM where the server has them, REST for an offset, and RETR name.
//     SIZE is left out once the server's 150 reply to an earlier RETR on
//     the connection was seen to end with the same size ("(N bytes).",
//     as vsftpd, wu-ftpd and ProFTPD send), the Length then read from
//     it; MDTM is left out when the Driver's SkipModTime says so.
//   - A path ending in "/", an empty name, or a name whose RETR fails with
//     550 but whose CWD succeeds is a directory: a Listing from MLSD when
//     the server offers it (FEAT), else LIST.
//   - A Head request (fetch.Request.Head) runs the CWDs, then asks with
//     SIZE and MDTM (RFC 3659), and for a name SIZE refuses with CWD: no
//     data connection, no RETR, no LIST (head.go says how each reply is
//     read).
//
// The Driver keeps idle control connections and reuses one for the next
// URL of the same host, port and login (RFC 1738 section 3.2.5, RFC 1630's
// note on retrieving subsequent URLs from the same host): see Driver.
package ftp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/user"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/urlfetch/urlfetch/fetch"
	"github.com/urlfetch/urlfetch/uri"
)

// Reply codes of RFC 959 that the driver gives a meaning to.
const (
	StatusPassiveMode         = 227 // entering passive mode (h1,h2,h3,h4,p1,p2)
	StatusExtendedPassiveMode = 229 // entering extended passive mode (|||port|)
	StatusNotAvailable        = 421 // service not available, closing control connection
	StatusNotLoggedIn         = 530
	StatusNeedAccount         = 532
	StatusFileUnavailable     = 550
)

// CWDMethod says how the directory part of a URL's path reaches the
// server, like curl's --ftp-method.
type CWDMethod int

const (
	// CWDEach sends one CWD per path segment, in order: the algorithm of
	// RFC 1738 section 3.2.2, and the default.
	CWDEach CWDMethod = iota
	// CWDWhole sends one CWD with the whole directory path, segments
	// joined by "/", for servers that refuse the steps a whole path
	// passes.
	CWDWhole
	// CWDNone sends no CWD: RETR, LIST and NLST get the full path.
	CWDNone
)

var cwdMethodNames = [...]string{"multicwd", "singlecwd", "nocwd"}

// String returns curl's name of the method: multicwd, singlecwd, nocwd.
func (m CWDMethod) String() string {
	if m >= 0 && int(m) < len(cwdMethodNames) {
		return cwdMethodNames[m]
	}
	return fmt.Sprintf("CWDMethod(%d)", int(m))
}

// ParseCWDMethod returns the method called name (multicwd, singlecwd or
// nocwd).
func ParseCWDMethod(name string) (CWDMethod, error) {
	for i, n := range cwdMethodNames {
		if strings.EqualFold(name, n) {
			return CWDMethod(i), nil
		}
	}
	return 0, fmt.Errorf("ftp: unknown CWD method %q (want multicwd, singlecwd or nocwd)", name)
}

// Driver fetches ftp URLs. Its zero value is ready to use. Set its fields
// before the first Fetch and do not change them after.
//
// The Driver keeps the control connections of finished fetches, at most
// the Client's MaxIdleConnsPerHost per host, port and login, for its
// IdleConnTimeout (fetch.IdlePool). The
// next URL of the same host, port and login reuses one: when its
// directories are those the connection is already in, it goes straight
// to TYPE and RETR; otherwise it returns to the entry directory that PWD
// gave after login (CWD back to it) and runs the new CWD sequence. A
// reused connection that fails before its transfer starts, or cannot get
// back to its entry directory, is dropped and the URL fetched on a new
// one. Close (and so fetch.Client.Close) closes the idle connections.
//
// Idle connections are the Driver's, not a Client's: a Driver registered
// with several Clients whose dial settings differ may serve one Client's
// fetch on a connection another dialed. Give each such Client its own
// Driver, as fetch/all does.
type Driver struct {
	// AnonymousPassword is the password of anonymous logins, by
	// convention the user's e-mail address. "" means USER@HOST from the
	// user and host names of this machine. It goes only to hosts the user
	// chose (fetch.Request.UserHost); others get
	// ServerChosenAnonymousPassword.
	AnonymousPassword string
	// CWDMethod says how the path reaches the server (default CWDEach).
	CWDMethod CWDMethod
	// DisableEPSV makes data connections use PASV only. By default EPSV
	// is tried first and PASV used when the server refuses it.
	DisableEPSV bool
	// NoPipelining sends each command only after the reply to the last,
	// for servers that lose commands sent ahead.
	NoPipelining bool
	// SkipModTime leaves out MDTM: Response.Modified stays zero, and each
	// file costs the server one command less. For callers that do not
	// use the time, as curl sends MDTM only for -R.
	SkipModTime bool

	idle fetch.IdlePool[poolKey, *session]

	anonOnce sync.Once
	anonPass string
}

var (
	_ fetch.Driver        = (*Driver)(nil)
	_ fetch.FollowChecker = (*Driver)(nil)
	_ io.Closer           = (*Driver)(nil) // Client.Close closes idle connections
)

// ServerChosenAnonymousPassword is the password of an anonymous login to
// a host a server chose (a redirect's target, a listing's entry on
// another host): it names nobody, where AnonymousPassword names the user.
const ServerChosenAnonymousPassword = "anonymous@"

// CheckFollow accepts every ftp URL: a server may send the Client to one.
// What would be the user's stays home: an anonymous login to a host the
// user did not choose gives ServerChosenAnonymousPassword, and no password
// is asked for (fetch.Request.Password).
func (d *Driver) CheckFollow(u *uri.URL) error { return nil }

// ReplyError is a negative reply of the server. Fetch returns it wrapped:
// errors.As finds it, and errors.Is the fetch class its code gives (530
// ErrAuth, 550 ErrNotFound, 421 ErrConnect). A 4xx reply (RFC 959's
// transient negative completion, such as 421) is Temporary.
type ReplyError = fetch.ReplyError

// replyError is the ReplyError of code and msg in answer to command.
// Besides a 4xx, vsftpd's "500 OOPS: ..." is transient: its process for
// the session died (a passive port it could not bind, a broken pipe
// between its two processes) and it closes the connection; another
// session may well work.
func replyError(command string, code int, msg string) *ReplyError {
	return &ReplyError{Command: command, Code: code, Msg: msg, Transient: code >= 400 && code < 500 || sessionDied(code, msg)}
}

// sessionDied reports whether a reply says the server ended the session:
// 421, or vsftpd's "OOPS:" (vsf_sysutil_die), which it sends before it
// closes the connection.
func sessionDied(code int, msg string) bool {
	return code == StatusNotAvailable || strings.HasPrefix(msg, "OOPS:")
}

// Fetch runs the retrieval algorithm of RFC 1738 section 3.2 for
// req.URL. A refused command's error wraps a *ReplyError.
func (d *Driver) Fetch(ctx context.Context, req *fetch.Request) (*fetch.Response, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	f, err := req.URL.FTP()
	if err != nil {
		return nil, fetch.Errorf(fetch.ErrURL, "ftp: %w", err)
	}
	if f.Host == "" {
		return nil, fetch.Errorf(fetch.ErrUnsupported, "ftp: URL without a host")
	}
	lg, err := d.login(req, f)
	if err != nil {
		return nil, err
	}
	if err := checkPath(f); err != nil {
		return nil, err
	}
	p := d.plan(f)
	for {
		s, err := d.session(ctx, req, f, lg, p.cwds)
		if err != nil {
			return nil, err
		}
		resp, err := d.run(ctx, req, s, f, p)
		if err == nil {
			return resp, nil
		}
		// Each try takes another idle connection or, at last, a new one:
		// the loop ends.
		if s.reused && ctx.Err() == nil && stale(err) {
			req.Tracef(fetch.Note, "the reused connection failed (%v); fetching again on a new one", err)
			s.close()
			continue
		}
		d.release(s, err)
		return nil, err
	}
}

// login is who a URL logs in as.
type login struct {
	user     string
	password string // when ask is false
	ask      bool   // no password in the URL: netrc, else the prompt
}

func (d *Driver) login(req *fetch.Request, f *uri.FTP) (login, error) {
	if user, ok := req.LoginUser(); ok && !f.HasUser {
		// The user's -u, on the server of the user's URL: its password
		// when the server asks for one (session.login, Credentials).
		if err := fetch.CheckLine("ftp user", user); err != nil {
			return login{}, err
		}
		return login{user: user, ask: true}, nil
	}
	if !f.HasUser {
		// RFC 1738 section 3.2.1: the conventions of anonymous FTP. The
		// user's e-mail address goes only to a host the user chose.
		lg := login{user: "anonymous", password: ServerChosenAnonymousPassword}
		if req.UserHost(f.Host) {
			lg.password = d.anonymousPassword()
		}
		if err := fetch.CheckLine("ftp anonymous password", lg.password); err != nil {
			return login{}, err
		}
		return lg, nil
	}
	if err := fetch.CheckLine("ftp user", f.User); err != nil {
		return login{}, err
	}
	if !f.HasPassword {
		return login{user: f.User, ask: true}, nil
	}
	if err := fetch.CheckLine("ftp password", f.Password); err != nil {
		return login{}, err
	}
	// Credentials keeps the URL's password for the hops on its server
	// (Request.UserOrigin), which name the user and not the password.
	req.Credentials(context.Background())
	return login{user: f.User, password: f.Password}, nil
}

// anonymousPassword returns the configured password of anonymous logins,
// or USER@HOST.
func (d *Driver) anonymousPassword() string {
	if d.AnonymousPassword != "" {
		return d.AnonymousPassword
	}
	d.anonOnce.Do(func() {
		name := os.Getenv("USER")
		if name == "" {
			name = os.Getenv("LOGNAME")
		}
		if name == "" {
			if u, err := user.Current(); err == nil {
				name = u.Username
			}
		}
		if name == "" {
			name = "anonymous"
		}
		host, err := os.Hostname()
		if err != nil || host == "" {
			host = "localhost"
		}
		d.anonPass = name + "@" + host
	})
	return d.anonPass
}

// checkPath refuses, before any connection, a decoded CR, LF or NUL in a
// segment or the name (RFC 1738 section 6).
func checkPath(f *uri.FTP) error {
	for i, dir := range f.Dirs {
		if err := fetch.CheckLine(fmt.Sprintf("ftp path segment %d", i+1), dir); err != nil {
			return err
		}
	}
	return fetch.CheckLine("ftp file name", f.Name)
}

// plan is a URL's path as commands: the CWD arguments, and the argument
// of RETR, LIST or NLST after them.
type plan struct {
	cwds []string
	name string
	// base is where the server's working directory is after cwds, as URL
	// segments: where NLST names are relative to.
	base []string
	// whole is the path of the URL's directory for a CWD fallback and a
	// LIST without a CWD.
	whole string
}

func (d *Driver) plan(f *uri.FTP) plan {
	whole := strings.Join(f.Dirs, "/")
	if whole == "" && len(f.Dirs) > 0 {
		whole = "/" // ftp://h//x: the segment is empty, the path absolute
	}
	switch d.CWDMethod {
	case CWDWhole:
		p := plan{name: f.Name, base: f.Dirs, whole: whole}
		if len(f.Dirs) > 0 {
			p.cwds = []string{whole}
		}
		return p
	case CWDNone:
		name := f.Name
		if len(f.Dirs) > 0 && name != "" {
			name = whole + "/" + name
			if whole == "/" {
				name = "/" + f.Name
			}
		} else if name == "" {
			name = whole
		}
		return plan{name: name, whole: whole}
	}
	return plan{cwds: f.Dirs, name: f.Name, base: f.Dirs, whole: whole}
}

// run fetches f on the session s, which is logged in and free.
func (d *Driver) run(ctx context.Context, req *fetch.Request, s *session, f *uri.FTP, p plan) (*fetch.Response, error) {
	if !req.Head && f.Type != 'd' && f.Name != "" {
		return d.retrieve(ctx, req, s, f, p) // its CWDs go with TYPE and SIZE
	}
	if err := s.chdir(p.cwds); err != nil {
		return nil, err
	}
	switch {
	case req.Head:
		return d.head(ctx, req, s, f, p)
	case f.Type == 'd':
		return d.nameList(ctx, req, s, f, p)
	case f.Name == "":
		dirs := f.Dirs
		arg := ""
		if d.CWDMethod == CWDNone {
			arg = p.name
		}
		return d.list(ctx, req, s, f, dirs, arg)
	}
	return d.retrieve(ctx, req, s, f, p)
}

// The transfer types of RFC 959 section 3.1.1 that URLs ask for.
const (
	typeASCII  = 'A'
	typeBinary = 'I'
)

// retrieve sends TYPE, SIZE, MDTM, REST and RETR for the name (SIZE and
// MDTM when wanted, see the package comment); a name that RETR refuses
// with 550 but CWD accepts is listed instead.
//
// The commands up to RETR do not depend on each other's replies, so they
// go out in one write and their replies come back in one round trip (RFC
// 959 lets a client send commands without waiting; lftp calls this
// "sync-mode off"). The data connection's EPSV joins them, and its RETR
// too once a data connection worked on this control connection and no
// REST must come between: the server then waits for the connection that
// the client opens when it reads the EPSV reply.
func (d *Driver) retrieve(ctx context.Context, req *fetch.Request, s *session, f *uri.FTP, p plan) (*fetch.Response, error) {
	// The CWDs go out with the commands after them, whose replies do
	// not depend on theirs (RFC 959 keeps the order): a round trip less
	// for a file in a directory. Only RETR waits for them, since in
	// another directory it would fetch another file.
	var cwds []string
	var back bool
	if d.NoPipelining {
		if err := s.chdir(p.cwds); err != nil {
			return nil, err
		}
	} else {
		var err error
		if cwds, back, err = s.route(p.cwds); err != nil {
			return nil, err
		}
	}
	typ := transferType(f)
	off := restOffset(req, typ)
	// A server that gives the size in its 150 reply (seen on this
	// connection) is not asked for it; wget reads the size there too. In
	// ASCII mode the size the server gives is not what the conversion
	// yields: no Length then.
	askSize := typ == typeBinary && !(s.sizeIn150 && off == 0)
	askTime := d.askModTime(s)
	retr := "RETR " + p.name
	var batch []string
	for _, dir := range cwds {
		batch = append(batch, "CWD "+dir)
	}
	if s.typ != typ {
		batch = append(batch, "TYPE "+string(rune(typ)))
	}
	if askSize {
		batch = append(batch, "SIZE "+p.name)
	}
	if askTime {
		batch = append(batch, "MDTM "+p.name)
	}
	retrAhead := false
	if off == 0 {
		if s.feat.pret {
			batch = append(batch, "PRET "+retr)
		}
		batch = append(batch, s.dataCommand())
		retrAhead = s.dataOK && !d.NoPipelining && len(cwds) == 0
		if retrAhead {
			batch = append(batch, retr)
		}
	}
	if err := s.plan(batch...); err != nil {
		return nil, err
	}
	if err := s.arrive(cwds, back); err != nil {
		return nil, err
	}
	if err := s.setType(typ); err != nil {
		return nil, err
	}
	size := int64(-1)
	if askSize {
		var err error
		if size, err = s.size(p.name); err != nil {
			return nil, err
		}
	}
	var modified time.Time
	if askTime {
		var err error
		if modified, err = s.modTime(p.name); err != nil {
			return nil, err
		}
	}
	if size >= 0 && off > size {
		return nil, fmt.Errorf("ftp: cannot resume %s at byte %d: it has %d bytes", p.name, off, size)
	}
	off, err := s.rest(req, off)
	if err != nil {
		return nil, err
	}
	r, err := s.open(ctx, req, retr, retrAhead)
	if err != nil {
		return d.listIfDir(ctx, req, s, f, p.name, err)
	}
	if typ == typeBinary && off == 0 {
		size = s.size150(size, askSize)
	}
	want := int64(-1)
	if size >= 0 {
		want = size - off
	}
	resp := &fetch.Response{
		Kind:     fetch.Document,
		Type:     mediaType(f.Name, typ),
		Length:   want,
		Offset:   off,
		Modified: modified,
		Meta:     fetch.Meta{"Ftp-Reply": {s.lastPrelim}},
		Status:   s.lastPrelim,
	}
	resp.Body = d.retrBody(ctx, s, r, typ, want, retr)
	return resp, nil
}

// dataCommand is the command that opens a data connection: EPSV (RFC
// 2428), or PASV when the Driver says so or the server refused EPSV.
func (s *session) dataCommand() string {
	if s.d.DisableEPSV || s.usePASV {
		return "PASV"
	}
	return "EPSV"
}

// transferType is the TYPE of f: A for ";type=a", else I (RFC 1738
// section 3.2.2).
func transferType(f *uri.FTP) byte {
	if f.Type == 'a' {
		return typeASCII
	}
	return typeBinary
}

// restOffset is where RETR starts: req.Offset, but byte 0 in ASCII mode,
// whose bytes on the server are not those the conversion yields.
func restOffset(req *fetch.Request, typ byte) int64 {
	off := req.Offset
	if off < 0 || typ == typeASCII {
		if off > 0 {
			req.Tracef(fetch.Note, "no REST in ASCII mode: starting at byte 0")
		}
		off = 0
	}
	return off
}

// size asks the server for name's size with SIZE: -1 when it refuses, or
// gives a number no file has (unknown, not an error).
func (s *session) size(name string) (int64, error) {
	rp, err := s.expect("SIZE "+name, 213)
	switch {
	case err == nil:
		n := parseSize(rp.Msg)
		if n < 0 {
			s.note("the reply to SIZE gives no size (%q)", clipReply(rp.Line))
		}
		return n, nil
	case refused(err):
		return -1, nil
	}
	return -1, err
}

// modTime asks the server for name's modification time with MDTM: the
// zero time when it refuses.
func (s *session) modTime(name string) (time.Time, error) {
	rp, err := s.expect("MDTM "+name, 213)
	switch {
	case err == nil:
		t, ok := parseMDTM(rp.Msg)
		if !ok {
			s.note("the reply to MDTM gives no time (%q)", clipReply(rp.Line))
		}
		return t, nil
	case refused(err):
		return time.Time{}, nil
	}
	return time.Time{}, err
}

// askModTime says whether retrieve sends MDTM: the server has it (FEAT)
// and the caller wants the time.
func (d *Driver) askModTime(s *session) bool {
	return !d.SkipModTime && s.feat.mdtm
}

// rest sends REST off when off > 0 and returns the byte the transfer
// starts at. A server that refuses REST (RFC 959 does not require it)
// sends the whole file: better than none.
func (s *session) rest(req *fetch.Request, off int64) (int64, error) {
	if off == 0 {
		return 0, nil
	}
	_, err := s.expect("REST "+strconv.FormatInt(off, 10), 350)
	switch {
	case err == nil:
		return off, nil
	case refused(err):
		req.Tracef(fetch.Note, "the server refused REST: starting at byte 0")
		return 0, nil
	}
	return 0, err
}

// listIfDir returns the error of a RETR name that failed with err, or,
// when the server refused it with 550 and accepts CWD name, the listing
// of that directory: the URL named it without its final "/".
func (d *Driver) listIfDir(ctx context.Context, req *fetch.Request, s *session, f *uri.FTP, name string, err error) (*fetch.Response, error) {
	var re *ReplyError
	if !errors.As(err, &re) || re.Code != StatusFileUnavailable || s.broken || len(s.pending) > 0 {
		return nil, err
	}
	if _, cerr := s.cwd(name); cerr != nil {
		if refused(cerr) {
			return nil, err
		}
		return nil, cerr
	}
	s.at = append(s.at, name)
	return d.list(ctx, req, s, f, append(append([]string(nil), f.Dirs...), f.Name), "")
}

// size150 reads the 150 reply to a binary RETR from byte 0 and returns
// the size: SIZE's when it was asked, else the reply's (-1 without one).
// It notes whether the reply's size may stand in for SIZE on the next
// RETR of the connection: when SIZE was asked, whether the two agree;
// when not, whether the reply had one.
func (s *session) size150(size int64, asked bool) int64 {
	n, ok := sizeOf150(s.lastPrelim)
	switch {
	case asked:
		s.sizeIn150 = ok && size >= 0 && n == size
	case ok:
		size = n
	default:
		s.sizeIn150 = false // and the Length is unknown this once
	}
	return size
}

// sizeOf150 reads the size at the end of a 150 reply, "150 Opening BINARY
// mode data connection for NAME (N bytes)."; the last parenthesis, since
// the name may hold one of its own.
func sizeOf150(line string) (int64, bool) {
	line = strings.TrimSuffix(strings.TrimSpace(line), ".")
	rest, ok := strings.CutSuffix(line, " bytes)")
	if !ok || !strings.HasPrefix(line, "150 ") {
		return 0, false
	}
	i := strings.LastIndexByte(rest, '(')
	if i < 0 {
		return 0, false
	}
	n, err := strconv.ParseInt(rest[i+1:], 10, 64)
	if err != nil || n < 0 {
		return 0, false
	}
	return n, true
}

// retrBody returns the Body of RETR name's data connection r, holding
// want bytes (-1: unknown); in ASCII mode the CRLF line ends become "\n".
func (d *Driver) retrBody(ctx context.Context, s *session, r net.Conn, typ byte, want int64, cmd string) io.ReadCloser {
	var src io.Reader = r
	if typ == typeASCII {
		src = newCRLFReader(r)
	}
	return d.newBody(ctx, s, r, src, want, cmd)
}

// refused reports whether err is a permanent negative reply (5xx) to a
// command: the connection is fine, the command was not.
func refused(err error) bool {
	var re *ReplyError
	return errors.As(err, &re) && re.Code >= 500 && re.Code < 600 && !sessionDied(re.Code, re.Msg)
}

// stale reports whether err, met on a reused connection before its
// transfer started, says the connection rather than the URL failed: the
// server closed it while it was idle, or timed it out (421).
func stale(err error) bool {
	var re *ReplyError
	if errors.As(err, &re) {
		return re.Code == StatusNotAvailable
	}
	return errors.Is(err, errStale) || fetch.ConnBroken(err)
}

// errStale: a reused connection could not get back to its entry
// directory.
var errStale = errors.New("ftp: cannot return to the entry directory")

// replyKind is the fetch kind of a reply code.
func replyKind(code int, msg string) error {
	if sessionDied(code, msg) {
		return fetch.ErrConnect
	}
	switch code {
	case StatusNotLoggedIn, StatusNeedAccount:
		return fetch.ErrAuth
	case StatusFileUnavailable:
		return fetch.ErrNotFound
	case StatusNotAvailable:
		return fetch.ErrConnect
	}
	return nil
}

// newBody returns the Body of a transfer: src, the data connection r
// (RETR, LIST, MLSD or NLST: cmd, for errors), perhaps converted. At its
// end it checks the byte count against want (-1: unknown), reads the
// final reply (226) and gives the control connection back; a transfer
// that breaks, or is closed before its end, drops the control connection
// too, since the server's reply to it is not worth waiting for.
func (d *Driver) newBody(ctx context.Context, s *session, r net.Conn, src io.Reader, want int64, cmd string) io.ReadCloser {
	c := &fetch.CountingReader{R: src}
	abort := func() {
		r.Close()
		s.broken = true
		s.close()
	}
	finish := func() error {
		if want >= 0 && c.N != want {
			// Fewer bytes than SIZE (or the 150) said: the transfer broke
			// off, and a retry may resume it. More: the server is wrong.
			kind := fetch.ErrConnect
			if c.N > want {
				kind = fetch.ErrProtocol
			}
			abort()
			return fetch.Errorf(kind, "ftp: %s: the data connection closed after %d of %d bytes", fetch.MaskLine(cmd, nil), c.N, want)
		}
		r.Close()
		_, err := s.expect(cmd, 226, 250)
		d.release(s, err)
		if err != nil {
			return err
		}
		return io.EOF
	}
	return fetch.NewBody(ctx, c, fetch.BodyFuncs{
		End: func(err error) error {
			if err == io.EOF {
				return finish()
			}
			abort()
			return s.ioError(cmd, err)
		},
		Close: func(ended bool) error {
			switch {
			case ended:
			case want >= 0 && c.N == want:
				// All bytes are in; only the end of the stream is
				// unread: the exchange can still end well.
				if err := finish(); err != io.EOF {
					return err
				}
			default:
				abort()
			}
			return nil
		},
	})
}
