package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/urfave/cli/v2"
	"github.com/urlfetch/urlfetch/fetch"
	"github.com/urlfetch/urlfetch/fetch/all"
	jsonrec "github.com/urlfetch/urlfetch/internal/records"
	"github.com/urlfetch/urlfetch/internal/termsafe"
	"github.com/urlfetch/urlfetch/uri"
)

// options are the command line's settings for fetching.
type options struct {
	output     string
	remoteName bool
	dir        string
	json       bool
	head       bool // -I: metadata only (head.go)
	urls       bool
	verbose    bool
	quiet      bool
	timeout    time.Duration
	parallel   int  // -P: URLs fetched at once
	perHost    int  // at most this many of them from one server
	retry      int  // --retry: tries again after a transient failure
	resume     bool // -C: continue a partial output file
	raw        bool // --raw: a listing as the server's bytes
	human      bool // -h: sizes in K, M, G
	noClobber  bool // --no-clobber: never replace a file
	createDirs bool // --create-dirs: make -o's directory
	remoteTime bool // -R: the output gets the resource's time
	// stdoutTerminal: standard output is a terminal (listings are
	// escaped, binary refused).
	stdoutTerminal bool
	client         *fetch.Client
	progress       *progress   // the run's bars on standard error (progress.go)
	warc           *warcOutput // --warc-file (warc.go)
}

// copyBuffers are the buffers transfers copy through, one per running
// transfer: many small documents in one run (100 files over one FTP
// connection) share them rather than each allocating and clearing its own.
var copyBuffers = sync.Pool{New: func() any { b := make([]byte, copyBufferSize); return &b }}

func optionsFrom(c *cli.Context) (*options, error) {
	o := &options{
		output:     c.String("output"),
		remoteName: c.Bool("remote-name"),
		dir:        c.String("dir"),
		json:       c.Bool("json"),
		head:       c.Bool("head"),
		urls:       c.Bool("urls"),
		verbose:    c.Bool("verbose"),
		quiet:      c.Bool("quiet"),
		timeout:    c.Duration("timeout"),
		parallel:   c.Int("parallel"),
		perHost:    c.Int("per-host"),
		retry:      c.Int("retry"),
		resume:     c.Bool("continue"),
		raw:        c.Bool("raw"),
		human:      c.Bool("human-readable"),
		noClobber:  c.Bool("no-clobber"),
		createDirs: c.Bool("create-dirs"),
		remoteTime: c.Bool("remote-time"),
	}
	recursive := c.Bool("recursive") || c.Bool("mirror") // -r saves under --dir, resuming partial files
	switch {
	case o.output != "" && o.remoteName:
		return nil, cli.Exit("-o and -O exclude each other", exitUsage)
	case o.dir != "" && !o.remoteName && !recursive:
		return nil, cli.Exit("--dir goes with -O", exitUsage)
	case o.resume && o.output == "" && !o.remoteName && !recursive:
		return nil, cli.Exit("-C continues an output file: it needs -o FILE or -O", exitUsage)
	case o.resume && o.noClobber:
		return nil, cli.Exit("-C continues a file that --no-clobber would keep: use one of them", exitUsage)
	case o.createDirs && o.output == "" && !o.remoteName && !recursive:
		return nil, cli.Exit("--create-dirs makes the directories of -o FILE or of --dir", exitUsage)
	case o.parallel < 1:
		return nil, cli.Exit("-P needs a number of 1 or more", exitUsage)
	case o.perHost < 1:
		return nil, cli.Exit("--per-host needs a number of 1 or more", exitUsage)
	case o.retry < 0:
		return nil, cli.Exit("--retry needs a number of 0 or more", exitUsage)
	}
	if err := checkHeadOptions(o); err != nil {
		return nil, err
	}
	// No Gateway here: configureGateways sets it, from the environment as
	// all.NewClient does, and from --gateway.
	cl := &fetch.Client{}
	ds := all.NewDrivers()
	// Registered before any option is applied, so that the policy's
	// options see every scheme.
	ds.Register(cl)
	cl.ConnectTimeout = c.Duration("connect-timeout")
	cl.IdleTimeout = c.Duration("idle-timeout")
	cl.NetrcFile = c.String("netrc-file")
	cl.AllowPorts = c.IntSlice("allow-port")
	if err := configureConnectTo(c, cl); err != nil {
		return nil, err
	}
	if o.verbose {
		errw := c.App.ErrWriter
		cl.Trace = func(dir fetch.Direction, line string) {
			// The server's lines as it sent them, but for what a
			// terminal would act on.
			fmt.Fprintf(errw, "%c %s\n", dir, termsafe.Escape(line))
		}
	}
	// Without a terminal Prompt stays nil, so the drivers say a password
	// is needed.
	if haveTerminal() {
		cl.Prompt = askSecret
	}
	if err := configureDrivers(c, cl, ds); err != nil {
		return nil, err
	}
	o.client = cl
	return o, nil
}

