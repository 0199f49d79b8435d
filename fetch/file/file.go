// Package file implements the file scheme of RFC 1738 section 3.10:
// file://host/path names a file on the machine called host.
//
// Only this machine's files can be fetched: a host of "" or "localhost"
// (file:///etc/motd, file://localhost/etc/motd, and the common file:/etc/motd).
// The RFC gives no protocol for reaching another host's files, so a URL
// naming another host is refused with ErrUnsupported and a hint to use
// ftp instead. The path is percent-decoded; a decoded NUL is refused with
// ErrUnsafe, and a "%2F", which would turn data into a separator, can name
// no file.
//
// A file is a Document whose media type comes from its name's extension
// or, failing that, from sniffing its first 512 bytes. A directory is a
// Listing; see the Driver for its format. A Head request
// (fetch.Request.Head) is the file's stat: its size and modification
// time, nothing of it read but the 512 bytes that may give its type.
package file

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"mime"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/urlfetch/urlfetch/fetch"
	"github.com/urlfetch/urlfetch/uri"
)

// Driver fetches file URLs from the local file system. Its zero value is
// ready to use.
//
// A directory comes back as a Listing whose Body holds one line per entry,
// in the order the file system gives them, read from the directory a
// batch at a time so that a directory of any size costs flat memory:
//
//	TYPE SIZE TIME NAME [TARGET]
//
// TYPE is file, dir, link or other (a FIFO, a device, a socket); SIZE is
// the size in bytes of a file, "-" for the rest; TIME is the modification
// time in RFC 3339 format, UTC; NAME is the entry's name percent-encoded
// as a file URL path segment, with a final "/" for a directory, so that
// no name can break a line or a field; TARGET, for a link only, is the
// link's target, encoded the same way segment by segment. For example:
//
//	file 1204 2024-05-01T12:00:00.5Z read%20me.txt
//	dir - 2024-04-30T08:15:00Z src/
//	link - 2024-04-30T08:15:00Z latest v1.2/
//
// Response.Entries parses the lines into Entries whose URL is the entry's
// own file URL (a directory's ending in "/"); a link's Title reads
// "NAME -> TARGET".
//
// Reads of a FIFO or a terminal block until data comes, and a cancelled
// context ends them; the first read of a FIFO waits for its writer (the
// open does not, so that it can be cancelled).
type Driver struct{}

var _ fetch.Driver = (*Driver)(nil)

// sniffLen is how many bytes http.DetectContentType looks at.
const sniffLen = 512

// ListingType is the media type of a Listing's Body: the one format of
// listings a driver builds itself.
const ListingType = fetch.ListingType

// Fetch returns the file or directory listing that req.URL names. If the
// file cannot be opened, the error wraps the *fs.PathError of the system.
func (d *Driver) Fetch(ctx context.Context, req *fetch.Request) (*fetch.Response, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	f, err := req.URL.File()
	if err != nil {
		return nil, fetch.Errorf(fetch.ErrURL, "file: %w", err)
	}
	if !f.Local() {
		return nil, remoteError(f)
	}
	if err := checkPath(req.URL.Path, f.Path); err != nil {
		return nil, err
	}
	name := localPath(f.Path)
	req.Tracef(fetch.Note, "open %s", name)
	fh, err := os.OpenFile(name, openFlags, 0)
	if err != nil {
		return nil, openError(err)
	}
	info, err := fh.Stat()
	if err != nil {
		fh.Close()
		return nil, openError(err)
	}
	if req.Head {
		defer fh.Close()
		return d.head(ctx, req, f, fh, info)
	}
	if info.IsDir() {
		return d.list(ctx, req, f, fh, info), nil
	}
	resp, err := d.document(ctx, req, f, fh, info)
	if err != nil {
		fh.Close()
		return nil, err
	}
	return resp, nil
}

// head answers a Head request (fetch.Request.Head) from the open file's
// stat: a directory is a Listing, its entries unread; a file a Document
// of its size (-1 for a FIFO or a device) and time, its media type
// found as a fetch finds it (the extension, else its first 512 bytes,
// read in place: no FIFO is read). The file was opened, as a fetch opens
// it, so that one the user may not read fails here too (ErrAuth).
func (d *Driver) head(ctx context.Context, req *fetch.Request, f *uri.File, fh *os.File, info fs.FileInfo) (*fetch.Response, error) {
	resp := &fetch.Response{Kind: fetch.Listing, Type: fetch.ListingType, Length: -1, Modified: info.ModTime()}
	if !info.IsDir() {
		typ, err := mediaType(req, f, fh, info)
		if err != nil {
			return nil, err
		}
		resp.Kind, resp.Type = fetch.Document, typ
		if info.Mode().IsRegular() {
			resp.Length = info.Size()
		}
	}
	req.Tracef(fetch.Note, "%s: %s, %d bytes, modified %s", fh.Name(), kindOfInfo(info), info.Size(), info.ModTime().UTC().Format(time.RFC3339))
	resp.Body = fetch.EmptyBody(ctx, nil)
	return resp, nil
}

// kindOfInfo names what info describes, for the trace.
func kindOfInfo(info fs.FileInfo) string {
	switch m := info.Mode(); {
	case m.IsDir():
		return "directory"
	case m.IsRegular():
		return "file"
	default:
		return kindOf(m)
	}
}

// remoteError refuses a file on another host, saying how to get it.
func remoteError(f *uri.File) error {
	segs := strings.Split(strings.TrimPrefix(f.Path, "/"), "/")
	alt := &uri.FTP{Login: uri.Login{Host: f.Host}, Dirs: segs[:len(segs)-1], Name: segs[len(segs)-1]}
	return fetch.Errorf(fetch.ErrUnsupported,
		"file: the file lives on %s, not on this machine (RFC 1738 section 3.10 gives no protocol to reach it); fetch it with %s or through a shared file system",
		f.Host, alt)
}

