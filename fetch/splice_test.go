package fetch

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"io"
	"math/rand/v2"
	"net"
	"sync"
	"testing"
	"time"
)

// Issue 28, point 5: fetch.Copy hands a stream in the clear to a writer
// that reads from a socket itself, as fetch serve's ResponseWriter does:
// the bytes go socket to socket (splice(2) on Linux), never through the
// caller's buffer, and the Body's life (End, the count) is the same as
// for Reads.

// socketSink is a TCP connection to write to (a *net.TCPConn, an
// io.ReaderFrom, as a ResponseWriter's is) and what its far end read: the
// bytes' count and sha256, and when the first came.
type socketSink struct {
	w     *net.TCPConn
	done  chan struct{}
	n     int64
	sum   []byte
	first time.Time
}

func newSocketSink(t *testing.T) *socketSink {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	k := &socketSink{done: make(chan struct{})}
	accepted := make(chan net.Conn, 1)
	go func() {
		c, err := ln.Accept()
		if err != nil {
			close(accepted)
			return
		}
		accepted <- c
	}()
	w, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	k.w = w.(*net.TCPConn)
	r, ok := <-accepted
	if !ok {
		t.Fatal("the sink's connection was not accepted")
	}
	t.Cleanup(func() { k.w.Close(); r.Close() })
	go func() {
		defer close(k.done)
		h := sha256.New()
		buf := make([]byte, 64<<10)
		for {
			m, err := r.Read(buf)
			if m > 0 && k.first.IsZero() {
				k.first = time.Now()
			}
			h.Write(buf[:m])
			k.n += int64(m)
			if err != nil {
				k.sum = h.Sum(nil)
				return
			}
		}
	}()
	return k
}

// wait closes the writing end and waits for the far end to read all.
func (k *socketSink) wait(t *testing.T) {
	t.Helper()
	k.w.CloseWrite()
	select {
	case <-k.done:
	case <-time.After(10 * time.Second):
		t.Fatal("the sink did not see its end")
	}
}

