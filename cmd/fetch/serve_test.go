package main

import (
	"context"
	"io"
	"net"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

// lockedBuffer is a strings.Builder that a running command and the test
// share.
type lockedBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// Issue 28, point 1: fetch serve listens where --listen says, says where,
// serves the portal, logs each request, and ends cleanly when
// interrupted.
func TestServeCommand(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var stderr lockedBuffer
	code := make(chan int, 1)
	go func() {
		code <- run(ctx, []string{"fetch", "serve", "--listen", "127.0.0.1:0"}, nil, io.Discard, &stderr)
	}()
	serving := regexp.MustCompile(`at (http://127\.0\.0\.1:\d+/) `)
	var home string
	for deadline := time.Now().Add(10 * time.Second); home == "" && time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if m := serving.FindStringSubmatch(stderr.String()); m != nil {
			home = m[1]
		}
	}
	if home == "" {
		cancel()
		t.Fatalf("fetch serve did not say where it serves: %q (exit %d)", stderr.String(), <-code)
	}
	resp, err := http.Get(home)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(body), `<input name="url"`) {
		t.Errorf("GET %s: %d %q", home, resp.StatusCode, body)
	}
	if strings.Contains(stderr.String(), "WARNING") {
		t.Errorf("a loopback address got the warning: %q", stderr.String())
	}
	cancel()
	if c := <-code; c != 0 {
		t.Errorf("fetch serve, interrupted: exit %d: %s", c, stderr.String())
	}
	if !strings.Contains(stderr.String(), "GET / 200 ") {
		t.Errorf("no log line for the request: %q", stderr.String())
	}
}

// Issue 28, point 3: an address other than loopback is served only with
// a loud warning; a URL is no argument of fetch serve.
func TestServeWarning(t *testing.T) {
	if w := exposedWarning(&net.TCPAddr{IP: net.IPv4zero, Port: 7070}); !strings.Contains(w, "WARNING: 0.0.0.0:7070 is not a loopback address") {
		t.Errorf("exposedWarning(0.0.0.0:7070) = %q", w)
	}
	if w := exposedWarning(&net.TCPAddr{IP: net.IPv6loopback, Port: 7070}); w != "" {
		t.Errorf("exposedWarning([::1]:7070) = %q, want none", w)
	}
	if code := run(context.Background(), []string{"fetch", "serve", "gopher://h/"}, nil, io.Discard, io.Discard); code != exitUsage {
		t.Errorf("fetch serve URL: exit %d, want %d", code, exitUsage)
	}
}
