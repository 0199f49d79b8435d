package fetch

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"iter"
)

// ListingType is the media type of a Listing that a driver builds itself
// rather than passing on the server's own bytes (a file: directory, WAIS
// search results): JSON Lines, one Entry a line as Entry marshals to
// JSON, which is also what the fetch command prints for any listing with
// --json. AppendEntry writes it and ParseEntries reads it: one format,
// one writer, one parser for every such listing.
const ListingType = "application/jsonl"

// MaxEntryLine bounds one line of a ListingType body that ParseEntries
// reads: a long URL and title and their JSON escapes.
const MaxEntryLine = 256 << 10

// AppendEntry appends e to b as one line of a ListingType body. A name or
// title that is not valid UTF-8 has its invalid bytes replaced by U+FFFD,
// as JSON has no other way to carry them; a URL is exact (its bytes are
// percent-encoded).
func AppendEntry(b []byte, e Entry) []byte {
	w := bytes.NewBuffer(b)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false) // "a -> b", not "a -\u003e b": a listing is no HTML
	if err := enc.Encode(e); err != nil {
		// An Entry has no value json cannot marshal; should one come,
		// the listing says so rather than drop it.
		enc.Encode(Entry{Name: err.Error(), Type: EntryError, Size: -1})
	}
	return w.Bytes()
}

// ParseEntries parses a ListingType body into its entries. A line that
// does not parse yields an ErrProtocol error and the listing goes on; an
// error reading r ends it.
func ParseEntries(r io.Reader) iter.Seq2[Entry, error] {
	return func(yield func(Entry, error) bool) {
		sc := bufio.NewScanner(r)
		sc.Buffer(make([]byte, 0, 4096), MaxEntryLine)
		for n := 1; sc.Scan(); n++ {
			e := Entry{Size: -1}
			var err error
			if jerr := json.Unmarshal(sc.Bytes(), &e); jerr != nil {
				e, err = Entry{}, Errorf(ErrProtocol, "listing line %d: %v", n, jerr)
			}
			if !yield(e, err) {
				return
			}
		}
		if err := sc.Err(); err != nil {
			yield(Entry{}, err)
		}
	}
}
