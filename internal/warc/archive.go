package warc

import (
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/urlfetch/urlfetch/fetch"
	"github.com/urlfetch/urlfetch/uri"
)

// HTTPNote is what the warcinfo record of a file with HTTP records says
// of them: net/http gives a client neither the bytes it wrote nor those
// it read, so the records are rebuilt from what it reports, and say so.
const HTTPNote = "HTTP request and response records are rebuilt from what Go's net/http reports, not copied off the wire: " +
	"the request as its line and Host field; the response as HTTP/1.1, its status, its header fields sorted by name " +
	"(without a transfer coding), and the body as delivered"

// Archive writes the records of one fetched response whose whole body
// (or listing) is body, fetched at date: for http and https a request
// and a response record (rebuilt: HTTPNote), for any other scheme a
// resource record. A document continued from a partial file (Offset >
// 0) is archived as a resource: the exchange that gave its last bytes is
// not the resource.
func (w *Writer) Archive(resp *fetch.Response, date time.Time, body Block) error {
	target := resp.URL.Redacted()
	if s := resp.URL.Scheme; (s == "http" || s == "https") && resp.Offset == 0 {
		return w.archiveHTTP(resp, target, date, body)
	}
	ct := resp.Type
	if ct == "" {
		ct = "application/octet-stream"
	}
	_, err := w.Write(Header{Type: Resource, TargetURI: target, Date: date, ContentType: ct, PayloadOffset: -1}, body)
	return err
}

func (w *Writer) archiveHTTP(resp *fetch.Response, target string, date time.Time, body Block) error {
	u := resp.URL
	path := u.Path
	if path == "" {
		path = "/"
	}
	if u.RawQuery != "" || u.ForceQuery {
		path += "?" + u.RawQuery
	}
	host := u.Host
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	if u.Port != 0 && u.Port != uri.DefaultPort(u.Scheme) {
		host += ":" + strconv.Itoa(u.Port)
	}
	req := "GET " + path + " HTTP/1.1\r\nHost: " + host + "\r\n\r\n"
	reqID, err := w.Write(Header{Type: Request, TargetURI: target, Date: date, ContentType: HTTPRequestType, PayloadOffset: -1},
		BytesBlock([]byte(req)))
	if err != nil {
		return err
	}
	status := resp.Status
	if status == "" {
		status = "200 OK"
	}
	var head strings.Builder
	head.WriteString("HTTP/1.1 " + status + "\r\n")
	names := make([]string, 0, len(resp.Meta))
	for k := range resp.Meta {
		names = append(names, k)
	}
	slices.Sort(names)
	for _, k := range names {
		if k == "Transfer-Encoding" {
			continue
		}
		for _, v := range resp.Meta[k] {
			head.WriteString(k + ": " + oneLine(v) + "\r\n")
		}
	}
	head.WriteString("\r\n")
	h := head.String()
	block := Block{Size: int64(len(h)) + body.Size, Open: func() (io.ReadCloser, error) {
		r, err := body.Open()
		if err != nil {
			return nil, err
		}
		return struct {
			io.Reader
			io.Closer
		}{io.MultiReader(strings.NewReader(h), r), r}, nil
	}}
	_, err = w.Write(Header{Type: Response, TargetURI: target, Date: date, ContentType: HTTPResponseType,
		ConcurrentTo: reqID, PayloadOffset: int64(len(h))}, block)
	return err
}

// FileBlock is a Block of the file f, from its start, of the size it has
// now: both reads of the record go through the one open file, so a file
// replaced under its name meanwhile does not change the record. The
// caller closes f after the record is written.
func FileBlock(f *os.File) (Block, error) {
	fi, err := f.Stat()
	if err != nil {
		return Block{}, err
	}
	size := fi.Size()
	return Block{Size: size, Open: func() (io.ReadCloser, error) {
		return io.NopCloser(io.NewSectionReader(f, 0, size)), nil
	}}, nil
}
