package gateway

import (
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"time"

	"github.com/urlfetch/urlfetch/fetch"
	"github.com/urlfetch/urlfetch/internal/records"
	"github.com/urlfetch/urlfetch/internal/termsafe"
	"github.com/urlfetch/urlfetch/uri"
)

// format is what a client gets for a resource.
type format int

const (
	formatRaw  format = iota // the server's bytes, with their media type
	formatHTML               // listings, searches and forms as HTML pages
	formatJSON               // the records of fetch --json
)

// exchange is one request and what is known of it.
type exchange struct {
	s      *Server
	w      *replyWriter
	r      *http.Request
	proxy  bool   // the request named the whole URL: gateway mode
	format format // what the client accepts
	input  string // the URL as the client gave it, its password masked
	start  time.Time
}

// ServeHTTP answers one request: a URL in the request line (gateway
// mode), in the path or in "?url=" (portal mode), or the portal's home
// page.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	x := &exchange{s: s, w: &replyWriter{ResponseWriter: w}, r: r, start: time.Now()}
	defer x.logLine()
	h := w.Header()
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	raw, q, ok := x.target()
	x.format = formatOf(r, q)
	switch {
	case s.looped(r):
		x.fail(http.StatusLoopDetected, fetch.Errorf(fetch.ErrUnsafe, "the request came back to this gateway through a proxy (its Via names this gateway): a loop"))
		return
	case r.Method == http.MethodConnect:
		x.format = formatRaw
		x.tunnel()
		return
	case !ok:
		x.fail(http.StatusNotFound, fetch.Errorf(fetch.ErrNotFound, "%q is not a URL this gateway serves: give it as /SCHEME:... or /?url=", termsafe.Escape(r.URL.Path)))
		return
	case raw == "" && !x.proxy:
		x.home()
		return
	}
	x.input = raw
	req, err := x.s.client.NewRequest(raw)
	if err != nil {
		// The error fetch gives for what does not parse, the input
		// with any password masked.
		if fe := (*fetch.Error)(nil); errors.As(err, &fe) {
			x.input = fe.URL
		}
		x.fail(http.StatusBadRequest, err)
		return
	}
	u := req.URL
	u = u.WithoutFragment()
	x.input = u.Redacted()
	switch r.Method {
	case http.MethodGet, http.MethodHead:
		if x.format == formatHTML && x.form(u) {
			return
		}
		x.fetch(u)
	case http.MethodPost:
		x.submit(u)
	default:
		x.w.Header().Set("Allow", "GET, HEAD, POST")
		x.fail(http.StatusMethodNotAllowed, fetch.Errorf(fetch.ErrUnsupported, "method %s: this gateway answers GET, HEAD and POST (a form's answers)", r.Method))
	}
}

// target returns the URL the request asks for, as written: the request
// line's whole URL (gateway mode, RFC 1738 section 4), or in portal mode
// the path after "/" with its query (the query is the URL's own: a wais
// search, an http query), or the url parameter of "/?url=" with the
// parameters q. It returns "" for the home page, and ok false for a path
// that names no URL (/favicon.ico).
func (x *exchange) target() (raw string, q url.Values, ok bool) {
	ru := x.r.RequestURI
	if !strings.HasPrefix(ru, "/") {
		x.proxy = true
		return ru, nil, ru != "*"
	}
	rest := ru[1:]
	if rest == "" || rest[0] == '?' {
		q = x.r.URL.Query()
		return q.Get("url"), q, true
	}
	scheme, _, found := strings.Cut(rest, ":")
	if !found || strings.ContainsAny(scheme, "/?%") {
		return "", nil, false
	}
	return rest, nil, true
}

// formatOf chooses what the client gets: the portal's "json" or "raw"
// parameter, else what Accept asks for (application/json before
// text/html), else the server's bytes.
func formatOf(r *http.Request, q url.Values) format {
	switch {
	case q.Has("json"):
		return formatJSON
	case q.Has("raw"):
		return formatRaw
	case accepts(r, "application/json"):
		return formatJSON
	case accepts(r, "text/html"):
		return formatHTML
	}
	return formatRaw
}

// accepts reports whether the request's Accept fields name media type
// typ with a q above 0 (a wildcard does not count: "*/*" asks for
// nothing in particular).
func accepts(r *http.Request, typ string) bool {
	for _, v := range r.Header.Values("Accept") {
		for _, item := range strings.Split(v, ",") {
			mt, params, err := mime.ParseMediaType(strings.TrimSpace(item))
			if err != nil || mt != typ {
				continue
			}
			if q := params["q"]; q == "0" || strings.Trim(q, "0.") == "" && q != "" {
				continue
			}
			return true
		}
	}
	return false
}

// fetch answers with what u is: a document, a listing, or the error.
func (x *exchange) fetch(u *uri.URL) {
	req, err := x.s.request(u)
	if err != nil {
		x.failErr(err)
		return
	}
	ctx := x.r.Context()
	// A HEAD asks for metadata without a transfer. A client that
	// accepts JSON gets what fetch --json prints, which reads a document
	// to its end and counts it (a gopher server has no metadata request:
	// only reading the item says whether it is there).
	req.Head = x.r.Method == http.MethodHead
	if x.r.Method == http.MethodGet && x.format != formatJSON {
		req.Offset = fetch.RangeOffset(x.r.Header)
	}
	resp, err := x.s.client.DoRange(ctx, req)
	if err != nil {
		x.failErr(err)
		return
	}
	defer resp.Body.Close()
	x.reply(req, resp)
}

