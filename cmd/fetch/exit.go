package main

import (
	"context"
	"errors"

	"github.com/urlfetch/urlfetch/fetch"
)

// Exit codes, one per kind of error: a script can tell a missing file
// from a refused password without reading the message.
const (
	exitOK          = 0
	exitFailure     = 1 // any other failure
	exitUsage       = 2 // bad options or arguments
	exitURL         = 3 // the URL is not valid RFC 1738 syntax
	exitNotFound    = 4
	exitAuth        = 5
	exitUnsupported = 6
	exitUnsafe      = 7
	exitProtocol    = 8
	exitTimeout     = 9
	exitConnect     = 10
	exitTLS         = 11
	exitInterrupted = 130
)

var exitTable = []struct {
	code int
	kind error
	text string
}{
	{exitOK, nil, "success"},
	{exitFailure, nil, "other failure (writing the output, ...)"},
	{exitUsage, nil, "usage: bad options or arguments"},
	{exitURL, fetch.ErrURL, "the URL is invalid (the message gives the offset)"},
	{exitNotFound, fetch.ErrNotFound, "not found (FTP 550, NNTP 430, HTTP 404, gopher error item, no such file)"},
	{exitAuth, fetch.ErrAuth, "not authorized (wrong or missing password, HTTP 401/403, no permission)"},
	{exitUnsupported, fetch.ErrUnsupported, "unsupported (unknown scheme, a file on another host)"},
	{exitUnsafe, fetch.ErrUnsafe, "refused as unsafe (another protocol's port, CR/LF/NUL in a protocol line, a redirect the policy refuses)"},
	{exitProtocol, fetch.ErrProtocol, "the server broke its protocol"},
	{exitTimeout, fetch.ErrTimeout, "timed out"},
	{exitConnect, fetch.ErrConnect, "cannot connect (refused, unreachable, unknown host), or the connection broke"},
	{exitTLS, fetch.ErrTLS, "TLS failed: the server's certificate is not trusted (--cacert, -k), the handshake failed, or the server refused TLS that --ssl-reqd requires"},
	{exitInterrupted, context.Canceled, "interrupted"},
}

// exitCode maps an error to its exit code.
func exitCode(err error) int {
	if err == nil {
		return exitOK
	}
	kind := fetch.Class(err)
	for _, e := range exitTable {
		if e.kind != nil && errors.Is(kind, e.kind) {
			return e.code
		}
	}
	return exitFailure
}

// worst returns the exit code to report for a run of several URLs: the
// highest of them, so any failure makes the run fail.
func worst(a, b int) int { return max(a, b) }
