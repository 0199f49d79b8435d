package main

import (
	"fmt"

	"github.com/vbauerster/mpb/v8"
	"github.com/vbauerster/mpb/v8/decor"

	"github.com/urlfetch/urlfetch/internal/mirror"
)

// total shows the progress of a whole recursive run as the last line
// under the transfers' bars: files and bytes done of those known so far
// (the listings' sizes), and how many transfers are running. It returns
// the function that takes the line away. A progress that is off shows
// nothing.
func (p *progress) total(stats func() mirror.Progress) (stop func()) {
	if p == nil || !p.on {
		return func() {}
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return func() {}
	}
	p.ensure()
	line := decor.Any(func(decor.Statistics) string { return totalLine(stats()) })
	b, err := p.mp.Add(0, nil, mpb.BarWidth(0), mpb.BarRemoveOnComplete(), mpb.BarPriority(1<<30),
		mpb.PrependDecorators(line))
	if err != nil {
		return func() {}
	}
	return func() { b.Abort(true) }
}

// totalLine is the run's progress in words:
//
//	total  120 of 340 files, 1.2 MiB of 40.0 MiB known, 3 running
func totalLine(s mirror.Progress) string {
	return fmt.Sprintf("total  %d of %d files, %s of %s known, %d running",
		s.FilesDone, s.FilesKnown, byteSize(float64(s.BytesDone)), byteSize(float64(s.BytesKnown)), s.Active)
}
