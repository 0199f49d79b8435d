package wais

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/urlfetch/urlfetch/fetch"
)

// A Diagnostic is a server's diagnostic record. The driver returns one,
// wrapped, only when the server sent nothing else: errors.As finds it.
//
// A WAIS server's has a two-letter code ("SF", "S1") and a text; a Z39.50
// server's a condition number of the Bib-1 diagnostic set ("109"), whose
// meaning the driver knows for the common ones, and additional
// information (often the name the server could not use).
type Diagnostic struct {
	Dialect Dialect
	Code    string
	// Message is the meaning of a Bib-1 code, "" when not known.
	Message string
	// AddInfo is the server's own text.
	AddInfo string
	// Set is the OID of a diagnostic set other than Bib-1.
	Set string
	// Surrogate is the surrogate byte of a WAIS diagnostic record.
	Surrogate byte
}

func (d *Diagnostic) Error() string {
	var b strings.Builder
	if d.Dialect == DialectWAIS {
		b.WriteString("server diagnostic " + strconv.Quote(d.Code))
	} else {
		b.WriteString("server diagnostic " + d.Code)
		if d.Set != "" {
			b.WriteString(" of set " + d.Set)
		}
	}
	if d.Message != "" {
		b.WriteString(" (" + d.Message + ")")
	}
	if d.AddInfo != "" {
		b.WriteString(": " + oneLine(d.AddInfo))
	}
	return b.String()
}

// oneLine makes server text fit on one line of an error or trace.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// bib1Messages are the Bib-1 diagnostics a search and present meet most
// (Z39.50-1995 Appendix 4, DIAG).
var bib1Messages = map[int]string{
	1:   "permanent system error",
	2:   "temporary system error",
	3:   "unsupported search",
	4:   "only stop words in the query",
	13:  "present request out of range",
	14:  "system error in presenting records",
	16:  "record exceeds the preferred message size",
	17:  "record exceeds the maximum record size",
	25:  "element set name not valid for the database",
	27:  "result set no longer exists",
	30:  "result set does not exist",
	100: "unspecified error",
	101: "access-control failure",
	107: "query type not supported",
	108: "malformed query",
	109: "database unavailable",
	110: "operator unsupported",
	111: "too many databases specified",
	113: "unsupported attribute type",
	114: "unsupported use attribute",
	117: "unsupported relation attribute",
	118: "unsupported structure attribute",
	121: "unsupported attribute set",
	123: "unsupported attribute combination",
	227: "no data available in the requested record syntax",
	235: "database does not exist",
	236: "access to the database denied",
	238: "record not available in the requested syntax",
	239: "record syntax not supported",
}

func bib1Message(d *Diagnostic) string {
	if d.Set != "" {
		return ""
	}
	n, err := strconv.Atoi(d.Code)
	if err != nil {
		return ""
	}
	return bib1Messages[n]
}

// kind is the fetch error kind of a diagnostic that ended a fetch.
func (d *Diagnostic) kind(document bool) error {
	if d.Dialect == DialectWAIS {
		// WAIS codes are the server's own, and freeWAIS-sf gives one code
		// (S1) to a query it cannot parse and to a database it does not
		// have: a retrieval that gives only a diagnostic found no such
		// document, and a search whose diagnostic says the database is
		// not there found no such database.
		if document || missingDatabase(d.AddInfo) {
			return fetch.ErrNotFound
		}
		return nil
	}
	n, _ := strconv.Atoi(d.Code)
	switch n {
	case 13, 27, 30, 109, 235:
		return fetch.ErrNotFound
	case 101, 236:
		return fetch.ErrAuth
	case 3, 107, 110, 113, 114, 117, 118, 121, 123, 227, 238, 239:
		return fetch.ErrUnsupported
	}
	return nil
}

// missingDatabase reports whether a WAIS diagnostic's text says the
// database searched is not there, as freeWAIS-sf's "The following
// database is not available: NAME".
func missingDatabase(text string) bool {
	t := strings.ToLower(text)
	if !strings.Contains(t, "database") {
		return false
	}
	for _, s := range []string{"not available", "not found", "does not exist", "no such", "unknown"} {
		if strings.Contains(t, s) {
			return true
		}
	}
	return false
}

// badSyntax reports whether the diagnostic refuses a record syntax, after
// which a Present is tried again in another.
func (d *Diagnostic) badSyntax() bool {
	switch d.Code {
	case "227", "238", "239":
		return d.Dialect == DialectZ3950 && d.Set == ""
	}
	return false
}

// diagError is the error of a fetch that got only diagnostics: the first
// one, wrapped with its kind, naming what was asked.
func diagError(what string, document bool, ds []*Diagnostic) error {
	d := ds[0]
	more := ""
	if len(ds) > 1 {
		more = " (and " + strconv.Itoa(len(ds)-1) + " more)"
	}
	if k := d.kind(document); k != nil {
		return fetch.Errorf(k, "wais: %s: %w%s", what, d, more)
	}
	return fmt.Errorf("wais: %s: %w%s", what, d, more)
}
