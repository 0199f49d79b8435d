// Package netrc reads netrc files, where ftp(1) and curl find the logins
// and passwords of machines: the fetch Client reads the user's to log in
// where a URL names a user but no password.
package netrc

import (
	"bufio"
	"fmt"
	"io"
	"strings"

	"github.com/urlfetch/urlfetch/uri"
)

// File is a parsed netrc file: the machine entries in order and the
// default entry, if any.
type File struct {
	Machines []Entry
	Default  *Entry
}

// Entry is one "machine" (or "default") entry.
type Entry struct {
	Machine  string // "" for the default entry
	Login    string
	Password string
	Account  string
}

// Parse reads a netrc file: whitespace-separated tokens "machine
// NAME", "default", "login NAME", "password SECRET", "account NAME" and
// "macdef NAME" (whose macro body, up to an empty line, is skipped). A
// token may be quoted with double quotes, with backslash escapes.
func Parse(r io.Reader) (*File, error) {
	toks, err := tokens(r)
	if err != nil {
		return nil, err
	}
	n := &File{}
	var cur *Entry
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
			n.Machines = append(n.Machines, Entry{Machine: name})
			cur = &n.Machines[len(n.Machines)-1]
		case "default":
			n.Default = &Entry{}
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

type token struct {
	text  string
	line  int
	macro bool // a line of a macdef body
}

// tokens splits the file into tokens, marking macdef bodies.
func tokens(r io.Reader) ([]token, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 4096), 1<<20)
	var toks []token
	inMacro, wantMacroName := false, false
	for line := 1; sc.Scan(); line++ {
		text := sc.Text()
		if inMacro {
			if strings.TrimSpace(text) == "" {
				inMacro = false
			} else {
				toks = append(toks, token{text: text, line: line, macro: true})
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
			toks = append(toks, token{text: tok, line: line})
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
// (and, if user is not "", that login), else the default entry. A name
// in Unicode and its A-labels are one name (uri.SameHost).
func (n *File) Lookup(host, user string) (Entry, bool) {
	for _, m := range n.Machines {
		if uri.SameHost(m.Machine, host) && (user == "" || m.Login == "" || m.Login == user) {
			return m, true
		}
	}
	if n.Default != nil && (user == "" || n.Default.Login == "" || n.Default.Login == user) {
		return *n.Default, true
	}
	return Entry{}, false
}
