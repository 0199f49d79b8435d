package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/urfave/cli/v2"
	"github.com/urlfetch/urlfetch/uri"
	"golang.org/x/text/width"
)

// The sub-commands work on URLs without fetching them.

func parseCommand(stdout io.Writer) *cli.Command {
	return &cli.Command{
		Name:      "parse",
		Usage:     "show every part of a URL, generic and scheme-specific",
		ArgsUsage: "URL",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "json", Usage: "print one JSON object"},
			&cli.BoolFlag{Name: "strict", Usage: "print every departure from RFC 1738 (offset, section, fix), " +
				"nothing if there is none; exit 3 if there are any"},
		},
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return cli.Exit("parse takes one URL", exitUsage)
			}
			raw := c.Args().First()
			u, err := uri.Parse(raw)
			if err != nil {
				return cli.Exit(explainParseError(raw, err), exitURL)
			}
			if c.Bool("strict") {
				return printStrict(stdout, u, c.Bool("json"))
			}
			p := describe(u)
			if c.Bool("json") {
				return json.NewEncoder(stdout).Encode(p)
			}
			printParts(stdout, p)
			return nil
		},
	}
}

// printStrict writes where u departs from RFC 1738 (issue 25): one line
// each, or one JSON object; a URL with departures is exit 3.
func printStrict(w io.Writer, u *uri.URL, asJSON bool) error {
	ds := u.Strict()
	if asJSON {
		type departure struct {
			Offset  int    `json:"offset"`
			Section string `json:"section"`
			Rule    string `json:"rule"`
			Fix     string `json:"fix"`
		}
		out := struct {
			URL        string      `json:"url"`
			Departures []departure `json:"departures"`
		}{URL: u.Redacted(), Departures: []departure{}}
		for _, d := range ds {
			out.Departures = append(out.Departures, departure(d))
		}
		if err := json.NewEncoder(w).Encode(out); err != nil {
			return err
		}
	} else {
		for _, d := range ds {
			fmt.Fprintln(w, d)
		}
	}
	switch len(ds) {
	case 0:
		return nil
	case 1:
		return cli.Exit(u.Redacted()+": 1 departure from RFC 1738", exitURL)
	}
	return cli.Exit(fmt.Sprintf("%s: %d departures from RFC 1738", u.Redacted(), len(ds)), exitURL)
}

// explainParseError says what is wrong with raw, points at the offending
// byte when that shows no password, and suggests the cleaned-up URL.
func explainParseError(raw string, err error) string {
	msg := err.Error()
	var ue *uri.Error
	if !errors.As(err, &ue) {
		return msg
	}
	if ue.Offset >= 0 && ue.MaskedInput() == raw && !strings.ContainsAny(raw, "\r\n") {
		line, col := printable(raw), columns(printable(raw[:ue.Offset]))
		msg += "\n  " + line + "\n  " + strings.Repeat(" ", col) + "^"
	}
	if fixed, _, ferr := uri.ParseLenient(raw); ferr == nil && fixed.String() != raw {
		msg += "\n  did you mean: " + fixed.Redacted()
	}
	return msg
}

