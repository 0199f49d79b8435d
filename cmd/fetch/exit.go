package main

import (
	jsonrec "github.com/urlfetch/urlfetch/internal/records"
)

// Exit codes, one per kind of error: a script can tell a missing file
// from a refused password without reading the message. The classes of
// error and their codes are the records' (records.ExitCode); the command
// adds its usage error.
const (
	exitOK          = jsonrec.ExitOK
	exitFailure     = jsonrec.ExitFailure // any other failure
	exitUsage       = 2                   // bad options or arguments
	exitURL         = jsonrec.ExitURL     // the URL is not valid RFC 1738 syntax
	exitNotFound    = jsonrec.ExitNotFound
	exitAuth        = jsonrec.ExitAuth
	exitUnsupported = jsonrec.ExitUnsupported
	exitUnsafe      = jsonrec.ExitUnsafe
	exitProtocol    = jsonrec.ExitProtocol
	exitTimeout     = jsonrec.ExitTimeout
	exitConnect     = jsonrec.ExitConnect
	exitTLS         = jsonrec.ExitTLS
	exitInterrupted = jsonrec.ExitInterrupted
)

// exitTable is what the help and the man page say of each exit code.
var exitTable = []struct {
	code int
	text string
}{
	{exitOK, "success"},
	{exitFailure, "other failure (writing the output, ...)"},
	{exitUsage, "usage: bad options or arguments"},
	{exitURL, "the URL is invalid (the message gives the offset)"},
	{exitNotFound, "not found (FTP 550, NNTP 430, HTTP 404, gopher error item, no such file)"},
	{exitAuth, "not authorized (wrong or missing password, HTTP 401/403, no permission)"},
	{exitUnsupported, "unsupported (unknown scheme, a file on another host)"},
	{exitUnsafe, "refused as unsafe (another protocol's port, CR/LF/NUL in a protocol line, a redirect the policy refuses)"},
	{exitProtocol, "the server broke its protocol"},
	{exitTimeout, "timed out"},
	{exitConnect, "cannot connect (refused, unreachable, unknown host), or the connection broke"},
	{exitTLS, "TLS failed: the server's certificate is not trusted (--cacert, -k), the handshake failed, or the server refused TLS that --ssl-reqd requires"},
	{exitInterrupted, "interrupted"},
}

// exitCode maps an error to its exit code.
func exitCode(err error) int { return jsonrec.ExitCode(err) }

// worst returns the exit code to report for a run of several URLs: the
// highest of them, so any failure makes the run fail.
func worst(a, b int) int { return max(a, b) }
