// Package mirror implements recursive retrieval (the fetch command's -r)
// for every scheme with listings: it walks FTP and file: directories,
// gopher menus, news groups and WAIS results through Response.Entries,
// and HTML pages over http and https through their links, and saves what
// it finds in a tree laid out as wget's -x lays it out.
//
// The walk follows what a server chose only through the Client: each
// entry or link is a Request made with Request.Follow and sent with
// Client.Do, so Client.CheckHop, the one policy function, decides first
// whether it may be followed at all. The mirror's own scope (the same
// host, no parent, --accept and --reject, the depth, the schemes) only
// narrows what the Client allows.
//
// Memory stays flat however large the tree: listings stream, and the
// queue of URLs to fetch keeps a bounded head in memory and spills the
// rest to a temporary file.
package mirror

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/urlfetch/urlfetch/fetch"
	"github.com/urlfetch/urlfetch/uri"
)

// DefaultLevel is how deep a walk goes when Options.Level is 0, as
// wget's -l default.
const DefaultLevel = 5

// Unlimited, as Options.Level, lets a walk go as deep as the tree does
// (wget's -l inf).
const Unlimited = -1

// DefaultMemItems is how many queued URLs a walk keeps in memory before
// it spills them to disk.
const DefaultMemItems = 4096

// Options configure a walk.
type Options struct {
	// Client fetches every URL, and its policy decides which URLs a
	// server chose may be followed.
	Client *fetch.Client
	// Dir is the mirror's root directory ("" is the current one).
	Dir    string
	Layout Layout
	// Level bounds the depth of the walk: the URLs given are level 0,
	// what their listings and pages name level 1, and so on.
	// DefaultLevel when 0; Unlimited for no bound.
	Level int
	// SpanHosts follows entries and links to other hosts.
	SpanHosts bool
	// Parent follows entries and links above the directory where the
	// walk on their server began (wget's default is no-parent here).
	Parent bool
	// Accept and Reject are globs on a document's name: with Accept,
	// only documents whose name matches one are saved; a name that
	// matches one of Reject is not.
	Accept, Reject []string
	// Schemes are the schemes the walk may follow: nil means the
	// schemes of the URLs given. The Client's FollowSchemes should be
	// the same set (the command sets both from --schemes), so that one
	// place decides where a server may lead.
	Schemes []string
	// Timestamping (-N) fetches a document only when the listing, or a
	// Head request, says it differs from the file saved by an earlier
	// run: another size, or a newer time.
	Timestamping bool
	// Parallel is how many URLs are fetched at once (1 when 0), PerHost
	// the most of them from one server.
	Parallel, PerHost int
	// Timeout bounds each URL's fetch, when not 0.
	Timeout time.Duration
	// MemItems bounds the queued URLs held in memory
	// (DefaultMemItems when 0); the rest spill to a temporary file.
	MemItems int
	// Report, if set, is told about every URL the walk ends with: saved,
	// unchanged, not followed by the policy, failed. Calls may come
	// from several goroutines at once.
	Report func(Event)
	// Transfer, if set, is called as a document's transfer starts, with
	// its file; it returns the body to read in place of resp.Body (to
	// count its bytes) and a function the walk calls when the transfer
	// ends.
	Transfer func(resp *fetch.Response, path string) (io.ReadCloser, func(error))
	// Archive, if set, is given every document and listing the walk
	// saved, with the file holding its bytes, for a WARC file.
	Archive func(resp *fetch.Response, path string) error
}

// EventKind says how the walk ended with a URL.
type EventKind int

const (
	Saved     EventKind = iota + 1 // a document was saved
	Listed                         // a listing was saved and walked
	Unchanged                      // -N: the saved file is up to date
	Refused                        // the Client's policy refused to follow it
	Failed                         // fetching or saving it failed
)

// An Event is the end of one URL of the walk.
type Event struct {
	Kind EventKind
	// Root is the index of the URL given whose walk led here.
	Root int
	// URL is the URL fetched (after redirects), password masked.
	URL    string
	Path   string // the file, under Options.Dir
	Status string
	Media  string
	Length int64 // as the server announced it; -1 unknown
	// Offset is where the transfer began: a partial file of an earlier
	// run was resumed there.
	Offset   int64
	Bytes    int64 // bytes written by this run
	Entries  int64 // of a listing
	Modified time.Time
	Duration time.Duration
	Err      error
}