// spliceBody is a Body as the FTP driver makes it: a CountingReader of a
// dial-path Conn to addr; ended receives End's error.
func spliceBody(t *testing.T, ctx context.Context, addr string, idle time.Duration) (io.ReadCloser, *CountingReader, chan error) {
	t.Helper()
	c, err := (&Client{IdleTimeout: idle}).dial(ctx, "tcp", addr, addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	cr := &CountingReader{R: c}
	ended := make(chan error, 1)
	body := NewBody(ctx, cr, BodyFuncs{End: func(err error) error {
		ended <- err
		if err == io.EOF {
			return nil
		}
		return err
	}})
	return body, cr, ended
}

// copySpliced copies body, which holds data, to a socket with Copy and
// checks that the far end got data and that no byte went through the
// buffer Copy was given.
func copySpliced(t *testing.T, body io.Reader, data []byte) {
	t.Helper()
	sink := newSocketSink(t)
	buf := bytes.Repeat([]byte{0xA5}, 256<<10)
	n, err := Copy(sink.w, body, buf)
	if err != nil || n != int64(len(data)) {
		t.Fatalf("Copy = %d, %v; want %d, nil", n, err, len(data))
	}
	sink.wait(t)
	if want := sha256.Sum256(data); sink.n != int64(len(data)) || !bytes.Equal(sink.sum, want[:]) {
		t.Fatalf("the far end read %d bytes, sha256 %x; want %d, %x", sink.n, sink.sum, len(data), want)
	}
	if !bytes.Equal(buf, bytes.Repeat([]byte{0xA5}, len(buf))) {
		t.Error("the bytes went through the buffer: Copy did not hand the stream to the writer's ReadFrom")
	}
}

func TestCopySplicesAStreamPastTheBuffer(t *testing.T) {
	data := make([]byte, 24<<20+12345)
	rand.NewChaCha8([32]byte{1, 2}).Read(data)
	addr := serveOnce(t, func(s net.Conn) { s.Write(data) })
	body, cr, ended := spliceBody(t, context.Background(), addr, 5*time.Second)
	copySpliced(t, body, data)
	if cr.N != int64(len(data)) {
		t.Errorf("the CountingReader counted %d, want %d", cr.N, len(data))
	}
	select {
	case err := <-ended:
		if err != io.EOF {
			t.Errorf("End got %v, want io.EOF", err)
		}
	default:
		t.Error("End was not called")
	}
	if _, err := body.Read(make([]byte, 1)); err != io.EOF {
		t.Errorf("a Read after the end = %v, want io.EOF", err)
	}
}

// A writer that cannot read from a socket (no ReadFrom) is copied to
// through the buffer, as io.CopyBuffer does.
func TestCopyWithoutReadFromUsesTheBuffer(t *testing.T) {
	data := bytes.Repeat([]byte("0123456789"), 100000)
	addr := serveOnce(t, func(s net.Conn) { s.Write(data) })
	body, _, _ := spliceBody(t, context.Background(), addr, 5*time.Second)
	var out bytes.Buffer
	buf := make([]byte, 256<<10)
	n, err := Copy(struct{ io.Writer }{&out}, body, buf)
	if err != nil || n != int64(len(data)) || !bytes.Equal(out.Bytes(), data) {
		t.Fatalf("Copy = %d, %v, %d bytes out; want %d, nil, the same bytes", n, err, out.Len(), len(data))
	}
	if bytes.Equal(buf, make([]byte, len(buf))) {
		t.Error("the buffer was not used")
	}
}

// A fake server that sends a little, slowly, and then stops: what a real
// server does only when it hangs. The little comes through as it comes
// (the batching of a fast stream does not hold it), and the stop ends
// the copy with the idle timeout, within two of them.
func TestCopySpliceSlowThenStalled_FakeServer(t *testing.T) {
	stop := make(chan struct{})
	defer close(stop)
	addr := serveOnce(t, func(s net.Conn) {
		for range 5 {
			s.Write([]byte("0123456789"))
			time.Sleep(50 * time.Millisecond)
		}
		<-stop
	})
	const idle = 400 * time.Millisecond
	body, _, ended := spliceBody(t, context.Background(), addr, idle)
	sink := newSocketSink(t)
	start := time.Now()
	n, err := Copy(sink.w, body, make([]byte, 256<<10))
	took := time.Since(start)
	var te *TimeoutError
	if !errors.As(err, &te) || te.Wait != "idle" {
		t.Fatalf("Copy = %d, %v; want the idle timeout", n, err)
	}
	if n != 50 {
		t.Errorf("Copy moved %d bytes, want the 50 sent", n)
	}
	if took > 250*time.Millisecond+2*idle+500*time.Millisecond {
		t.Errorf("the stall was given up after %v, want within two idle timeouts (%v) of the last byte", took, 2*idle)
	}
	sink.wait(t)
	if sink.n != 50 {
		t.Errorf("the far end read %d bytes, want 50", sink.n)
	}
	if d := sink.first.Sub(start); d > 200*time.Millisecond {
		t.Errorf("the first 10 bytes came through after %v: a slow stream was held", d)
	}
	if err := <-ended; !errors.As(err, &te) {
		t.Errorf("End got %v, want the timeout", err)
	}
}

// Cancelling the context ends a copy blocked in the kernel at once, with
// the context's error.
func TestCopySpliceCancel_FakeServer(t *testing.T) {
	stop := make(chan struct{})
	defer close(stop)
	addr := serveOnce(t, func(s net.Conn) {
		s.Write(make([]byte, 1<<20))
		<-stop
	})
	ctx, cancel := context.WithCancel(context.Background())
	body, _, _ := spliceBody(t, ctx, addr, time.Minute)
	sink := newSocketSink(t)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		time.Sleep(200 * time.Millisecond)
		cancel()
	}()
	start := time.Now()
	_, err := Copy(sink.w, body, make([]byte, 256<<10))
	wg.Wait()
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Copy = %v, want context.Canceled", err)
	}
	if took := time.Since(start); took > 2*time.Second {
		t.Errorf("the cancelled copy returned after %v", took)
	}
}

