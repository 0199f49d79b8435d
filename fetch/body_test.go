package fetch

import (
	"context"
	"errors"
	"io"
	"strings"
	"testing"
	"time"
)

// The life of every Body, checked once here rather than in each driver.

func TestBodyEnd(t *testing.T) {
	var ends []error
	closes := 0
	b := NewBody(context.Background(), strings.NewReader("hello"), BodyFuncs{
		End:   func(err error) error { ends = append(ends, err); return nil },
		Close: func(ended bool) error { closes++; return nil },
	})
	got, err := io.ReadAll(b)
	if string(got) != "hello" || err != nil {
		t.Fatalf("ReadAll = %q, %v", got, err)
	}
	if n, err := b.Read(make([]byte, 1)); n != 0 || err != io.EOF {
		t.Errorf("Read after the end = %d, %v; want 0, io.EOF", n, err)
	}
	if len(ends) != 1 || ends[0] != io.EOF {
		t.Errorf("End called with %v; want once with io.EOF", ends)
	}
	if err := b.Close(); err != nil || closes != 1 {
		t.Errorf("Close = %v after %d calls; want nil, once", err, closes)
	}
	if err := b.Close(); err != nil || closes != 1 {
		t.Errorf("second Close = %v after %d calls; want nil, and no second call", err, closes)
	}
	if _, err := b.Read(make([]byte, 1)); err != ErrBodyClosed {
		t.Errorf("Read after Close = %v; want ErrBodyClosed", err)
	}
}

// End's error is what Read returns, then and after, and what Close says.
func TestBodyStickyError(t *testing.T) {
	short := errors.New("the transfer broke off")
	b := NewBody(context.Background(), strings.NewReader("abc"), BodyFuncs{
		End: func(err error) error { return short },
	})
	if _, err := io.ReadAll(b); err != short {
		t.Fatalf("ReadAll error = %v; want End's", err)
	}
	for range 2 {
		if _, err := b.Read(make([]byte, 1)); err != short {
			t.Errorf("Read after the failure = %v; want the same error", err)
		}
	}
	if err := b.Close(); err != short {
		t.Errorf("Close = %v; want the error that broke the read", err)
	}
	if err := b.Close(); err != short {
		t.Errorf("second Close = %v; want the same", err)
	}
}

// A done context ends reads even of bytes the source has ready, and the
// exchange is dropped, not ended.
func TestBodyContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	var ended, closedEnded []bool
	b := NewBody(ctx, strings.NewReader("buffered bytes"), BodyFuncs{
		End:   func(error) error { ended = append(ended, true); return nil },
		Close: func(e bool) error { closedEnded = append(closedEnded, e); return nil },
	})
	p := make([]byte, 4)
	if n, err := b.Read(p); n != 4 || err != nil {
		t.Fatalf("first Read = %d, %v", n, err)
	}
	cancel()
	if n, err := b.Read(p); n != 0 || !errors.Is(err, context.Canceled) {
		t.Errorf("Read after cancel = %d, %v; want 0, context.Canceled", n, err)
	}
	if err := b.Close(); !errors.Is(err, context.Canceled) {
		t.Errorf("Close = %v; want context.Canceled", err)
	}
	if len(ended) != 0 || len(closedEnded) != 1 || closedEnded[0] {
		t.Errorf("End calls %v, Close calls %v; want no End and one Close(false)", ended, closedEnded)
	}
}

// Close from another goroutine ends a Read blocked on the source.
func TestBodyCloseInterruptsRead(t *testing.T) {
	pr, pw := io.Pipe()
	defer pw.Close()
	b := NewBody(context.Background(), pr, BodyFuncs{
		End:   func(error) error { t.Error("End called after Close"); return nil },
		Close: func(ended bool) error { return pr.Close() },
	})
	errc := make(chan error, 1)
	go func() {
		_, err := b.Read(make([]byte, 1))
		errc <- err
	}()
	time.Sleep(20 * time.Millisecond)
	b.Close()
	select {
	case err := <-errc:
		if err != ErrBodyClosed {
			t.Errorf("blocked Read after Close = %v; want ErrBodyClosed", err)
		}
	case <-time.After(2 * time.Second):
		t.Fatal("Close did not end the blocked Read")
	}
}

// A source error after the context is done is the context's error.
func TestBodyContextErrorWins(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	var got error
	b := NewBody(ctx, readerFunc(func([]byte) (int, error) {
		cancel()
		return 0, errors.New("use of closed network connection")
	}), BodyFuncs{End: func(err error) error { got = err; return err }})
	if _, err := b.Read(make([]byte, 1)); !errors.Is(err, context.Canceled) || !errors.Is(got, context.Canceled) {
		t.Errorf("Read = %v (End saw %v); want context.Canceled", err, got)
	}
}

type readerFunc func([]byte) (int, error)

func (f readerFunc) Read(p []byte) (int, error) { return f(p) }