// Summary is what a walk came to.
type Summary struct {
	Files, Listings int64 // saved
	Bytes           int64 // written
	Unchanged       int64 // -N: not fetched again
	Resumed         int64 // partial files continued
	Failed          int64
	Refused         int64 // by the Client's policy
	// Not followed by the mirror's own scope.
	TooDeep, OtherHost, OtherScheme, Parent, Rejected, Symlinks int64
	// Level is the depth bound that TooDeep counts against.
	Level int
}

// Progress is a snapshot of a running walk: what is done of what is
// known so far (the sizes the listings gave), and what is running.
type Progress struct {
	FilesDone, FilesKnown int64
	BytesDone, BytesKnown int64
	Active                int64
}

// A Walk is one recursive retrieval.
type Walk struct {
	o      Options
	root   *os.Root
	f      *frontier
	schema []string // the schemes followed
	level  int

	mu    sync.Mutex
	roots []*fetch.Request // the Request each URL given was fetched with
	hosts map[string]chan struct{}
	dirs  dirCache

	sum  summaryCounters
	prog progressCounters
}

type summaryCounters struct {
	files, listings, bytes, unchanged, resumed, failed, refused atomic.Int64
	tooDeep, otherHost, otherScheme, parent, rejected, symlinks atomic.Int64
}

type progressCounters struct {
	filesDone, filesKnown, bytesDone, bytesKnown, active atomic.Int64
}

// New prepares a walk: it opens (and makes) the mirror's directory.
func New(o Options) (*Walk, error) {
	if o.Client == nil {
		return nil, errors.New("mirror: no Client")
	}
	if o.Dir == "" {
		o.Dir = "."
	}
	if err := os.MkdirAll(o.Dir, 0o777); err != nil {
		return nil, fmt.Errorf("cannot make the directory %s: %w", o.Dir, err)
	}
	root, err := os.OpenRoot(o.Dir)
	if err != nil {
		return nil, err
	}
	w := &Walk{o: o, root: root, hosts: map[string]chan struct{}{}}
	switch {
	case o.Level == 0:
		w.level = DefaultLevel
	case o.Level < 0:
		w.level = Unlimited
	default:
		w.level = o.Level
	}
	return w, nil
}

// Progress returns a snapshot of the walk's progress.
func (w *Walk) Progress() Progress {
	return Progress{
		FilesDone: w.prog.filesDone.Load(), FilesKnown: w.prog.filesKnown.Load(),
		BytesDone: w.prog.bytesDone.Load(), BytesKnown: w.prog.bytesKnown.Load(),
		Active: w.prog.active.Load(),
	}
}

// Run walks from urls until everything in scope is fetched, ctx ends, or
// the queue fails; it returns what the walk came to. Failures of single
// URLs are reported (Options.Report) and counted, not returned.
func (w *Walk) Run(ctx context.Context, urls []string) (Summary, error) {
	defer w.root.Close()
	defer w.dirs.close()
	o := &w.o
	w.f = newFrontier(cmp(o.MemItems, DefaultMemItems), "")
	defer w.f.release()
	w.roots = make([]*fetch.Request, len(urls))
	var schemes []string
	for i, raw := range urls {
		u, err := uri.Parse(raw)
		if err != nil {
			w.fail(item{URL: raw, Root: i}, "", 0, &fetch.Error{Op: "parse", URL: raw, Err: err})
			continue
		}
		if o.Layout.Primary == "" {
			o.Layout.Primary = u.Scheme
		}
		schemes = append(schemes, u.Scheme)
		w.f.visit(key(u))
		if err := w.f.push(item{URL: u.String(), Root: i, Base: baseOf(u), Type: fetch.EntryOther, Size: -1}); err != nil {
			return w.summary(), err
		}
	}
	w.schema = o.Schemes
	if w.schema == nil {
		w.schema = schemes
	}

	var wg sync.WaitGroup
	var qerr error
	var once sync.Once
	stop := context.AfterFunc(ctx, w.f.close)
	defer stop()
	for range max(o.Parallel, 1) {
		wg.Go(func() {
			for {
				it, ok, err := w.f.take()
				if err != nil {
					once.Do(func() { qerr = err })
					w.f.close()
				}
				if !ok {
					return
				}
				w.visit(ctx, it)
				w.f.done()
			}
		})
	}
	wg.Wait()
	if qerr == nil {
		qerr = ctx.Err()
	}
	return w.summary(), qerr
}

