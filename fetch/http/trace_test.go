package http_test

import (
	"bufio"
	"context"
	"io"
	"net"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/urlfetch/urlfetch/fetch"
	"github.com/urlfetch/urlfetch/fetch/fetchtest"
	fetchhttp "github.com/urlfetch/urlfetch/fetch/http"
)

// readHead reads one request head from br, returning its lines without
// CRLF.
func readHead(br *bufio.Reader) ([]string, error) {
	var lines []string
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			return lines, err
		}
		line = strings.TrimRight(line, "\r\n")
		if line == "" {
			return lines, nil
		}
		lines = append(lines, line)
	}
}

// -v shows a reply's head as it came off the wire: the order and
// spelling of its header lines (a map would sort or shuffle them and
// join the two Zebra lines), a 1xx reply before it, and none of the body,
// whose first line here looks like a header and comes in the same write
// as the head. On the kept-alive connection, the second reply's head is
// traced to the second fetch. The request is traced as net/http wrote
// it. A scripted server: real ones send no 103 to a GET, nor these
// names.
func TestTraceReplyHeadAsSent_ScriptedServer(t *testing.T) {
	const (
		reply1 = "HTTP/1.1 103 Early Hints\r\nLink: </style.css>; rel=preload\r\n\r\n" +
			"HTTP/1.1 200 OK\r\nZebra: 1\r\nalpha: two\r\nZebra: 3\r\nContent-Length: 12\r\n\r\nX-Body: no\r\n"
		reply2 = "HTTP/1.1 200 Fine\r\nContent-Length: 3\r\nB: 2\r\nA: 1\r\n\r\nabc"
	)
	heads := make(chan []string, 2)
	addr := fetchtest.ServeOnce(t, func(c net.Conn) {
		br := bufio.NewReader(c)
		for _, reply := range []string{reply1, reply2} {
			head, err := readHead(br)
			if err != nil {
				return
			}
			heads <- head
			io.WriteString(c, reply)
		}
	})
	log := &fetchtest.TraceLog{}
	d := &fetchhttp.Driver{Compressed: true}
	defer d.Close()
	c := newClient(d)
	c.Trace = log.Add
	c.IdleTimeout = 5 * time.Second
	for _, path := range []string{"/one", "/two"} {
		resp, err := c.Fetch(context.Background(), "http://"+addr+path)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		io.ReadAll(resp.Body)
		resp.Body.Close()
	}
	want := []string{
		"* connecting to " + addr,
		"> GET /one HTTP/1.1",
		"> Host: " + addr,
		"> User-Agent: urlfetch",
		"> Accept-Encoding: gzip",
		"< HTTP/1.1 103 Early Hints",
		"< Link: </style.css>; rel=preload",
		"< HTTP/1.1 200 OK",
		"< Zebra: 1",
		"< alpha: two",
		"< Zebra: 3",
		"< Content-Length: 12",
		"* reusing the connection to " + addr,
		"> GET /two HTTP/1.1",
		"> Host: " + addr,
		"> User-Agent: urlfetch",
		"> Accept-Encoding: gzip",
		"< HTTP/1.1 200 Fine",
		"< Content-Length: 3",
		"< B: 2",
		"< A: 1",
	}
	if got := log.Lines(); !slices.Equal(got, want) {
		t.Errorf("trace:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// The request as the server got it: what the trace says was sent.
	for i, path := range []string{"/one", "/two"} {
		head := <-heads
		want := []string{"GET " + path + " HTTP/1.1", "Host: " + addr, "User-Agent: urlfetch", "Accept-Encoding: gzip"}
		if !slices.Equal(head, want) {
			t.Errorf("request %d: the server got %q, want %q", i+1, head, want)
		}
	}
}

// A header line longer than the trace keeps is traced cut, with a mark;
// the fetch goes on (net/http takes a head up to 1 MiB). The tracer
// holds one line at most, so a long head costs it no more than that.
func TestTraceLongHeaderLine_ScriptedServer(t *testing.T) {
	long := strings.Repeat("v", 100<<10)
	addr := fetchtest.ServeOnce(t, func(c net.Conn) {
		if _, err := readHead(bufio.NewReader(c)); err != nil {
			return
		}
		io.WriteString(c, "HTTP/1.1 200 OK\r\nX-Long: "+long+"\r\nX-After: 1\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok")
	})
	log := &fetchtest.TraceLog{}
	c := newClient(&fetchhttp.Driver{})
	c.Trace = log.Add
	resp, err := c.Fetch(context.Background(), "http://"+addr+"/")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if string(b) != "ok" || resp.Meta.Get("X-Long") != long {
		t.Errorf("body %q, X-Long of %d bytes; want ok and the whole header", b, len(resp.Meta.Get("X-Long")))
	}
	var cut string
	for _, l := range log.Lines() {
		if strings.HasPrefix(l, "< X-Long: ") {
			cut = l
		}
	}
	if len(cut) > 9<<10 || !strings.HasSuffix(cut, "v [...]") || !strings.Contains(log.String(), "< X-After: 1") {
		t.Errorf("the long line traced as %d bytes ending %q; want it cut to 8 KiB and marked, the next line traced", len(cut), cut[max(0, len(cut)-20):])
	}
}

// Issue 20: the trace never shows a gateway's credentials, not even as
// the Base64 of a Proxy-Authorization header.
func TestTraceMasksProxyAuthorization_RecordingServer(t *testing.T) {
	rec := newRecordingGateway(t, replyOK)
	var trace []string
	g := &fetch.Gateways{ByScheme: map[string]string{"http": "http://gwuser:gw-secret@" + rec.addr}}
	c := gatewayClient(t, g, &trace)
	gatewayGet(t, c, "http://origin.example/doc")
	all := strings.Join(trace, "\n")
	if strings.Contains(all, "Z3d1c2VyOmd3LXNlY3JldA") || !strings.Contains(all, "> Proxy-Authorization: Basic ***") {
		t.Errorf("trace shows the gateway's credentials, or no masked Proxy-Authorization:\n%s", all)
	}
	if heads := rec.requests(); len(heads) != 1 || !strings.Contains(heads[0], "Proxy-Authorization: Basic Z3d1c2VyOmd3LXNlY3JldA==\r\n") {
		t.Errorf("the gateway got %q; want the credentials", heads)
	}
}
