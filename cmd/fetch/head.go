package main

import (
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"
	"github.com/urlfetch/urlfetch/fetch"
	"github.com/urlfetch/urlfetch/internal/termsafe"
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

// writeHead prints what a Head request learned of resp as curl -I
// prints an HTTP reply's head, ended by an empty line: the protocol's
// status line (an HTTP status, an NNTP reply, a Gopher+ header),
// Content-Type, Content-Length and Last-Modified as every scheme has
// them, then the protocol's own fields (Meta) sorted by name, each value
// on a line of its own. A value is what a server sent: what a terminal
// would act on is shown escaped (termsafe.Escape), so that none starts a line of
// its own or reaches the terminal. With --json the head record says the
// same (internal/records).
func writeHead(w io.Writer, resp *fetch.Response) error {
	var b strings.Builder
	line := func(name, value string) {
		if name != "" {
			b.WriteString(termsafe.Escape(name))
			b.WriteString(": ")
		}
		b.WriteString(termsafe.Escape(value))
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