func cmp(v, def int) int {
	if v <= 0 {
		return def
	}
	return v
}

func (w *Walk) summary() Summary {
	s := &w.sum
	return Summary{
		Files: s.files.Load(), Listings: s.listings.Load(), Bytes: s.bytes.Load(),
		Unchanged: s.unchanged.Load(), Resumed: s.resumed.Load(), Failed: s.failed.Load(),
		Refused: s.refused.Load(), TooDeep: s.tooDeep.Load(), OtherHost: s.otherHost.Load(),
		OtherScheme: s.otherScheme.Load(), Parent: s.parent.Load(), Rejected: s.rejected.Load(),
		Symlinks: s.symlinks.Load(), Level: w.level,
	}
}

// key is what the seen set knows a URL by: normalized, without its
// fragment. A gopher URL is known by its type and selector (and search):
// "gopher://h/", "gopher://h/1" and "gopher://h/1/" are the one root
// menu, and the "+" a Gopher+ server marks every item with asks for the
// same document.
func key(u *uri.URL) string {
	if g, err := u.Gopher(); err == nil {
		if g.Plus == "+" {
			g.Plus, g.HasPlus = "", false
		}
		if !g.HasPlus && g.Search == "" {
			g.HasSearch = false
		}
		g.Host = strings.ToLower(g.Host)
		if g.Port == uri.DefaultPort("gopher") {
			g.Port = 0
		}
		return g.String()
	}
	return u.WithoutFragment().Normalize().String()
}

// request is the Request for it: the user's URL as given, or a hop that
// a listing or page of the walk named, made by Request.Follow from the
// Request its root was fetched with, so that Client.Do checks it with
// CheckHop (from the listing's URL to it) before anything is sent.
func (w *Walk) request(it item) (*fetch.Request, error) {
	u, err := uri.Parse(it.URL)
	if err != nil {
		return nil, &fetch.Error{Op: "parse", URL: it.URL, Err: err}
	}
	if it.Hop == 0 {
		return fetch.NewRequest(w.o.Client, u), nil
	}
	from, err := uri.Parse(it.From)
	if err != nil {
		return nil, &fetch.Error{Op: "parse", URL: it.From, Err: err}
	}
	w.mu.Lock()
	root := w.roots[it.Root]
	w.mu.Unlock()
	if root == nil {
		return nil, errors.New("mirror: an entry of a walk whose start was never fetched")
	}
	if from.String() != root.URL.String() {
		root = root.Follow(fetch.HopEntry, from)
	}
	return root.Follow(it.Hop, u), nil
}

// setRoot records the Request the walk's URL i was fetched with: the
// hops its listing or page names are followed from it.
func (w *Walk) setRoot(i int, r *fetch.Request) {
	w.mu.Lock()
	w.roots[i] = r
	w.mu.Unlock()
}

