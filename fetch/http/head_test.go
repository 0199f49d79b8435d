package http_test

import (
	"bufio"
	"context"
	"io"
	"net"
	"slices"
	"strings"
	"testing"

	"github.com/urlfetch/urlfetch/fetch"
	fetchhttp "github.com/urlfetch/urlfetch/fetch/http"
)

// headRequest asks c for rawURL's metadata (fetch.Request.Head), with an
// offset the Head must not send.
func headRequest(t *testing.T, c *fetch.Client, rawURL string) *fetch.Response {
	t.Helper()
	req, err := c.NewRequest(rawURL)
	if err != nil {
		t.Fatal(err)
	}
	req.Head, req.Offset = true, 5
	resp, err := c.Do(t.Context(), req)
	if err != nil {
		t.Fatalf("Head(%q): %v", rawURL, err)
	}
	if b, err := io.ReadAll(resp.Body); err != nil || len(b) > 0 {
		t.Errorf("Head(%q) Body = %q, %v; want nothing", rawURL, b, err)
	}
	resp.Body.Close()
	return resp
}

// Issue 22, point 2: a Head is a HEAD, without a Range (there is no body
// to start in the middle of). A server that sends a body after its HEAD
// reply anyway (no real one does) costs the connection, not the next
// fetch: net/http drops a connection with bytes nobody asked for.
func TestHead_ScriptedServer(t *testing.T) {
	requests := make(chan []string, 4)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				br := bufio.NewReader(c)
				for {
					h, err := readHead(br)
					if err != nil {
						return
					}
					requests <- h
					io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: 6\r\nLast-Modified: Sun, 06 Nov 1994 08:49:37 GMT\r\n\r\nhello\n")
				}
			}()
		}
	}()
	base := "http://" + ln.Addr().String()
	c := newClient(&fetchhttp.Driver{})
	defer c.Close()
	resp := headRequest(t, c, base+"/a")
	if h := <-requests; h[0] != "HEAD /a HTTP/1.1" || slices.ContainsFunc(h, func(l string) bool { return strings.HasPrefix(l, "Range:") }) {
		t.Errorf("Head sent %q; want a HEAD without Range", h)
	}
	if resp.Length != 6 || resp.Offset != 0 || resp.Type != "text/plain" || resp.Modified.IsZero() || resp.Status != "200 OK" {
		t.Errorf("Head = %+v; want Length 6, Offset 0, text/plain, a time, 200 OK", resp)
	}
	got, err := c.Fetch(context.Background(), base+"/b")
	if err != nil {
		t.Fatalf("the fetch after a HEAD answered with a body: %v", err)
	}
	b, err := io.ReadAll(got.Body)
	got.Body.Close()
	if h := <-requests; h[0] != "GET /b HTTP/1.1" || string(b) != "hello\n" || err != nil {
		t.Errorf("the fetch after a HEAD sent %q and read %q, %v", h[0], b, err)
	}
}

// With Compressed, a Head asks as a fetch would (Accept-Encoding: gzip)
// and says what a fetch would: an unknown length, no Content-Encoding.
func TestHeadCompressed_ScriptedServer(t *testing.T) {
	got := make(chan []string, 1)
	addr := serveRaw(t, "HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nContent-Length: 31\r\nConnection: close", nil, got)
	c := newClient(&fetchhttp.Driver{Compressed: true})
	resp := headRequest(t, c, "http://"+addr+"/a")
	if h := <-got; !slices.Contains(h, "Accept-Encoding: gzip") || h[0] != "HEAD /a HTTP/1.1" {
		t.Errorf("Head with Compressed sent %q", h)
	}
	if resp.Length != -1 || resp.Meta.Get("Content-Encoding") != "" {
		t.Errorf("Head with Compressed = Length %d, Meta %v; want -1 and no Content-Encoding", resp.Length, resp.Meta)
	}
}