// reply answers with resp, the Response to req, as the client's format
// wants it.
func (x *exchange) reply(req *fetch.Request, resp *fetch.Response) {
	switch {
	case x.format == formatJSON:
		x.records(req, resp)
	case x.format == formatHTML && resp.Kind == fetch.Listing:
		x.listing(resp)
	case x.format == formatHTML && isArticle(resp.Type):
		x.article(resp)
	default:
		x.document(req, resp)
	}
}

// sandboxCSP is the Content-Security-Policy of a document the gateway
// passes on: whatever a server sent runs no script and reaches nothing,
// in an origin of its own (sandbox), and no page may frame it.
const sandboxCSP = "sandbox; default-src 'none'; img-src 'self' data:; media-src 'self'; style-src 'unsafe-inline'; frame-ancestors 'none'"

// copyBufferSize is the buffer a document is copied through: large
// enough that a fast transfer costs few system calls.
const copyBufferSize = 256 << 10

// document passes resp on: its bytes with its media type, length and
// time, 206 and its range where req asked for one and the driver
// resumed there (fetch.ReplyHeader).
func (x *exchange) document(req *fetch.Request, resp *fetch.Response) {
	h := x.w.Header()
	code := fetch.ReplyHeader(req, resp, h)
	if h.Get("Content-Type") == "" {
		h.Set("Content-Type", "application/octet-stream")
	}
	h.Set("Content-Security-Policy", sandboxCSP)
	x.w.WriteHeader(code)
	if x.r.Method == http.MethodHead {
		return
	}
	buf := x.s.buffers.Get().(*[]byte)
	defer x.s.buffers.Put(buf)
	if _, err := fetch.Copy(x.w, resp.Body, *buf); err != nil {
		x.abort(err)
	}
}

// abort ends a reply whose body broke off after its header was sent: the
// connection is cut, so that the client sees a truncated transfer, not a
// whole one.
func (x *exchange) abort(err error) {
	x.w.broke = err
	panic(http.ErrAbortHandler)
}

// failErr answers with err, a fetch's failure, at the HTTP status of its
// class.
func (x *exchange) failErr(err error) { x.fail(statusOf(err), err) }

// statusOf is the HTTP status for a failure of err's class: the client's
// fault (400), not found (404), refused (403), unsupported (501), the
// server's (502), a timeout (504).
func statusOf(err error) int {
	switch records.Class(err) {
	case "url":
		return http.StatusBadRequest
	case "not_found":
		return http.StatusNotFound
	case "auth", "unsafe":
		return http.StatusForbidden
	case "unsupported":
		return http.StatusNotImplemented
	case "timeout":
		return http.StatusGatewayTimeout
	case "interrupted":
		return http.StatusServiceUnavailable
	}
	return http.StatusBadGateway
}

// fail answers with err at status code, in the client's format: an HTML
// page, an "error" record, or one line of text.
func (x *exchange) fail(code int, err error) {
	switch x.format {
	case formatJSON:
		x.errorRecord(code, err)
	case formatHTML:
		x.errorPage(code, err)
	default:
		_, msg := records.ErrorParts(err)
		if x.input != "" {
			msg = x.input + ": " + msg
		}
		h := x.w.Header()
		h.Set("Content-Type", "text/plain; charset=utf-8")
		h.Set("Content-Security-Policy", sandboxCSP)
		x.w.WriteHeader(code)
		if x.r.Method != http.MethodHead {
			io.WriteString(x.w, termsafe.Escape(msg)+"\n")
		}
	}
}

// replyWriter is the ResponseWriter of one exchange: it keeps the status
// and counts the bytes for the log line.
type replyWriter struct {
	http.ResponseWriter
	code  int
	bytes int64
	broke error
}

func (w *replyWriter) WriteHeader(code int) {
	if w.code == 0 {
		w.code = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *replyWriter) Write(p []byte) (int, error) {
	if w.code == 0 {
		w.code = http.StatusOK
	}
	n, err := w.ResponseWriter.Write(p)
	w.bytes += int64(n)
	return n, err
}

// ReadFrom lets fetch.Copy hand the client's socket a stream it can take
// from its own socket (net/http's ResponseWriter does so with splice(2)
// on Linux once the header is out).
func (w *replyWriter) ReadFrom(r io.Reader) (int64, error) {
	if w.code == 0 {
		w.code = http.StatusOK
	}
	var n int64
	var err error
	if rf, ok := w.ResponseWriter.(io.ReaderFrom); ok {
		n, err = rf.ReadFrom(r)
	} else {
		n, err = io.Copy(struct{ io.Writer }{w.ResponseWriter}, r)
	}
	w.bytes += n
	return n, err
}

// Flush sends what is buffered: a listing's rows as they come.
func (w *replyWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// logLine writes the exchange's line to the Server's log.
func (x *exchange) logLine() {
	if x.s.log == nil {
		return
	}
	what := x.input
	if what == "" {
		what = x.r.URL.Path
	}
	line := fmt.Sprintf("%s %s %s %d %d bytes %.3fs", x.r.RemoteAddr, x.r.Method, termsafe.Escape(what), x.w.code, x.w.bytes, time.Since(x.start).Seconds())
	if x.w.broke != nil {
		line += " (broken off: " + termsafe.Escape(x.w.broke.Error()) + ")"
	}
	x.s.log(line)
}

// bufferPool holds the buffers documents are copied through, one per
// transfer under way.
func bufferPool() *sync.Pool {
	return &sync.Pool{New: func() any { b := make([]byte, copyBufferSize); return &b }}
}
