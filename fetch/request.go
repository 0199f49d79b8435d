package fetch

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"strings"

	"github.com/urlfetch/urlfetch/uri"
)

// A Request is one URL to fetch and what its driver needs of the Client:
// the dial path, the trace, the credentials, and the Client's decisions
// about this URL (Gateway, Hop), which the driver takes as given.
type Request struct {
	URL *uri.URL
	// Offset asks for the resource from this byte on (resume). A driver
	// that cannot start there starts at 0 and says so in Response.Offset.
	Offset int64
	// Head asks for the resource's metadata only, as HTTP's HEAD method
	// does (RFC 9110 section 9.3.2): the driver asks the server what it
	// can say of the resource without transferring it (FTP SIZE and
	// MDTM, HTTP HEAD, Gopher+ "!", NNTP HEAD or GROUP, a stat of a
	// file, a WAIS source description) and returns a Response of the
	// Kind, Type, Length and Modified a fetch would have, its Meta and
	// Status, and an empty Body, whose Close still finishes the exchange.
	// Length is what the Body of a fetch would yield, -1 when the
	// protocol cannot say; Offset is ignored. A scheme that has no
	// metadata to ask for (mailto, telnet) fails with ErrUnsupported. A
	// redirect is followed as for a fetch, with Head kept; Follow does
	// not keep it.
	Head bool
	// Raw asks for the server's own bytes where a driver would give a
	// rendering of them: a Gopher+ attribute block as the server sent
	// it, rather than laid out for people. (A Listing's Body is always
	// the server's bytes; its entries are parsed from them.)
	Raw bool
	// Input is what the request sends: the message of a mailto URL, the
	// keyboard of a telnet session. A Request that Follow makes has none.
	Input io.Reader

	// Gateway is the HTTP gateway (proxy) that Do chose for URL (RFC
	// 1738 section 4), or nil to fetch it directly. Do sets it on the
	// Request it hands the driver; a value the caller sets is replaced.
	Gateway *url.URL
	// Hop is nil for a URL the user gave. For a URL a server chose (the
	// target of a redirect, a listing's entry, a link) it says which, and
	// Do checks it with Client.CheckHop before anything is sent. A driver
	// given a Request with a Hop asks the user nothing (no password, no
	// search words, no form), and sends what is the user's only to the
	// user's own host (see UserHost).
	Hop *Hop

	client     *Client
	secrets    []string
	origin     *uri.URL // the URL the user gave, where a chain of hops began
	hopChecked bool     // CheckHop has passed Hop (Do's redirect loop)
	// creds are the credentials Credentials found for the user's URL,
	// which hops on its server (UserOrigin) present again: a password
	// asked for once is not asked for at each redirect.
	creds *credentials
}

// credentials are a user and password, found or given.
type credentials struct{ user, password string }

// NewRequest returns a Request for u that uses the settings of c; a nil c
// means a zero Client. Drivers used without a Client get their Request
// from here.
func NewRequest(c *Client, u *uri.URL) *Request {
	if c == nil {
		c = &Client{}
	}
	r := &Request{URL: u, client: c}
	if u == nil {
		return r
	}
	r.addURLSecrets(u)
	return r
}

// addURLSecrets records u's password to mask in every form it may take
// in a line: decoded, as written, and as its URI writes it (an IRI's
// "pässe" is "p%C3%A4sse" in a gateway's request line).
func (r *Request) addURLSecrets(u *uri.URL) {
	p, ok := u.PasswordValue()
	if !ok {
		return
	}
	r.AddSecret(p)
	r.AddSecret(u.Password)
	if a, err := u.URI(); err == nil && a.Password != u.Password {
		r.AddSecret(a.Password)
	}
}

// Follow returns the Request for to, a URL that the server chose in its
// reply to r: a redirect's target, a listing's entry, a link. Do checks it
// with Client.CheckHop before anything is sent. It keeps r's Client, the
// secrets to mask and the URL where the chain began; it has no Input, no
// Offset and no Head.
func (r *Request) Follow(kind HopKind, to *uri.URL) *Request {
	next := NewRequest(r.cl(), to)
	next.Hop = &Hop{Kind: kind, From: r.URL, To: to}
	next.secrets = append(next.secrets, r.secrets...)
	next.origin = r.originURL()
	next.creds = r.creds
	return next
}

// originURL is the URL the user gave at the start of r's chain of hops.
func (r *Request) originURL() *uri.URL {
	if r.origin != nil {
		return r.origin
	}
	return r.URL
}

