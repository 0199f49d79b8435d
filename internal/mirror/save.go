package mirror

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/urlfetch/urlfetch/fetch"
	"github.com/urlfetch/urlfetch/internal/outfile"
	"github.com/urlfetch/urlfetch/uri"
)

// A document is written to a partial file beside its name, ".NAME.partial",
// and renamed to NAME only when complete: a file under a remote name is
// always whole, and an interrupted run leaves the partial file for the
// next run to continue (FTP REST, HTTP Range) rather than start again.
// No remote name starts with a dot (outfile.SanitizeName), so no remote
// file can be taken for a partial one.
const partialSuffix = ".partial"

// partialName is the partial file of rel.
func partialName(rel string) string {
	dir, base := path.Split(rel)
	return dir + "." + outfile.CutName(base, outfile.MaxNameBytes-len(partialSuffix)-1) + partialSuffix
}

// partialSize is the size of rel's partial file from an earlier run, or
// 0.
func (w *Walk) partialSize(rel string) int64 {
	fi, err := w.lstat(partialName(rel))
	if err != nil || !fi.Mode().IsRegular() {
		return 0
	}
	return fi.Size()
}

// lstat is os.Root.Lstat of rel, through the directories kept open.
func (w *Walk) lstat(rel string) (os.FileInfo, error) {
	dirName, name := splitRel(rel)
	dir, release, err := w.dirs.open(w.root, dirName)
	if err != nil {
		return nil, err
	}
	defer release()
	return dir.Lstat(name)
}

// isPage reports whether a document is an HTML page, whose links the walk
// follows.
func isPage(resp *fetch.Response) bool {
	if resp.URL.Scheme != "http" && resp.URL.Scheme != "https" {
		return false
	}
	t := strings.ToLower(resp.Type)
	return strings.HasPrefix(t, "text/html") || strings.HasPrefix(t, "application/xhtml+xml")
}

// document saves a document (a page's links queued as it streams) to
// docPath, the file its listing's entry named, or else to the file of
// the URL it came from.
func (w *Walk) document(it item, resp *fetch.Response, docPath string, begin time.Time) {
	rel := docPath
	if rel == "" || resp.Offset == 0 && resp.URL.String() != it.URL {
		// A redirect: saved under the URL it came from, as wget does.
		p, err := w.o.Layout.Path(resp.URL, false)
		if err != nil {
			w.fail(it, "", time.Since(begin), &fetch.Error{Op: "mirror", URL: resp.URL.Redacted(), Err: err})
			return
		}
		rel = p
	}
	if !leaf(it.Type) {
		w.prog.filesKnown.Add(1)
		if resp.Length > 0 {
			w.prog.bytesKnown.Add(resp.Length)
		}
	} else if it.Size < 0 && resp.Length > 0 {
		w.prog.bytesKnown.Add(resp.Length)
	}
	var links func(io.Reader) error
	if isPage(resp) {
		links = func(r io.Reader) error { return w.pageLinks(it, resp.URL, r) }
	}
	var n int64
	var err error
	if it.Discard {
		n, err = 0, w.discard(resp, links)
	} else {
		n, err = w.saveDocument(it, resp, rel, links)
	}
	w.prog.filesDone.Add(1)
	if err != nil {
		w.sum.failed.Add(1)
		w.report(Event{Kind: Failed, Root: it.Root, URL: resp.URL.Redacted(), Path: w.full(rel), Status: resp.Status,
			Media: resp.Type, Length: resp.Length, Offset: resp.Offset, Bytes: n, Duration: time.Since(begin), Err: err})
		return
	}
	if it.Discard {
		return
	}
	w.sum.files.Add(1)
	w.sum.bytes.Add(n)
	if resp.Offset > 0 {
		w.sum.resumed.Add(1)
	}
	w.archive(resp, rel)
	w.report(Event{Kind: Saved, Root: it.Root, URL: resp.URL.Redacted(), Path: w.full(rel), Status: resp.Status,
		Media: resp.Type, Length: resp.Length, Offset: resp.Offset, Bytes: n, Modified: resp.Modified, Duration: time.Since(begin)})
}

