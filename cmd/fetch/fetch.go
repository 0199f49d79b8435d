package main

import (
	"context"
	"encoding/json"
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
	client     *fetch.Client
	progress   *progress // the run's bars on standard error (progress.go)
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
	}
	switch {
	case o.output != "" && o.remoteName:
		return nil, cli.Exit("-o and -O exclude each other", exitUsage)
	case o.dir != "" && !o.remoteName:
		return nil, cli.Exit("--dir goes with -O", exitUsage)
	case o.resume && o.output == "" && !o.remoteName:
		return nil, cli.Exit("-C continues an output file: it needs -o FILE or -O", exitUsage)
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
	if o.verbose {
		errw := c.App.ErrWriter
		cl.Trace = func(dir fetch.Direction, line string) {
			fmt.Fprintf(errw, "%c %s\n", dir, line)
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
func fetchOne(ctx context.Context, o *options, raw string, sk *sink, stdin io.Reader, stdout, stderr io.Writer) error {
	if o.timeout <= 0 {
		return fetchOnce(ctx, o, raw, sk, stdin, stdout, stderr)
	}
	tctx, cancel := context.WithTimeout(ctx, o.timeout)
	defer cancel()
	err := fetchOnce(tctx, o, raw, sk, stdin, stdout, stderr)
	if err != nil && ctx.Err() == nil && errors.Is(tctx.Err(), context.DeadlineExceeded) {
		return &gaveUpError{after: o.timeout, err: err}
	}
	return err
}

// fetchOnce is one attempt at raw.
func fetchOnce(ctx context.Context, o *options, raw string, sk *sink, stdin io.Reader, stdout, stderr io.Writer) error {
	req, err := o.client.NewRequest(raw)
	if err != nil {
		return err
	}
	req.Input = stdin
	req.Offset = sk.offset()
	req.Head = o.head
	resp, err := o.client.Do(ctx, req)
	if err != nil {
		return handOff(ctx, err, stdin, stdout, stderr)
	}
	defer resp.Body.Close()
	if o.head {
		return writeHead(stdout, o, resp)
	}
	masked := resp.URL.Redacted()

	switch resp.Kind {
	case fetch.Listing:
		body := &readError{ReadCloser: resp.Body}
		resp.Body = body
		return sk.listing(resp, func(w io.Writer) error {
			if o.json {
				return writeEntriesJSON(w, resp, body)
			}
			return writeEntries(w, o.progress.writer(), resp, body, o.urls)
		})
	case fetch.Session:
		return runSession(ctx, resp, stdin, stdout)
	case fetch.Sent:
		if !o.quiet {
			b, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
			fmt.Fprintf(o.progress.writer(), "fetch: sent to %s: %s\n", masked, b)
		}
		return resp.Body.Close()
	default:
		if o.json && o.output == "" && !o.remoteName {
			return writeMetaJSON(stdout, resp)
		}
		buf := copyBuffers.Get().(*[]byte)
		defer copyBuffers.Put(buf)
		bar := startBar(o, resp, sk.path)
		resp.Body = bar.body(resp.Body)
		err := sk.document(resp, *buf)
		bar.done(err)
		if err != nil {
			return err
		}
		if o.json {
			return writeMetaJSON(stdout, resp)
		}
		return nil
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

// writeEntries prints a listing as aligned columns, one entry per line,
// as it streams in: type, size, date, name (and URL).
func writeEntries(w, stderr io.Writer, resp *fetch.Response, body *readError, urls bool) error {
	for e, err := range resp.Entries() {
		if err != nil {
			if body.err != nil {
				return err // the listing broke off: its error ends it
			}
			fmt.Fprintf(stderr, "fetch: %s: %v\n", resp.URL.Redacted(), err)
			continue
		}
		size := "-"
		if e.Size >= 0 && e.Type != fetch.EntryDir {
			size = strconv.FormatInt(e.Size, 10)
		}
		date := "-"
		if !e.Time.IsZero() {
			date = e.Time.Local().Format("2006-01-02 15:04")
		}
		name := e.Name
		if e.Title != "" && e.Title != e.Name {
			name += "  " + e.Title
		}
		if urls {
			name += "  " + e.URL
		}
		if _, err := fmt.Fprintf(w, "%-7s %12s  %-16s  %s\n", e.Type, size, date, name); err != nil {
			return err
		}
	}
	return nil
}

// writeEntriesJSON prints one JSON object per entry (JSON Lines).
func writeEntriesJSON(w io.Writer, resp *fetch.Response, body *readError) error {
	enc := json.NewEncoder(w)
	for e, err := range resp.Entries() {
		if err != nil {
			if body.err != nil {
				return err
			}
			if err := enc.Encode(map[string]string{"error": err.Error()}); err != nil {
				return err
			}
			continue
		}
		if err := enc.Encode(e); err != nil {
			return err
		}
	}
	return nil
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

// writeMetaJSON prints a response's metadata as one JSON object.
func writeMetaJSON(w io.Writer, resp *fetch.Response) error {
	m := struct {
		URL      string     `json:"url"`
		Kind     fetch.Kind `json:"kind"`
		Type     string     `json:"type,omitempty"`
		Length   int64      `json:"length"`
		Offset   int64      `json:"offset,omitempty"`
		Modified time.Time  `json:"modified,omitzero"`
		Meta     fetch.Meta `json:"meta,omitempty"`
	}{resp.URL.Redacted(), resp.Kind, resp.Type, resp.Length, resp.Offset, resp.Modified, resp.Meta}
	return json.NewEncoder(w).Encode(m)
}

// errorLine is the one line a failed URL prints: the URL once (its
// password masked), then what went wrong in a person's words. The name of
// the driver that a library error starts with ("ftp: ...") goes, for the
// URL names its scheme already; a timeout names the option that sets it;
// an interrupted fetch says so rather than "context canceled".
func errorLine(err error) string {
	url, msg := "", err.Error()
	var fe *fetch.Error
	if errors.As(err, &fe) {
		url, msg = fe.URL, fe.Err.Error()
		if fe.Op == "parse" {
			msg = "not a URL: " + msg + suggestURL(fe.URL)
		}
	}
	msg = oneLine(msg)
	if url != "" {
		msg = dropDriverName(url, msg)
	}
	var te *fetch.TimeoutError
	var ge *gaveUpError
	switch {
	case errors.As(err, &ge):
		msg = ge.Error()
	case errors.Is(err, context.Canceled):
		msg = "interrupted"
	case errors.As(err, &te):
		msg = strings.Replace(msg, te.Error(), te.Error()+" (--"+te.Wait+"-timeout)", 1)
	case errors.As(err, new(*fetch.CertificateError)):
		msg += " (trust its issuer with --cacert FILE, or skip the check with -k)"
	}
	if url != "" {
		return "fetch: " + url + ": " + msg
	}
	return "fetch: " + msg
}

// driverNames are the prefixes the drivers' errors start with.
var driverNames = []string{"ftp", "http", "gopher", "nntp", "wais", "file", "mailto", "telnet"}

// dropDriverName takes the driver's name off the front of msg.
func dropDriverName(url, msg string) string {
	for _, d := range driverNames {
		if rest, ok := strings.CutPrefix(msg, d+": "); ok && rest != "" {
			return rest
		}
	}
	return msg
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

// oneLine folds a multi-line server reply into one line.
func oneLine(s string) string {
	return strings.Join(strings.Fields(strings.ReplaceAll(s, "\r", "")), " ")
}

// copyBufferSize is the buffer a transfer copies through: large enough that a
// fast loopback transfer costs few system calls, small enough that memory
// stays flat.
const copyBufferSize = 256 << 10

// onlyWriter hides a writer's ReadFrom, so io.CopyBuffer uses our buffer
// rather than *os.File's generic 32 KiB fallback.
type onlyWriter struct{ io.Writer }
