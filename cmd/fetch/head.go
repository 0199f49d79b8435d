package main

import (
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/urfave/cli/v2"
	"github.com/urlfetch/urlfetch/fetch"
)

// -I/--head asks each URL for its metadata only (fetch.Request.Head): the
// scheme's own question, never a transfer (FTP SIZE and MDTM, HTTP HEAD,
// Gopher+ "!", NNTP HEAD or GROUP, a file's stat, a WAIS description).

// checkHeadOptions refuses what -I cannot do: there is no document to
// write to a file or to continue.
func checkHeadOptions(o *options) error {
	if o.head && (o.output != "" || o.remoteName || o.resume) {
		return cli.Exit("-I prints metadata on standard output: it takes no -o, -O or -C", exitUsage)
	}
	return nil
}

// writeHead prints what a Head request learned of resp: with --json the
// metadata record, else lines as curl -I prints an HTTP reply's head,
// ended by an empty line: the protocol's status line (an HTTP status, an
// NNTP reply, a Gopher+ header), Content-Type, Content-Length and
// Last-Modified as every scheme has them, then the protocol's own fields
// (Meta) sorted by name, each value on a line of its own. A value is
// what a server sent: its control characters, bidirectional overrides
// and bytes that are not UTF-8 are shown escaped, so that none starts a
// line of its own or reaches the terminal.
func writeHead(w io.Writer, o *options, resp *fetch.Response) error {
	if o.json {
		return writeMetaJSON(w, resp)
	}
	var b strings.Builder
	line := func(name, value string) {
		if name != "" {
			b.WriteString(headText(name))
			b.WriteString(": ")
		}
		b.WriteString(headText(value))
		b.WriteByte('\n')
	}
	if resp.Status != "" {
		line("", resp.Status)
	}
	printed := map[string]bool{}
	if resp.Type != "" {
		line("Content-Type", resp.Type)
		printed["Content-Type"] = true
	}
	if resp.Length >= 0 {
		line("Content-Length", fmt.Sprint(resp.Length))
		printed["Content-Length"] = true
	}
	if !resp.Modified.IsZero() {
		line("Last-Modified", resp.Modified.UTC().Format(http.TimeFormat))
		printed["Last-Modified"] = true
	}
	keys := make([]string, 0, len(resp.Meta))
	for k := range resp.Meta {
		if !printed[k] {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	for _, k := range keys {
		for _, v := range resp.Meta[k] {
			line(k, v)
		}
	}
	b.WriteByte('\n')
	_, err := io.WriteString(w, b.String())
	return err
}

// headText is s with what a terminal would obey shown escaped: control
// characters as \r, \n, \t or \xNN, bidirectional controls as \uNNNN,
// and bytes that are not UTF-8 as \xNN.
func headText(s string) string {
	clean := true
	for _, r := range s {
		if r == utf8.RuneError || unicode.IsControl(r) || unicode.Is(unicode.Bidi_Control, r) {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n == 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x100 && unicode.IsControl(r):
			fmt.Fprintf(&b, `\x%02x`, r)
		case unicode.IsControl(r), unicode.Is(unicode.Bidi_Control, r):
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}