// pageLinks queues the links of the HTML page at page, read from r.
func (w *Walk) pageLinks(it item, page *uri.URL, r io.Reader) error {
	base := page
	return htmlLinks(r, func(ref string, isBase bool) error {
		u, err := base.Resolve(ref)
		if err != nil {
			return nil // not a URL: nothing to follow
		}
		if isBase {
			base = u
			return nil
		}
		return w.follow(it, page, u, fetch.HopLink, fetch.EntryOther, -1, time.Time{})
	})
}

// discard reads a page for its links and keeps nothing.
func (w *Walk) discard(resp *fetch.Response, links func(io.Reader) error) error {
	var err error
	if links != nil {
		err = links(resp.Body)
	}
	if _, cerr := io.Copy(io.Discard, resp.Body); err == nil {
		err = cerr
	}
	if cerr := resp.Body.Close(); err == nil {
		err = cerr
	}
	return err
}

// saveDocument writes resp's body to rel's partial file, from resp.Offset
// on, and renames it to rel once the exchange has ended well, with the
// resource's time (for -N). links, if set, reads the bytes as they are
// written. It returns the bytes written.
func (w *Walk) saveDocument(it item, resp *fetch.Response, rel string, links func(io.Reader) error) (int64, error) {
	dirName, name := splitRel(rel)
	dir, release, err := w.dirs.open(w.root, dirName)
	if err != nil {
		return 0, w.outputError(rel, err)
	}
	defer release()
	part := partialName(name)
	flags := os.O_WRONLY | os.O_CREATE | syscall.O_NOFOLLOW
	if resp.Offset == 0 {
		flags |= os.O_TRUNC
	}
	f, err := dir.OpenFile(part, flags, 0o666)
	if err != nil {
		return 0, w.outputError(rel, err)
	}
	defer f.Close()
	if resp.Offset > 0 {
		if err := f.Truncate(resp.Offset); err != nil {
			return 0, w.outputError(rel, err)
		}
		if _, err := f.Seek(resp.Offset, io.SeekStart); err != nil {
			return 0, w.outputError(rel, err)
		}
	}
	body := io.Reader(resp.Body)
	var ended func(error)
	if w.o.Transfer != nil {
		rc, done := w.o.Transfer(resp, w.full(rel))
		body, ended = rc, done
	}
	var n int64
	if links != nil {
		pr, pw := io.Pipe()
		errc := make(chan error, 1)
		go func() {
			err := links(pr)
			io.Copy(io.Discard, pr) // the rest of a page the parser gave up on
			errc <- err
		}()
		n, err = copyBody(io.MultiWriter(f, pw), body, &w.prog.bytesDone)
		pw.CloseWithError(err)
		if lerr := <-errc; err == nil && lerr != nil {
			err = fmt.Errorf("following the page's links: %w", lerr)
		}
	} else {
		n, err = copyBody(f, body, &w.prog.bytesDone)
	}
	if err == nil {
		// Close finishes the exchange (FTP 226, NNTP dot line): only
		// then is the document known to be complete.
		err = resp.Body.Close()
	}
	if ended != nil {
		ended(err)
	}
	if err != nil {
		return n, err
	}
	mtime := resp.Modified
	if mtime.IsZero() {
		mtime = it.Time
	}
	if !mtime.IsZero() {
		if err := outfile.SetModTime(f, mtime); err != nil {
			return n, w.outputError(rel, err)
		}
	}
	if err := f.Close(); err != nil {
		return n, w.outputError(rel, err)
	}
	if err := dir.Rename(part, name); err != nil {
		return n, w.outputError(rel, err)
	}
	return n, nil
}

// copyBuffers are the buffers documents are copied through, shared by
// the transfers of a walk rather than one allocated and cleared per file.
var copyBuffers = sync.Pool{New: func() any { b := make([]byte, 64<<10); return &b }}

// copyBody copies src to dst, adding what it copies to *done as it goes.
func copyBody(dst io.Writer, src io.Reader, done interface{ Add(int64) int64 }) (int64, error) {
	bp := copyBuffers.Get().(*[]byte)
	defer copyBuffers.Put(bp)
	buf := *bp
	var n int64
	for {
		m, rerr := src.Read(buf)
		if m > 0 {
			if _, err := dst.Write(buf[:m]); err != nil {
				return n, err
			}
			n += int64(m)
			done.Add(int64(m))
		}
		if rerr == io.EOF {
			return n, nil
		}
		if rerr != nil {
			return n, rerr
		}
	}
}

