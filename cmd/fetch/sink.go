package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"time"

	"github.com/urlfetch/urlfetch/fetch"
	"github.com/urlfetch/urlfetch/internal/outfile"
)

// A sink is where one URL's document goes: standard output, a device, a
// file written under a temporary name and renamed when complete, or, with
// -C, the partial file itself. It lives across the attempts of --retry
// and counts what it has written, so that the next attempt asks the
// server to start there (FTP REST, HTTP Range) and, from a server that
// cannot, skips what is written already.
type sink struct {
	o      *options
	stdout io.Writer // this URL's turn of standard output
	stderr io.Writer
	masked string // the URL for messages, without its password

	path string // the output file; "" for standard output
	dev  bool   // path is a device or FIFO: written as a stream
	// fresh: path (from the URL) is a symbolic link, to be replaced by
	// a new file even with -C.
	fresh bool
	f     *os.File
	tmp   *outfile.File // f, when it is a temporary file
	n     int64         // bytes of the document in the output
	// written counts the bytes this run wrote, every attempt's.
	written  int64
	modified time.Time // the resource's, for -R
	// wrote is set once anything reached standard output or a device: a
	// listing cannot be taken back there.
	wrote bool
}

// newSink is the output of the URL raw, to go to path ("" for standard
// output), as planTargets decided.
func newSink(o *options, raw, path string, stdout, stderr io.Writer) *sink {
	s := &sink{o: o, stdout: stdout, stderr: stderr, masked: maskURL(raw), path: path}
	if s.path == "" {
		return s
	}
	// A name the user gave (-o) is followed; a name from the URL (-O) is
	// not: a symbolic link planted under it is replaced, never written
	// through, and is no partial file to continue.
	stat := os.Stat
	if o.remoteName {
		stat = os.Lstat
	}
	fi, err := stat(s.path)
	switch {
	case err == nil && fi.Mode()&os.ModeSymlink != 0:
		s.fresh = true
	case err == nil && !fi.Mode().IsRegular() && !fi.IsDir():
		s.dev = true // -o /dev/null, a FIFO
	case err == nil && o.resume && fi.Mode().IsRegular():
		s.n = fi.Size()
	}
	return s
}

// discards reports whether a document is read and counted but written
// nowhere: with --json and no -o or -O, standard output is the records'.
// (-I asks for what a document is without its transfer.)
func (s *sink) discards() bool { return s.path == "" && s.o.json }

// toTerminal reports whether the output is the terminal.
func (s *sink) toTerminal() bool { return s.path == "" && s.o.stdoutTerminal }

// output names the output for a record: the file, or "-".
func (s *sink) output() string {
	if s.path == "" {
		return "-"
	}
	return s.path
}

// offset is where the next attempt should ask the document to start.
func (s *sink) offset() int64 { return s.n }

// retryable reports whether another attempt can still give a correct
// output: not after a listing went to a stream.
func (s *sink) retryable() bool { return !s.wrote || s.n > 0 }

// document writes the Body of a Document, from resp.Offset on, after
// what earlier attempts wrote, and finishes the output when the Body
// ends well.
func (s *sink) document(resp *fetch.Response, buf []byte) error {
	w, err := s.position(resp)
	if err != nil {
		return err
	}
	var r io.Reader = resp.Body
	if skip := s.n - resp.Offset; skip > 0 {
		// A server that started before where we asked (no resume): skip
		// the bytes the stream has already.
		if _, err := io.CopyN(io.Discard, r, skip); err != nil {
			return bodyError(resp, err)
		}
	}
	if s.toTerminal() && s.o.output != "-" && !s.discards() {
		w = binaryGuard{w}
	}
	s.modified = resp.Modified
	n, err := io.CopyBuffer(onlyWriter{countWriter{w, &s.n}}, r, buf)
	s.written += n
	if err != nil {
		return s.copyError(resp, err)
	}
	// Close finishes the exchange (FTP 226, NNTP dot line): only then is
	// the document known to be complete.
	if err := resp.Body.Close(); err != nil {
		return bodyError(resp, err)
	}
	return s.commit()
}

// position opens the output for a response starting at resp.Offset and
// returns where its bytes go.
func (s *sink) position(resp *fetch.Response) (io.Writer, error) {
	if resp.Offset > s.n {
		return nil, bodyError(resp, fetch.Errorf(fetch.ErrProtocol, "the server started at byte %d, not at %d as asked", resp.Offset, s.n))
	}
	restart := resp.Offset < s.n
	if restart && !s.o.quiet {
		fmt.Fprintf(s.stderr, "fetch: %s: the server cannot resume at byte %d; starting again from byte %d\n", s.masked, s.n, resp.Offset)
	}
	if s.discards() {
		return io.Discard, nil
	}
	if s.path == "" || s.dev {
		s.wrote = true
		if s.dev && s.f == nil {
			f, err := os.OpenFile(s.path, os.O_WRONLY, 0)
			if err != nil {
				return nil, s.outputError(err)
			}
			s.f = f
		}
		if s.f != nil {
			return s.f, nil
		}
		return s.stdout, nil // a restart skips what is written (document)
	}
	if s.f == nil {
		if err := s.open(); err != nil {
			return nil, s.outputError(err)
		}
	}
	if restart {
		// A file can be cut back to where the server starts.
		if err := s.f.Truncate(resp.Offset); err != nil {
			return nil, s.outputError(err)
		}
		s.n = resp.Offset
	}
	if _, err := s.f.Seek(s.n, io.SeekStart); err != nil {
		return nil, s.outputError(err)
	}
	return s.f, nil
}

