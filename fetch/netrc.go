package fetch

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// Netrc is a parsed netrc file: the machine entries in order and the
// default entry, if any.
type Netrc struct {
	Machines []NetrcEntry
	Default  *NetrcEntry
}

// NetrcEntry is one "machine" (or "default") entry.
type NetrcEntry struct {
	Machine  string // "" for the default entry
	Login    string
	Password string
	Account  string
}

// ParseNetrc reads a netrc file: whitespace-separated tokens "machine
// NAME", "default", "login NAME", "password SECRET", "account NAME" and
// "macdef NAME" (whose macro body, up to an empty line, is skipped). A
// token may be quoted with double quotes, with backslash escapes.
func ParseNetrc(r io.Reader) (*Netrc, error) {
	toks, err := netrcTokens(r)
	if err != nil {
		return nil, err
	}
	n := &Netrc{}
	var cur *NetrcEntry
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		next := func() (string, error) {
			if i+1 >= len(toks) || toks[i+1].macro {
				return "", fmt.Errorf("netrc: line %d: %q needs a value", t.line, t.text)
			}
			i++
			return toks[i].text, nil
		}
		if t.macro {
			continue
		}
		switch t.text {
		case "machine":
			name, err := next()
			if err != nil {
				return nil, err
			}
			n.Machines = append(n.Machines, NetrcEntry{Machine: name})
			cur = &n.Machines[len(n.Machines)-1]
		case "default":
			n.Default = &NetrcEntry{}
			cur = n.Default
		case "login", "password", "account":
			v, err := next()
			if err != nil {
				return nil, err
			}
			if cur == nil {
				return nil, fmt.Errorf("netrc: line %d: %q before any machine", t.line, t.text)
			}
			switch t.text {
			case "login":
				cur.Login = v
			case "password":
				cur.Password = v
			default:
				cur.Account = v
			}
		case "macdef":
			if _, err := next(); err != nil {
				return nil, err
			}
		default:
			return nil, fmt.Errorf("netrc: line %d: unknown token %q", t.line, t.text)
		}
	}
	return n, nil
}

type netrcToken struct {
	text  string
	line  int
	macro bool // a line of a macdef body
}

// netrcTokens splits the file into tokens, marking macdef bodies.
func netrcTokens(r io.Reader) ([]netrcToken, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 4096), 1<<20)
	var toks []netrcToken
	inMacro, wantMacroName := false, false
	for line := 1; sc.Scan(); line++ {
		text := sc.Text()
		if inMacro {
			if strings.TrimSpace(text) == "" {
				inMacro = false
			} else {
				toks = append(toks, netrcToken{text: text, line: line, macro: true})
			}
			continue
		}
		rest := text
		for {
			rest = strings.TrimLeft(rest, " \t\r")
			if rest == "" || rest[0] == '#' {
				break
			}
			var tok string
			if rest[0] == '"' {
				var b strings.Builder
				i := 1
				for ; i < len(rest) && rest[i] != '"'; i++ {
					if rest[i] == '\\' && i+1 < len(rest) {
						i++
					}
					b.WriteByte(rest[i])
				}
				if i >= len(rest) {
					return nil, fmt.Errorf("netrc: line %d: unterminated quote", line)
				}
				tok, rest = b.String(), rest[i+1:]
			} else {
				end := strings.IndexAny(rest, " \t\r")
				if end < 0 {
					end = len(rest)
				}
				tok, rest = rest[:end], rest[end:]
			}
			toks = append(toks, netrcToken{text: tok, line: line})
			if wantMacroName {
				wantMacroName = false
				inMacro = true
				break // the body starts on the next line
			}
			if tok == "macdef" {
				wantMacroName = true
			}
		}
	}
	return toks, sc.Err()
}

// Lookup finds the entry for host: the first machine entry with that name
// (and, if user is not "", that login), else the default entry.
func (n *Netrc) Lookup(host, user string) (NetrcEntry, bool) {
	for _, m := range n.Machines {
		if strings.EqualFold(m.Machine, host) && (user == "" || m.Login == "" || m.Login == user) {
			return m, true
		}
	}
	if n.Default != nil && (user == "" || n.Default.Login == "" || n.Default.Login == user) {
		return *n.Default, true
	}
	return NetrcEntry{}, false
}

// netrcFile returns the Client's parsed netrc file, or nil when there is
// none. A file that cannot be parsed is an error; a missing one is not.
func (c *Client) netrcFile() (*Netrc, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.netrcOK {
		return c.netrc, nil
	}
	path := c.NetrcFile
	if path == "-" {
		c.netrcOK = true
		return nil, nil
	}
	explicit := path != ""
	if path == "" {
		path = os.Getenv("NETRC")
		explicit = path != ""
	}
	if path == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			c.netrcOK = true
			return nil, nil
		}
		path = filepath.Join(home, ".netrc")
	}
	f, err := os.Open(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) && !explicit {
			c.netrcOK = true
			return nil, nil
		}
		return nil, fmt.Errorf("netrc: %w", err)
	}
	defer f.Close()
	n, err := ParseNetrc(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	c.netrc, c.netrcOK = n, true
	return n, nil
}

// NetrcLogin returns the login and password netrc has for host (and user,
// when not ""). The password becomes a secret of the request. The default
// entry, which names no host, is used only for a host the user chose
// (UserHost): a server that redirects elsewhere gets no password the user
// did not store for its host.
func (r *Request) NetrcLogin(host, user string) (login, password string, ok bool, err error) {
	n, err := r.cl().netrcFile()
	if err != nil || n == nil {
		return "", "", false, err
	}
	e, ok := n.Lookup(host, user)
	if !ok || e.Machine == "" && !r.UserHost(host) {
		return "", "", false, nil
	}
	r.AddSecret(e.Password)
	return e.Login, e.Password, true, nil
}

// Password finds the password of user at host when the URL gives none:
// from netrc, else from the Client's prompt. Without either it returns an
// ErrAuth error that says how to give one. The prompt is never used for a
// URL a server chose (a Request with a Hop): a server must not be able to
// make the user type a password for a host it picked.
func (r *Request) Password(ctx context.Context, host, user string) (string, error) {
	if login, pw, ok, err := r.NetrcLogin(host, user); err != nil {
		return "", Errorf(ErrAuth, "reading netrc: %w", err)
	} else if ok && pw != "" && (login == "" || login == user) {
		return pw, nil
	}
	if r.Hop != nil {
		return "", Errorf(ErrAuth, "%s@%s needs a password, and a server chose this URL (%s): no password is asked for it; store one for %s in ~/.netrc to allow it", user, host, r.Hop, host)
	}
	prompt := r.cl().Prompt
	if prompt == nil {
		return "", Errorf(ErrAuth, "%s@%s needs a password: give it in the URL (user:password@) or in ~/.netrc; there is no terminal to ask", user, host)
	}
	pw, err := prompt(ctx, fmt.Sprintf("Password for %s@%s: ", user, host))
	if err != nil {
		return "", Errorf(ErrAuth, "asking for the password of %s@%s: %w", user, host, err)
	}
	r.AddSecret(pw)
	return pw, nil
}