// A stream a driver read ahead of (a gopher reply it sniffed) is spliced
// too: what the bufio.Reader holds is written first, then the rest goes
// socket to socket; atEOF runs once, at the good end.
func TestCopySplicesAStreamReadAhead(t *testing.T) {
	data := make([]byte, 8<<20+77)
	rand.NewChaCha8([32]byte{3}).Read(data)
	addr := serveOnce(t, func(s net.Conn) { s.Write(data) })
	c, err := (&Client{IdleTimeout: 5 * time.Second}).dial(context.Background(), "tcp", addr, addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	br := bufio.NewReaderSize(c, 16<<10)
	if _, err := br.Peek(512); err != nil { // the driver's sniffing
		t.Fatal(err)
	}
	ends := 0
	body := NewBody(context.Background(), &Stream{R: br, Conn: c, Length: -1, End: func() { ends++ }}, BodyFuncs{})
	copySpliced(t, body, data)
	if ends != 1 {
		t.Errorf("atEOF ran %d times, want once", ends)
	}
}

// A Stream of a Length the server announced is spliced to exactly that
// length; one that ends short is the Short error, through Copy as
// through Read, and End does not run.
func TestStreamOfALength(t *testing.T) {
	data := make([]byte, 5<<20+3)
	rand.NewChaCha8([32]byte{4}).Read(data)
	serve := func(t *testing.T, n int) (*Conn, *bufio.Reader) {
		addr := serveOnce(t, func(s net.Conn) {
			s.Write([]byte("+5242883\r\n"))
			s.Write(data[:n])
		})
		c, err := (&Client{IdleTimeout: 5 * time.Second}).dial(context.Background(), "tcp", addr, addr)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		br := bufio.NewReader(c)
		if line, err := br.ReadString('\n'); err != nil || line != "+5242883\r\n" {
			t.Fatalf("header %q, %v", line, err)
		}
		return c, br
	}
	errShort := errors.New("short")
	var gotShort int64
	stream := func(c *Conn, br *bufio.Reader, ends *int) *Stream {
		return &Stream{R: br, Conn: c, Length: int64(len(data)), End: func() { *ends++ },
			Short: func(got int64) error { gotShort = got; return errShort }}
	}

	t.Run("whole", func(t *testing.T) {
		c, br := serve(t, len(data))
		ends := 0
		copySpliced(t, NewBody(context.Background(), stream(c, br, &ends), BodyFuncs{}), data)
		if ends != 1 {
			t.Errorf("End ran %d times, want once", ends)
		}
	})
	t.Run("short, spliced", func(t *testing.T) {
		c, br := serve(t, len(data)-1000)
		ends := 0
		sink := newSocketSink(t)
		n, err := Copy(sink.w, NewBody(context.Background(), stream(c, br, &ends), BodyFuncs{}), make([]byte, 64<<10))
		if !errors.Is(err, errShort) || n != int64(len(data)-1000) || gotShort != n || ends != 0 {
			t.Errorf("Copy = %d, %v (Short got %d), End ran %d times; want %d, the Short error, End not run", n, err, gotShort, ends, len(data)-1000)
		}
	})
	t.Run("short, read", func(t *testing.T) {
		c, br := serve(t, len(data)-1000)
		ends := 0
		n, err := io.Copy(io.Discard, NewBody(context.Background(), stream(c, br, &ends), BodyFuncs{}))
		if !errors.Is(err, errShort) || n != int64(len(data)-1000) || ends != 0 {
			t.Errorf("reading = %d, %v, End ran %d times; want %d, the Short error, End not run", n, err, ends, len(data)-1000)
		}
	})
}