// clone is the copy of r that Do works on, so that it writes nothing into
// its caller's Request.
func (r *Request) clone(c *Client) *Request {
	n := *r
	if n.client == nil {
		n.client = c
	}
	n.secrets = append([]string(nil), r.secrets...)
	n.addURLSecrets(r.URL)
	if n.Hop != nil {
		h := *n.Hop
		n.Hop = &h
	}
	return &n
}

// UserHost reports whether host is one the user chose: always for the URL
// the user gave; for one a server chose (a Request with a Hop), only when
// host is the host of the user's URL. Credentials and what else is the
// user's (the e-mail address of an anonymous FTP login, a netrc default
// entry) go only to such a host; NetrcLogin and Password apply the rule
// themselves.
func (r *Request) UserHost(host string) bool {
	if r.Hop == nil {
		return true
	}
	return host != "" && uri.SameHost(host, r.originURL().Host)
}

// UserOrigin reports whether what the user gave for the URL they asked
// for (its user and password, the Client's Login, netrc's entry for its
// host, header fields of their own) may go with r: always for that URL
// itself; for a URL a server chose (a Request with a Hop), only on the
// same server: the same scheme, host and port, as curl decides since
// CVE-2022-27776 (another port of a host can be another user's server).
// One change is allowed: from http on port 80 to https on port 443 of
// the same host, a server moving the user to TLS, which protects what
// the first request already sent in clear.
func (r *Request) UserOrigin() bool {
	if r.Hop == nil {
		return true
	}
	o, u := r.originURL(), r.URL
	if !uri.SameHost(o.Host, u.Host) || u.Host == "" {
		return false
	}
	if o.Scheme == u.Scheme && o.PortNumber() == u.PortNumber() {
		return true
	}
	return o.Scheme == "http" && o.PortNumber() == 80 && u.Scheme == "https" && u.PortNumber() == 443
}

// LoginUser returns the user of the Client's Login (curl's -u) when it
// may go with r (UserOrigin): a driver whose URL names no user logs in as
// that user rather than by its scheme's default (anonymous FTP), and
// Credentials gives the password.
func (r *Request) LoginUser() (string, bool) {
	l := r.cl().Login
	if l == nil || !r.UserOrigin() {
		return "", false
	}
	return l.Username(), true
}

func (r *Request) cl() *Client {
	if r.client == nil {
		r.client = &Client{}
	}
	return r.client
}

// Dial connects to the URL's host and port (the scheme's default port when
// the URL names none) through the Client's dial path. The port policy
// applies.
func (r *Request) Dial(ctx context.Context) (*Conn, error) {
	u := r.URL
	return r.DialAddr(ctx, u.Scheme, hostport(u.Host, u.PortNumber()))
}

// DialAddr connects to addr (host:port) through the Client's dial path,
// with the port policy of scheme applied to addr's port: for an FTP data
// connection ("ftp"), a server the user configured (the news server of
// news: URLs, "nntp"; the SMTP server of mailto: URLs, "mailto"), an HTTP
// gateway ("http").
//
// A host name in Unicode (an IRI's, RFC 3987) is dialed by its A-labels
// (uri.ASCIIHost, IDNA) and named in Unicode in the trace and in errors;
// one that IDNA refuses is ErrURL.
func (r *Request) DialAddr(ctx context.Context, scheme, addr string) (*Conn, error) {
	host, p, err := splitHostPort(addr, 0)
	if err != nil {
		return nil, Errorf(ErrURL, "%v", err)
	}
	if p != 0 {
		if err := r.cl().checkPort(scheme, p); err != nil {
			return nil, err
		}
	}
	wire, shown, err := dialNames(addr, host, p)
	if err != nil {
		return nil, err
	}
	if wire != shown {
		r.Tracef(Note, "connecting to %s (%s)", shown, wire)
	} else {
		r.Tracef(Note, "connecting to %s", shown)
	}
	return r.cl().dial(ctx, "tcp", wire, shown)
}

// dialNames returns the address to dial for addr, whose host and port
// (0 when it names none) are given, and the address to show a person:
// the host in A-labels for the one, in Unicode for the other.
func dialNames(addr, host string, port int) (wire, shown string, err error) {
	join := func(h string) string {
		if port == 0 {
			return h
		}
		return hostport(h, port)
	}
	wire, shown = addr, addr
	a, err := uri.ASCIIHost(host)
	if err != nil {
		var ue *uri.Error
		if errors.As(err, &ue) {
			return "", "", Errorf(ErrURL, "cannot connect to %s: %s", addr, ue.Reason)
		}
		return "", "", Errorf(ErrURL, "cannot connect to %s: %w", addr, err)
	}
	if a != host {
		wire = join(a)
	}
	if u := uri.UnicodeHost(host); u != host {
		shown = join(u)
	}
	return wire, shown, nil
}

