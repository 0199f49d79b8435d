package wais

import (
	"io"
	"iter"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/urlfetch/urlfetch/fetch"
)

// ListingType is the media type of a Listing's Body: the one format of
// listings a driver builds itself, one fetch.Entry a line.
const ListingType = fetch.ListingType

// A Hit is one entry of a Listing: a document a search found, in the order
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

// appendHit appends the listing line of h: its Entry, whose Attrs keep
// what an Entry has no field for ("score", "source", "wtype", "date";
// "headline" when it is empty and Name says something else).
func appendHit(b []byte, h Hit) []byte {
	return fetch.AppendEntry(b, h.Entry())
}

// Entry returns the hit as a listing entry: Name is the headline, Title
// the score and the source, Media the media type of the document type,
// Attrs the hit's own fields.
func (h Hit) Entry() fetch.Entry {
	e := fetch.Entry{Name: h.Headline, URL: h.URL, Type: h.Type, Size: h.Size, Time: parseDate(h.Date), Attrs: map[string]string{}}
	if e.Name == "" {
		e.Name = h.WType + " document"
		e.Attrs["headline"] = ""
	}
	var title []string
	if h.Score >= 0 {
		title = append(title, "score "+strconv.FormatInt(h.Score, 10))
		e.Attrs["score"] = strconv.FormatInt(h.Score, 10)
	}
	if h.Source != "" {
		title = append(title, "from "+h.Source)
		e.Attrs["source"] = h.Source
	}
	e.Title = strings.Join(title, ", ")
	if h.WType != "" {
		e.Attrs["wtype"] = h.WType
	}
	if h.Date != "" {
		e.Attrs["date"] = h.Date
	}
	if h.Type == fetch.EntryFile {
		e.Media = mediaType(h.WType)
	}
	if len(e.Attrs) == 0 {
		e.Attrs = nil
	}
	return e
}

// hitOf is the Hit an Entry of a wais Listing came from.
func hitOf(e fetch.Entry) (Hit, error) {
	h := Hit{Type: e.Type, Score: -1, Size: e.Size, WType: e.Attrs["wtype"], Date: e.Attrs["date"], Source: e.Attrs["source"], URL: e.URL, Headline: e.Name}
	if v, ok := e.Attrs["headline"]; ok {
		h.Headline = v
	}
	if v, ok := e.Attrs["score"]; ok {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n < 0 {
			return Hit{}, fetch.Errorf(fetch.ErrProtocol, "wais: listing entry %q: bad score %q", e.Name, v)
		}
		h.Score = n
	}
	return h, nil
}

// ParseListing parses the Body of a wais Listing into its hits, in the
// server's order. An entry that does not parse yields an error and the
// listing goes on; an error reading r ends it.
func ParseListing(r io.Reader) iter.Seq2[Hit, error] {
	return func(yield func(Hit, error) bool) {
		for e, err := range fetch.ParseEntries(r) {
			h := Hit{}
			if err == nil {
				h, err = hitOf(e)
			}
			if !yield(h, err) {
				return
			}
		}
	}
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
