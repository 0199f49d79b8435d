package main

import (
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/vbauerster/mpb/v8"
	"github.com/vbauerster/mpb/v8/decor"

	"github.com/urlfetch/urlfetch/fetch"
)

// refreshRate is how often the bars are redrawn and take in the byte
// counts of their transfers.
const refreshRate = 150 * time.Millisecond

// maxBarName is the widest a bar's name may be, in runes: the bytes,
// rate and ETA must still fit on an 80-column terminal.
const maxBarName = 24

// progress draws one bar per transfer on standard error, several at once
// when transfers run side by side. A transfer that ends leaves one line
// in its place: the name, the bytes, and the rate and time, or how far it
// got before it failed.
//
// A progress that is off draws nothing: its start returns a nil *bar,
// whose methods do nothing, and its writer is standard error itself. Its
// methods are safe for concurrent use.
type progress struct {
	stderr io.Writer
	on     bool

	mu     sync.Mutex
	mp     *mpb.Progress     // made by the first start, so a run without documents draws nothing
	live   map[*bar]struct{} // bars of running transfers
	closed bool              // wait was called: start makes no more bars
	redraw chan any          // mpb draws the bars once per value sent
	ended  chan struct{}     // done sends to it: redraw without waiting for the tick
	stop   chan struct{}     // closed by wait: ends the sync goroutine
	synced chan struct{}     // closed when the sync goroutine has returned
}

// newProgress returns the run's progress, drawing on stderr when on.
func newProgress(stderr io.Writer, on bool) *progress {
	return &progress{stderr: stderr, on: on}
}

// progressOn reports whether a run shows bars: standard error is a
// terminal, neither -q nor -v was given (a trace line would tear through
// the bars), and documents do not go to that terminal through standard
// output.
func progressOn(o *options, stdout, stderr io.Writer) bool {
	if o.quiet || o.verbose || !writesToTerminal(stderr) {
		return false
	}
	toStdout := !o.remoteName && (o.output == "" || o.output == "-")
	return !toStdout || !writesToTerminal(stdout)
}

// writesToTerminal reports whether w is a terminal.
func writesToTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && isTerminal(f)
}

// startBar starts the bar of a document's transfer, named after path,
// the file it goes to, or else after its URL, with the password masked.
func startBar(o *options, resp *fetch.Response, path string) *bar {
	if o.progress == nil || !o.progress.on {
		return nil
	}
	name := resp.URL.Redacted()
	if path != "" {
		name = filepath.Base(path)
	}
	total := int64(-1)
	if resp.Length >= 0 {
		total = resp.Offset + resp.Length
	}
	return o.progress.start(name, total, resp.Offset)
}

// start adds a bar for a transfer of total bytes in all (-1: unknown,
// which draws a spinner) whose first offset bytes are already in (a
// resumed transfer). It returns nil when the progress is off or waited
// for.
func (p *progress) start(name string, total, offset int64) *bar {
	if p == nil || !p.on {
		return nil
	}
	b := &bar{p: p, name: shortName(name, maxBarName), total: total, offset: offset, begin: time.Now()}
	b.n.Store(offset)
	b.window[0] = sample{b.begin, offset}
	b.samples = 1

	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return nil
	}
	p.ensure()
	nameColumn := decor.Name(b.name, decor.WCSyncWidthR)
	rate := decor.Any(func(decor.Statistics) string { return byteSize(b.rate()) + "/s" }, decor.WCSyncSpace)
	var err error
	if total < 0 {
		b.mb, err = p.mp.Add(0, mpb.SpinnerStyle().PositionLeft().Build(),
			mpb.BarWidth(1),
			mpb.BarRemoveOnComplete(),
			mpb.PrependDecorators(nameColumn,
				decor.Any(func(s decor.Statistics) string { return byteSize(float64(s.Current)) }, decor.WCSyncSpace)),
			// The columns match a bar's, so that the bars of -P line up:
			// no percentage, the rate, the time so far in the ETA's place.
			mpb.AppendDecorators(decor.Any(func(decor.Statistics) string { return "" }, decor.WCSyncWidth),
				rate,
				decor.Any(func(decor.Statistics) string { return time.Since(b.begin).Round(time.Second).String() }, decor.WCSyncSpace)),
		)
	} else {
		b.mb, err = p.mp.Add(total, mpb.BarStyle().Build(),
			mpb.BarRemoveOnComplete(),
			mpb.PrependDecorators(nameColumn,
				decor.Any(func(s decor.Statistics) string {
					return byteSize(float64(s.Current)) + " / " + byteSize(float64(s.Total))
				}, decor.WCSyncSpace)),
			mpb.AppendDecorators(
				decor.NewPercentage("%d", decor.WCSyncWidth),
				rate,
				decor.Any(func(s decor.Statistics) string { return "ETA " + eta(s.Total-s.Current, b.rate()) }, decor.WCSyncSpace)),
		)
	}
	if err != nil {
		// mpb stopped because drawing on the terminal failed: the
		// transfer goes on without a bar.
		return nil
	}
	b.mb.SetCurrent(offset)
	p.live[b] = struct{}{}
	return b
}

