package fetch

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// rangeDriver serves doc and records what each Request asked for. It
// resumes unless noResume, and hides the length when noLength.
type rangeDriver struct {
	doc      string
	noResume bool
	noLength bool
	reqs     []Request
}

func (d *rangeDriver) Fetch(ctx context.Context, req *Request) (*Response, error) {
	d.reqs = append(d.reqs, *req)
	resp := &Response{Kind: Document, Type: "text/plain", Modified: time.Date(1994, 11, 6, 8, 49, 37, 0, time.UTC), Meta: Meta{"X-Reply": {"213 ok"}}}
	doc := d.doc
	if off := req.Offset; off > 0 && off <= int64(len(doc)) && !d.noResume {
		doc, resp.Offset = doc[off:], off
	}
	resp.Length = int64(len(doc))
	if d.noLength {
		resp.Length = -1
	}
	if req.Head {
		doc = ""
	}
	resp.Body = NewBody(ctx, strings.NewReader(doc), BodyFuncs{})
	return resp, nil
}

func transportClient(d Driver) *http.Client {
	c := &Client{}
	c.Register("x-test", d)
	tr := &http.Transport{}
	tr.RegisterProtocol("x-test", &Transport{Client: c})
	return &http.Client{Transport: tr}
}

// Issue 22, point 2: HEAD is a Head request, never a fetch of the body.
func TestTransportHead(t *testing.T) {
	d := &rangeDriver{doc: "hello, world\n"}
	hc := transportClient(d)
	resp, err := hc.Head("x-test://h/a")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if len(d.reqs) != 1 || !d.reqs[0].Head {
		t.Fatalf("HEAD made the requests %+v; want one with Head", d.reqs)
	}
	if resp.StatusCode != 200 || len(b) != 0 || resp.ContentLength != 13 ||
		resp.Header.Get("Content-Length") != "13" || resp.Header.Get("Last-Modified") != "Sun, 06 Nov 1994 08:49:37 GMT" || resp.Header.Get("X-Reply") != "213 ok" {
		t.Errorf("HEAD = %d, body %q, ContentLength %d, header %v", resp.StatusCode, b, resp.ContentLength, resp.Header)
	}
	// A HEAD with a Range asks for no offset: there is no body to start.
	req, _ := http.NewRequest("HEAD", "x-test://h/a", nil)
	req.Header.Set("Range", "bytes=5-")
	resp, err = hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if last := d.reqs[len(d.reqs)-1]; resp.StatusCode != 200 || last.Offset != 0 || !last.Head {
		t.Errorf("HEAD with Range = %d, request Offset %d Head %v; want 200, 0, true", resp.StatusCode, last.Offset, last.Head)
	}
}

// A "Range: bytes=N-" is the resume offset: 206 with Content-Range when
// the driver started there, 200 and the whole when it did not; every
// other Range is ignored (RFC 9110 section 14.2).
func TestTransportRange(t *testing.T) {
	const doc = "hello, world\n"
	tests := []struct {
		name       string
		d          *rangeDriver
		rng        string
		ifRange    string
		code       int
		body       string
		offset     int64 // asked of the driver (the last request)
		contentRng string
	}{
		{"resume", &rangeDriver{doc: doc}, "bytes=7-", "", 206, "world\n", 7, "bytes 7-12/13"},
		{"spaces and case", &rangeDriver{doc: doc}, " Bytes = 7- ", "", 206, "world\n", 7, "bytes 7-12/13"},
		{"driver restarts", &rangeDriver{doc: doc, noResume: true}, "bytes=7-", "", 200, doc, 7, ""},
		{"at the end", &rangeDriver{doc: doc}, "bytes=13-", "", 416, "", 13, "bytes */13"},
		{"past the end", &rangeDriver{doc: doc}, "bytes=99-", "", 200, doc, 99, ""},
		{"from 0", &rangeDriver{doc: doc}, "bytes=0-", "", 200, doc, 0, ""},
		{"unknown length", &rangeDriver{doc: doc, noLength: true}, "bytes=7-", "", 200, doc, 0, ""},
		{"closed range", &rangeDriver{doc: doc}, "bytes=0-4", "", 200, doc, 0, ""},
		{"suffix", &rangeDriver{doc: doc}, "bytes=-4", "", 200, doc, 0, ""},
		{"two ranges", &rangeDriver{doc: doc}, "bytes=1-,5-", "", 200, doc, 0, ""},
		{"another unit", &rangeDriver{doc: doc}, "lines=2-", "", 200, doc, 0, ""},
		{"negative", &rangeDriver{doc: doc}, "bytes=-7-", "", 200, doc, 0, ""},
		{"overflow", &rangeDriver{doc: doc}, "bytes=99999999999999999999-", "", 200, doc, 0, ""},
		{"if-range", &rangeDriver{doc: doc}, "bytes=7-", `"etag"`, 200, doc, 0, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req, _ := http.NewRequest("GET", "x-test://h/a", nil)
			req.Header.Set("Range", tt.rng)
			if tt.ifRange != "" {
				req.Header.Set("If-Range", tt.ifRange)
			}
			resp, err := transportClient(tt.d).Do(req)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			last := tt.d.reqs[len(tt.d.reqs)-1]
			if resp.StatusCode != tt.code || string(b) != tt.body || resp.Header.Get("Content-Range") != tt.contentRng || last.Offset != tt.offset {
				t.Errorf("GET with Range %q = %d %q, Content-Range %q, driver asked for offset %d; want %d %q, %q, %d",
					tt.rng, resp.StatusCode, b, resp.Header.Get("Content-Range"), last.Offset, tt.code, tt.body, tt.contentRng, tt.offset)
			}
			if tt.code == 206 && resp.ContentLength != int64(len(tt.body)) {
				t.Errorf("206 ContentLength = %d, want %d", resp.ContentLength, len(tt.body))
			}
		})
	}
}