// fetchOne fetches raw once into sk, its output, within --timeout.
func fetchOne(ctx context.Context, o *options, raw string, sk *sink, stdin io.Reader, stdout, stderr io.Writer) (*outcome, error) {
	if o.timeout <= 0 {
		return fetchOnce(ctx, o, raw, sk, stdin, stdout, stderr)
	}
	tctx, cancel := context.WithTimeout(ctx, o.timeout)
	defer cancel()
	out, err := fetchOnce(tctx, o, raw, sk, stdin, stdout, stderr)
	if err != nil && ctx.Err() == nil && errors.Is(tctx.Err(), context.DeadlineExceeded) {
		return out, &gaveUpError{after: o.timeout, err: err}
	}
	return out, err
}

// outcome is what one attempt at a URL came to: the record kind that
// ends it and the response, for the --json record.
type outcome struct {
	kind    string
	resp    *fetch.Response
	entries int64 // of a listing
}

// fetchOnce is one attempt at raw. The outcome has the response once one
// came, even when the attempt failed after it.
func fetchOnce(ctx context.Context, o *options, raw string, sk *sink, stdin io.Reader, stdout, stderr io.Writer) (_ *outcome, err error) {
	req, err := o.client.NewRequest(raw)
	if err != nil {
		return nil, err
	}
	req.Input = stdin
	req.Offset = sk.offset()
	req.Head = o.head
	req.Raw = o.raw
	resp, err := o.client.Do(ctx, req)
	if err != nil {
		return nil, handOff(ctx, err, stdin, stdout, stderr)
	}
	defer resp.Body.Close()
	if o.warc != nil && !req.Head {
		archive := o.warc.tee(resp) // warc.go
		defer func() { err = archive(err) }()
	}
	out := &outcome{resp: resp}
	if o.head {
		out.kind = jsonrec.KindHead
		if o.json {
			return out, nil // the record is the output
		}
		return out, writeHead(stdout, resp)
	}

	switch resp.Kind {
	case fetch.Listing:
		out.kind = jsonrec.KindListing
		body := &readError{ReadCloser: resp.Body}
		resp.Body = body
		if o.raw {
			return out, sk.listing(resp, func(w io.Writer) error {
				return writeRawListing(w, o, sk, resp, body, &out.entries)
			})
		}
		return out, sk.listing(resp, func(w io.Writer) error {
			return writeListing(w, o, sk, resp, body, &out.entries)
		})
	case fetch.Session:
		out.kind = jsonrec.KindSession
		if o.json {
			// Standard output is the records': the session is shown
			// on standard error.
			return out, runSession(ctx, resp, stdin, stderr)
		}
		return out, runSession(ctx, resp, stdin, stdout)
	case fetch.Sent:
		out.kind = jsonrec.KindSent
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
		if resp.Status == "" {
			resp.Status = strings.TrimSpace(string(b))
		}
		if !o.quiet {
			fmt.Fprintf(o.progress.writer(), "fetch: sent to %s: %s\n", resp.URL.Redacted(), termsafe.Escape(jsonrec.OneLine(string(b))))
		}
		return out, resp.Body.Close()
	default:
		out.kind = jsonrec.KindDocument
		buf := copyBuffers.Get().(*[]byte)
		defer copyBuffers.Put(buf)
		bar := startBar(o, resp, sk.path)
		resp.Body = bar.body(resp.Body)
		err := sk.document(resp, *buf)
		bar.done(err)
		return out, err
	}
}

// bodyError wraps an error met while reading a body with the URL, as the
// Client does for errors before the body.
func bodyError(resp *fetch.Response, err error) error {
	if err == nil {
		return nil
	}
	var fe *fetch.Error
	if errors.As(err, &fe) {
		return err
	}
	return &fetch.Error{Op: "read", URL: resp.URL.Redacted(), Err: err}
}

// readError is a listing's Body that keeps the error that broke its
// read: an entry error after it is the end of the listing, not one more
// line that could not be parsed.
type readError struct {
	io.ReadCloser
	err error
}

