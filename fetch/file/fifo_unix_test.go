//go:build unix

package file_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/urlfetch/urlfetch/fetch"
)

// mkfifo makes a FIFO in a temporary directory.
func mkfifo(t testing.TB) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(p, 0o600); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	return p
}

// fifoStall returns the conformance suite's Stall: a FIFO whose writer
// is held open and never writes, so a read of it blocks.
func fifoStall() func(t testing.TB) string {
	return func(t testing.TB) string {
		p := mkfifo(t)
		// O_RDWR opens a FIFO without waiting for a reader (Linux).
		w, err := os.OpenFile(p, os.O_RDWR, 0)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { w.Close() })
		return fileURL(p)
	}
}

func TestFIFO(t *testing.T) {
	p := mkfifo(t)
	w, err := os.OpenFile(p, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	resp, err := newClient().Fetch(ctx, fileURL(p))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.Kind != fetch.Document || resp.Length != -1 || resp.Type != "application/octet-stream" {
		t.Errorf("Fetch(%q) = %v %q length %d, want a document of unknown length, application/octet-stream", fileURL(p), resp.Kind, resp.Type, resp.Length)
	}
	if _, err := w.Write([]byte("abc")); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 10)
	if n, err := resp.Body.Read(buf); n != 3 || err != nil {
		t.Fatalf("Body.Read = %d, %v; want 3, nil", n, err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := resp.Body.Read(buf)
		done <- err
	}()
	cancel()
	limit := time.NewTimer(time.Second)
	defer limit.Stop()
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("blocked Body.Read after cancel() = %v, want context.Canceled", err)
		}
	case <-limit.C:
		t.Fatal("blocked Body.Read still running 1s after cancel()")
	}
}

// TestFIFOLateWriter: as with cat, a FIFO read waits for its writer: one
// that comes after the Fetch is read whole, not taken for an empty
// document (the open itself does not block; the first read waits).
func TestFIFOLateWriter(t *testing.T) {
	fifo := mkfifo(t)
	u := fileURL(fifo)
	go func() {
		time.Sleep(300 * time.Millisecond)
		w, err := os.OpenFile(fifo, os.O_WRONLY, 0)
		if err != nil {
			return
		}
		w.Write([]byte("late"))
		w.Close()
	}()
	done := make(chan error, 1)
	go func() {
		body, err := readAll(newClient(), u)
		if err == nil && body != "late" {
			err = errors.New("body " + strconv.Quote(body))
		}
		done <- err
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("Fetch(%q) of a FIFO whose writer comes late: %v, want \"late\"", u, err)
		}
	case <-time.After(5 * time.Second):
		t.Fatalf("Fetch(%q) still running 5s after the writer came", u)
	}
}

// A FIFO's Head reads nothing of it: no wait for a writer, no sniffing.
func TestHeadFIFO(t *testing.T) {
	p := mkfifo(t)
	start := time.Now()
	resp, err := head(t, fileURL(p))
	if err != nil || resp.Kind != fetch.Document || resp.Length != -1 || resp.Type != "application/octet-stream" {
		t.Errorf("Head(FIFO) = %+v, %v; want a document of unknown length", resp, err)
	}
	if d := time.Since(start); d > 500*time.Millisecond {
		t.Errorf("Head(FIFO) took %v: it waited for a writer", d)
	}
}
