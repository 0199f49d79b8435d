// Package want is what fetch's tests want of a fetch from each server of
// internal/misbehaving: the kind of error (fetch.ErrTimeout,
// fetch.ErrProtocol, ...) it must end with, at Fetch, reading the Body or
// walking the Entries. The kit knows only the wire; this is the client's
// side of its table, shared by the tests that hold fetch to it:
// internal/misbehaving's through fetch/all, cmd/fetch's through the exit
// code of the built command.
package want

import (
	"github.com/urlfetch/urlfetch/fetch"
	"github.com/urlfetch/urlfetch/internal/misbehaving"
)

// Kind returns the kind of error a fetch of the URL of c's server must
// end with; nil for a case that does not apply (c.NA is set).
func Kind(c misbehaving.Case) error {
	return kinds()[c.Name()]
}

// kinds is the table, by Case.Name: protocol/Behaviour, and /variant
// where a cell has two cases.
func kinds() map[string]error {
	// A connection that breaks before the reply ends (the server closes
	// in the middle, or sends fewer bytes than it announced and closes)
	// is ErrConnect in every driver: fetch.ConnBroken is the one rule,
	// and a retry may help.
	p, t, b := fetch.ErrProtocol, fetch.ErrTimeout, fetch.ErrConnect
	return map[string]error{
		"http/StallBefore":      t,
		"http/StallDuring":      t,
		"http/EndlessLine":      p,
		"http/Huge":             p,
		"http/Garbage":          p,
		"http/WrongLength":      b,
		"http/CloseMidTransfer": b,

		"ftp/StallBefore":      t,
		"ftp/StallDuring":      t,
		"ftp/EndlessLine":      p,
		"ftp/EndlessListing":   p,
		"ftp/Huge":             p,
		"ftp/Huge/preliminary": p,
		"ftp/Garbage":          p,
		// Fewer bytes than SIZE said: the transfer broke off, and a retry
		// may resume it (ErrConnect). More: the server is wrong.
		"ftp/WrongLength/short": fetch.ErrConnect,
		"ftp/WrongLength/long":  p,
		// The driver calls a control connection that breaks a broken
		// connection (ErrConnect: a retry may help).
		"ftp/CloseMidTransfer": fetch.ErrConnect,

		"gopher/StallBefore":    t,
		"gopher/StallDuring":    t,
		"gopher/EndlessLine":    p,
		"gopher/EndlessListing": p,

		"gopher+/StallBefore": t,
		"gopher+/StallDuring": t,
		"gopher+/EndlessLine": p,
		"gopher+/Huge":        p,
		// Attribute blocks that are not there: the driver says the server
		// may not speak Gopher+ at all.
		"gopher+/Garbage":          fetch.ErrUnsupported,
		"gopher+/WrongLength":      b,
		"gopher+/CloseMidTransfer": b,

		"nntp/StallBefore":           t,
		"nntp/StallDuring":           t,
		"nntp/EndlessLine":           p,
		"nntp/EndlessListing/active": p,
		"nntp/EndlessListing/group":  p,
		"nntp/Huge":                  p,
		"nntp/Garbage":               p,
		"nntp/CloseMidTransfer":      b,

		"smtp/StallBefore":      t,
		"smtp/StallDuring":      t,
		"smtp/EndlessLine":      p,
		"smtp/Huge":             p,
		"smtp/Garbage":          p,
		"smtp/CloseMidTransfer": b,

		"telnet/StallBefore": t,
		"telnet/StallDuring": t,
		"telnet/EndlessLine": p,
		"telnet/Huge":        p,
		"telnet/Garbage":     p,

		"wais/StallBefore":      t,
		"wais/StallDuring":      t,
		"wais/Huge":             p,
		"wais/Garbage":          p,
		"wais/WrongLength":      p,
		"wais/CloseMidTransfer": b,

		"z3950/StallBefore":      t,
		"z3950/StallDuring":      t,
		"z3950/EndlessLine":      p,
		"z3950/Huge":             p,
		"z3950/Garbage":          p,
		"z3950/WrongLength":      p,
		"z3950/CloseMidTransfer": b,
	}
}
