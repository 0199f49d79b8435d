package mirror

import (
	"bufio"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/urlfetch/urlfetch/fetch"
)

// An item is one URL the walk has still to fetch.
type item struct {
	URL   string `json:"u"`
	Depth int    `json:"d"`
	// Root is the index of the run's URL whose walk led here.
	Root int `json:"r"`
	// From is the URL of the listing or page that named this one; ""
	// for a URL the user gave.
	From string        `json:"f,omitempty"`
	Hop  fetch.HopKind `json:"h,omitempty"`
	// Base is what no-parent keeps the walk under: the scheme, server
	// and directory of the URL where this part of the walk began.
	Base string `json:"b"`
	// What the listing said of the entry: its type, size and time, for
	// -N and for the run's totals.
	Type fetch.EntryType `json:"t"`
	Size int64           `json:"s"`
	Time time.Time       `json:"m,omitzero"`
	// Discard: fetched for its links only, not kept (--reject).
	Discard bool `json:"x,omitempty"`
}

// A frontier is the walk's queue of items, first in first out (the walk
// is breadth first, as wget's), and the set of URLs queued already. It
// keeps at most memItems items in memory; more spill to a file that is
// read back in order, so a listing of any size costs flat memory. The
// seen set holds a 16-byte digest per URL that can lead further (a
// listing, a page, a menu item), not per file of a directory.
type frontier struct {
	mu      sync.Mutex
	cond    *sync.Cond
	mem     []item // the head of the queue
	memCap  int
	spill   *os.File      // the tail of the queue, beyond mem, if any
	w       *bufio.Writer // appends to spill
	r       *bufio.Reader // reads spill from where mem's items came from
	spilled int           // items in spill not yet read back
	dir     string        // where spill files go
	busy    int           // items taken and not yet done
	closed  bool          // the walk is over (cancelled)
	seen    map[[16]byte]struct{}
	err     error // a spill file that failed
}

func newFrontier(memCap int, dir string) *frontier {
	f := &frontier{memCap: max(memCap, 1), dir: dir, seen: map[[16]byte]struct{}{}}
	f.cond = sync.NewCond(&f.mu)
	return f
}

// visit marks key as seen and reports whether it was new.
func (f *frontier) visit(key string) bool {
	sum := sha256.Sum256([]byte(key))
	var k [16]byte
	copy(k[:], sum[:])
	f.mu.Lock()
	defer f.mu.Unlock()
	if _, ok := f.seen[k]; ok {
		return false
	}
	f.seen[k] = struct{}{}
	return true
}

// push appends it to the queue.
func (f *frontier) push(it item) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.err != nil {
		return f.err
	}
	if f.spilled == 0 && len(f.mem) < f.memCap {
		f.mem = append(f.mem, it)
		f.cond.Signal()
		return nil
	}
	if f.spill == nil {
		sp, err := os.CreateTemp(f.dir, "fetch-frontier-*")
		if err != nil {
			f.err = fmt.Errorf("the queue of URLs to fetch outgrew memory and cannot spill to disk: %w", err)
			return f.err
		}
		os.Remove(sp.Name()) // it lives as long as it is open
		f.spill, f.w = sp, bufio.NewWriterSize(sp, 64<<10)
		f.r = bufio.NewReaderSize(io.NewSectionReader(sp, 0, 1<<62), 64<<10)
	}
	b, err := json.Marshal(it)
	if err == nil {
		b = append(b, '\n')
		_, err = f.w.Write(b)
	}
	if err != nil {
		f.err = fmt.Errorf("spilling the queue of URLs to disk: %w", err)
		return f.err
	}
	f.spilled++
	f.cond.Signal()
	return nil
}

// take returns the next item, waiting while the queue is empty but items
// taken earlier may still add to it; ok is false when the walk is over.
// The caller calls done when it has pushed what the item leads to.
func (f *frontier) take() (it item, ok bool, err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for {
		if f.closed {
			return item{}, false, nil
		}
		if f.err != nil {
			return item{}, false, f.err
		}
		if len(f.mem) == 0 && f.spilled > 0 {
			f.refill()
			continue
		}
		if len(f.mem) > 0 {
			it = f.mem[0]
			f.mem[0] = item{}
			f.mem = f.mem[1:]
			f.busy++
			return it, true, nil
		}
		if f.busy == 0 {
			f.closed = true
			f.cond.Broadcast()
			return item{}, false, nil
		}
		f.cond.Wait()
	}
}

// refill reads up to memCap spilled items back into memory, in order.
func (f *frontier) refill() {
	if err := f.w.Flush(); err != nil {
		f.err = fmt.Errorf("spilling the queue of URLs to disk: %w", err)
		return
	}
	mem := make([]item, 0, f.memCap)
	for len(mem) < f.memCap && f.spilled > 0 {
		line, err := f.r.ReadBytes('\n')
		var it item
		if err == nil {
			err = json.Unmarshal(line, &it)
		}
		if err != nil {
			f.err = fmt.Errorf("reading back the queue of URLs spilled to disk: %w", err)
			return
		}
		mem = append(mem, it)
		f.spilled--
	}
	f.mem = mem
	if f.spilled == 0 {
		// All read back: the file starts again from empty.
		if err := f.spill.Truncate(0); err != nil {
			f.err = err
			return
		}
		f.w.Reset(f.spill)
		f.spill.Seek(0, io.SeekStart)
		f.r.Reset(io.NewSectionReader(f.spill, 0, 1<<62))
	}
}

// done ends an item that take returned.
func (f *frontier) done() {
	f.mu.Lock()
	f.busy--
	f.cond.Broadcast()
	f.mu.Unlock()
}

// close ends the walk: take returns false from now on.
func (f *frontier) close() {
	f.mu.Lock()
	f.closed = true
	f.cond.Broadcast()
	f.mu.Unlock()
}

// release removes the spill file.
func (f *frontier) release() {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.spill != nil {
		f.spill.Close()
		f.spill = nil
	}
}