// ensure makes the bars' container and starts the sync goroutine, once;
// p.mu must be held.
func (p *progress) ensure() {
	if p.mp != nil {
		return
	}
	// The sync goroutine drives the redraws, so that wait can tell when
	// the last one is on the terminal.
	p.redraw = make(chan any)
	p.mp = mpb.New(mpb.WithOutput(p.stderr), mpb.WithManualRefresh(p.redraw))
	p.live = make(map[*bar]struct{})
	p.ended = make(chan struct{}, 1)
	p.stop, p.synced = make(chan struct{}), make(chan struct{})
	go p.syncLoop()
}

// syncLoop hands the byte counts of the running transfers to their bars
// and has them redrawn every refreshRate, and at once when a transfer
// ends, until wait.
func (p *progress) syncLoop() {
	defer close(p.synced)
	tick := time.NewTicker(refreshRate)
	defer tick.Stop()
	for {
		select {
		case now := <-tick.C:
			p.sync(now)
			p.redraw <- now
		case <-p.ended:
			p.clear()
		case <-p.stop:
			return
		}
	}
}

// clearRedraws is how many redraws clear: mpb draws a removed bar twice
// more (as it was, then as it takes it out) and a third redraw erases it;
// a send returns once the redraw two sends before it is on the terminal,
// so five sends see three through.
const clearRedraws = 5

// clear redraws until the bars of ended transfers are off the terminal
// and the lines written since are on it.
func (p *progress) clear() {
	for range clearRedraws {
		p.redraw <- time.Now()
	}
}

// sync takes the byte counts in, and the rates they give.
func (p *progress) sync(now time.Time) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for b := range p.live {
		n := b.n.Load()
		b.observe(now, n)
		b.mb.SetCurrent(n)
	}
}

// writer returns where lines go while bars may be drawn: mpb prints them
// above the bars at its next redraw, so they never tear through one. Each
// Write should hold whole lines, as one fmt.Fprintln does.
func (p *progress) writer() io.Writer {
	if !p.on {
		return p.stderr
	}
	return progressWriter{p}
}

type progressWriter struct{ p *progress }

func (w progressWriter) Write(b []byte) (int, error) {
	w.p.mu.Lock()
	mp := w.p.mp
	w.p.mu.Unlock()
	if mp != nil {
		n, err := mp.Write(b)
		if !errors.Is(err, mpb.ErrDone) {
			return n, err
		}
	}
	// No bar yet, or the bars are gone.
	return w.p.stderr.Write(b)
}

// wait ends the progress: it drops the bars of transfers still running
// (an interrupted run), prints the lines still held and returns when the
// terminal is left with no bar drawn. Call it once the run is over, even
// on interrupt; a start after it returns nil.
func (p *progress) wait() {
	if p == nil {
		return
	}
	p.mu.Lock()
	if p.closed || p.mp == nil {
		p.closed = true
		p.mu.Unlock()
		return
	}
	p.closed = true
	for b := range p.live {
		b.mb.Abort(true)
		delete(p.live, b)
	}
	p.mu.Unlock()
	close(p.stop)
	<-p.synced
	p.clear()
	p.mp.Wait()
}

// A bar is the progress of one transfer. A nil *bar does nothing.
type bar struct {
	p      *progress
	mb     *mpb.Bar
	name   string
	total  int64 // -1: unknown
	offset int64
	begin  time.Time
	n      atomic.Int64 // bytes in so far, offset included

	// The counts of the last rateWindow syncs, oldest first from next,
	// give the current rate; only sync touches them, under p.mu.
	window  [rateWindow]sample
	next    int
	samples int
	bps     atomic.Uint64 // the current rate in bytes per second, as float64 bits
}

// rateWindow is how many syncs the current rate spans: three seconds.
const rateWindow = int(3 * time.Second / refreshRate)