// SplitAddr parses "host" or "host:port" as a user writes a server's
// address in a setting (the news server, the SMTP server), with a default
// port: the one parser of those settings, for the drivers that have them
// and the command that checks them before a fetch.
func SplitAddr(addr string, defaultPort int) (host string, port int, err error) {
	return splitHostPort(addr, defaultPort)
}

// AddSecret records a password the driver learned (from netrc, a prompt,
// its settings) so that traces and errors mask it.
func (r *Request) AddSecret(s string) {
	if s != "" {
		r.secrets = append(r.secrets, s)
	}
}

// Trace sends one protocol line to the Client's trace hook, passwords
// masked. A line with a trailing CRLF is traced without it.
func (r *Request) Trace(dir Direction, line string) {
	t := r.cl().Trace
	if t == nil {
		return
	}
	line = strings.TrimRight(line, "\r\n")
	t(dir, MaskLine(line, r.secrets))
}

// Tracef is Trace with a format.
func (r *Request) Tracef(dir Direction, format string, args ...any) {
	if r.cl().Trace != nil {
		r.Trace(dir, fmt.Sprintf(format, args...))
	}
}

// Tracing reports whether a trace hook is set, so a driver can skip
// building trace lines nobody reads.
func (r *Request) Tracing() bool { return r.cl().Trace != nil }

// passwordCommands are protocol lines whose argument is a password,
// masked whatever it is.
var passwordCommands = []string{"PASS ", "AUTHINFO PASS ", "AUTH PLAIN ", "AUTH LOGIN "}

// MaskLine hides passwords in a protocol line: the argument of the
// commands that carry one (PASS, AUTHINFO PASS, AUTH PLAIN, IMAP's tagged
// LOGIN and AUTHENTICATE) and every occurrence of a known secret. Trace
// applies it to every line; a driver that keeps a line for a message of
// its own (the FTP command a reply refused) applies it too.
func MaskLine(line string, secrets []string) string {
	for _, cmd := range passwordCommands {
		if len(line) >= len(cmd) && strings.EqualFold(line[:len(cmd)], cmd) {
			return line[:len(cmd)] + "***"
		}
	}
	if n := imapCredentials(line); n > 0 {
		return line[:n] + "***"
	}
	return maskSecrets(line, secrets)
}

// imapCommands are the IMAP commands (RFC 3501 section 6.2) whose
// arguments carry credentials: after the tag, LOGIN user password, and
// AUTHENTICATE mechanism with an initial response (RFC 4959).
var imapCommands = []string{"LOGIN ", "AUTHENTICATE "}

// imapCredentials returns where the credentials of an IMAP command line
// begin ("a1 LOGIN " is kept, the user and password are not: a user
// written as a literal or a quoted string cannot be told from the
// password without parsing it), or 0 when line is no such command. A tag
// is taken to be a letter and then letters and digits, as clients write
// them ("a1", "A0001"), so that a reply ("530 login incorrect") is none.
func imapCredentials(line string) int {
	sp := strings.IndexByte(line, ' ')
	if sp <= 0 || !(line[0] >= 'a' && line[0] <= 'z' || line[0] >= 'A' && line[0] <= 'Z') {
		return 0
	}
	for i := 0; i < sp; i++ {
		if c := line[i]; !(c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
			return 0
		}
	}
	rest := line[sp+1:]
	for _, cmd := range imapCommands {
		if len(rest) >= len(cmd) && strings.EqualFold(rest[:len(cmd)], cmd) {
			return sp + 1 + len(cmd)
		}
	}
	return 0
}

// CheckLine refuses a decoded URL value that would smuggle a line break or
// NUL into a protocol line (RFC 1738 section 6). component names the
// value in the error: "ftp path segment", "gopher selector".
func CheckLine(component, value string) error {
	if i := strings.IndexAny(value, "\r\n\x00"); i >= 0 {
		what := map[byte]string{'\r': "CR", '\n': "LF", 0: "NUL"}[value[i]]
		return Errorf(ErrUnsafe, "%s contains a decoded %s at byte %d; refusing to send it in a protocol line", component, what, i)
	}
	return nil
}