// checkPath refuses a path that no file can have: a decoded NUL, which
// would end the name early in a system call, and a "/" decoded from a
// segment of raw, the path as the URL writes it.
func checkPath(raw, decoded string) error {
	if i := strings.IndexByte(decoded, 0); i >= 0 {
		return fetch.Errorf(fetch.ErrUnsafe, "file: the path contains a decoded NUL at byte %d; no file name can hold one", i)
	}
	for seg := range strings.SplitSeq(raw, "/") {
		if s, err := uri.Unescape(seg); err == nil && strings.Contains(s, "/") {
			return fetch.Errorf(fetch.ErrNotFound, "file: path segment %q decodes to %q; a file name cannot contain \"/\"", seg, s)
		}
	}
	return nil
}

// localPath turns the decoded path of a file URL into a name for the
// system: "/C:/x" is "C:\x" on Windows.
func localPath(p string) string {
	if filepath.Separator == '\\' && len(p) >= 3 && p[0] == '/' && p[2] == ':' {
		p = p[1:]
	}
	return filepath.FromSlash(p)
}

// openError gives the error of opening or reading a file its kind.
func openError(err error) error {
	var errno syscall.Errno
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fetch.Errorf(fetch.ErrNotFound, "file: %w", err)
	case errors.Is(err, fs.ErrPermission):
		return fetch.Errorf(fetch.ErrAuth, "file: %w", err)
	case errors.As(err, &errno) && errno == syscall.ENOTDIR:
		// A file stands where the path needs a directory: "a.txt/b".
		return fetch.Errorf(fetch.ErrNotFound, "file: %w (a name on the way is a file)", err)
	}
	return fmt.Errorf("file: %w", err)
}

// mediaType is the media type of the open file fh: from its name's
// extension, else sniffed from its first bytes, else (a FIFO, a device,
// which cannot be read in place) application/octet-stream.
func mediaType(req *fetch.Request, f *uri.File, fh *os.File, info fs.FileInfo) (string, error) {
	typ := mime.TypeByExtension(path.Ext(f.Path))
	how := "from the extension"
	switch {
	case typ != "":
	case !info.Mode().IsRegular():
		// Sniffing would wait for data inside Fetch.
		typ, how = "application/octet-stream", "for a "+kindOf(info.Mode())
	default:
		// ReadAt leaves the offset alone: the Body still starts at 0.
		head := make([]byte, sniffLen)
		n, err := fh.ReadAt(head, 0)
		if err != nil && err != io.EOF {
			return "", openError(err)
		}
		typ, how = http.DetectContentType(head[:n]), "sniffed from the first bytes"
	}
	req.Tracef(fetch.Note, "type %s %s", typ, how)
	return typ, nil
}

// document returns the open file fh as a Document.
func (d *Driver) document(ctx context.Context, req *fetch.Request, f *uri.File, fh *os.File, info fs.FileInfo) (*fetch.Response, error) {
	typ, err := mediaType(req, f, fh, info)
	if err != nil {
		return nil, err
	}
	resp := &fetch.Response{Kind: fetch.Document, Type: typ, Length: -1, Modified: info.ModTime()}
	if !info.Mode().IsRegular() {
		// A FIFO or a device: no size, no seeking.
		resp.Body = newBody(ctx, fh, fh, info.Mode()&fs.ModeNamedPipe != 0)
		return resp, nil
	}
	if off := req.Offset; off > 0 && off <= info.Size() {
		if _, err := fh.Seek(off, io.SeekStart); err != nil {
			return nil, openError(err)
		}
		resp.Offset = off
		req.Tracef(fetch.Note, "resume at byte %d", off)
	}
	resp.Length = info.Size() - resp.Offset
	resp.Body = newBody(ctx, fh, fh, false)
	return resp, nil
}

// kindOf names a file that is neither regular nor a directory.
func kindOf(m fs.FileMode) string {
	switch {
	case m&fs.ModeNamedPipe != 0:
		return "FIFO"
	case m&fs.ModeCharDevice != 0:
		return "character device"
	case m&fs.ModeDevice != 0:
		return "device"
	case m&fs.ModeSocket != 0:
		return "socket"
	}
	return "special file"
}

// aLongTimeAgo is a deadline in the past: setting it wakes a blocked read
// of a FIFO or terminal at once.
var aLongTimeAgo = time.Unix(1, 0)

// newBody returns the Body of a file or listing that reads r from the
// file f: a done context also interrupts a read that waits (a FIFO, a
// terminal), and Close closes the file. fifo says f is a FIFO not read
// yet: the first read waits for its writer.
func newBody(ctx context.Context, f *os.File, r io.Reader, fifo bool) io.ReadCloser {
	// A deadline interrupts a read only of what the poller can wait on (a
	// FIFO, a terminal); a regular file's reads never block for long, and
	// the context is looked at before each one.
	stop := context.AfterFunc(ctx, func() { f.SetReadDeadline(aLongTimeAgo) })
	if fifo {
		r = &fifoReader{f: f, r: r}
	}
	return fetch.NewBody(ctx, r, fetch.BodyFuncs{Close: func(bool) error {
		stop()
		return f.Close()
	}})
}

// fifoReader waits for the FIFO's writer before its first read: opened
// without blocking, a FIFO reads as empty until a writer comes.
type fifoReader struct {
	f      *os.File
	r      io.Reader
	waited bool
}

func (fr *fifoReader) Read(p []byte) (int, error) {
	if !fr.waited {
		fr.waited = true
		if err := waitForWriter(fr.f); err != nil {
			return 0, err
		}
	}
	return fr.r.Read(p)
}
