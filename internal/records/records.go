// Package records holds the records of fetch --json, which fetch serve
// gives too for a request that accepts application/json: their types,
// the one writer that makes a record one line of JSON safe on a terminal,
// and the classes of failure with their exit codes.
//
// The output is JSON Lines: one object a line, one per event, each naming
// its kind. records.schema.json (next to this file) is its schema, and
// every record the test suite produces is checked against it
// (internal/recordcheck); keep the three (the types below, the schema,
// and the text of "fetch help json") in step.
//
// A URL gives zero or more Entry records (a listing's entries, as they
// stream in), perhaps Retry records, and then exactly one Done record that
// ends it: "document", "listing", "head", "sent", "session", "skipped" or
// "error". Every record carries "input", the URL as the user gave it (a
// password masked), so records of several URLs can be told apart.
package records

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"time"
	"unicode/utf8"

	"github.com/urlfetch/urlfetch/fetch"
	"github.com/urlfetch/urlfetch/internal/termsafe"
)

// Record kinds.
const (
	KindEntry    = "entry"    // one entry of a listing
	KindDocument = "document" // a document was transferred (to -o, -O, or read and counted)
	KindListing  = "listing"  // a listing ended
	KindHead     = "head"     // metadata, without a transfer (-I)
	KindSent     = "sent"     // a message was delivered (mailto)
	KindSession  = "session"  // an interactive session ended (telnet)
	KindSkipped  = "skipped"  // nothing fetched: the output exists (--no-clobber)
	KindRetry    = "retry"    // a transient failure; the URL is tried again
	// A line of a listing that does not parse; the listing goes on.
	KindEntryError = "entry_error"
	KindError      = "error" // the URL failed
	// The end of a recursive run (-r): its totals, after a record per
	// file it saved, found unchanged, did not follow or failed on.
	KindMirror = "mirror"
)

// Entry is one entry of a listing. URL is the entry's own URL; Listing
// the URL of the listing it is in.
type Entry struct {
	Kind    string `json:"kind"`
	Input   string `json:"input"`
	Listing string `json:"listing"`
	fetch.Entry
}

// EntryError is a line of a listing that does not parse.
type EntryError struct {
	Kind    string `json:"kind"`
	Input   string `json:"input"`
	Listing string `json:"listing"`
	Class   string `json:"class"`
	Message string `json:"message"`
}

// Done ends a URL: what came back and where it went, or why it failed.
type Done struct {
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
	Bytes    int64      `json:"bytes"`            // written to the output in this run (read, with no output)
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

// Describe fills in what resp says of the resource: the effective URL,
// the reply, the media type, the announced length, the offset, the time
// and the protocol's metadata.
func (d *Done) Describe(resp *fetch.Response) {
	d.URL = resp.URL.Redacted()
	d.Status = resp.Status
	d.Media = resp.Type
	length := resp.Length
	d.Length = &length
	d.Offset = resp.Offset
	d.Modified = resp.Modified
	d.Meta = resp.Meta
}

// Fail makes d the record of a URL that failed with err, in the words of
// msg.
func (d *Done) Fail(err error, msg string) {
	d.Kind, d.ExitCode, d.Class, d.Message = KindError, ExitCode(err), Class(err), msg
}

// Mirror ends a recursive run's records (-r): the walk's totals.
type Mirror struct {
	Kind        string           `json:"kind"`
	Input       string           `json:"input"`
	Inputs      []string         `json:"inputs"`
	Files       int64            `json:"files"`
	Listings    int64            `json:"listings"`
	Bytes       int64            `json:"bytes"`
	Unchanged   int64            `json:"unchanged"`
	Resumed     int64            `json:"resumed"`
	Failed      int64            `json:"failed"`
	Level       int              `json:"level"`
	NotFollowed map[string]int64 `json:"not_followed"`
	Duration    float64          `json:"duration"`
	ExitCode    int              `json:"exit_code"`
}

// Retry is a transient failure that --retry tries again.
type Retry struct {
	Kind     string  `json:"kind"`
	Input    string  `json:"input"`
	Attempt  int     `json:"attempt"` // the attempt that failed, from 1
	Delay    float64 `json:"delay"`   // seconds until the next
	ExitCode int     `json:"exit_code"`
	Class    string  `json:"class"`
	Message  string  `json:"message"`
}

// Write writes v as one line of JSON to w, in a single Write so that
// records of URLs fetched at once never interleave within a line. Strings
// keep their exact characters, JSON-escaped; besides what JSON escapes
// (C0 controls, quotes, backslashes), DEL, the C1 controls and the
// bidirectional controls are written as \u escapes, so that a record
// shown on a terminal cannot drive it. encoding/json writes bytes that are
// not UTF-8 as U+FFFD: an entry's url keeps its name's exact bytes.
func Write(w io.Writer, v any) error {
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
		if r != '\n' && termsafe.Control(r) {
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
		if r != '\n' && termsafe.Control(r) {
			out = fmt.Appendf(out, `\u%04x`, r)
		} else {
			out = append(out, b[i:i+n]...)
		}
		i += n
	}
	return out
}
