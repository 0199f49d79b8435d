package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"time"
	"unicode/utf8"

	"github.com/urlfetch/urlfetch/fetch"
)

// The --json output is JSON Lines: one object a line, one per event, each
// naming its kind. records.schema.json (next to this file) is its schema,
// and every record the test suite produces is checked against it; keep
// the three (the types below, the schema, and the text of "fetch help
// json") in step.
//
// A URL gives zero or more "entry" records (a listing's entries, as they
// stream in), perhaps "retry" records, and then exactly one record that
// ends it: "document", "listing", "head", "sent", "session", "skipped" or
// "error". Every record carries "input", the URL as the user gave it (a
// password masked), so records of several URLs can be told apart.

// Record kinds.
const (
	kindEntry    = "entry"    // one entry of a listing
	kindDocument = "document" // a document was written (-o, -O)
	kindListing  = "listing"  // a listing ended
	kindHead     = "head"     // metadata, without a transfer (-I)
	kindSent     = "sent"     // a message was delivered (mailto)
	kindSession  = "session"  // an interactive session ended (telnet)
	kindSkipped  = "skipped"  // nothing fetched: the output exists (--no-clobber)
	kindRetry    = "retry"    // a transient failure; the URL is tried again
	// A line of a listing that does not parse; the listing goes on.
	kindEntryError = "entry_error"
	kindError      = "error" // the URL failed
	// The end of a recursive run (-r): its totals, after a record per
	// file it saved, found unchanged, did not follow or failed on.
	kindMirror = "mirror"
)

// entryRecord is one entry of a listing. URL is the entry's own URL;
// Listing the URL of the listing it is in.
type entryRecord struct {
	Kind    string `json:"kind"`
	Input   string `json:"input"`
	Listing string `json:"listing"`
	fetch.Entry
}

// doneRecord ends a URL: what came back and where it went, or why it
// failed.
type doneRecord struct {
	Kind  string `json:"kind"`
	Input string `json:"input"`
	// URL is the effective URL: after redirects, the last; for an error
	// before any reply, the URL given.
	URL string `json:"url"`
	// Status is the protocol's reply, where it has one: "200 OK", the
	// FTP or NNTP reply that began the transfer, the SMTP server's last.
	Status   string     `json:"status,omitempty"`
	Media    string     `json:"media,omitempty"`
	Length   *int64     `json:"length,omitempty"` // as the server announced it; -1 unknown
	Offset   int64      `json:"offset,omitempty"` // where the transfer started (resume)
	Bytes    int64      `json:"bytes"`            // written to the output in this run
	Entries  *int64     `json:"entries,omitempty"`
	Modified time.Time  `json:"modified,omitzero"`
	Output   string     `json:"output,omitempty"` // the file; "-" for standard output
	Duration float64    `json:"duration"`         // seconds, every attempt included
	Attempts int        `json:"attempts"`
	Meta     fetch.Meta `json:"meta,omitempty"`
	ExitCode int        `json:"exit_code"`
	// Class and Message say why a URL failed (Kind "error") or was
	// skipped.
	Class   string `json:"class,omitempty"`
	Message string `json:"message,omitempty"`
}

// describe fills r from what an attempt came to.
func (r *doneRecord) describe(out *outcome, sk *sink) {
	r.Kind = out.kind
	switch out.kind {
	case kindHead, kindSent:
		r.Output = "" // nothing was written
	case kindListing:
		n := out.entries
		r.Entries = &n
		if sk.path == "" && sk.o.json {
			r.Output = "" // the records were the listing
		}
	}
	resp := out.resp
	if resp == nil {
		return
	}
	r.URL = resp.URL.Redacted()
	r.Status = resp.Status
	r.Media = resp.Type
	length := resp.Length
	r.Length = &length
	r.Offset = resp.Offset
	r.Modified = resp.Modified
	r.Meta = resp.Meta
}

// retryRecord is a transient failure that --retry tries again.
type retryRecord struct {
	Kind     string  `json:"kind"`
	Input    string  `json:"input"`
	Attempt  int     `json:"attempt"` // the attempt that failed, from 1
	Delay    float64 `json:"delay"`   // seconds until the next
	ExitCode int     `json:"exit_code"`
	Class    string  `json:"class"`
	Message  string  `json:"message"`
}

// className is the name of an error's class in records: the exit table's
// kinds by name.
func className(err error) string {
	switch exitCode(err) {
	case exitURL:
		return "url"
	case exitNotFound:
		return "not_found"
	case exitAuth:
		return "auth"
	case exitUnsupported:
		return "unsupported"
	case exitUnsafe:
		return "unsafe"
	case exitProtocol:
		return "protocol"
	case exitTimeout:
		return "timeout"
	case exitConnect:
		return "connect"
	case exitTLS:
		return "tls"
	case exitInterrupted:
		return "interrupted"
	}
	return "other"
}

// writeRecord writes v as one line of JSON to w, in a single Write so
// that records of URLs fetched at once never interleave within a line.
// Strings keep their exact characters, JSON-escaped; besides what JSON
// escapes (C0 controls, quotes, backslashes), DEL, the C1 controls and
// the bidirectional controls are written as \u escapes, so that a record
// shown on a terminal cannot drive it. encoding/json writes bytes that are
// not UTF-8 as U+FFFD: an entry's url keeps its name's exact bytes.
func writeRecord(w io.Writer, v any) error {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return err
	}
	_, err := w.Write(escapeJSONControls(b.Bytes()))
	return err
}

// escapeJSONControls rewrites the characters of valid UTF-8 JSON text
// that encoding/json leaves as they are but a terminal may act on. The
// only control it leaves is the newline that ends a record: within a
// record, encoding/json has escaped every C0 control already.
func escapeJSONControls(b []byte) []byte {
	clean := true
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		if r != '\n' && terminalControl(r) {
			clean = false
			break
		}
		i += n
	}
	if clean {
		return b
	}
	out := make([]byte, 0, len(b)+16)
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		if r != '\n' && terminalControl(r) {
			out = fmt.Appendf(out, `\u%04x`, r)
		} else {
			out = append(out, b[i:i+n]...)
		}
		i += n
	}
	return out
}
