package fetch

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/urlfetch/urlfetch/uri"
)

// A Request is one URL to fetch and what its driver needs of the Client:
// the dial path, the trace and the credentials.
type Request struct {
	URL *uri.URL
	// Offset asks for the resource from this byte on (resume). A driver
	// that cannot start there starts at 0 and says so in Response.Offset.
	Offset int64
	// Input is what the request sends: the message of a mailto URL, the
	// keyboard of a telnet session.
	Input io.Reader

	client  *Client
	secrets []string
}

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
	if p, ok := u.PasswordValue(); ok {
		r.AddSecret(p)
		r.AddSecret(u.Password)
	}
	return r
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
	port := u.PortNumber()
	if err := r.cl().checkPort(u.Scheme, port); err != nil {
		return nil, err
	}
	return r.DialAddr(ctx, hostport(u.Host, port))
}

// DialAddr connects to addr (host:port) through the Client's dial path
// without checking the port policy itself: for an FTP data connection, or
// a server the user configured (the news server of news: URLs, the SMTP
// server of mailto: URLs). The drivers call CheckPort for those first,
// with the scheme whose policy applies.
func (r *Request) DialAddr(ctx context.Context, addr string) (*Conn, error) {
	r.Tracef(Note, "connecting to %s", addr)
	return r.cl().dial(ctx, "tcp", addr)
}

// SplitAddr parses "host" or "host:port" as a user writes a server's
// address, with a default port.
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
// commands that carry one (PASS, AUTHINFO PASS, AUTH PLAIN) and every
// occurrence of a known secret.
func MaskLine(line string, secrets []string) string {
	for _, cmd := range passwordCommands {
		if len(line) >= len(cmd) && strings.EqualFold(line[:len(cmd)], cmd) {
			return line[:len(cmd)] + "***"
		}
	}
	return maskSecrets(line, secrets)
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

// CheckPort applies the Client's port policy to a port a driver is about
// to connect to for scheme (an HTTP redirect's target, say).
func (r *Request) CheckPort(scheme string, port int) error {
	return r.cl().checkPort(scheme, port)
}

// Redirect fetches rawURL through the Client, for a driver sent elsewhere
// by its server: an HTTP redirect to an ftp: URL. The port policy applies
// to the new URL as to any other.
func (r *Request) Redirect(ctx context.Context, rawURL string) (*Response, error) {
	next, err := r.cl().NewRequest(rawURL)
	if err != nil {
		return nil, err
	}
	next.Offset = r.Offset
	next.secrets = append(next.secrets, r.secrets...)
	return r.cl().Do(ctx, next)
}