// printable shows raw for a terminal: printable characters, those of an
// IRI in Unicode included, as themselves; control characters, the
// formatting ones (bidirectional overrides) and bytes that are not UTF-8
// as \xXX escapes, one for each byte.
func printable(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n <= 1 || !unicode.IsPrint(r) {
			for _, c := range []byte(s[i : i+n]) {
				fmt.Fprintf(&b, "\\x%02X", c)
			}
		} else {
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

// columns is how many terminal columns printable's s takes: two for an
// East Asian wide character, none for a combining mark, one for others.
func columns(s string) int {
	n := 0
	for _, r := range s {
		switch k := width.LookupRune(r).Kind(); {
		case unicode.Is(unicode.Mn, r):
		case k == width.EastAsianWide || k == width.EastAsianFullwidth:
			n += 2
		default:
			n++
		}
	}
	return n
}

// parts is what `fetch parse` shows of a URL.
type parts struct {
	URL         string `json:"url"`
	Scheme      string `json:"scheme"`
	User        string `json:"user,omitempty"`
	HasUser     bool   `json:"has_user,omitempty"`
	Password    string `json:"password,omitempty"`
	Host        string `json:"host,omitempty"`
	Port        int    `json:"port,omitempty"`
	DefaultPort bool   `json:"default_port,omitempty"`
	Path        string `json:"path,omitempty"`
	Query       string `json:"query,omitempty"`
	Fragment    string `json:"fragment,omitempty"`
	// URI is the URL as it goes on the wire, when that is not as
	// written: the URI of an IRI (RFC 3987 section 3.1), its host in
	// A-labels (IDNA).
	URI       string `json:"uri,omitempty"`
	ASCIIHost string `json:"ascii_host,omitempty"`
	View      any    `json:"view,omitempty"`
	ViewError string `json:"view_error,omitempty"`
}

func describe(u *uri.URL) parts {
	p := parts{
		URL: u.Redacted(), Scheme: u.Scheme, User: u.Username(), HasUser: u.HasUser,
		Host: u.Host, Path: u.Path, Query: u.RawQuery, Fragment: u.Fragment,
	}
	if u.HasPassword {
		p.Password = "***"
	}
	if a, err := u.URI(); err == nil && a.String() != u.String() {
		p.URI = a.Redacted()
		if a.Host != u.Host {
			p.ASCIIHost = a.Host
		}
	}
	if u.Authority {
		p.Port = u.PortNumber()
		p.DefaultPort = u.Port == 0
	}
	view, err := viewOf(u)
	if err != nil {
		p.ViewError = err.Error()
	}
	p.View = view
	return p
}

// viewOf returns the scheme-specific view of u with any password masked,
// or nil for a scheme without one.
func viewOf(u *uri.URL) (any, error) {
	mask := func(l *uri.Login) {
		if l.HasPassword {
			l.Password = "***"
		}
	}
	switch u.Scheme {
	case "ftp", "ftps":
		v, err := u.FTP()
		if v != nil {
			mask(&v.Login)
			return struct {
				*uri.FTP
				Type string
			}{v, typeName(v.Type)}, err
		}
		return nil, err
	case "http", "https":
		v, err := u.HTTP()
		if v != nil {
			mask(&v.Login)
		}
		return nilIfErr(v, err)
	case "gopher":
		v, err := u.Gopher()
		if v != nil {
			return struct {
				*uri.Gopher
				Type    string
				Request string
			}{v, string(rune(v.Type)), v.Request()}, err
		}
		return nil, err
	case "mailto":
		return nilIfErr(u.Mailto())
	case "news", "snews":
		return nilIfErr(u.News())
	case "nntp", "nntps":
		v, err := u.NNTP()
		if v != nil {
			mask(&v.Login)
		}
		return nilIfErr(v, err)
	case "telnet", "rlogin", "tn3270":
		v, err := u.Telnet()
		if v != nil {
			mask(&v.Login)
		}
		return nilIfErr(v, err)
	case "wais":
		v, err := u.WAIS()
		if v != nil {
			mask(&v.Login)
		}
		return nilIfErr(v, err)
	case "file":
		v, err := u.File()
		if v != nil {
			return struct {
				*uri.File
				Local bool
			}{v, v.Local()}, err
		}
		return nil, err
	case "prospero":
		return nilIfErr(u.Prospero())
	}
	return nil, nil
}

func typeName(t byte) string {
	if t == 0 {
		return ""
	}
	return string(rune(t))
}

// nilIfErr turns a typed nil view into an untyped nil.
func nilIfErr[T any](v *T, err error) (any, error) {
	if v == nil {
		return nil, err
	}
	return v, err
}

func printParts(w io.Writer, p parts) {
	row := func(k, v string) { fmt.Fprintf(w, "%-12s %s\n", k, v) }
	row("url", p.URL)
	if p.URI != "" {
		row("uri", p.URI)
	}
	row("scheme", p.Scheme)
	if p.HasUser {
		row("user", fmt.Sprintf("%q", p.User))
	}
	if p.Password != "" {
		row("password", p.Password)
	}
	if p.Host != "" || p.Port != 0 {
		row("host", p.Host)
		if p.ASCIIHost != "" {
			row("ascii host", p.ASCIIHost)
		}
		port := fmt.Sprint(p.Port)
		if p.DefaultPort {
			port += " (default)"
		}
		row("port", port)
	}
	row("path", p.Path)
	if p.Query != "" {
		row("query", p.Query)
	}
	if p.Fragment != "" {
		row("fragment", p.Fragment)
	}
	if p.ViewError != "" {
		row(p.Scheme+" view", "error: "+p.ViewError)
	}
	if p.View != nil {
		b, _ := json.Marshal(p.View)
		var fields map[string]any
		json.Unmarshal(b, &fields)
		for _, k := range slices.Sorted(maps.Keys(fields)) {
			v, _ := json.Marshal(fields[k])
			row(p.Scheme+"."+strings.ToLower(k), string(v))
		}
	}
}

func resolveCommand(stdout io.Writer) *cli.Command {
	return &cli.Command{
		Name:      "resolve",
		Usage:     "expand partial (relative) URLs against a base URL (RFC 1630, RFC 3986)",
		ArgsUsage: "BASE REF...",
		Action: func(c *cli.Context) error {
			if c.NArg() < 2 {
				return cli.Exit("resolve takes a base URL and at least one reference", exitUsage)
			}
			base := c.Args().First()
			if _, err := uri.Parse(base); err != nil {
				return cli.Exit(explainParseError(base, err), exitURL)
			}
			for _, ref := range c.Args().Tail() {
				got, err := uri.Resolve(base, ref)
				if err == nil {
					_, err = uri.Parse(got)
				}
				if err != nil {
					return cli.Exit(fmt.Sprintf("resolving %q: %v", ref, err), exitURL)
				}
				fmt.Fprintln(stdout, got)
			}
			return nil
		},
	}
}

func extractCommand(stdin io.Reader, stdout io.Writer) *cli.Command {
	return &cli.Command{
		Name:      "extract",
		Usage:     "find the URLs in text (<URL:...> wrappers, <...>, bare URLs of the known schemes)",
		ArgsUsage: "[FILE]",
		Flags:     []cli.Flag{&cli.BoolFlag{Name: "json", Usage: "print one JSON object per URL, with its byte offsets"}},
		Action: func(c *cli.Context) error {
			in := stdin
			switch c.NArg() {
			case 0:
			case 1:
				if name := c.Args().First(); name != "-" {
					f, err := os.Open(name)
					if err != nil {
						return cli.Exit(err.Error(), exitNotFound)
					}
					defer f.Close()
					in = f
				}
			default:
				return cli.Exit("extract takes at most one file", exitUsage)
			}
			// Extract needs the whole text: a wrapper may span lines. Cap
			// what it reads so a huge input cannot exhaust memory.
			const maxText = 64 << 20
			text, err := io.ReadAll(io.LimitReader(in, maxText+1))
			if err != nil {
				return cli.Exit(err.Error(), exitFailure)
			}
			if len(text) > maxText {
				return cli.Exit("extract: input larger than 64 MiB", exitFailure)
			}
			enc := json.NewEncoder(stdout)
			for _, m := range uri.Extract(string(text)) {
				if c.Bool("json") {
					if err := enc.Encode(struct {
						URL   string `json:"url"`
						Start int    `json:"start"`
						End   int    `json:"end"`
					}{maskURL(m.URL), m.Start, m.End}); err != nil {
						return err
					}
					continue
				}
				fmt.Fprintln(stdout, maskURL(m.URL))
			}
			return nil
		},
	}
}

// maskURL is s for messages and records, its password masked, whether
// or not it parses as a URL.
func maskURL(s string) string {
	if u, err := uri.Parse(s); err == nil {
		return u.Redacted()
	}
	return (&uri.Error{Input: s}).MaskedInput()
}