func (r *readError) Read(p []byte) (int, error) {
	n, err := r.ReadCloser.Read(p)
	if err != nil && err != io.EOF && r.err == nil {
		r.err = err
	}
	return n, err
}

// errorLine is the one line a failed URL prints: the URL once (its
// password masked), then what went wrong in a person's words, every
// character a terminal could act on escaped (termsafe.Escape): a reply quoted in
// an error is the server's text.
func errorLine(err error) string {
	url, msg := errorParts(err)
	if url != "" {
		return termsafe.Escape("fetch: " + url + ": " + msg)
	}
	return termsafe.Escape("fetch: " + msg)
}

// errorMessage is what errorLine says went wrong, without the URL and
// unescaped: the message of a --json record.
func errorMessage(err error) string {
	_, msg := errorParts(err)
	return msg
}

// errorParts are the URL an error names and what went wrong, as every
// record's message says it (records.ErrorParts), with what the command
// adds: a guess at the URL meant by what does not parse, the option that
// sets a timeout, how to trust a certificate.
func errorParts(err error) (url, msg string) {
	url, msg = jsonrec.ErrorParts(err)
	var fe *fetch.Error
	if errors.As(err, &fe) && fe.Op == "parse" {
		msg += suggestURL(fe.URL)
	}
	var te *fetch.TimeoutError
	var ge *gaveUpError
	switch {
	case errors.As(err, &ge):
		msg = ge.Error()
	case errors.Is(err, context.Canceled):
		// records.ErrorParts says "interrupted".
	case errors.As(err, &te):
		msg = strings.Replace(msg, te.Error(), te.Error()+" (--"+te.Wait+"-timeout)", 1)
	case errors.As(err, new(*fetch.CertificateError)):
		msg += " (trust its issuer with --cacert FILE, or skip the check with -k)"
	}
	return url, msg
}

// loginWarning is the warning a URL gets for a user or password where
// RFC 1738 gives its scheme none: an http or https URL (section 3.3),
// which the command takes as curl does, sending them as Basic
// authorization. "" for any other URL. The password is masked.
func loginWarning(raw string) string {
	u, err := uri.Parse(raw)
	if err != nil || !u.HasUser || u.Scheme != "http" && u.Scheme != "https" {
		return ""
	}
	return "fetch: warning: " + u.Redacted() + ": RFC 1738 section 3.3 defines no user or password in http URLs; sending them as Basic authorization (-u USER or ~/.netrc keep them out of the URL)"
}

// gaveUpError is a fetch that --timeout ended.
type gaveUpError struct {
	after time.Duration
	err   error
}

func (e *gaveUpError) Error() string {
	return "gave up after " + strconv.FormatFloat(e.after.Seconds(), 'f', -1, 64) + "s (--timeout)"
}

func (e *gaveUpError) Unwrap() error { return e.err }

// suggestURL guesses the URL meant by something without a scheme: an
// existing file or an absolute path is a file: URL, a name with a dot an
// http: one, as curl and wget take it.
func suggestURL(s string) string {
	if s == "" || strings.ContainsAny(s, " \t\r\n") || strings.Contains(s, ":") && !strings.HasPrefix(s, "/") {
		return ""
	}
	if strings.HasPrefix(s, "/") || strings.HasPrefix(s, "./") || strings.HasPrefix(s, "../") || fileExists(s) {
		abs, err := filepath.Abs(s)
		if err != nil {
			return ""
		}
		var b strings.Builder
		b.WriteString("file://")
		for _, seg := range strings.Split(strings.TrimPrefix(filepath.ToSlash(abs), "/"), "/") {
			b.WriteString("/" + uri.Escape(seg, uri.ComponentFileSegment))
		}
		return "; try: fetch " + b.String()
	}
	host, _, _ := strings.Cut(s, "/")
	if strings.Contains(host, ".") || host == "localhost" {
		if !strings.Contains(s, "/") {
			s += "/"
		}
		return "; try: fetch http://" + s
	}
	return ""
}

func fileExists(name string) bool {
	_, err := os.Stat(name)
	return err == nil
}

// copyBufferSize is the buffer a transfer copies through: large enough that a
// fast loopback transfer costs few system calls, small enough that memory
// stays flat.
const copyBufferSize = 256 << 10

// onlyWriter hides a writer's ReadFrom, so io.CopyBuffer uses our buffer
// rather than *os.File's generic 32 KiB fallback.
type onlyWriter struct{ io.Writer }
