package fetch

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/urlfetch/urlfetch/uri"
)

// Default timeouts of a Client whose fields are zero.
const (
	DefaultConnectTimeout = 30 * time.Second
	DefaultIdleTimeout    = 60 * time.Second
)

// badPorts are the well-known ports of other protocols that a URL may not
// name (the Fetch Standard's "bad ports"). RFC 1738 section 6: a URL with
// another protocol's port can make a harmless retrieval perform a remote
// operation, as when a gopher URL makes an SMTP server send a message.
var badPorts = map[int]bool{
	1: true, 7: true, 9: true, 11: true, 13: true, 15: true, 17: true, 19: true,
	20: true, 21: true, 22: true, 23: true, 25: true, 37: true, 42: true, 43: true,
	53: true, 69: true, 77: true, 79: true, 87: true, 95: true, 101: true, 102: true,
	103: true, 104: true, 109: true, 110: true, 111: true, 113: true, 115: true,
	117: true, 119: true, 123: true, 135: true, 137: true, 139: true, 143: true,
	161: true, 179: true, 389: true, 427: true, 465: true, 512: true, 513: true,
	514: true, 515: true, 526: true, 530: true, 531: true, 532: true, 540: true,
	548: true, 554: true, 556: true, 563: true, 587: true, 601: true, 636: true,
	989: true, 990: true, 993: true, 995: true, 1719: true, 1720: true, 1723: true,
	2049: true, 3659: true, 4045: true, 4190: true, 5060: true, 5061: true,
	6000: true, 6566: true, 6665: true, 6666: true, 6667: true, 6668: true,
	6669: true, 6679: true, 6697: true, 10080: true,
}

// ownPorts are ports on the bad-ports list that belong to a scheme's own
// protocol besides its default port: SMTP's submissions (465) and
// submission (587) ports for the SMTP server of mailto: URLs; IMAP's
// (143) and IMAP over TLS's (993) for the mailbox of mid: URLs, which the
// user names with an imap: or imaps: URL.
var ownPorts = map[string][]int{
	"mailto": {25, 465, 587},
	"imap":   {143},
	"imaps":  {993},
}

// BadPort reports whether port belongs to another protocol than scheme's:
// a port on the bad-ports list that is not one of the scheme's own.
func BadPort(scheme string, port int) bool {
	return badPorts[port] && port != uri.DefaultPort(scheme) && !slices.Contains(ownPorts[scheme], port)
}

// checkPort applies the port policy to a URL's port.
func (c *Client) checkPort(scheme string, port int) error {
	if !BadPort(scheme, port) {
		return nil
	}
	for _, p := range c.AllowPorts {
		if p == port {
			return nil
		}
	}
	return Errorf(ErrUnsafe, "port %d belongs to another protocol; a %s URL may not use it unless allowed (--allow-port %d)", port, scheme, port)
}

// dial connects to addr with the Client's connect timeout, honouring ctx,
// and wraps the connection so that every read has the idle timeout and
// cancelling ctx interrupts a blocked read or write. shown is addr as
// errors name it: its host in Unicode where addr has A-labels.
func (c *Client) dial(ctx context.Context, network, addr, shown string) (*Conn, error) {
	// No TCP keepalive: every read has the idle timeout, which finds a
	// dead peer sooner, and the probes' four setsockopt calls a
	// connection are a measurable share of a small FTP file's cost.
	d := net.Dialer{Timeout: c.connectTimeout(), KeepAlive: -1}
	if c.DialContext != nil {
		cctx, cancel := context.WithTimeout(ctx, c.connectTimeout())
		defer cancel()
		nc, err := c.DialContext(cctx, network, addr)
		if err != nil {
			return nil, dialError(ctx, shown, c.connectTimeout(), err)
		}
		return newConn(ctx, nc, c.idleTimeout()), nil
	}
	nc, err := d.DialContext(ctx, network, addr)
	if err != nil {
		return nil, dialError(ctx, shown, c.connectTimeout(), err)
	}
	return newConn(ctx, nc, c.idleTimeout()), nil
}