// saveListing writes a listing's raw bytes to rel, a file that appears
// complete or not at all, while walk reads its entries from resp's Body.
func (w *Walk) saveListing(resp *fetch.Response, rel string, walk func() error) (int64, error) {
	if err := w.mkdirs(rel); err != nil {
		return 0, err
	}
	out, err := outfile.CreateIn(w.root, rel)
	if err != nil {
		return 0, w.outputError(rel, err)
	}
	tee := &countWriter{w: out}
	body := resp.Body
	resp.Body = struct {
		io.Reader
		io.Closer
	}{io.TeeReader(body, tee), body}
	err = walk()
	if err == nil {
		// What the parser left unread (a listing's last bytes) is
		// saved too.
		_, err = io.Copy(io.Discard, resp.Body)
	}
	if err == nil {
		err = tee.err
	}
	if err == nil {
		err = body.Close()
	}
	if err == nil && !resp.Modified.IsZero() {
		err = out.SetModTime(resp.Modified)
	}
	if err != nil {
		out.Abort()
		return tee.n, err
	}
	if err := out.Commit(); err != nil {
		return tee.n, w.outputError(rel, err)
	}
	return tee.n, nil
}

// countWriter counts what it writes and keeps the first error, which ends
// the listing's save (not the read of its entries, which TeeReader would
// end at once).
type countWriter struct {
	w   io.Writer
	n   int64
	err error
}

func (c *countWriter) Write(p []byte) (int, error) {
	if c.err != nil {
		return len(p), nil
	}
	n, err := c.w.Write(p)
	c.n += int64(n)
	if err != nil {
		c.err = err
	}
	return len(p), nil
}

// mkdirs makes the directories of rel within the mirror's root: a path
// that would leave it, through ".." or a symbolic link planted on the
// way, is refused by os.Root.
func (w *Walk) mkdirs(rel string) error {
	dir := path.Dir(rel)
	if dir == "." {
		return nil
	}
	if err := w.root.MkdirAll(dir, 0o777); err != nil {
		return w.outputError(rel, err)
	}
	return nil
}

// outputError names the file that could not be written.
func (w *Walk) outputError(rel string, err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	return fmt.Errorf("cannot write %s: %w", w.full(rel), err)
}

// timestamp decides, for -N, whether the document it, to be saved at
// rel, is unchanged since an earlier run saved it: the listing's size
// and time when it gave both, else those a Head request gets (FTP SIZE
// and MDTM, HTTP HEAD). An unchanged page's links are read from the
// saved file. It reports whether the item is done with.
func (w *Walk) timestamp(ctx context.Context, it item, req *fetch.Request, rel string, begin time.Time) bool {
	fi, err := w.lstat(rel)
	if err != nil || !fi.Mode().IsRegular() {
		return false
	}
	size, mtime := it.Size, it.Time
	var head *fetch.Response
	if it.Type == fetch.EntryArticle {
		// An article does not change: a complete file is the article.
		size, mtime = fi.Size(), fi.ModTime()
	} else if size < 0 || mtime.IsZero() {
		hreq := *req
		hreq.Head = true
		resp, err := w.o.Client.Do(ctx, &hreq)
		if err != nil {
			return false // the fetch will say what is wrong
		}
		resp.Body.Close()
		head = resp
		if it.Hop == 0 {
			w.setRoot(it.Root, resp.Request)
		}
		size, mtime = resp.Length, resp.Modified
		if resp.Kind != fetch.Document || size < 0 || mtime.IsZero() {
			return false
		}
	}
	if size != fi.Size() || mtime.After(fi.ModTime()) {
		return false
	}
	w.sum.unchanged.Add(1)
	if leaf(it.Type) {
		w.prog.filesDone.Add(1)
	}
	e := Event{Kind: Unchanged, Root: it.Root, URL: req.URL.Redacted(), Path: w.full(rel), Length: size,
		Modified: mtime, Duration: time.Since(begin)}
	if head != nil {
		e.Status, e.Media = head.Status, head.Type
		if isPage(head) {
			if f, err := w.root.Open(rel); err == nil {
				w.pageLinks(it, head.URL, f)
				f.Close()
			}
		}
	}
	w.report(e)
	return true
}