// open opens the output file: with -C the file itself, to continue it,
// else a temporary file beside it.
func (s *sink) open() error {
	if s.o.resume && !s.fresh {
		flags := os.O_WRONLY | os.O_CREATE
		if s.o.remoteName {
			flags |= syscall.O_NOFOLLOW // a link planted since newSink looked
		}
		f, err := os.OpenFile(s.path, flags, 0o644)
		if err != nil {
			return err
		}
		s.f = f
		return nil
	}
	tmp, err := outfile.Create(s.path)
	if err != nil {
		return err
	}
	s.tmp, s.f = tmp, tmp.File
	s.n = 0
	return nil
}

// listing writes a Listing through write: to standard output, or to a
// file that appears complete or not at all; with --json and no file,
// write gets a nil Writer, for the records are the output.
func (s *sink) listing(resp *fetch.Response, write func(io.Writer) error) error {
	var w io.Writer = s.stdout
	switch {
	case s.discards():
		w = nil
	case s.path == "" || s.dev:
		s.wrote = true
		if s.dev {
			f, err := os.OpenFile(s.path, os.O_WRONLY, 0)
			if err != nil {
				return s.outputError(err)
			}
			defer f.Close()
			w = f
		}
	default:
		if s.f != nil {
			s.abort() // an earlier attempt's partial listing
		}
		tmp, err := outfile.Create(s.path)
		if err != nil {
			return s.outputError(err)
		}
		s.tmp, s.f = tmp, tmp.File
		w = s.f
	}
	var bw *bufio.Writer
	if w != nil {
		if !s.toTerminal() {
			// Off a terminal the lines go out in blocks, as stdio
			// buffers them: a listing of 100,000 entries was 100,000
			// write calls. On one, each line shows as it comes.
			bw = bufio.NewWriterSize(w, 64<<10)
			w = bw
		}
		w = countWriter{w, &s.written}
	}
	s.modified = resp.Modified
	err := write(w)
	if bw != nil {
		if ferr := bw.Flush(); err == nil && ferr != nil {
			err = &writeError{ferr}
		}
	}
	if err != nil {
		return s.copyError(resp, err)
	}
	if err := resp.Body.Close(); err != nil {
		return bodyError(resp, err)
	}
	return s.commit()
}

// commit finishes the output: the temporary file takes its name, with
// the resource's time (-R).
func (s *sink) commit() error {
	var err error
	if s.o.remoteTime && !s.modified.IsZero() {
		switch {
		case s.tmp != nil:
			err = s.tmp.SetModTime(s.modified)
		case s.f != nil && !s.dev:
			err = outfile.SetModTime(s.f, s.modified)
		}
		if err != nil {
			s.abort()
			return s.outputError(err)
		}
	}
	switch {
	case s.tmp != nil:
		err = s.tmp.Commit()
		s.tmp, s.f = nil, nil
	case s.f != nil:
		err = s.f.Close()
		s.f = nil
	}
	if err != nil {
		return s.outputError(err)
	}
	return nil
}

// outputError is a failure to write the output: it names the URL and the
// file (not the temporary name it is written under), and the directory
// when that is what is missing.
func (s *sink) outputError(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	name := s.path
	if name == "" {
		name = "standard output"
	}
	if errors.Is(err, fs.ErrNotExist) {
		return &fetch.Error{Op: "fetch", URL: s.masked, Err: fmt.Errorf("cannot write %s: no directory %s", name, filepath.Dir(s.path))}
	}
	return &fetch.Error{Op: "fetch", URL: s.masked, Err: fmt.Errorf("cannot write %s: %w", name, err)}
}

// copyError is the error of a copy from resp's Body to the output: the
// output's (a full disk, a closed pipe) when writing failed, else the
// body's.
func (s *sink) copyError(resp *fetch.Response, err error) error {
	var we *writeError
	switch {
	case errors.As(err, &we) && we.err == errBinary:
		return &fetch.Error{Op: "fetch", URL: s.masked, Err: errBinary}
	case errors.As(err, &we):
		return s.outputError(we.err)
	}
	return bodyError(resp, err)
}

// writeError marks an error of the output, as against one of the body.
type writeError struct{ err error }

func (e *writeError) Error() string { return e.err.Error() }
func (e *writeError) Unwrap() error { return e.err }

// abort ends a failed output: a temporary file goes; a -C file stays, to
// be continued.
func (s *sink) abort() {
	switch {
	case s.tmp != nil:
		s.tmp.Abort()
	case s.f != nil:
		s.f.Close()
	}
	s.tmp, s.f = nil, nil
	if (!s.o.resume || s.fresh) && s.path != "" && !s.dev {
		s.n = 0
	}
}

// binaryGuard refuses bytes that are binary (a NUL among them, curl's
// rule) on their way to a terminal, where they could leave it unusable.
type binaryGuard struct{ w io.Writer }

// errBinary is binaryGuard's refusal.
var errBinary = errors.New("binary output can mess up the terminal: not written (-o FILE saves it; -o - shows it anyway)")

func (g binaryGuard) Write(p []byte) (int, error) {
	if bytes.IndexByte(p, 0) >= 0 {
		return 0, errBinary
	}
	return g.w.Write(p)
}

// countWriter adds what it writes to *n.
type countWriter struct {
	w io.Writer
	n *int64
}

func (c countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	*c.n += int64(n)
	if err != nil {
		err = &writeError{err}
	}
	return n, err
}
