package fetch

import (
	"context"
	"errors"
	"io"
	"sync"
)

// ErrBodyClosed is what a Read of a Response's Body returns after its
// Close.
var ErrBodyClosed = errors.New("fetch: read on a closed body")

// BodyFuncs are what a driver adds to the Body NewBody makes: how its
// exchange ends. Either may be nil.
type BodyFuncs struct {
	// End is called once, with the first error a Read of the source
	// meets: io.EOF at its end, or what broke it. It finishes the
	// exchange (reads the final reply, checks a length, gives the
	// connection back to its pool) and returns what Read returns from
	// then on: nil (or io.EOF) for a good end, else the error.
	End func(err error) error
	// Close is called once, by the first Close of the Body. ended says
	// whether End has run: if not, the exchange is dropped (what is
	// unread is not wanted: close the connection); if so, Close releases
	// what End kept. It may be called while a Read is blocked, to end
	// it. Its error is the Body's Close's, unless a Read failed first.
	Close func(ended bool) error
}

// NewBody returns the Body of a Response that reads src: the one life
// every driver's Body has, as net/http's bodyEOFSignal gives every
// response body one.
//
//   - ctx is looked at before each Read: once it is done, Read returns
//     its error, even for bytes src has already buffered; an error of src
//     after ctx is done is ctx's error.
//   - The first error is sticky: after it, every Read returns it again
//     (io.EOF after a good end). End finishes the exchange at that first
//     error.
//   - Close may be called more than once and from another goroutine; it
//     returns the error that broke a Read, if one did (so a caller who
//     only walked a listing's Entries learns it is not whole), else what
//     f.Close returned. After it, Read returns ErrBodyClosed.
func NewBody(ctx context.Context, src io.Reader, f BodyFuncs) io.ReadCloser {
	return &body{ctx: ctx, src: src, f: f}
}

type body struct {
	ctx context.Context
	src io.Reader
	f   BodyFuncs

	mu     sync.Mutex
	err    error // sticky: the first error, after End
	ended  bool  // End has run
	closed bool

	closeOnce sync.Once
	closeErr  error
}

func (b *body) Read(p []byte) (int, error) {
	if err := b.begin(); err != nil {
		return 0, err
	}
	n, err := b.src.Read(p)
	if err == nil {
		return n, nil
	}
	return n, b.end(err)
}

// begin is what a Read of the source waits on: the Body's own state and
// its context.
func (b *body) begin() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	switch {
	case b.closed:
		return ErrBodyClosed
	case b.err != nil:
		return b.err
	}
	if err := ContextError(b.ctx); err != nil {
		// A cancelled fetch drops its exchange; Close does the rest.
		b.err = err
		return err
	}
	return nil
}

// end takes err, the first error a read of the source met (io.EOF at its
// end), finishes the exchange with End, and returns what the Body's
// reads return from then on.
func (b *body) end(err error) error {
	if err != io.EOF {
		if cerr := ContextError(b.ctx); cerr != nil {
			err = cerr
		}
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	switch {
	case b.closed:
		// Close ended the exchange under this Read.
		return ErrBodyClosed
	case b.err != nil:
		return b.err
	}
	b.ended = true
	if b.f.End != nil {
		if e := b.f.End(err); e != nil {
			err = e
		} else {
			err = io.EOF
		}
	}
	b.err = err
	return err
}

func (b *body) Close() error {
	b.closeOnce.Do(func() {
		b.mu.Lock()
		b.closed = true
		ended, readErr := b.ended, b.err
		b.mu.Unlock()
		if b.f.Close != nil {
			b.closeErr = b.f.Close(ended)
		}
		if readErr != nil && readErr != io.EOF {
			b.closeErr = readErr
		}
	})
	return b.closeErr
}

// EmptyBody returns a Body, as NewBody makes it, that yields no bytes:
// the Body of a Response to a Head request. done, if not nil, runs once,
// at the Body's end or its Close, to finish the exchange: a driver that
// finished it before returning (a connection already back in its pool)
// passes nil.
func EmptyBody(ctx context.Context, done func() error) io.ReadCloser {
	if done == nil {
		return NewBody(ctx, eof{}, BodyFuncs{})
	}
	var once sync.Once
	var err error
	finish := func() error {
		once.Do(func() { err = done() })
		return err
	}
	return NewBody(ctx, eof{}, BodyFuncs{
		End:   func(error) error { return finish() },
		Close: func(bool) error { return finish() },
	})
}

// eof is a reader at its end.
type eof struct{}

func (eof) Read([]byte) (int, error) { return 0, io.EOF }

// A CountingReader counts the bytes read through it: how a driver's End
// and Close know how far a transfer got (a short transfer, "the body broke
// off after N bytes").
type CountingReader struct {
	R io.Reader
	N int64
}

func (c *CountingReader) Read(p []byte) (int, error) {
	n, err := c.R.Read(p)
	c.N += int64(n)
	return n, err
}
