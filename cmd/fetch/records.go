package main

import (
	jsonrec "github.com/urlfetch/urlfetch/internal/records"
)

// The --json output is JSON Lines, one record per event: the records,
// their schema and their writer are package records (internal/records),
// which fetch serve shares. What the command adds is how a run fills
// them in. (The package is imported as jsonrec: the tests of this
// package have a helper called records.)

// describeOutcome fills r from what an attempt came to.
func describeOutcome(r *jsonrec.Done, out *outcome, sk *sink) {
	r.Kind = out.kind
	switch out.kind {
	case jsonrec.KindHead, jsonrec.KindSent:
		r.Output = "" // nothing was written
	case jsonrec.KindListing:
		n := out.entries
		r.Entries = &n
	}
	if sk.discards() {
		r.Output = "" // the records were the output
	}
	if out.resp != nil {
		r.Describe(out.resp)
	}
}
