package wais

import (
	"bufio"
	"io"
	"iter"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/urlfetch/urlfetch/fetch"
	"github.com/urlfetch/urlfetch/uri"
)

// ListingType is the media type of a Listing's Body.
const ListingType = "text/plain; charset=utf-8"

// maxListingLine bounds a listing line when it is parsed back: a URL with
// a long document id and a headline.
const maxListingLine = 256 << 10

// A Hit is one line of a Listing: a document a search found, in the order
// the server ranked it, or the search a database offers, or a line of
// information or a diagnostic that stands in for a record.
type Hit struct {
	// Type is fetch.EntryFile for a document, EntrySearch for a database
	// to search, EntryInfo for information and EntryError for a
	// diagnostic in place of a record.
	Type fetch.EntryType
	// Score is the server's relevance score, -1 when it gives none
	// (Z39.50 servers do not).
	Score int64
	// Size is the document's length in bytes, -1 when unknown.
	Size int64
	// WType is the document type (TEXT, WSRC, ...) of a WAIS server, or
	// the record syntax (SUTRS, XML, ...) of a Z39.50 server.
	WType string
	// Date is the date the server gives, as it gives it.
	Date string
	// Source is the database the document comes from.
	Source string
	// URL retrieves the document: wais://host:port/database/wtype/wpath.
	URL string
	// Headline is the document's headline, or the information or
	// diagnostic text.
	Headline string
}

// appendHit appends the listing line of h:
//
//	TYPE SCORE SIZE WTYPE DATE SOURCE URL HEADLINE
//
// Every field but the headline has its spaces, control bytes and "%"
// encoded as %XX, and an absent value is "-"; the headline is the rest of
// the line, with its control bytes and "%" encoded.
func appendHit(b []byte, h Hit) []byte {
	b = append(b, h.Type.String()...)
	for _, f := range []string{num64(h.Score), num64(h.Size), h.WType, h.Date, h.Source, h.URL} {
		b = append(b, ' ')
		b = appendField(b, f)
	}
	b = append(b, ' ')
	b = appendEscaped(b, h.Headline, false)
	return append(b, '\n')
}

func num64(v int64) string {
	if v < 0 {
		return ""
	}
	return strconv.FormatInt(v, 10)
}

func appendField(b []byte, s string) []byte {
	switch s {
	case "":
		return append(b, '-')
	case "-":
		return append(b, "%2D"...)
	}
	return appendEscaped(b, s, true)
}

func appendEscaped(b []byte, s string, space bool) []byte {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 || c == 0x7f || c == '%' || (space && c == ' ') {
			b = append(b, '%', upperhex[c>>4], upperhex[c&15])
			continue
		}
		b = append(b, c)
	}
	return b
}

var hitTypes = map[string]fetch.EntryType{
	fetch.EntryFile.String():   fetch.EntryFile,
	fetch.EntrySearch.String(): fetch.EntrySearch,
	fetch.EntryInfo.String():   fetch.EntryInfo,
	fetch.EntryError.String():  fetch.EntryError,
}

// parseHit parses one listing line.
func parseHit(line string) (Hit, error) {
	parts := strings.SplitN(line, " ", 8)
	if len(parts) != 8 {
		return Hit{}, fetch.Errorf(fetch.ErrProtocol, "wais: listing line %q has %d fields, want 8", line, len(parts))
	}
	typ, ok := hitTypes[parts[0]]
	if !ok {
		return Hit{}, fetch.Errorf(fetch.ErrProtocol, "wais: listing line %q: unknown type %q", line, parts[0])
	}
	var vals [6]string
	for i, p := range parts[1:7] {
		if p == "-" {
			continue
		}
		v, err := uri.Unescape(p)
		if err != nil {
			return Hit{}, fetch.Errorf(fetch.ErrProtocol, "wais: listing line %q: %w", line, err)
		}
		vals[i] = v
	}
	head, err := uri.Unescape(parts[7])
	if err != nil {
		return Hit{}, fetch.Errorf(fetch.ErrProtocol, "wais: listing line %q: %w", line, err)
	}
	h := Hit{Type: typ, Score: -1, Size: -1, WType: vals[2], Date: vals[3], Source: vals[4], URL: vals[5], Headline: head}
	for i, dst := range []*int64{&h.Score, &h.Size} {
		if vals[i] == "" {
			continue
		}
		n, err := strconv.ParseInt(vals[i], 10, 64)
		if err != nil || n < 0 {
			return Hit{}, fetch.Errorf(fetch.ErrProtocol, "wais: listing line %q: bad number %q", line, vals[i])
		}
		*dst = n
	}
	return h, nil
}

// ParseListing parses the Body of a wais Listing into its hits, in the
// server's order. A line that does not parse yields an error and the
// listing goes on; an error reading r ends it.
func ParseListing(r io.Reader) iter.Seq2[Hit, error] {
	return func(yield func(Hit, error) bool) {
		sc := bufio.NewScanner(r)
		sc.Buffer(make([]byte, 0, 4096), maxListingLine)
		for sc.Scan() {
			if !yield(parseHit(sc.Text())) {
				return
			}
		}
		if err := sc.Err(); err != nil {
			yield(Hit{}, err)
		}
	}
}

// entries parses a listing into fetch Entries.
func entries(r io.Reader) iter.Seq2[fetch.Entry, error] {
	return func(yield func(fetch.Entry, error) bool) {
		for h, err := range ParseListing(r) {
			if err != nil {
				if !yield(fetch.Entry{}, err) {
					return
				}
				continue
			}
			if !yield(h.Entry(), nil) {
				return
			}
		}
	}
}

// Entry returns the hit as a listing entry: Name is the headline, Title
// the score and the source, Media the media type of the document type.
func (h Hit) Entry() fetch.Entry {
	e := fetch.Entry{Name: h.Headline, URL: h.URL, Type: h.Type, Size: h.Size, Time: parseDate(h.Date)}
	if e.Name == "" {
		e.Name = h.WType + " document"
	}
	var title []string
	if h.Score >= 0 {
		title = append(title, "score "+strconv.FormatInt(h.Score, 10))
	}
	if h.Source != "" {
		title = append(title, "from "+h.Source)
	}
	e.Title = strings.Join(title, ", ")
	if h.Type == fetch.EntryFile {
		e.Media = mediaType(h.WType)
	}
	return e
}

// parseDate reads the dates WAIS and Z39.50 servers give: YYYY-MM-DD,
// YYYYMMDD or the WAIS YYMMDD. Anything else is no time.
func parseDate(s string) time.Time {
	for _, layout := range []string{"2006-01-02", "20060102", "060102"} {
		if len(s) == len(layout) {
			if t, err := time.Parse(layout, s); err == nil {
				return t
			}
		}
	}
	return time.Time{}
}

// mediaType maps a WAIS document type or a Z39.50 record syntax to a
// media type.
func mediaType(wtype string) string {
	switch strings.ToUpper(wtype) {
	case "TEXT", "SUTRS", "TEXT-FTP":
		return "text/plain"
	case "WSRC":
		return "application/x-wais-source"
	case "HTML":
		return "text/html"
	case "XML":
		return "text/xml"
	case "GIF":
		return "image/gif"
	case "TIFF":
		return "image/tiff"
	case "PS":
		return "application/postscript"
	case "PDF":
		return "application/pdf"
	case "USMARC":
		return "application/marc"
	}
	return "application/octet-stream"
}

// latin1 returns s as UTF-8: s itself if it is valid UTF-8, else s read
// as ISO 8859-1, which WAIS servers send in practice.
func latin1(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		b.WriteRune(rune(s[i]))
	}
	return b.String()
}
