package main

import (
	"bufio"
	"fmt"
	"io"
	"strconv"

	"github.com/urlfetch/urlfetch/fetch"
	"github.com/urlfetch/urlfetch/fetch/gopher"
	jsonrec "github.com/urlfetch/urlfetch/internal/records"
	"github.com/urlfetch/urlfetch/internal/termsafe"
)

// A listing (a directory, a gopher menu, a news group, search results)
// is shown one entry a line as it streams in, as columns for people, as
// "entry" records with --json, or with --raw as the server's own bytes.

// writeListing shows resp's entries: rendered to w (nil: not rendered,
// --json without -o/-O) and as records with --json. It counts the
// entries in *n.
func writeListing(w io.Writer, o *options, sk *sink, resp *fetch.Response, body *readError, n *int64) (err error) {
	records := sk.stdout
	if o.json && !o.stdoutTerminal {
		// The entries' records go out in blocks, as the rendered lines
		// do (sink.listing), and all before the record that ends the
		// URL.
		rb := bufio.NewWriterSize(sk.stdout, 64<<10)
		records = rb
		defer func() {
			if ferr := rb.Flush(); err == nil && ferr != nil {
				err = &writeError{ferr}
			}
		}()
	}
	r := renderer{
		w:      w,
		escape: w != nil && sk.toTerminal(),
		human:  o.human,
		urls:   o.urls,
		gopher: resp.URL.Scheme == "gopher",
	}
	listing := resp.URL.Redacted()
	for e, err := range resp.Entries() {
		if err != nil {
			if body.err != nil {
				return err // the listing broke off: its error ends it
			}
			// One line that does not parse: said, and the listing goes on.
			fmt.Fprintln(o.progress.writer(), errorLine(&fetch.Error{Op: "list", URL: listing, Err: err}))
			if o.json {
				if err := jsonrec.Write(records, jsonrec.EntryError{Kind: jsonrec.KindEntryError, Input: sk.masked, Listing: listing, Class: jsonrec.Class(err), Message: err.Error()}); err != nil {
					return &writeError{err}
				}
			}
			continue
		}
		*n++
		if w != nil {
			if err := r.entry(e); err != nil {
				return err
			}
		}
		if o.json {
			if err := jsonrec.Write(records, jsonrec.Entry{Kind: jsonrec.KindEntry, Input: sk.masked, Listing: listing, Entry: e}); err != nil {
				return &writeError{err}
			}
		}
	}
	return nil
}

// writeRawListing copies the listing's bytes, as the server sent them,
// to w, and with --json gives the entries' records as well.
func writeRawListing(w io.Writer, o *options, sk *sink, resp *fetch.Response, body *readError, n *int64) error {
	if !o.json {
		_, err := io.Copy(w, body)
		return err
	}
	// Parse what is copied: one read of the server's bytes for both.
	if w != nil {
		resp.Body = struct {
			io.Reader
			io.Closer
		}{io.TeeReader(body, w), body}
	}
	return writeListing(nil, o, sk, resp, body, n)
}

// renderer writes entries as aligned columns: type, size, date, name (a
// link's target, a title, the URL with --urls).
type renderer struct {
	w      io.Writer
	escape bool // the columns go to a terminal: server text is escaped
	human  bool // -h: sizes in K, M, G
	urls   bool
	gopher bool // a gopher menu: types as the menu gives them
	line   []byte
}

func (r *renderer) entry(e fetch.Entry) error {
	typ := e.Type.String()
	if r.gopher && len(e.Item) == 1 {
		typ = gopher.ItemType(e.Item[0]).String()
	}
	size := "-"
	if e.Size >= 0 && e.Type != fetch.EntryDir {
		size = strconv.FormatInt(e.Size, 10)
		if r.human {
			size = humanSize(e.Size)
		}
	}
	date := "-"
	if !e.Time.IsZero() {
		date = e.Time.Local().Format("2006-01-02 15:04")
	}
	name := e.Name
	if e.Target != "" {
		name += " -> " + e.Target
	}
	if e.Title != "" && e.Title != e.Name {
		name += "  " + e.Title
	}
	if r.urls && e.URL != "" {
		name += "  " + e.URL
	}
	if r.escape {
		typ, name = termsafe.Escape(typ), termsafe.Escape(name)
	}
	b := r.line[:0]
	b = append(b, typ...)
	b = pad(b, 8-len(typ))
	b = pad(b, 12-len(size))
	b = append(b, size...)
	b = append(b, "  "...)
	b = append(b, date...)
	b = pad(b, 18-len(date))
	b = append(b, name...)
	b = append(b, '\n')
	r.line = b
	_, err := r.w.Write(b)
	return err
}

func pad(b []byte, n int) []byte {
	for ; n > 0; n-- {
		b = append(b, ' ')
	}
	return b
}

// humanSize writes n bytes as ls -h does: powers of 1024, one decimal
// below 10 (rounded up, so a size never looks smaller than it is), and a
// unit letter: 900, 1.5K, 12M, 3.0G.
func humanSize(n int64) string {
	if n < 1024 {
		return strconv.FormatInt(n, 10)
	}
	const units = "KMGTPE"
	v := float64(n)
	u := -1
	for v >= 1024 && u < len(units)-1 {
		v /= 1024
		u++
	}
	if v < 10 {
		tenths := int64(v * 10)
		if float64(tenths) < v*10 {
			tenths++
		}
		if tenths < 100 {
			return strconv.FormatInt(tenths/10, 10) + "." + strconv.FormatInt(tenths%10, 10) + units[u:u+1]
		}
		v = 10
	}
	whole := int64(v)
	if float64(whole) < v {
		whole++
	}
	if whole >= 1024 && u < len(units)-1 {
		return "1.0" + units[u+1:u+2]
	}
	return strconv.FormatInt(whole, 10) + units[u:u+1]
}
