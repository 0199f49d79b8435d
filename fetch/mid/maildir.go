package mid

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/urlfetch/urlfetch/fetch"
)

// A maildir is a mailbox in the Maildir format (the qmail layout that
// Postfix, Dovecot and most mail software write): one file per message in
// cur/ (seen by a mail reader) and new/ (not yet), named
// "time.unique.host" with ":2,FLAGS" appended in cur/ ("1734.M5P7.h:2,S").
// tmp/ holds deliveries under way and is never read; nor are names that
// begin with a dot. The file is the message, byte for byte.
type maildir struct {
	dir string
}

// isMaildir reports whether dir has the cur/ and new/ of a Maildir.
func isMaildir(dir string) bool {
	for _, sub := range []string{"cur", "new"} {
		if fi, err := os.Stat(filepath.Join(dir, sub)); err != nil || !fi.IsDir() {
			return false
		}
	}
	return true
}

func (m *maildir) String() string { return "Maildir " + m.dir }

// find looks for the message whose Message-ID is id, in cur/ and then
// new/, reading the header of each file, and opens it.
func (m *maildir) find(ctx context.Context, req *fetch.Request, id string, _ bool) (*message, error) {
	var buf *bufio.Reader
	for _, sub := range []string{"cur", "new"} {
		d, err := os.Open(filepath.Join(m.dir, sub))
		if err != nil {
			return nil, fetch.Errorf(fetch.ErrNotFound, "mid: %s: %w", m, err)
		}
		found, err := m.scan(ctx, req, d, sub, id, &buf)
		d.Close()
		if found != nil || err != nil {
			return found, err
		}
	}
	return nil, notFound(m, id)
}

// scan reads the directory d (cur/ or new/) a batch of names at a time,
// so a Maildir of any size costs flat memory.
func (m *maildir) scan(ctx context.Context, req *fetch.Request, d *os.File, sub, id string, buf **bufio.Reader) (*message, error) {
	for {
		entries, err := d.ReadDir(256)
		for _, e := range entries {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			// Only regular files: opening a FIFO would block.
			if strings.HasPrefix(e.Name(), ".") || !e.Type().IsRegular() {
				continue
			}
			msg, err := m.try(req, filepath.Join(sub, e.Name()), id, buf)
			if msg != nil || err != nil {
				return msg, err
			}
		}
		if errors.Is(err, io.EOF) || len(entries) == 0 {
			return nil, nil
		}
		if err != nil {
			return nil, fetch.Errorf(fetch.ErrNotFound, "mid: %s: reading %s: %w", m, sub, err)
		}
	}
}

// try opens the file rel and returns it as the message when its header's
// Message-ID is id. A file that vanished (a mail reader moved it from
// new/ to cur/, or deleted it) or cannot be read is passed over.
func (m *maildir) try(req *fetch.Request, rel, id string, buf **bufio.Reader) (*message, error) {
	f, err := os.Open(filepath.Join(m.dir, rel))
	if err != nil {
		return nil, nil
	}
	if *buf == nil {
		*buf = bufio.NewReaderSize(f, 16<<10)
	} else {
		(*buf).Reset(f)
	}
	h, _, err := readHeader(*buf)
	if err != nil || !sameID(msgID(h.Get("Message-Id")), id) {
		f.Close()
		return nil, nil
	}
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		f.Close()
		return nil, nil
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		f.Close()
		return nil, fmt.Errorf("mid: %s: %w", m, err)
	}
	req.Tracef(fetch.Note, "found <%s> in %s: %s", id, m, rel)
	return &message{header: h, body: f, length: fi.Size(), where: rel}, nil
}
