package http_test

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/urlfetch/urlfetch/fetch"
	"github.com/urlfetch/urlfetch/fetch/fetchtest"
	fetchhttp "github.com/urlfetch/urlfetch/fetch/http"
)

// The real server's gzip (nginx's) is in integration/https_test.go.
// These are bodies no sane server sends.

const plainText = "The quick brown fox jumps over the lazy dog.\n"

func gzipped(t *testing.T, s string) []byte {
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	io.WriteString(zw, s)
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// serveRaw answers one request with head (without its blank line) and
// body, sent as they are, then closes the connection; the request's head
// goes to got.
func serveRaw(t *testing.T, head string, body []byte, got chan<- []string) string {
	return fetchtest.ServeOnce(t, func(c net.Conn) {
		h, err := readHead(bufio.NewReader(c))
		if err != nil {
			return
		}
		got <- h
		io.WriteString(c, head+"\r\n\r\n")
		c.Write(body)
	})
}

// Issue 20: --compressed asks for gzip and decodes it; a body that does
// not decode is ErrProtocol at its end, never a short document passed as
// whole; a body cut off on the wire stays a broken connection, which a
// retry resumes. Without Compressed the bytes are as served.
func TestCompressed_ScriptedServer(t *testing.T) {
	good := gzipped(t, plainText)
	badCRC := bytes.Clone(good)
	badCRC[len(badCRC)-5] ^= 0xff // the CRC-32 of the trailer
	badLength := bytes.Clone(good)
	badLength[len(badLength)-1] ^= 0xff // ISIZE
	for _, tc := range []struct {
		name       string
		compressed bool
		head       string
		body       []byte
		want       string // the body read, when it reads whole
		kind       error  // the error at the end of the body
		says       string
	}{
		{"good", true, "HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nContent-Length: %d", good, plainText, nil, ""},
		{"x-gzip", true, "HTTP/1.1 200 OK\r\nContent-Encoding: x-gzip\r\nContent-Length: %d", good, plainText, nil, ""},
		{"two members", true, "HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nTransfer-Encoding: chunked", chunked(append(bytes.Clone(good), good...)), plainText + plainText, nil, ""},
		{"identity", true, "HTTP/1.1 200 OK\r\nContent-Length: %d", []byte(plainText), plainText, nil, ""},
		{"not asked", false, "HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nContent-Length: %d", good, string(good), nil, ""},
		{"bad CRC", true, "HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nContent-Length: %d", badCRC, "", fetch.ErrProtocol, "does not decode"},
		{"bad length", true, "HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nContent-Length: %d", badLength, "", fetch.ErrProtocol, "does not decode"},
		{"truncated, framed whole", true, "HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nContent-Length: %d", good[:len(good)-4], "", fetch.ErrProtocol, "does not decode"},
		{"not gzip", true, "HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nContent-Length: %d", []byte(plainText), "", fetch.ErrProtocol, "does not decode"},
		{"trailing garbage", true, "HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nContent-Length: %d", append(bytes.Clone(good), "garbage"...), "", fetch.ErrProtocol, "does not decode"},
		{"cut off", true, "HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\nContent-Length: 1000", good[:20], "", fetch.ErrConnect, "broke off after 20 of the 1000 bytes"},
		{"brotli", true, "HTTP/1.1 200 OK\r\nContent-Encoding: br\r\nContent-Length: %d", good, "", fetch.ErrProtocol, `Content-Encoding "br"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			head := tc.head
			if strings.Contains(head, "%d") {
				head = fmt.Sprintf(head, len(tc.body))
			}
			got := make(chan []string, 1)
			addr := serveRaw(t, head, tc.body, got)
			c := newClient(&fetchhttp.Driver{Compressed: tc.compressed})
			c.IdleTimeout = 5 * time.Second
			resp, err := c.Fetch(context.Background(), "http://"+addr+"/f.txt")
			var b []byte
			if err == nil {
				b, err = io.ReadAll(resp.Body)
				if cerr := resp.Body.Close(); cerr != err {
					t.Errorf("Close = %v, want the error of the read, %v", cerr, err)
				}
			}
			switch {
			case tc.kind == nil && (err != nil || string(b) != tc.want):
				t.Errorf("body %q, %v; want %q", b, err, tc.want)
			case tc.kind != nil && (!errors.Is(err, tc.kind) || !strings.Contains(err.Error(), tc.says)):
				t.Errorf("error %v; want %v saying %q", err, tc.kind, tc.says)
			}
			if tc.kind == nil && tc.compressed && strings.Contains(tc.head, "gzip") {
				if resp.Length != -1 || resp.Meta.Get("Content-Encoding") != "" || resp.Meta.Get("Content-Length") != "" {
					t.Errorf("decoded: Length %d, Meta %v; want -1 and no Content-Encoding or Content-Length", resp.Length, resp.Meta)
				}
			}
			h := strings.Join(<-got, "\n")
			if asked := strings.Contains(h, "Accept-Encoding: gzip"); asked != tc.compressed {
				t.Errorf("the request had Accept-Encoding: gzip %v, want %v:\n%s", asked, tc.compressed, h)
			}
		})
	}
}

// chunked frames b as one chunk and the last chunk.
func chunked(b []byte) []byte {
	return append(fmt.Appendf(nil, "%x\r\n", len(b)), append(b, "\r\n0\r\n\r\n"...)...)
}

// A resumed fetch asks for no compression: the rest of a decoded file is
// a range of the identity bytes. A server that gzips a range anyway is
// refused.
func TestCompressedResume_ScriptedServer(t *testing.T) {
	rest := gzipped(t, plainText[4:])
	for _, tc := range []struct {
		head string
		body []byte
		says string // the error of Fetch
	}{
		{"HTTP/1.1 206 Partial Content\r\nContent-Range: bytes 4-44/45\r\nContent-Length: 41", []byte(plainText[4:]), ""},
		{fmt.Sprintf("HTTP/1.1 206 Partial Content\r\nContent-Encoding: gzip\r\nContent-Range: bytes 4-%d/*\r\nContent-Length: %d", 3+len(rest), len(rest)), rest, "cannot continue the decoded file"},
	} {
		got := make(chan []string, 1)
		addr := serveRaw(t, tc.head, tc.body, got)
		c := newClient(&fetchhttp.Driver{Compressed: true})
		req, _ := c.NewRequest("http://" + addr + "/f.txt")
		req.Offset = 4
		resp, err := c.Do(context.Background(), req)
		switch {
		case tc.says == "" && err != nil:
			t.Errorf("%q: %v", tc.head, err)
		case tc.says != "" && (!errors.Is(err, fetch.ErrProtocol) || !strings.Contains(err.Error(), tc.says)):
			t.Errorf("%q: error %v, want ErrProtocol saying %q", tc.head, err, tc.says)
		case err == nil:
			b, err := io.ReadAll(resp.Body)
			resp.Body.Close()
			if err != nil || string(b) != plainText[4:] {
				t.Errorf("resumed body %q, %v", b, err)
			}
		}
		h := strings.Join(<-got, "\n")
		if strings.Contains(h, "Accept-Encoding") || !strings.Contains(h, "Range: bytes=4-") {
			t.Errorf("the resuming request was:\n%s\nwant a Range and no Accept-Encoding", h)
		}
	}
}
