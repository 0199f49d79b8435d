package fetch

import (
	"bufio"
	"errors"
	"io"
	"net"
	"os"
	"sync"
	"time"
)

// Copy copies r, a Response's Body, to w until its end, as
// io.CopyBuffer(w, r, buf) would, and returns the bytes copied and the
// first error (nil at a good end, as io.Copy).
//
// Where r is a stream in the clear straight off a TCP connection (an FTP
// data connection, a gopher document) and w reads from a socket itself
// (a net/http ResponseWriter, a *net.TCPConn), the bytes go from socket
// to socket in the kernel (splice(2) on Linux) and never through buf: a
// gateway that passes a transfer on (fetch serve) then costs little more
// than the transfer. (net/http splices a reply whose length it sent, as
// Content-Length: one it chunks, of a length unknown, it copies.)
// Otherwise the bytes go through buf; w's own ReadFrom is not used, since
// it would copy through a buffer of its own.
func Copy(w io.Writer, r io.Reader, buf []byte) (int64, error) {
	if b, ok := r.(*body); ok {
		if rf, ok := w.(readerFromWriter); ok {
			if s, ok := b.src.(splicer); ok && s.canSplice() {
				return b.splice(rf, s)
			}
		}
	}
	return io.CopyBuffer(writerOnly{w}, r, buf)
}

// writerOnly hides a writer's ReadFrom.
type writerOnly struct{ io.Writer }

// readerFromWriter is a writer Copy can splice to: one that reads from a
// socket itself, and takes what a driver read ahead as a Write.
type readerFromWriter interface {
	io.Writer
	io.ReaderFrom
}

// A splicer is a source whose bytes a writer can take from a socket
// itself: a connection of the dial path (Conn), a stream a driver read
// ahead of (Stream), or a CountingReader of either.
type splicer interface {
	// canSplice reports whether spliceTo can carry the source.
	canSplice() bool
	// spliceTo copies the source to w until its end: nil at the end, as
	// io.WriterTo.
	spliceTo(w readerFromWriter) (int64, error)
}

// splice is Read's life for a copy by s.spliceTo: the same checks
// before, the same End after.
func (b *body) splice(w readerFromWriter, s splicer) (int64, error) {
	if err := b.begin(); err != nil {
		return 0, err
	}
	n, err := s.spliceTo(w)
	if err == nil {
		err = io.EOF
	}
	if err = b.end(err); err == io.EOF {
		err = nil
	}
	return n, err
}

func (c *CountingReader) canSplice() bool {
	s, ok := c.R.(splicer)
	return ok && s.canSplice()
}

func (c *CountingReader) spliceTo(w readerFromWriter) (int64, error) {
	n, err := c.R.(splicer).spliceTo(w)
	c.N += n
	return n, err
}

// A Stream is what is left of a dial-path connection's stream, for
// NewBody, when a driver's bufio.Reader has read ahead of it (it peeked
// at a reply: a gopher server's error line, a file type's magic bytes).
// Handing NewBody a Stream rather than the bufio.Reader lets Copy still
// splice the rest.
type Stream struct {
	R    *bufio.Reader // reads Conn; what it read ahead comes first
	Conn *Conn
	// Length is how many bytes the stream holds (a length the server
	// announced); -1: to the connection's end.
	Length int64
	// End, if set, runs once, when the stream ends well.
	End func()
	// Short, if set, is the error of a stream that ends after got of
	// Length bytes; else it is io.ErrUnexpectedEOF.
	Short func(got int64) error

	got  int64
	once sync.Once
}

func (s *Stream) Read(p []byte) (int, error) {
	if s.Length >= 0 {
		left := s.Length - s.got
		if left <= 0 {
			s.ended()
			return 0, io.EOF
		}
		if int64(len(p)) > left {
			p = p[:left]
		}
	}
	n, err := s.R.Read(p)
	s.got += int64(n)
	if err == io.EOF {
		if s.Length >= 0 && s.got < s.Length {
			return n, s.short()
		}
		s.ended()
	}
	return n, err
}

