package gateway

import (
	"io"
	"net/http"
	"time"

	"github.com/urlfetch/urlfetch/fetch"
	"github.com/urlfetch/urlfetch/internal/records"
)

// A client that accepts application/json gets what fetch --json prints
// for the URL (package records): a listing's "entry" records as they
// stream in and the "listing" record that ends them, a document's
// "document" record (the document read to its end and counted, its bytes
// sent nowhere), a HEAD's "head" record, or an "error" record, one
// record a line. The reply is 200 for a URL that was fetched, the status
// of its class (statusOf) for one that failed before the reply began.

// jsonType is the media type of the records: JSON, one object a line.
const jsonType = "application/json; charset=utf-8"

// records writes the records of resp, the Response to req.
func (x *exchange) records(req *fetch.Request, resp *fetch.Response) {
	var read int64
	if resp.Kind != fetch.Listing && !req.Head {
		// Read before the reply begins: a document that breaks off
		// is an error, with its status.
		n, err := io.Copy(io.Discard, resp.Body)
		if err == nil {
			err = resp.Body.Close()
		}
		if err != nil {
			x.errorRecord(statusOf(err), err)
			return
		}
		read = n
	}
	h := x.w.Header()
	h.Set("Content-Type", jsonType)
	h.Set("Content-Security-Policy", sandboxCSP)
	x.w.WriteHeader(http.StatusOK)
	if x.r.Method == http.MethodHead {
		return
	}
	done := x.done()
	if resp.Kind == fetch.Listing {
		n, broke := x.entries(resp)
		done.Kind, done.Entries = records.KindListing, &n
		if broke != nil {
			_, msg := records.ErrorParts(broke)
			done.Fail(broke, msg)
		}
	} else {
		done.Kind, done.Bytes = records.KindDocument, read
		if req.Head {
			done.Kind = records.KindHead
		}
	}
	done.Describe(resp)
	done.Duration = time.Since(x.start).Seconds()
	x.write(done)
}

// entries writes a listing's entry records and returns their number and
// the error that broke the listing off, if one did: a line that does
// not parse is an "entry_error" record, and the listing goes on.
func (x *exchange) entries(resp *fetch.Response) (int64, error) {
	body := &readError{r: resp.Body}
	resp.Body = struct {
		io.Reader
		io.Closer
	}{body, resp.Body}
	listing := resp.URL.Redacted()
	var n int64
	for e, err := range resp.Entries() {
		if err != nil {
			if body.err != nil {
				return n, err
			}
			x.write(records.EntryError{Kind: records.KindEntryError, Input: x.input, Listing: listing, Class: records.Class(err), Message: err.Error()})
			continue
		}
		n++
		x.write(records.Entry{Kind: records.KindEntry, Input: x.input, Listing: listing, Entry: e})
	}
	return n, nil
}

// errorRecord answers with the "error" record of err at status code.
func (x *exchange) errorRecord(code int, err error) {
	h := x.w.Header()
	h.Set("Content-Type", jsonType)
	h.Set("Content-Security-Policy", sandboxCSP)
	x.w.WriteHeader(code)
	if x.r.Method == http.MethodHead {
		return
	}
	done := x.done()
	_, msg := records.ErrorParts(err)
	done.Fail(err, msg)
	done.Duration = time.Since(x.start).Seconds()
	x.write(done)
}

// done is the record that ends the exchange's URL, before what came of
// it: the URL as given, one attempt.
func (x *exchange) done() *records.Done {
	in := x.input
	if in == "" {
		in = x.r.RequestURI
	}
	return &records.Done{Input: in, URL: in, Attempts: 1}
}

// write writes one record; a client that is gone ends the exchange.
func (x *exchange) write(v any) {
	if err := records.Write(x.w, v); err != nil {
		x.abort(err)
	}
}
