package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/urlfetch/urlfetch/fetch"
	"github.com/urlfetch/urlfetch/fetch/telnet"
	"golang.org/x/term"
)

// escapeKey closes a session from the keyboard: Ctrl-], as in telnet(1).
const escapeKey = 0x1d

// inputLinger is how long a session goes on after the end of a piped
// input once the server falls silent: the time the server has to answer
// the last line. A server that closes the session ends it at once.
const inputLinger = 2 * time.Second

// errEscape ends a session closed with the escape key.
var errEscape = errors.New("session closed with Ctrl-]")

// runSession bridges an interactive session (telnet) to the command's
// streams until either side ends it.
//
// When stdin is a terminal, it is put in raw mode, so every key goes to
// the server as it is typed, and restored however the session ends: the
// server closes, Ctrl-] is typed, a SIGINT or SIGTERM arrives, the
// context ends. The idle timeout does not apply: a person may think.
//
// Otherwise stdin is copied to the session and the session to stdout.
// When stdin ends the session goes on until the server closes it or has
// been silent for inputLinger, so that `printf 'cmd\n' | fetch telnet://...`
// prints the answer; the idle timeout applies while stdin is open.
func runSession(ctx context.Context, resp *fetch.Response, stdin io.Reader, stdout io.Writer) error {
	if resp.Conn == nil {
		return errors.New("session without a connection")
	}
	defer resp.Body.Close()
	if f, ok := stdin.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
		return runTerminal(ctx, resp, f, stdout)
	}
	return runPipe(ctx, resp, stdin, stdout)
}

// runTerminal runs the session on the terminal in.
func runTerminal(ctx context.Context, resp *fetch.Response, in *os.File, stdout io.Writer) error {
	restore, err := rawMode(in)
	if err != nil {
		return err
	}
	defer restore()

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	// The caller's context may not watch signals (main's does): a signal
	// must end the session here too, so that the terminal is restored.
	stopSignals := cancelOnSignal(cancel)
	defer stopSignals()

	conn := resp.Conn
	if s, ok := conn.(interface{ SetIdleTimeout(time.Duration) }); ok {
		s.SetIdleTimeout(0)
	}
	stop := context.AfterFunc(ctx, func() { conn.Close() })
	defer stop()

	keys, closeKeys := keyboard(in)
	var wg sync.WaitGroup
	outDone := copyOutput(&wg, stdout, resp.Body)
	inDone := copyKeys(ctx, &wg, conn, keys, closeKeys != nil)

	var ended error
	select {
	case ended = <-outDone:
	case ended = <-inDone:
	case <-ctx.Done():
	}
	interrupted := ctx.Err() // a signal, or the caller's context
	cancel()
	conn.Close()
	if closeKeys != nil {
		closeKeys()
	}
	wg.Wait()
	return terminalResult(stdout, ended, interrupted)
}

// rawMode switches the terminal in to raw mode, so that every key goes
// to the server as it is typed, and returns the function that restores
// it.
func rawMode(in *os.File) (restore func(), err error) {
	fd := int(in.Fd())
	saved, err := term.MakeRaw(fd)
	if err != nil {
		return nil, fmt.Errorf("putting the terminal in raw mode: %w", err)
	}
	return func() { term.Restore(fd, saved) }, nil
}

// cancelOnSignal calls cancel when a SIGINT or SIGTERM arrives, until the
// returned function is called.
func cancelOnSignal(cancel context.CancelFunc) (stop func()) {
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		select {
		case <-sigs:
			cancel()
		case <-done:
		}
	}()
	return func() {
		close(done)
		signal.Stop(sigs)
	}
}

// keyboard returns a reader of the terminal in whose blocked Read the
// returned close function interrupts: the terminal opened anew, which the
// runtime's poller serves (on Linux, through /proc/self/fd). Where that
// cannot be done it returns in itself and a nil function.
func keyboard(in *os.File) (io.Reader, func()) {
	path, err := os.Readlink("/proc/self/fd/" + strconv.Itoa(int(in.Fd())))
	if err != nil || !filepath.IsAbs(path) {
		return in, nil
	}
	f, err := os.OpenFile(path, os.O_RDONLY, 0)
	if err != nil {
		return in, nil
	}
	if err := f.SetReadDeadline(time.Time{}); err != nil {
		f.Close()
		return in, nil
	}
	return f, func() { f.Close() }
}

// copyOutput copies the session's output to stdout, then sends the
// copy's error on the returned channel.
func copyOutput(wg *sync.WaitGroup, stdout io.Writer, body io.Reader) <-chan error {
	done := make(chan error, 1)
	wg.Go(func() {
		_, err := io.Copy(stdout, body)
		done <- err
	})
	return done
}