func (s *Stream) ended() {
	if s.End != nil {
		s.once.Do(s.End)
	}
}

func (s *Stream) short() error {
	if s.Short != nil {
		return s.Short(s.got)
	}
	return io.ErrUnexpectedEOF
}

func (s *Stream) canSplice() bool { return s.Conn.canSplice() }

// spliceTo writes what R holds, then splices the rest of the connection.
func (s *Stream) spliceTo(w readerFromWriter) (int64, error) {
	var n int64
	if k := s.R.Buffered(); k > 0 {
		if s.Length >= 0 {
			k = int(min(int64(k), s.Length-s.got))
		}
		ahead, _ := s.R.Peek(k)
		m, err := w.Write(ahead)
		s.R.Discard(m)
		s.got += int64(m)
		n += int64(m)
		if err != nil {
			return n, err
		}
	}
	limit := int64(-1)
	if s.Length >= 0 {
		limit = s.Length - s.got
	}
	m, err := s.Conn.spliceN(w, limit)
	s.got += m
	n += m
	switch {
	case err != nil:
		return n, err
	case s.Length >= 0 && s.got < s.Length:
		return n, s.short()
	}
	s.ended()
	return n, nil
}

// spliceChunk is how much one splice of a stream carries before its
// deadline is renewed.
const spliceChunk = 4 << 20

func (c *Conn) canSplice() bool {
	_, ok := c.Conn.(*net.TCPConn)
	return ok
}

// spliceTo copies the connection's stream to w, to its end: w.ReadFrom of the bare
// TCP connection, which Go carries out with splice(2) on Linux, a chunk
// at a time. The bytes never reach this process, so no Read sees them:
// the idle timeout holds for each chunk, and a chunk that timed out after
// some bytes came is not idle and goes on. So a connection that stops is
// given up after one to two idle timeouts, not one.
//
// The socket batches as Read's do (see batch), for the same reason: a
// splice woken for every few segments costs more in wake-ups than in
// moving the bytes. A chunk waits batchPatience at most for its first
// batch; one that got nothing in that time reads what comes again.
func (c *Conn) spliceTo(w readerFromWriter) (int64, error) { return c.spliceN(w, -1) }

// spliceN is spliceTo to the stream's end or limit bytes (-1: no limit).
func (c *Conn) spliceN(w readerFromWriter, limit int64) (int64, error) {
	batched := c.raw != nil
	if batched {
		c.batched.Store(true)
		c.raw.Control(func(fd uintptr) { setRcvLowat(fd, batchBytes) })
	}
	defer c.unbatch()
	var total int64
	for limit < 0 || total < limit {
		var at time.Time
		if c.idle > 0 {
			at = time.Now().Add(c.idle)
		}
		if batched {
			if b := time.Now().Add(batchPatience); at.IsZero() || b.Before(at) {
				at = b
			}
		}
		c.Conn.SetReadDeadline(at)
		// As in Read: the deadline just set may have replaced a
		// cancellation's.
		if err := c.context().Err(); err != nil {
			return total, err
		}
		chunk := int64(spliceChunk)
		if limit >= 0 {
			chunk = min(chunk, limit-total)
		}
		lr := &io.LimitedReader{R: c.Conn, N: chunk}
		n, err := w.ReadFrom(lr)
		total += n
		switch {
		case err == nil && lr.N > 0:
			return total, nil // the stream's end
		case err == nil:
			continue // a whole chunk
		case errors.Is(err, os.ErrDeadlineExceeded) && c.context().Err() == nil:
			if n > 0 {
				continue // bytes came: not idle
			}
			if batched {
				// Less than a batch in batchPatience: the stream is slow.
				batched = false
				c.unbatch()
				continue
			}
		}
		return total, c.mapError("read", err)
	}
	return total, nil
}
