package fetch

import (
	"errors"
	"fmt"
	"io"
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
type Transport struct {
	Client *Client
}

var _ http.RoundTripper = (*Transport)(nil)

// RoundTrip fetches req.URL.
func (t *Transport) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Body != nil {
		req.Body.Close()
	}
	if req.Method != "" && req.Method != http.MethodGet && req.Method != http.MethodHead {
		return nil, Errorf(ErrUnsupported, "fetch.Transport: method %s for %s: only GET and HEAD", req.Method, req.URL.Scheme)
	}
	resp, err := t.Client.Fetch(req.Context(), req.URL.String())
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
	if resp.Type != "" {
		h.Set("Content-Type", resp.Type)
	}
	if resp.Length >= 0 {
		h.Set("Content-Length", strconv.FormatInt(resp.Length, 10))
	}
	if !resp.Modified.IsZero() {
		h.Set("Last-Modified", resp.Modified.UTC().Format(http.TimeFormat))
	}
	body := resp.Body
	if req.Method == http.MethodHead {
		body.Close()
		body = http.NoBody
	}
	status, code := "200 OK", http.StatusOK
	if resp.Kind == Redirect {
		// The Client's CheckRedirect said ErrUseLastResponse: the
		// redirect itself, for the http.Client to judge in turn.
		status, code = "302 Found", http.StatusFound
		h.Set("Location", resp.Location.String())
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
