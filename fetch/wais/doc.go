// Package wais implements the wais scheme of RFC 1738 §3.9: a client of
// WAIS, the protocol of RFC 1625 (the Z39.50-1988 draft as WAIS servers
// speak it), and of Z39.50-1995, which modern library servers speak.
//
// A wais URL takes one of three forms:
//
//	wais://host:port/database            the database
//	wais://host:port/database?search     a search of the database
//	wais://host:port/database/wtype/wpath   one document
//
// The port defaults to 210. A search is a Listing of the hits, in the
// order the server ranked them; each entry's URL is the document's own,
// so that fetching it retrieves the document. A database is, from a WAIS
// server, the listing of its source description and catalog; a Z39.50
// server describes no database, so the listing offers its search (or the
// Driver runs the search its Search or Prompt gives).
//
// The two protocols share nothing on the wire, and are two codecs here:
// classic WAIS is a 25-byte ASCII header and a compact tag-length-value
// encoding of its own, not BER; Z39.50-1995 is BER with definite and
// indefinite lengths. A Driver finds out which one a server speaks (see
// Driver.Dialect).
//
// WAIS: the driver sends Init, then a Search with the relevance query
// (query type "3") for a search, and for a document a Search with query
// type "1" for each slice of it, up to the server's maximum record size,
// until all its bytes are in. A hit's URL is the form libwww wrote,
// wtype/length/docid, with the document id written as RFC 1630 says:
// each field as "number=value;", the value %-encoded.
//
// Z39.50-1995: the driver sends InitializeRequest, a SearchRequest with a
// Bib-1 type-1 query (use 1016 any, relation 102 relevance, structure 105
// free-form text: ranked, any word), then PresentRequests for the hits
// in SUTRS, or in XML if the server refuses SUTRS, and Close. Records have
// no identifiers in Z39.50, so a hit's URL names its record by the search
// and the position in the result (see Hit).
//
// Every read has the Client's idle timeout; a message longer than
// MaxMessageSize and every length that exceeds what remains of its
// message are refused as protocol errors. A server's diagnostics become
// an error, a *Diagnostic wrapped with its kind, only when nothing else
// came back.
package wais
