package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/urlfetch/urlfetch/fetch"
	jsonrec "github.com/urlfetch/urlfetch/internal/records"
	"github.com/urlfetch/urlfetch/uri"
)

// fetchAll fetches every URL, o.parallel at once and at most o.perHost of
// them from one server at once, and returns the exit code: the highest of
// the URLs' codes. Documents written to standard output come out whole and
// in the order of the URLs, however the transfers interleave.
func fetchAll(ctx context.Context, o *options, urls []string, stdin io.Reader, stdout, stderr io.Writer) int {
	defer o.client.Close()
	useProcs(min(o.parallel, len(urls)))
	keepIdle(o.client, min(o.parallel, o.perHost))
	o.progress = newProgress(stderr, progressOn(o, stdout, stderr))
	defer o.progress.wait()
	o.stdoutTerminal = writesToTerminal(stdout)
	targets := planTargets(o, urls, makeDirs(o))
	turns := newTurns(stdout)
	codes := make([]int, len(urls))
	q := &queue{urls: urls, hosts: newHostLimit(o.perHost)}
	var wg sync.WaitGroup
	for range max(1, min(o.parallel, len(urls))) {
		wg.Go(func() {
			for {
				i, release, ok := q.take(ctx)
				if !ok {
					return
				}
				codes[i] = fetchJob(ctx, o, urls[i], targets[i], turns.writer(i), stdin, stderr)
				release()
				turns.done(i)
			}
		})
	}
	wg.Wait()
	code := exitOK
	for _, c := range codes {
		code = worst(code, c)
	}
	if ctx.Err() != nil {
		code = worst(code, exitInterrupted)
	}
	return code
}

// keepIdle makes the Client's drivers keep up to n idle connections per
// server, so that n URLs fetched at once from one server reuse their n
// connections rather than closing all but the pool's default few.
func keepIdle(cl *fetch.Client, n int) {
	if cur := cl.MaxIdleConnsPerHost; cur >= 0 && max(cur, fetch.DefaultMaxIdleConnsPerHost) < n {
		cl.MaxIdleConnsPerHost = n
	}
}

// fetchJob fetches one URL into its target, trying a transient failure
// again up to o.retry times with growing delays, and returns its exit
// code. It prints the error that ends it, and with --json writes the
// record that ends the URL.
func fetchJob(ctx context.Context, o *options, raw string, t target, stdout io.Writer, stdin io.Reader, stderr io.Writer) int {
	msgs := o.progress.writer()
	begin := time.Now()
	sk := newSink(o, raw, t.path, stdout, msgs)
	rec := &jsonrec.Done{Input: sk.masked, URL: sk.masked, Output: sk.output()}
	finish := func(code int, err error) int {
		rec.Duration = time.Since(begin).Seconds()
		rec.Bytes = sk.written
		if err != nil {
			rec.Fail(err, errorMessage(err))
			fmt.Fprintln(msgs, errorLine(err))
		}
		rec.ExitCode = code
		if o.json {
			jsonrec.Write(stdout, rec)
		}
		return code
	}
	switch {
	case t.err != nil:
		return finish(exitCode(t.err), t.err)
	case t.skip == "" && o.noClobber && t.path != "" && clobbered(t.path):
		t.skip = t.path + " exists; not fetched (--no-clobber)"
	}
	if t.skip != "" {
		if !o.quiet {
			fmt.Fprintln(msgs, "fetch: "+sk.masked+": "+t.skip)
		}
		rec.Kind, rec.Message = jsonrec.KindSkipped, t.skip
		return finish(exitOK, nil)
	}
	if t.note != "" && !o.quiet {
		fmt.Fprintln(msgs, "fetch: "+sk.masked+": "+t.note)
	}
	if w := loginWarning(raw); w != "" && !o.quiet {
		fmt.Fprintln(o.progress.writer(), w)
	}
	for attempt := 1; ; attempt++ {
		rec.Attempts = attempt
		out, err := fetchOne(ctx, o, raw, sk, stdin, stdout, stderr)
		if out != nil {
			describeOutcome(rec, out, sk)
		}
		if err == nil {
			return finish(exitOK, nil)
		}
		if attempt > o.retry || !fetch.Temporary(err) || !sk.retryable() || ctx.Err() != nil {
			sk.abort()
			return finish(exitCode(err), err)
		}
		delay := retryDelay(attempt)
		fmt.Fprintf(msgs, "%s; trying again in %v (retry %d of %d)\n", errorLine(err), delay, attempt, o.retry)
		if o.json {
			jsonrec.Write(stdout, jsonrec.Retry{Kind: jsonrec.KindRetry, Input: sk.masked, Attempt: attempt, Delay: delay.Seconds(),
				ExitCode: exitCode(err), Class: jsonrec.Class(err), Message: errorMessage(err)})
		}
		select {
		case <-time.After(delay):
		case <-ctx.Done():
			sk.abort()
			return finish(exitInterrupted, &fetch.Error{Op: "fetch", URL: sk.masked, Err: ctx.Err()})
		}
	}
}

// retryDelay is the wait before retry n: 1s, 2s, 4s, ... at most 30s.
func retryDelay(n int) time.Duration {
	return min(time.Second<<min(n-1, 5), 30*time.Second)
}

// hostKey is what the per-host limit counts a URL against: its scheme's
// server, or the scheme for URLs without a host (news:, mailto:).
func hostKey(raw string) string {
	u, err := uri.Parse(raw)
	if err != nil {
		return raw
	}
	if u.Host == "" {
		return u.Scheme + ":"
	}
	return strings.ToLower(u.Host) + ":" + fmt.Sprint(u.PortNumber())
}

