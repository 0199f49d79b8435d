package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/urfave/cli/v2"
	"github.com/urlfetch/urlfetch/fetch"
	"github.com/urlfetch/urlfetch/internal/warc"
)

// --warc-file NAME archives everything a run fetches in NAME.warc.gz
// (internal/warc), with or without -r: a document or listing is archived
// once it is complete, from the file -r saved it in, or else from a
// temporary copy made as it streams.

// catArchive is the help's group of the WARC option.
const catArchive = "Archiving"

func warcFlags() []cli.Flag {
	return inCategory(catArchive,
		&cli.StringFlag{Name: "warc-file", Usage: "also write everything fetched to `NAME`.warc.gz, a WARC 1.1 file (gzip per record), with or without -r: HTTP as request and response records, other schemes (listings too, as their raw bytes) as resource records"},
	)
}

// warcOutput is the run's WARC file.
type warcOutput struct {
	f    *os.File
	w    *warc.Writer
	once sync.Once
}

// openWARC creates NAME.warc.gz (NAME as given when it ends so already)
// and writes its warcinfo record.
func openWARC(name string) (*warcOutput, error) {
	if !strings.HasSuffix(name, ".warc.gz") {
		name += ".warc.gz"
	}
	f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o666)
	if err != nil {
		return nil, cli.Exit("--warc-file: "+unwrapPath(err).Error()+": "+name, exitUsage)
	}
	wo := &warcOutput{f: f, w: warc.NewWriter(f)}
	if _, err := wo.w.WriteInfo(softwareName(), [2]string{"description", warc.HTTPNote}); err != nil {
		f.Close()
		return nil, cli.Exit("--warc-file: "+err.Error(), exitUsage)
	}
	return wo, nil
}

// close finishes the file.
func (wo *warcOutput) close() error {
	if wo == nil {
		return nil
	}
	var err error
	wo.once.Do(func() { err = wo.f.Close() })
	return err
}

// archiveFile archives resp, whose whole body is the file at path.
func (wo *warcOutput) archiveFile(resp *fetch.Response, date time.Time, path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	b, err := warc.FileBlock(f)
	if err != nil {
		return err
	}
	return wo.w.Archive(resp, date, b)
}

// tee copies resp's body, as it is read, to a temporary file, and returns
// the function that ends the attempt: given its error, it archives the
// copy when there is none and the body began at byte 0, and removes the
// copy either way. An error of the archive is the attempt's.
func (wo *warcOutput) tee(resp *fetch.Response) func(err error) error {
	date := time.Now()
	spool, err := os.CreateTemp("", "fetch-warc-*")
	if err != nil {
		return func(e error) error { return errors.Join(e, fmt.Errorf("--warc-file: %w", err)) }
	}
	os.Remove(spool.Name()) // it lives as long as it is open
	body := resp.Body
	resp.Body = struct {
		io.Reader
		io.Closer
	}{io.TeeReader(body, spool), body}
	return func(err error) error {
		defer spool.Close()
		if err != nil || resp.Offset > 0 {
			return err
		}
		b, serr := warc.FileBlock(spool)
		if serr == nil {
			serr = wo.w.Archive(resp, date, b)
		}
		if serr != nil {
			return &fetch.Error{Op: "archive", URL: resp.URL.Redacted(), Err: serr}
		}
		return nil
	}
}

// softwareName names the tool in the warcinfo record: "fetch v1.2.3
// (commit abc123)", as --version does.
func softwareName() string {
	v, commit := buildVersion()
	if commit != "" {
		return "urlfetch fetch " + v + " (commit " + commit + ")"
	}
	return "urlfetch fetch " + v
}
