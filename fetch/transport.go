package fetch

import (
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strconv"
	"strings"
)

// Transport makes a Client an http.RoundTripper, so that code built on
// net/http gains every scheme the Client knows:
//
//	t := &http.Transport{}
//	t.RegisterProtocol("ftp", &fetch.Transport{Client: c})
//	resp, err := (&http.Client{Transport: t}).Get("ftp://ftp.example.org/README")
//
// A fetched resource is a 200 response (a redirect the Client's
// CheckRedirect declined to follow, a 302); ErrNotFound becomes a 404 and
// ErrAuth a 403 response, with the error's text as the body; other
// errors are returned as errors. Only GET and HEAD are supported.
//
// HEAD is a Head request (Request.Head): the scheme's own way to ask for
// metadata (FTP SIZE and MDTM, Gopher+ "!", NNTP HEAD), never a transfer,
// and the response has no body. A GET with "Range: bytes=N-" asks for
// the resource from byte N on (Request.Offset): when the driver could
// start there, the response is a 206 with its Content-Range; when it
// started at byte 0, a 200 with the whole resource. Every other Range
// (several ranges, a suffix, an end, a Range with If-Range, whose
// validator this Transport does not evaluate) is ignored: a 200 with the
// whole resource, as RFC 9110 section 14.2 allows.
type Transport struct {
	Client *Client
}

var _ http.RoundTripper = (*Transport)(nil)

// RoundTrip fetches req.URL, or asks for its metadata (HEAD).
func (t *Transport) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Body != nil {
		req.Body.Close()
	}
	head := req.Method == http.MethodHead
	if req.Method != "" && req.Method != http.MethodGet && !head {
		return nil, Errorf(ErrUnsupported, "fetch.Transport: method %s for %s: only GET and HEAD", req.Method, req.URL.Scheme)
	}
	r, err := t.Client.NewRequest(req.URL.String())
	if err != nil {
		return nil, err
	}
	r.Head = head
	if !head {
		r.Offset = RangeOffset(req.Header)
	}
	resp, err := t.Client.DoRange(req.Context(), r)
	if err != nil {
		switch {
		case errors.Is(err, ErrNotFound):
			return errorResponse(req, http.StatusNotFound, err), nil
		case errors.Is(err, ErrAuth):
			return errorResponse(req, http.StatusForbidden, err), nil
		}
		return nil, err
	}
	h := http.Header{}
	for k, v := range resp.Meta {
		if !strings.ContainsAny(k, " \t\r\n:") {
			h[k] = v
		}
	}
	code := ReplyHeader(r, resp, h)
	status := fmt.Sprintf("%d %s", code, http.StatusText(code))
	if code == http.StatusRequestedRangeNotSatisfiable {
		status = "416 Range Not Satisfiable" // RFC 9110's name
	}
	body := resp.Body
	if head {
		body.Close()
		body = http.NoBody
	}
	return &http.Response{
		Status:        status,
		StatusCode:    code,
		Proto:         "HTTP/1.0",
		ProtoMajor:    1,
		Header:        h,
		Body:          body,
		ContentLength: resp.Length,
		Request:       req,
	}, nil
}

// DoRange is Do for a Request whose Offset an HTTP request's Range asked
// for (RangeOffset): when the driver resumed at r.Offset but cannot say
// the resource's length, no Content-Range can say which bytes the Body
// holds, so the whole resource is fetched instead and r.Offset set to 0.
// Transport and an HTTP gateway (fetch serve) answer with its Response.
func (c *Client) DoRange(ctx context.Context, r *Request) (*Response, error) {
	resp, err := c.Do(ctx, r)
	if err == nil && r.Offset > 0 && resp.Offset == r.Offset && resp.Length < 0 && resp.Kind == Document {
		resp.Body.Close()
		r.Offset = 0
		resp, err = c.Do(ctx, r)
	}
	return resp, err
}

// ReplyHeader sets in h the header fields with which an HTTP server
// answers with resp, the Response to r (from DoRange), and returns the
// status code: Content-Type (a media type that does not parse is
// application/octet-stream), Content-Length and Last-Modified as resp
// says them; for a Redirect (a CheckRedirect's ErrUseLastResponse), 302
// and its Location; for a resource resumed at r.Offset > 0, 206 and its
// Content-Range, or 416 when that offset is the resource's end (RFC 9110
// section 14.4: a start at the end is no range of the resource); else 200.
// It leaves resp.Meta out: which of a protocol's fields may become the
// reply's is the server's decision.
func ReplyHeader(r *Request, resp *Response, h http.Header) int {
	if resp.Type != "" {
		typ := resp.Type
		if _, _, err := mime.ParseMediaType(typ); err != nil || strings.ContainsAny(typ, "\r\n\x00") {
			typ = "application/octet-stream"
		}
		h.Set("Content-Type", typ)
	}
	if resp.Length >= 0 {
		h.Set("Content-Length", strconv.FormatInt(resp.Length, 10))
	}
	if !resp.Modified.IsZero() {
		h.Set("Last-Modified", resp.Modified.UTC().Format(http.TimeFormat))
	}
	switch {
	case resp.Kind == Redirect:
		h.Set("Location", resp.Location.String())
		return http.StatusFound
	case r.Offset > 0 && resp.Offset == r.Offset && resp.Length == 0:
		h.Set("Content-Range", "bytes */"+strconv.FormatInt(resp.Offset, 10))
		return http.StatusRequestedRangeNotSatisfiable
	case r.Offset > 0 && resp.Offset == r.Offset:
		last, total := resp.Offset+resp.Length-1, resp.Offset+resp.Length
		h.Set("Content-Range", fmt.Sprintf("bytes %d-%d/%d", resp.Offset, last, total))
		return http.StatusPartialContent
	}
	return http.StatusOK
}

// RangeOffset reads the one Range that Transport and fetch serve honour,
// "bytes=N-", and returns N; 0 for every other Range and for none. A
// Range with If-Range is ignored: its validator is not evaluated.
func RangeOffset(h http.Header) int64 {
	rs := h.Values("Range")
	if len(rs) != 1 || h.Get("If-Range") != "" {
		return 0
	}
	unit, set, ok := strings.Cut(strings.TrimSpace(rs[0]), "=")
	if !ok || !strings.EqualFold(strings.TrimSpace(unit), "bytes") {
		return 0
	}
	first, ok := strings.CutSuffix(strings.TrimSpace(set), "-")
	if !ok || first == "" || strings.Trim(first, "0123456789") != "" {
		return 0
	}
	n, err := strconv.ParseInt(first, 10, 64)
	if err != nil {
		return 0
	}
	return n
}

func errorResponse(req *http.Request, code int, err error) *http.Response {
	msg := err.Error() + "\n"
	return &http.Response{
		Status:        fmt.Sprintf("%d %s", code, http.StatusText(code)),
		StatusCode:    code,
		Proto:         "HTTP/1.0",
		ProtoMajor:    1,
		Header:        http.Header{"Content-Type": {"text/plain; charset=utf-8"}},
		Body:          io.NopCloser(strings.NewReader(msg)),
		ContentLength: int64(len(msg)),
		Request:       req,
	}
}