// queue hands the URLs to the workers in their order, each with its place
// in its server's limit. The places are taken in the order of the URLs,
// the next one by whichever worker is free (the others wait for it): a URL
// waiting for its turn on standard output holds its place, so were they
// taken out of order, later URLs could hold every place of a server an
// earlier one still waits for. Taking them in the worker rather than in a
// feeding goroutine saves a goroutine handoff, and a thread wakeup, a URL.
type queue struct {
	urls  []string
	hosts *hostLimit
	mu    sync.Mutex
	next  int
}

// take returns the next URL's index and the function that frees its place;
// ok is false when the URLs are all taken or ctx is done.
func (q *queue) take(ctx context.Context) (i int, release func(), ok bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.next >= len(q.urls) || ctx.Err() != nil {
		return 0, nil, false
	}
	release, err := q.hosts.acquire(ctx, hostKey(q.urls[q.next]))
	if err != nil {
		return 0, nil, false
	}
	q.next++
	return q.next - 1, release, true
}

// hostLimit lets at most n fetches at once go to one server.
type hostLimit struct {
	n     int
	mu    sync.Mutex
	slots map[string]chan struct{}
}

func newHostLimit(n int) *hostLimit {
	return &hostLimit{n: max(n, 1), slots: map[string]chan struct{}{}}
}

func (h *hostLimit) acquire(ctx context.Context, key string) (func(), error) {
	h.mu.Lock()
	ch := h.slots[key]
	if ch == nil {
		ch = make(chan struct{}, h.n)
		h.slots[key] = ch
	}
	h.mu.Unlock()
	select {
	case ch <- struct{}{}:
		return func() { <-ch }, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// turns hands standard output to the URLs in their order: URL i's first
// write waits until every URL before it is done, so documents never
// interleave and come out in order, while their transfers run at once.
type turns struct {
	out      io.Writer
	mu       sync.Mutex
	cond     *sync.Cond
	next     int          // the URL whose turn it is
	finished map[int]bool // finished URLs after next
}

func newTurns(out io.Writer) *turns {
	t := &turns{out: out, finished: map[int]bool{}}
	t.cond = sync.NewCond(&t.mu)
	return t
}

// writer is URL i's standard output.
func (t *turns) writer(i int) io.Writer { return &turnWriter{t: t, i: i} }

// done ends URL i's turn, and hands it on.
func (t *turns) done(i int) {
	t.mu.Lock()
	t.finished[i] = true
	for t.finished[t.next] {
		delete(t.finished, t.next)
		t.next++
	}
	t.mu.Unlock()
	t.cond.Broadcast()
}

type turnWriter struct {
	t      *turns
	i      int
	myTurn bool
}

func (w *turnWriter) Write(p []byte) (int, error) {
	if !w.myTurn {
		w.t.mu.Lock()
		for w.t.next != w.i {
			w.t.cond.Wait()
		}
		w.t.mu.Unlock()
		w.myTurn = true
	}
	return w.t.out.Write(p)
}

// maxURLLine bounds a line of -i's file: a longer one is that line's
// error, and the others are fetched.
const maxURLLine = 1 << 20

// readURLs reads the URLs of -i's file (or standard input for "-"): one a
// line; blank lines and lines starting with # are skipped, <URL:...>
// wrappers taken off. A line that is no URL (an empty wrapper, a line of
// more than maxURLLine bytes) is an ErrURL error in bad, naming the file
// and line, and the others are still read; err is an error reading the
// file itself.
func readURLs(name string, stdin io.Reader) (urls []string, bad []error, err error) {
	r := stdin
	if name != "-" {
		f, err := os.Open(name)
		if err != nil {
			return nil, nil, err
		}
		defer f.Close()
		r = f
	}
	br := bufio.NewReaderSize(r, 64<<10)
	for n := 1; ; n++ {
		line, long, err := readLine(br, maxURLLine)
		if err == io.EOF && line == "" && !long {
			return urls, bad, nil
		}
		if err != nil && err != io.EOF {
			return nil, nil, fmt.Errorf("%s: %w", name, err)
		}
		if long {
			bad = append(bad, fetch.Errorf(fetch.ErrURL, "%s:%d: a line of more than %d bytes, which is no URL; passed over", name, n, maxURLLine))
			continue
		}
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if strings.HasPrefix(line, "<") && strings.HasSuffix(line, ">") {
			line = strings.TrimSpace(line[1 : len(line)-1])
			line = strings.TrimSpace(strings.TrimPrefix(line, "URL:"))
			if line == "" {
				bad = append(bad, fetch.Errorf(fetch.ErrURL, "%s:%d: an empty <URL:> wrapper", name, n))
				continue
			}
		}
		urls = append(urls, line)
	}
}

// readLine reads one line of br without its line end. A line longer than
// max bytes is read to its end and dropped: long is true and line empty.
func readLine(br *bufio.Reader, max int) (line string, long bool, err error) {
	var b []byte
	for {
		chunk, err := br.ReadSlice('\n')
		if !long {
			if len(b)+len(chunk) > max+1 { // +1: the LF
				long, b = true, nil
			} else {
				b = append(b, chunk...)
			}
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if long {
			return "", true, err
		}
		return strings.TrimSuffix(string(b), "\n"), false, err
	}
}