// copyKeys copies the keys typed to conn until the escape key or the end
// of the keys, then sends why they ended (errEscape for the escape) on the
// returned channel.
//
// One goroutine reads the keys and watches for the escape; another
// writes them, so that a server that stops reading cannot keep the
// escape from being seen. The keys typed before the escape are written
// before the session ends. A write that fails stops the writing and
// sends nothing: the reading side then sees how the session ended.
func copyKeys(ctx context.Context, wg *sync.WaitGroup, conn io.Writer, keys io.Reader, interruptible bool) <-chan error {
	done := make(chan error, 1)
	typed := make(chan []byte, 16)
	var end error // why the keys ended; set before typed is closed
	read := func() {
		if err := readKeys(ctx, keys, typed); err != nil {
			end = err
			close(typed)
		}
	}
	if interruptible {
		wg.Go(read)
	} else {
		// A terminal read nothing can interrupt: this goroutine ends at
		// the next key after the session, or with the process.
		go read()
	}
	wg.Go(func() {
		if writeKeys(ctx, conn, typed) {
			done <- end
		}
	})
	return done
}

// readKeys sends the keys read from keys on typed, up to the escape key,
// and returns why they ended: errEscape, or the read's error. It returns
// nil when ctx ends first.
func readKeys(ctx context.Context, keys io.Reader, typed chan<- []byte) error {
	buf := make([]byte, 512)
	for {
		n, err := keys.Read(buf)
		b := buf[:n]
		i := bytes.IndexByte(b, escapeKey)
		if i >= 0 {
			b, err = b[:i], errEscape
		}
		if len(b) > 0 {
			select {
			case typed <- bytes.Clone(b):
			case <-ctx.Done():
				return nil
			}
		}
		if err != nil {
			return err
		}
	}
}

// writeKeys writes the keys on typed to conn and reports whether it wrote
// them all: typed was closed before a write failed or ctx ended.
func writeKeys(ctx context.Context, conn io.Writer, typed <-chan []byte) bool {
	for {
		select {
		case b, ok := <-typed:
			if !ok {
				return true
			}
			if _, err := conn.Write(b); err != nil {
				return false
			}
		case <-ctx.Done():
			return false
		}
	}
}

// terminalResult is runTerminal's error for a session that ended with
// ended, interrupted by a signal or the caller's context if interrupted
// is not nil.
func terminalResult(stdout io.Writer, ended, interrupted error) error {
	switch {
	case errors.Is(ended, errEscape):
		// The terminal is still raw: a new line takes "\r\n".
		fmt.Fprint(stdout, "\r\n")
		return nil
	case interrupted != nil:
		return interrupted
	case errors.Is(ended, io.EOF):
		return nil // the terminal's input ended
	}
	return ended
}

// runPipe runs the session with stdin and stdout that are not a terminal.
func runPipe(ctx context.Context, resp *fetch.Response, stdin io.Reader, stdout io.Writer) error {
	conn := resp.Conn
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var closing atomic.Bool // the session is being closed on purpose
	stop := context.AfterFunc(ctx, func() { conn.Close() })
	defer stop()

	var last atomic.Int64 // when the server last said something
	last.Store(time.Now().UnixNano())
	outDone := make(chan error, 1)
	go func() {
		_, err := io.Copy(stdout, &activity{r: resp.Body, last: &last})
		outDone <- err
	}()
	// This goroutine ends with stdin, or at its first write after the
	// session: a blocked read of a pipe cannot be interrupted. A failed
	// write ends the input; the reading side sees how the session ended.
	inDone := make(chan error, 1)
	go func() { inDone <- pump(conn, stdin) }()

	var linger *time.Timer
	var lingerC <-chan time.Time
	defer func() {
		if linger != nil {
			linger.Stop()
		}
	}()
	end := func(err error) error {
		closing.Store(true)
		conn.Close()
		<-outDone
		return err
	}
	for {
		select {
		case err := <-outDone:
			if err != nil && closing.Load() {
				err = nil
			}
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return err
		case err := <-inDone:
			inDone = nil
			if err != nil {
				return end(fmt.Errorf("reading the input: %w", err))
			}
			last.Store(time.Now().UnixNano())
			linger = time.NewTimer(inputLinger)
			lingerC = linger.C
		case <-lingerC:
			quiet := time.Since(time.Unix(0, last.Load()))
			if quiet >= inputLinger {
				return end(nil)
			}
			linger.Reset(inputLinger - quiet)
		case <-ctx.Done():
			return end(ctx.Err())
		}
	}
}

// pump copies src to dst until src ends and returns src's error, if any:
// a write error only ends the copy.
func pump(dst io.Writer, src io.Reader) error {
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 {
			if _, werr := dst.Write(buf[:n]); werr != nil {
				return nil
			}
		}
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// activity notes the time of every read that returns data.
type activity struct {
	r    io.Reader
	last *atomic.Int64
}

func (a *activity) Read(p []byte) (int, error) {
	n, err := a.r.Read(p)
	if n > 0 {
		a.last.Store(time.Now().UnixNano())
	}
	return n, err
}

// handOff runs the program an rlogin or tn3270 URL needs (a
// *telnet.HandoffError) on the command's streams; any other error comes
// back as it is, as does this one when no such program is installed.
func handOff(ctx context.Context, err error, stdin io.Reader, stdout, stderr io.Writer) error {
	var he *telnet.HandoffError
	if !errors.As(err, &he) {
		return err
	}
	cmd, cerr := he.Command(ctx)
	if cerr != nil {
		return cerr
	}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = stdin, stdout, stderr
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%s: %w", cmd.Path, err)
	}
	return nil
}
