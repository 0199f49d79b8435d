package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/urfave/cli/v2"
	"github.com/urlfetch/urlfetch/fetch"
	"github.com/urlfetch/urlfetch/fetch/all"
	"golang.org/x/term"
)

// options are the command line's settings for fetching.
type options struct {
	output     string
	remoteName bool
	dir        string
	json       bool
	urls       bool
	verbose    bool
	quiet      bool
	timeout    time.Duration
	client     *fetch.Client
	buf        []byte // the copy buffer, one for every URL of the run
}

// copyBuffer returns the run's copy buffer, made on first use: many small
// documents in one run (100 files over one FTP connection) then share one
// buffer rather than each allocating and clearing its own.
func (o *options) copyBuffer() []byte {
	if o.buf == nil {
		o.buf = make([]byte, copyBufferSize)
	}
	return o.buf
}

func optionsFrom(c *cli.Context) (*options, error) {
	o := &options{
		output:     c.String("output"),
		remoteName: c.Bool("remote-name"),
		dir:        c.String("dir"),
		json:       c.Bool("json"),
		urls:       c.Bool("urls"),
		verbose:    c.Bool("verbose"),
		quiet:      c.Bool("quiet"),
		timeout:    c.Duration("timeout"),
	}
	switch {
	case o.output != "" && o.remoteName:
		return nil, cli.Exit("-o and -O exclude each other", exitUsage)
	case o.output != "" && c.NArg() > 1:
		return nil, cli.Exit("-o takes one URL; use -O (and --dir) for several", exitUsage)
	case o.dir != "" && !o.remoteName:
		return nil, cli.Exit("--dir goes with -O", exitUsage)
	}
	cl := all.NewClient()
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
	cl.Prompt = terminalPrompt(c.App.ErrWriter)
	if err := configureDrivers(c, cl); err != nil {
		return nil, err
	}
	o.client = cl
	return o, nil
}

// terminalPrompt asks for a password on the terminal without echo; with
// no terminal it is nil, so the drivers say a password is needed.
func terminalPrompt(errw io.Writer) func(context.Context, string) (string, error) {
	tty, err := os.OpenFile("/dev/tty", os.O_RDWR, 0)
	if err != nil {
		return nil
	}
	tty.Close()
	return func(ctx context.Context, prompt string) (string, error) {
		tty, err := os.OpenFile("/dev/tty", os.O_RDWR, 0)
		if err != nil {
			return "", err
		}
		defer tty.Close()
		fmt.Fprint(tty, prompt)
		pw, err := term.ReadPassword(int(tty.Fd()))
		fmt.Fprintln(tty)
		return string(pw), err
	}
}

// fetchAll fetches every URL in turn and returns the exit code: the
// highest of the URLs' codes.
func fetchAll(ctx context.Context, o *options, urls []string, stdin io.Reader, stdout, stderr io.Writer) int {
	defer o.client.Close()
	code := exitOK
	for _, raw := range urls {
		if err := fetchOne(ctx, o, raw, stdin, stdout, stderr); err != nil {
			fmt.Fprintln(stderr, errorLine(err))
			code = worst(code, exitCode(err))
		}
		if ctx.Err() != nil {
			return worst(code, exitInterrupted)
		}
	}
	return code
}

func fetchOne(ctx context.Context, o *options, raw string, stdin io.Reader, stdout, stderr io.Writer) error {
	if o.timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, o.timeout)
		defer cancel()
	}
	req, err := o.client.NewRequest(raw)
	if err != nil {
		return err
	}
	req.Input = stdin
	resp, err := o.client.Do(ctx, req)
	if err != nil {
		return handOff(ctx, err, stdin, stdout, stderr)
	}
	defer resp.Body.Close()
	masked := resp.URL.Redacted()

	switch resp.Kind {
	case fetch.Listing:
		return withOutput(o, resp, stdout, func(w io.Writer) error {
			if o.json {
				return writeEntriesJSON(w, resp)
			}
			return writeEntries(w, stderr, resp, o.urls)
		})
	case fetch.Session:
		return runSession(ctx, resp, stdin, stdout)
	case fetch.Sent:
		if !o.quiet {
			b, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
			fmt.Fprintf(stderr, "fetch: sent to %s: %s\n", masked, b)
		}
		return resp.Body.Close()
	default:
		if o.json && o.output == "" && !o.remoteName {
			return writeMetaJSON(stdout, resp)
		}
		err := withOutput(o, resp, stdout, func(w io.Writer) error {
			_, err := io.CopyBuffer(onlyWriter{w}, resp.Body, o.copyBuffer())
			return err
		})
		if err == nil && o.json {
			err = writeMetaJSON(stdout, resp)
		}
		return err
	}
}

// withOutput runs write against the output the options name: standard
// output, or a file that appears under its name only when write and the
// body's Close both succeed.
func withOutput(o *options, resp *fetch.Response, stdout io.Writer, write func(io.Writer) error) error {
	path := o.output
	if o.remoteName {
		dir := o.dir
		if dir == "" {
			dir = "."
		}
		p, err := safeJoin(dir, outputName(resp.URL))
		if err != nil {
			return err
		}
		path = p
	}
	if path == "" || path == "-" {
		if err := write(stdout); err != nil {
			return bodyError(resp, err)
		}
		return bodyError(resp, resp.Body.Close())
	}
	if fi, err := os.Stat(path); err == nil && !fi.Mode().IsRegular() && !fi.IsDir() {
		// A device or FIFO (-o /dev/null): nothing to rename into place.
		dev, err := os.OpenFile(path, os.O_WRONLY, 0)
		if err != nil {
			return err
		}
		defer dev.Close()
		if err := write(dev); err != nil {
			return bodyError(resp, err)
		}
		return bodyError(resp, resp.Body.Close())
	}
	f, err := createAtomic(path)
	if err != nil {
		return err
	}
	defer f.Abort()
	if err := write(f); err != nil {
		return bodyError(resp, err)
	}
	// Close finishes the exchange (FTP 226, NNTP dot line): only then is
	// the file known to be complete.
	if err := resp.Body.Close(); err != nil {
		return bodyError(resp, err)
	}
	return f.Commit()
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
func writeEntries(w, stderr io.Writer, resp *fetch.Response, urls bool) error {
	for e, err := range resp.Entries() {
		if err != nil {
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
func writeEntriesJSON(w io.Writer, resp *fetch.Response) error {
	enc := json.NewEncoder(w)
	for e, err := range resp.Entries() {
		if err != nil {
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

// errorLine is the one line a failed URL prints: what failed, the masked
// URL, and the cause with the server's own words.
func errorLine(err error) string {
	var fe *fetch.Error
	if errors.As(err, &fe) && fe.Op == "fetch" {
		return "fetch: " + fe.URL + ": " + oneLine(fe.Err.Error())
	}
	return "fetch: " + oneLine(err.Error())
}

// oneLine folds a multi-line server reply into one line.
func oneLine(s string) string {
	return strings.Join(strings.Fields(strings.ReplaceAll(s, "\r", "")), " ")
}

// copyBufferSize is the one buffer a transfer uses: large enough that a
// fast loopback transfer costs few system calls, small enough that memory
// stays flat.
const copyBufferSize = 256 << 10

// onlyWriter hides a writer's ReadFrom, so io.CopyBuffer uses our buffer
// rather than *os.File's generic 32 KiB fallback.
type onlyWriter struct{ io.Writer }
