package fetch

import (
	"fmt"
	"io"
	"iter"
	"net"
	"net/textproto"
	"time"

	"github.com/urlfetch/urlfetch/uri"
)

// Kind says what came back for a URL.
type Kind int

const (
	// Document: the bytes of one resource.
	Document Kind = iota + 1
	// Listing: a directory, menu, group or search result, whose entries
	// Entries parses from the Body.
	Listing
	// Session: an interactive connection (telnet); Conn is set.
	Session
	// Sent: a message was delivered (mailto); Body holds the server's
	// final reply.
	Sent
	// Redirect: the server sent the client elsewhere; Location is where,
	// Status the reply that said so, Body that reply's body. A driver
	// returns it and never follows it: Client.Do decides (CheckHop).
	Redirect
)

func (k Kind) String() string {
	switch k {
	case Document:
		return "document"
	case Listing:
		return "listing"
	case Session:
		return "session"
	case Sent:
		return "sent"
	case Redirect:
		return "redirect"
	}
	return "unknown"
}

// MarshalText makes a Kind print as its name in JSON.
func (k Kind) MarshalText() ([]byte, error) { return []byte(k.String()), nil }

// Meta is protocol metadata: FTP replies, NNTP and HTTP headers, Gopher+
// attributes. Keys are canonical MIME header keys.
type Meta = textproto.MIMEHeader

// A Response is what a URL gave. The caller must close Body; when err was
// nil, Body is never nil. Close is idempotent and finishes the exchange
// (the FTP 226 reply, the NNTP dot line).
type Response struct {
	// URL is the URL the resource came from: after redirects, the last.
	URL  *uri.URL
	Kind Kind
	// Type is the media type ("text/plain", "application/octet-stream").
	Type string
	// Length is the number of bytes Body will yield, or -1 if unknown.
	Length int64
	// Offset is where Body starts in the resource: the Request's Offset
	// when the driver could resume, else 0.
	Offset int64
	// Modified is the resource's modification time, when known.
	Modified time.Time
	Meta     Meta
	Body     io.ReadCloser
	// Conn is the connection of a Session.
	Conn net.Conn
	// Status is the reply's status line where the protocol has one
	// ("200 OK", "302 Found", the FTP 150 or NNTP 220 that begins a
	// transfer).
	Status string
	// Location is the target of a Redirect, absolute, resolved against
	// URL by the driver.
	Location *uri.URL
	// Request is the Request this Response answers, as Client.Do sent it
	// (after redirects, the last one): Request.Follow makes the Request
	// for a URL the response named. Drivers leave it nil; Do sets it.
	Request *Request

	entries func(io.Reader) iter.Seq2[Entry, error]
}

// SetEntries tells the Response how its Body parses into entries: a
// Listing's driver calls it with its listing parser.
func (r *Response) SetEntries(parse func(io.Reader) iter.Seq2[Entry, error]) {
	r.entries = parse
}

// Entries parses a Listing's Body lazily, one entry at a time, so a
// listing of any size costs flat memory. Each Entry's URL is absolute. A
// line that cannot be parsed yields an error and the listing goes on;
// stopping early leaves the rest of Body unread.
func (r *Response) Entries() iter.Seq2[Entry, error] {
	if r.entries == nil {
		return func(yield func(Entry, error) bool) {
			yield(Entry{}, Errorf(ErrUnsupported, "a %s has no entries", r.Kind))
		}
	}
	return r.entries(r.Body)
}

// EntryType is the type of a listing entry.
type EntryType int

const (
	EntryFile    EntryType = iota // a document
	EntryDir                      // a directory or menu
	EntryLink                     // a symbolic link
	EntryInfo                     // text only, no resource (gopher 'i')
	EntrySearch                   // a search to submit (gopher 7)
	EntrySession                  // an interactive session (telnet)
	EntryArticle                  // a news article
	EntryGroup                    // a news group
	EntryError                    // an error item in a listing (gopher 3)
	EntryOther                    // something else
)

var entryTypeNames = [...]string{"file", "dir", "link", "info", "search", "session", "article", "group", "error", "other"}

func (t EntryType) String() string {
	if t >= 0 && int(t) < len(entryTypeNames) {
		return entryTypeNames[t]
	}
	return "other"
}

// MarshalText makes an EntryType print as its name in JSON.
func (t EntryType) MarshalText() ([]byte, error) { return []byte(t.String()), nil }

// UnmarshalText reads an EntryType's name back; an unknown name is an
// error.
func (t *EntryType) UnmarshalText(b []byte) error {
	for i, name := range entryTypeNames {
		if string(b) == name {
			*t = EntryType(i)
			return nil
		}
	}
	return fmt.Errorf("fetch: unknown entry type %q", b)
}

// Entry is one item of a Listing.
type Entry struct {
	Name  string    `json:"name"`
	URL   string    `json:"url,omitempty"`   // absolute; "" for info lines
	Type  EntryType `json:"type"`            // file, dir, ...
	Size  int64     `json:"size"`            // bytes, -1 if unknown
	Time  time.Time `json:"time,omitzero"`   // modification or posting time
	Title string    `json:"title,omitempty"` // a display string, subject, headline
	// Target is where a symbolic link points, as the listing gives it.
	Target string `json:"target,omitempty"`
	// Item is the entry's type in the listing's own terms where the
	// protocol has finer types than Type: a gopher item's type
	// character ("0" text, "9" binary, "I" image, ...).
	Item string `json:"item,omitempty"`
	// Media is the media type of the entry's resource, when the listing
	// says (gopher item types, WAIS document types).
	Media string `json:"media,omitempty"`
	// Attrs are what else the listing says of the entry, by name (a WAIS
	// hit's "score", "source" and "wtype").
	Attrs map[string]string `json:"attrs,omitempty"`
}