// slot waits for a place in u's server's limit and returns the function
// that frees it.
func (w *Walk) slot(ctx context.Context, u *uri.URL) (func(), error) {
	n := w.o.PerHost
	if n <= 0 {
		return func() {}, nil
	}
	k := strings.ToLower(u.Host) + ":" + fmt.Sprint(u.PortNumber())
	w.mu.Lock()
	ch := w.hosts[k]
	if ch == nil {
		ch = make(chan struct{}, n)
		w.hosts[k] = ch
	}
	w.mu.Unlock()
	select {
	case ch <- struct{}{}:
		return func() { <-ch }, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// visit fetches one item of the walk and saves it; a listing or a page
// adds what it names to the queue.
func (w *Walk) visit(ctx context.Context, it item) {
	begin := time.Now()
	req, err := w.request(it)
	if err != nil {
		w.fail(it, "", 0, err)
		return
	}
	release, err := w.slot(ctx, req.URL)
	if err != nil {
		w.fail(it, "", 0, err)
		return
	}
	defer release()
	if w.o.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, w.o.Timeout)
		defer cancel()
	}
	w.prog.active.Add(1)
	defer w.prog.active.Add(-1)

	// A document the listing named: its file is known before the fetch,
	// for -N and for a partial file to resume.
	var docPath string
	var offset int64
	if leaf(it.Type) || it.Type == fetch.EntryOther {
		if p, err := w.o.Layout.Path(req.URL, false); err == nil {
			docPath = p
		}
	}
	if docPath != "" && !it.Discard {
		if w.o.Timestamping {
			if done := w.timestamp(ctx, it, req, docPath, begin); done {
				return
			}
		}
		offset = w.partialSize(docPath)
		req.Offset = offset
	}

	resp, err := w.o.Client.Do(ctx, req)
	if err != nil {
		w.fail(it, docPath, time.Since(begin), err)
		return
	}
	defer resp.Body.Close()
	switch resp.Kind {
	case fetch.Listing:
		w.listing(ctx, it, resp, begin)
	case fetch.Document:
		if it.Hop == 0 {
			w.setRoot(it.Root, resp.Request)
		}
		w.document(it, resp, docPath, begin)
	default:
		w.fail(it, "", time.Since(begin), &fetch.Error{Op: "mirror", URL: resp.URL.Redacted(),
			Err: fetch.Errorf(fetch.ErrUnsupported, "a %s is nothing to save", resp.Kind)})
	}
}

// fail reports and counts a URL that could not be fetched or saved. A
// hop the Client's policy refused is counted as refused: the walk goes
// on, as it does past what its own scope leaves out.
func (w *Walk) fail(it item, path string, took time.Duration, err error) {
	kind := Failed
	if it.Hop != 0 && errors.Is(err, fetch.ErrUnsafe) {
		kind = Refused
		w.sum.refused.Add(1)
	} else {
		w.sum.failed.Add(1)
	}
	if leaf(it.Type) {
		w.prog.filesKnown.Add(-1)
		if it.Size > 0 {
			w.prog.bytesKnown.Add(-it.Size)
		}
	}
	w.report(Event{Kind: kind, Root: it.Root, URL: redacted(it.URL), Path: w.full(path), Length: -1, Duration: took, Err: err})
}

func (w *Walk) report(e Event) {
	if w.o.Report != nil {
		w.o.Report(e)
	}
}

// full is path under the mirror's directory, for messages and records.
func (w *Walk) full(rel string) string {
	if rel == "" {
		return ""
	}
	if w.o.Dir == "." {
		return rel
	}
	return strings.TrimSuffix(w.o.Dir, "/") + "/" + rel
}

func redacted(raw string) string {
	if u, err := uri.Parse(raw); err == nil {
		return u.Redacted()
	}
	return raw
}