func dialError(ctx context.Context, addr string, timeout time.Duration, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return &TimeoutError{Wait: "connect", Addr: addr, After: timeout, Err: err}
	}
	return Errorf(ErrConnect, "connect to %s: %w", addr, unicodeLookup(unwrapOpError(err)))
}

// unicodeLookup names the host of a failed DNS lookup in Unicode: the
// resolver was asked for the A-labels of the name the person wrote.
func unicodeLookup(err error) error {
	if de, ok := err.(*net.DNSError); ok {
		if name := uri.UnicodeHost(de.Name); name != de.Name {
			c := *de
			c.Name = name
			return &c
		}
	}
	return err
}

// unwrapOpError drops the "dial tcp 127.0.0.1:1:" prefix that the message
// would repeat.
func unwrapOpError(err error) error {
	var oe *net.OpError
	if errors.As(err, &oe) && oe.Err != nil {
		var se *os.SyscallError
		if errors.As(oe.Err, &se) {
			return se.Err
		}
		return oe.Err
	}
	return err
}

func (c *Client) connectTimeout() time.Duration {
	if c.ConnectTimeout > 0 {
		return c.ConnectTimeout
	}
	return DefaultConnectTimeout
}

func (c *Client) idleTimeout() time.Duration {
	if c.IdleTimeout > 0 {
		return c.IdleTimeout
	}
	return DefaultIdleTimeout
}

// aLongTimeAgo is a deadline in the past: setting it wakes every blocked
// read and write of a connection at once.
var aLongTimeAgo = time.Unix(1, 0)

// Conn is a network connection as the dial path hands it to drivers.
// Every Read must see a byte within the idle timeout, and cancelling the
// context the connection is bound to interrupts a blocked Read or Write,
// which then returns the context's error.
type Conn struct {
	net.Conn
	idle time.Duration

	// ack is the socket for quick ACKs (see quickAck), nil where the
	// platform or the connection has none; acked counts the bytes read
	// since the last write, and unacked says the last read brought bytes
	// no write has acknowledged since.
	ack     syscall.RawConn
	acked   atomic.Int64
	unacked atomic.Bool
	asked   atomic.Int64 // quick ACKs asked for: what the tests count

	// raw is the socket for batched reads (see batch), nil where the
	// platform or the connection has none; batched says the socket
	// holds its reads for batchBytes now, and lastRead is the size of the
	// last read.
	raw      syscall.RawConn
	batched  atomic.Bool
	lastRead atomic.Int64

	mu   sync.Mutex
	ctx  context.Context
	stop func() bool
}

func newConn(ctx context.Context, nc net.Conn, idle time.Duration) *Conn {
	c := &Conn{Conn: nc, idle: idle}
	if quickAckWorks { // Linux: TCP_QUICKACK, and SO_RCVLOWAT as epoll honours it
		if sc, ok := nc.(syscall.Conn); ok {
			c.ack, _ = sc.SyscallConn()
			c.raw = c.ack
		}
	}
	c.Bind(ctx)
	return c
}

// Batched reads of a fast stream.
const (
	// batchBytes is what a batched read waits for (SO_RCVLOWAT).
	batchBytes = 64 << 10
	// batchRead is the least a read must ask for to be batched: a
	// transfer's copy buffer, never a line protocol's reader.
	batchRead = 128 << 10
	// batchPatience bounds what a batched read adds to the wait for
	// bytes that came: a stream slower than batchBytes in this time is
	// read as it comes again.
	batchPatience = 10 * time.Millisecond
)

