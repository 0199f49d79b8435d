// Package warctest reads WARC files back for the tests of package warc
// and of the integration suite, with an independent reader
// (github.com/nlnwa/gowarc), strictly, checking every record's digests.
package warctest

import (
	"io"
	"testing"

	gowarc "github.com/nlnwa/gowarc/v3"
)

// A Record is one record read back.
type Record struct {
	Type, Target, ContentType, ID, ConcurrentTo string
	Block                                       []byte
}

// Read reads every record of a WARC file with gowarc, an independent
// reader, strictly (a syntax or spec violation fails), checks each
// record's digests, and returns the records' types, target URIs, content
// types, IDs and blocks.
func Read(t testing.TB, path string) []Record {
	t.Helper()
	r, err := gowarc.NewWarcFileReader(path, 0, gowarc.WithStrictValidation())
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var out []Record
	for rec, err := range r.Records() {
		if err != nil {
			t.Fatalf("gowarc: %s: record %d: %v", path, len(out)+1, err)
		}
		wr := rec.WarcRecord
		if len(rec.Validation) > 0 {
			t.Errorf("gowarc: record %d: %v", len(out)+1, rec.Validation)
		}
		raw, err := wr.Block().RawBytes()
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(raw)
		if err != nil {
			t.Fatal(err)
		}
		if v, err := wr.ValidateDigest(); err != nil || len(v) > 0 {
			t.Errorf("gowarc: record %d (%s): digests: %v %v", len(out)+1, wr.Type(), v, err)
		}
		h := wr.WarcHeader()
		out = append(out, Record{Type: wr.Type().String(), Target: h.Get(gowarc.WarcTargetURI),
			ContentType: h.Get(gowarc.ContentType), ID: h.Get(gowarc.WarcRecordID),
			ConcurrentTo: h.Get(gowarc.WarcConcurrentTo), Block: b})
		wr.Close()
	}
	return out
}