// listing saves a listing's raw bytes and queues its entries as they
// stream in.
func (w *Walk) listing(ctx context.Context, it item, resp *fetch.Response, begin time.Time) {
	if it.Hop == 0 {
		w.setRoot(it.Root, resp.Request)
	}
	rel, err := w.o.Layout.Path(resp.URL, true)
	if err != nil {
		w.fail(it, "", time.Since(begin), &fetch.Error{Op: "mirror", URL: resp.URL.Redacted(), Err: err})
		return
	}
	var entries int64
	n, err := w.saveListing(resp, rel, func() error {
		from := resp.URL
		for e, err := range resp.Entries() {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			if err != nil {
				continue // a line that does not parse; the listing goes on
			}
			entries++
			if err := w.consider(it, from, e); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		w.fail(it, rel, time.Since(begin), err)
		return
	}
	w.sum.listings.Add(1)
	w.sum.bytes.Add(n)
	w.archive(resp, rel)
	w.report(Event{Kind: Listed, Root: it.Root, URL: resp.URL.Redacted(), Path: w.full(rel), Status: resp.Status,
		Media: resp.Type, Length: resp.Length, Bytes: n, Entries: entries, Modified: resp.Modified, Duration: time.Since(begin)})
}

// consider queues entry e of the listing at from, which it named, if the
// mirror's scope takes it; the Client's policy decides when it is sent.
func (w *Walk) consider(parent item, from *uri.URL, e fetch.Entry) error {
	switch e.Type {
	case fetch.EntryInfo, fetch.EntrySearch, fetch.EntrySession, fetch.EntryError:
		return nil // nothing to fetch, or nothing a walk may answer
	}
	if e.URL == "" {
		return nil
	}
	u, err := uri.Parse(e.URL)
	if err != nil {
		return nil
	}
	if e.Type == fetch.EntryLink && (from.Scheme == "ftp" || from.Scheme == "ftps" || from.Scheme == "file") {
		// A symbolic link: followed, it could lead round a loop of
		// directories under ever new names.
		w.sum.symlinks.Add(1)
		return nil
	}
	return w.follow(parent, from, u, fetch.HopEntry, e.Type, e.Size, e.Time)
}

// follow queues u, which the listing or page at from named, if it is in
// the mirror's scope and new to the walk.
func (w *Walk) follow(parent item, from, u *uri.URL, hop fetch.HopKind, t fetch.EntryType, size int64, mtime time.Time) error {
	u = u.WithoutFragment()
	it := item{URL: u.String(), Depth: parent.Depth + 1, Root: parent.Root, From: from.String(), Hop: hop,
		Base: parent.Base, Type: t, Size: size, Time: mtime}
	switch w.scope(&it, u) {
	case inScope:
	case tooDeep:
		w.sum.tooDeep.Add(1)
		return nil
	case otherHost:
		w.sum.otherHost.Add(1)
		return nil
	case otherScheme:
		w.sum.otherScheme.Add(1)
		return nil
	case parentDir:
		w.sum.parent.Add(1)
		return nil
	case rejected:
		w.sum.rejected.Add(1)
		return nil
	}
	// The files of a directory are named once each; anything that can
	// name more, or be named twice (a menu item, a link), is looked up.
	if !leaf(t) || u.Scheme == "gopher" || hop == fetch.HopLink {
		if !w.f.visit(key(u)) {
			return nil
		}
	}
	if leaf(t) {
		w.prog.filesKnown.Add(1)
		if size > 0 {
			w.prog.bytesKnown.Add(size)
		}
	}
	return w.f.push(it)
}

// scope applies the mirror's own rules to it, a URL u the walk met.
func (w *Walk) scope(it *item, u *uri.URL) outOfScope {
	if !slices.Contains(w.schema, u.Scheme) {
		return otherScheme
	}
	w.mu.Lock()
	root := w.roots[it.Root]
	w.mu.Unlock()
	if !w.o.SpanHosts && root != nil && !uri.SameHost(u.Host, root.URL.Host) {
		return otherHost
	}
	if inside, same := under(u, it.Base); !same {
		it.Base = baseOf(u) // another server: a walk of its own begins
	} else if !inside && !w.o.Parent {
		return parentDir
	}
	if w.level != Unlimited && it.Depth > w.level {
		return tooDeep
	}
	if len(w.o.Accept) > 0 || len(w.o.Reject) > 0 {
		switch it.Type {
		case fetch.EntryDir, fetch.EntryGroup:
			return inScope // a directory is walked, its files chosen
		}
		_, name, err := segments(u, false)
		if err != nil {
			return inScope
		}
		if len(w.o.Accept) > 0 && !matchName(w.o.Accept, name) || matchName(w.o.Reject, name) {
			if (u.Scheme == "http" || u.Scheme == "https") && looksLikePage(name) {
				it.Discard = true // read for its links, not kept
				return inScope
			}
			return rejected
		}
	}
	return inScope
}

// archive hands a saved response to Options.Archive.
func (w *Walk) archive(resp *fetch.Response, rel string) {
	if w.o.Archive == nil {
		return
	}
	if err := w.o.Archive(resp, w.full(rel)); err != nil {
		w.sum.failed.Add(1)
		w.report(Event{Kind: Failed, URL: resp.URL.Redacted(), Path: w.full(rel), Length: -1,
			Err: &fetch.Error{Op: "archive", URL: resp.URL.Redacted(), Err: err}})
	}
}