// batch says whether a read of size bytes waits for batchBytes. A reader
// that keeps up with a fast stream is woken for every few segments that
// arrive: on 64 MiB over loopback, some 2,000 wake-ups of the Go
// scheduler (a parked goroutine, epoll, a futex, a read that finds
// nothing), which made fetch's CPU time a quarter more than curl's for
// the same transfer. Linux's SO_RCVLOWAT lets the socket wake its reader
// only once batchBytes are in (or the stream ends): the wake-ups, reads
// and ACKs halve and the CPU time drops by a quarter, at the same speed.
// So once a large read (batchRead, a transfer's copy buffer) found a
// fast stream (its last read brought batchBytes), the socket batches;
// Read waits batchPatience at most for a batch, and reads what came one
// by one again when the stream slows; a write (the next request) ends
// batching. A line protocol's reads, small, never batch.
func (c *Conn) batch(size int) bool {
	if c.raw == nil {
		return false
	}
	if c.batched.Load() {
		return true
	}
	if size < batchRead || c.lastRead.Load() < batchBytes {
		return false
	}
	c.batched.Store(true)
	c.raw.Control(func(fd uintptr) { setRcvLowat(fd, batchBytes) })
	return true
}

// unbatch makes reads return what comes again.
func (c *Conn) unbatch() {
	if c.batched.Swap(false) {
		c.raw.Control(func(fd uintptr) { setRcvLowat(fd, 1) })
	}
}

// quickAckBytes is how much of a reply is acknowledged at once: a line
// protocol's replies are a few lines, and a bulk stream past this needs
// no help, its sender never waiting on a single ACK.
const quickAckBytes = 64 << 10

// quickAck acknowledges at once what the last read brought, when the
// reader comes back for more. Line protocols write a multi-line reply as
// a status line and then the rest (INN's 220 to ARTICLE, FTP's 150 and
// then 226); with Nagle on the server and delayed ACKs here, the rest
// waits some 40 ms for the ACK of the first part, once per reply. Linux's
// TCP_QUICKACK sends the ACK now, but it is not sticky: the kernel falls
// back to delayed ACKs once the exchange looks interactive, so it is set
// again, before each read that follows a read, until quickAckBytes of
// the reply are in. Only then: a read after a write needs none (the
// write carried the ACK), nor a reply read whole, the next command
// carrying its ACK, which halves the calls of an FTP transfer's control
// connection. A write starts the count again; a data connection, which
// never writes, stops after its first quickAckBytes.
func (c *Conn) quickAck() {
	if c.ack == nil || !c.unacked.Swap(false) || c.acked.Load() >= quickAckBytes {
		return
	}
	c.asked.Add(1)
	c.ack.Control(setQuickAck)
}

// Stream marks the connection as one that carries a stream of bytes in
// one direction, in the clear: an FTP data connection. Its reads ask for
// no quick ACKs (quickAck), since its sender never waits on the ACK of a
// small segment: a stream's segments are full ones but for its last, and
// its end is a FIN, which Nagle's algorithm does not hold. (Under TLS the
// sender's last records, close_notify after the data, are small ones:
// those connections keep quick ACKs.) Call it before the first Read.
func (c *Conn) Stream() { c.ack = nil }

// readDone counts n bytes a read brought for quickAck.
func (c *Conn) readDone(n int) {
	if c.ack == nil || n == 0 || c.acked.Load() >= quickAckBytes {
		return
	}
	c.acked.Add(int64(n))
	c.unacked.Store(true)
}

// Bind ties the connection to ctx in place of the context it had: a
// connection kept for reuse is bound to each new fetch's context.
func (c *Conn) Bind(ctx context.Context) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.stop != nil {
		c.stop()
	}
	c.ctx = ctx
	c.stop = context.AfterFunc(ctx, func() { c.Conn.SetDeadline(aLongTimeAgo) })
	if ctx.Err() == nil {
		c.Conn.SetDeadline(time.Time{})
	}
}

func (c *Conn) context() context.Context {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.ctx
}