type sample struct {
	at time.Time
	n  int64
}

// observe records the count n at now and the rate since the oldest count
// of the window.
func (b *bar) observe(now time.Time, n int64) {
	oldest := b.window[0]
	if b.samples == rateWindow {
		oldest = b.window[b.next]
	}
	if d := now.Sub(oldest.at).Seconds(); d > 0 {
		b.bps.Store(math.Float64bits(float64(n-oldest.n) / d))
	}
	if b.samples < rateWindow {
		b.window[b.samples] = sample{now, n}
		b.samples++
		return
	}
	b.window[b.next] = sample{now, n}
	b.next = (b.next + 1) % rateWindow
}

// rate is the current rate in bytes per second.
func (b *bar) rate() float64 { return math.Float64frombits(b.bps.Load()) }

// body returns rc counting the bytes read from it into the bar. The count
// is one atomic add per Read, with no lock and no allocation; the bar
// takes it in when it is redrawn.
func (b *bar) body(rc io.ReadCloser) io.ReadCloser {
	if b == nil {
		return rc
	}
	return &countingBody{ReadCloser: rc, n: &b.n}
}

type countingBody struct {
	io.ReadCloser
	n *atomic.Int64
}

func (c *countingBody) Read(p []byte) (int, error) {
	n, err := c.ReadCloser.Read(p)
	c.n.Add(int64(n))
	return n, err
}

// done ends the transfer's bar: it is removed, and one line says how the
// transfer ended (err nil: complete). A second call does nothing.
func (b *bar) done(err error) {
	if b == nil {
		return
	}
	p := b.p
	p.mu.Lock()
	_, running := p.live[b]
	if running {
		delete(p.live, b)
		// The last frames mpb draws before it drops the bar show the
		// final count.
		b.mb.SetCurrent(b.n.Load())
		b.mb.Abort(true)
	}
	p.mu.Unlock()
	if running {
		fmt.Fprintln(p.writer(), b.summary(err, time.Since(b.begin)))
		select {
		case p.ended <- struct{}{}:
		default: // a clear is due already
		}
	}
}

// summary is the line a finished transfer leaves:
//
//	big.bin  64.0 MiB in 304ms, 210.5 MiB/s
//	big.bin  1.5 MiB of 64.0 MiB (2%), failed after 1s
func (b *bar) summary(err error, took time.Duration) string {
	n := b.n.Load()
	took = took.Round(time.Millisecond)
	if err == nil {
		rate := 0.0
		if s := took.Seconds(); s > 0 {
			rate = float64(n-b.offset) / s
		}
		return fmt.Sprintf("%s  %s in %v, %s/s", b.name, byteSize(float64(n)), took, byteSize(rate))
	}
	if b.total < 0 {
		return fmt.Sprintf("%s  %s, failed after %v", b.name, byteSize(float64(n)), took)
	}
	pct := int64(100)
	if b.total > 0 {
		pct = n * 100 / b.total
	}
	return fmt.Sprintf("%s  %s of %s (%d%%), failed after %v", b.name, byteSize(float64(n)), byteSize(float64(b.total)), pct, took)
}

// byteSize formats a number of bytes in binary units: "512 B", "1.5 MiB".
func byteSize(n float64) string {
	if n < 1024 {
		return fmt.Sprintf("%.0f B", n)
	}
	const units = "KMGTPE"
	i := 0
	for n /= 1024; n >= 1024 && i < len(units)-1; n /= 1024 {
		i++
	}
	return fmt.Sprintf("%.1f %ciB", n, units[i])
}

// eta is the time left for remaining bytes at rate bytes per second, to
// the second; "--" while no rate is known.
func eta(remaining int64, rate float64) string {
	if remaining <= 0 {
		return "0s"
	}
	if rate <= 0 {
		return "--"
	}
	left := time.Duration(float64(remaining) / rate * float64(time.Second))
	return left.Round(time.Second).String()
}

// shortName makes name fit in max runes, cutting its middle (the end of a
// URL or file name says the most), and makes it safe to print on a
// terminal.
func shortName(name string, max int) string {
	name = strings.Map(func(r rune) rune {
		if r == utf8.RuneError || !unicode.IsPrint(r) {
			return '?'
		}
		return r
	}, name)
	runes := []rune(name)
	if len(runes) <= max {
		return name
	}
	head := (max - 1) / 2
	tail := max - 1 - head
	return string(runes[:head]) + "…" + string(runes[len(runes)-tail:])
}