// Read reads with the idle timeout.
func (c *Conn) Read(p []byte) (int, error) {
	var idleAt time.Time
	if c.idle > 0 {
		idleAt = time.Now().Add(c.idle)
	}
	batched := c.batch(len(p))
	if batched {
		if at := time.Now().Add(batchPatience); idleAt.IsZero() || at.Before(idleAt) {
			c.Conn.SetReadDeadline(at)
		} else {
			c.Conn.SetReadDeadline(idleAt)
		}
	} else if c.idle > 0 {
		c.Conn.SetReadDeadline(idleAt)
	}
	// The deadline just set may have replaced the one a cancellation put
	// in the past: look at the context after setting it.
	if err := c.context().Err(); err != nil {
		return 0, err
	}
	c.quickAck()
	n, err := c.Conn.Read(p)
	if batched && n == 0 && errors.Is(err, os.ErrDeadlineExceeded) && (idleAt.IsZero() || time.Now().Before(idleAt)) {
		// Less than a batch came in batchPatience: the stream slowed.
		// Read what came, and wait out the rest of the idle timeout.
		c.unbatch()
		c.Conn.SetReadDeadline(idleAt)
		if err := c.context().Err(); err != nil {
			return 0, err
		}
		n, err = c.Conn.Read(p)
	}
	c.lastRead.Store(int64(n))
	c.readDone(n)
	if err != nil {
		err = c.mapError("read", err)
	}
	return n, err
}

// Write writes with the idle timeout.
func (c *Conn) Write(p []byte) (int, error) {
	if c.idle > 0 {
		c.Conn.SetWriteDeadline(time.Now().Add(c.idle))
	}
	if err := c.context().Err(); err != nil {
		return 0, err
	}
	c.acked.Store(0)
	c.unacked.Store(false)
	c.unbatch()
	n, err := c.Conn.Write(p)
	if err != nil {
		err = c.mapError("write", err)
	}
	return n, err
}

func (c *Conn) mapError(op string, err error) error {
	if ctx := c.context(); ctx.Err() != nil {
		return ctx.Err()
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return &TimeoutError{Wait: "idle", Addr: c.RemoteAddr().String(), After: c.idle, Err: err}
	}
	return err
}

// SetDeadline, SetReadDeadline and SetWriteDeadline keep a cancelled
// connection cancelled: a library that sets its own deadlines (go-smtp,
// net/textproto users) cannot undo the past deadline cancellation set.
func (c *Conn) SetDeadline(t time.Time) error {
	if c.context().Err() != nil {
		t = aLongTimeAgo
	}
	return c.Conn.SetDeadline(t)
}

func (c *Conn) SetReadDeadline(t time.Time) error {
	if c.context().Err() != nil {
		t = aLongTimeAgo
	}
	return c.Conn.SetReadDeadline(t)
}

func (c *Conn) SetWriteDeadline(t time.Time) error {
	if c.context().Err() != nil {
		t = aLongTimeAgo
	}
	return c.Conn.SetWriteDeadline(t)
}

// Close closes the connection and releases its context watch.
func (c *Conn) Close() error {
	c.mu.Lock()
	if c.stop != nil {
		c.stop()
		c.stop = nil
	}
	c.mu.Unlock()
	return c.Conn.Close()
}

// SetIdleTimeout changes the idle timeout of later reads and writes.
func (c *Conn) SetIdleTimeout(d time.Duration) { c.idle = d }

// hostport joins host and port, with brackets for IPv6.
func hostport(host string, port int) string {
	return net.JoinHostPort(host, strconv.Itoa(port))
}

// splitHostPort parses "host" or "host:port" with a default port.
func splitHostPort(s string, defaultPort int) (string, int, error) {
	host, portText, err := net.SplitHostPort(s)
	if err != nil {
		// No port at all.
		if _, _, err2 := net.SplitHostPort(s + ":0"); err2 == nil {
			return s, defaultPort, nil
		}
		return "", 0, fmt.Errorf("bad address %q: %w", s, err)
	}
	port, err := strconv.Atoi(portText)
	if err != nil || port < 1 || port > 65535 {
		return "", 0, fmt.Errorf("bad port in %q", s)
	}
	return host, port, nil
}
