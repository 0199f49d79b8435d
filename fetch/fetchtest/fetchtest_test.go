package fetchtest

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"iter"
	"net"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/urlfetch/urlfetch/fetch"
	"github.com/urlfetch/urlfetch/uri"
)

// fake is an in-process driver of the scheme "fake" that keeps the
// contract, unless one of its fault fields breaks it on purpose:
//
//	fake://host/hello    a document       fake://host/dir/  a listing
//	fake://host/empty    an empty one     fake://host/stall  a body that blocks
//	fake://host/denied   ErrAuth          fake://host/netstall  a connection to stallAddr
//	fake://host/redirect?to=URL           a redirect to URL
//	fake://ADDR/fetchtest-target          a document after a connection to ADDR
//	anything else        ErrNotFound
type fake struct {
	nilBody        bool  // success with a nil Body
	missingKind    error // the kind of a missing resource, for ErrNotFound
	closePanics    bool  // a second Close panics
	readAfterEnd   bool  // reads ignore a cancelled context
	ignoresCancel  bool  // the stall body waits for release, not ctx
	noCheckLine    bool  // no CR/LF/NUL check
	leaksBasic     bool  // errors and the trace show user:password in base64, which the Client cannot know to mask
	relativeURLs   bool  // listing entries carry relative URLs
	lengthLies     bool  // Length is one more than the body
	offsetLies     bool  // says it resumed but starts at 0
	silent         bool  // traces nothing
	rawDial        bool  // dials around the Client's dial path
	follows        bool  // follows a redirect itself
	rawContext     bool  // a Body\'s read past the deadline returns the context\'s bare error
	dialKind       error // a failed dial is an error of this kind
	ownClosedError bool  // a read after Close fails with an error of its own
	headIgnored    bool  // answers a Head request with the document
	headLengthLies bool  // a Head's Length is one more than the document's

	stallAddr string // a server that accepts and never writes

	release chan struct{} // closed when the test ends: frees a stalled body
}

var (
	_ fetch.Driver        = (*fake)(nil)
	_ fetch.FollowChecker = (*fake)(nil)
)

// CheckFollow lets the Client follow every fake URL.
func (d *fake) CheckFollow(*uri.URL) error { return nil }

var fakeDocs = map[string]string{
	"/hello": "hello, world\n",
	"/empty": "",
}

func (d *fake) Fetch(ctx context.Context, req *fetch.Request) (*fetch.Response, error) {
	if !d.readAfterEnd {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
	}
	path, err := uri.Unescape(req.URL.Path)
	if err != nil {
		return nil, fetch.Errorf(fetch.ErrURL, "fake: %w", err)
	}
	if !d.noCheckLine {
		if err := fetch.CheckLine("fake path", path); err != nil {
			return nil, err
		}
	}
	method := "GET "
	if req.Head && !d.headIgnored {
		method = "HEAD "
	}
	if !d.silent {
		req.Trace(fetch.Out, method+path)
		if d.leaksBasic {
			req.Trace(fetch.Out, "Authorization: Basic "+basicAuth(req.URL))
		}
	}
	if req.URL.Port != 0 && path != "/fetchtest-target" {
		// A server of its own: the suite's Refused check points here.
		conn, err := req.Dial(ctx)
		if err != nil {
			if d.dialKind != nil {
				return nil, fetch.Errorf(d.dialKind, "fake: %v", err)
			}
			return nil, err
		}
		conn.Close()
	}
	switch {
	case path == "/denied":
		return nil, fetch.Errorf(fetch.ErrAuth, "fake: %s: access denied", path)
	case path == "/stall":
		return &fetch.Response{Kind: fetch.Document, Length: -1, Body: &stallBody{d: d, ctx: ctx}}, nil
	case path == "/dir/":
		return d.listing(ctx, req), nil
	case path == "/netstall":
		return d.netStall(ctx, req)
	case path == "/redirect":
		return d.redirect(ctx, req)
	case path == "/fetchtest-target":
		conn, err := req.Dial(ctx)
		if err != nil {
			return nil, err
		}
		conn.Close()
		return &fetch.Response{Kind: fetch.Document, Length: 7, Body: d.body(ctx, "target\n")}, nil
	}
	doc, ok := fakeDocs[path]
	if !ok {
		kind := fetch.ErrNotFound
		if d.missingKind != nil {
			kind = d.missingKind
		}
		if d.leaksBasic {
			return nil, fetch.Errorf(kind, "fake: no %s for %s", path, basicAuth(req.URL))
		}
		return nil, fetch.Errorf(kind, "fake: no %s", path)
	}
	if d.nilBody {
		return &fetch.Response{Kind: fetch.Document}, nil
	}
	resp := &fetch.Response{Kind: fetch.Document, Type: "text/plain", Length: int64(len(doc))}
	if off := req.Offset; off > 0 && off <= int64(len(doc)) {
		resp.Offset = off
		if !d.offsetLies {
			doc = doc[off:]
		}
		resp.Length = int64(len(doc))
	}
	if d.lengthLies {
		resp.Length++
	}
	if method == "HEAD " {
		resp.Offset = 0
		resp.Length = int64(len(fakeDocs[path]))
		if d.headLengthLies {
			resp.Length++
		}
		doc = ""
	}
	resp.Body = d.body(ctx, doc)
	return resp, nil
}

func (d *fake) listing(ctx context.Context, req *fetch.Request) *fetch.Response {
	base := "fake://" + req.URL.Host + "/dir/"
	if d.relativeURLs {
		base = ""
	}
	lines := "hello\nempty\n"
	if req.Head && !d.headIgnored {
		lines = ""
	}
	resp := &fetch.Response{Kind: fetch.Listing, Type: "text/plain", Length: -1, Body: d.body(ctx, lines)}
	resp.SetEntries(func(r io.Reader) iter.Seq2[fetch.Entry, error] {
		return func(yield func(fetch.Entry, error) bool) {
			b, err := io.ReadAll(r)
			if err != nil {
				yield(fetch.Entry{}, err)
				return
			}
			for name := range strings.Lines(string(b)) {
				name = strings.TrimSuffix(name, "\n")
				if !yield(fetch.Entry{Name: name, URL: base + name, Type: fetch.EntryFile, Size: -1}, nil) {
					return
				}
			}
		}
	})
	return resp
}

// redirect answers with a redirect to the URL after "to=", or, for the
// fault follows, goes there itself.
func (d *fake) redirect(ctx context.Context, req *fetch.Request) (*fetch.Response, error) {
	to, err := uri.Parse(strings.TrimPrefix(req.URL.RawQuery, "to="))
	if err != nil {
		return nil, fetch.Errorf(fetch.ErrProtocol, "fake: bad redirect: %w", err)
	}
	if d.follows {
		conn, err := fetch.NewRequest(nil, to).Dial(ctx)
		if err != nil {
			return nil, err
		}
		conn.Close()
		return &fetch.Response{Kind: fetch.Document, Length: 7, Body: d.body(ctx, "target\n")}, nil
	}
	return &fetch.Response{Kind: fetch.Redirect, Status: "302 Found", Location: to, Length: 0, Body: d.body(ctx, "")}, nil
}

// netStall connects to the stall server: the body blocks in the read of
// a connection that the dial path bounds with the idle timeout and ctx.
func (d *fake) netStall(ctx context.Context, req *fetch.Request) (*fetch.Response, error) {
	var conn net.Conn
	var err error
	if d.rawDial {
		conn, err = net.Dial("tcp", d.stallAddr)
	} else {
		conn, err = req.DialAddr(ctx, "x-fake", d.stallAddr)
	}
	if err != nil {
		return nil, err
	}
	if d.rawDial {
		return &fetch.Response{Kind: fetch.Document, Length: -1, Body: conn}, nil
	}
	return &fetch.Response{Kind: fetch.Document, Length: -1, Body: fetch.NewBody(ctx, conn, fetch.BodyFuncs{
		Close: func(bool) error { return conn.Close() },
	})}, nil
}

func (d *fake) body(ctx context.Context, s string) io.ReadCloser {
	return &fakeBody{d: d, ctx: ctx, r: strings.NewReader(s)}
}

// fakeBody is a document that honours its context and refuses reads
// after Close.
type fakeBody struct {
	d   *fake
	ctx context.Context
	r   *strings.Reader

	mu     sync.Mutex
	closed int
}

func (b *fakeBody) Read(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed > 0 && !b.d.readAfterEnd {
		if b.d.ownClosedError {
			return 0, errors.New("fake: read after close")
		}
		return 0, fetch.ErrBodyClosed
	}
	if err := b.d.ctxErr(b.ctx); err != nil && !b.d.readAfterEnd {
		return 0, err
	}
	return b.r.Read(p)
}

func (b *fakeBody) Close() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.closed++
	if b.closed > 1 && b.d.closePanics {
		panic("fake: closed twice")
	}
	return nil
}

// stallBody blocks until its context ends, or, when the fake ignores
// cancellation, until the test releases it.
type stallBody struct {
	d   *fake
	ctx context.Context
}

func (b *stallBody) Read(p []byte) (int, error) {
	if b.d.ignoresCancel {
		<-b.d.release
		return 0, io.EOF
	}
	<-b.ctx.Done()
	return 0, b.d.ctxErr(b.ctx)
}

// ctxErr is the error of a done context as fetch.NewBody gives it, or,
// for the fault rawContext, as the context gives it.
func (d *fake) ctxErr(ctx context.Context) error {
	if d.rawContext {
		return ctx.Err()
	}
	return fetch.ContextError(ctx)
}

func (b *stallBody) Close() error { return nil }

// fakeOpt describes d and its fixtures to the suite.
func fakeOpt(t testing.TB, d *fake) Opt {
	d.release = make(chan struct{})
	t.Cleanup(func() { close(d.release) })
	return Opt{
		Scheme: "fake",
		Driver: d,
		Found: []Case{
			{URL: "fake://host/hello", Want: "hello, world\n", Type: "text/plain"},
			{URL: "fake://host/empty", SHA256: EmptySHA256},
		},
		Missing: "fake://host/nothing",
		Denied:  "fake://host/denied",
		Listing: "fake://host/dir/",
		Stall:   func(testing.TB) string { return "fake://host/stall" },
		Inject:  []string{"fake://host/a%0D%0AQUIT", "fake://host/a%00b"},
		Redirect: func(_ testing.TB, target string) string {
			return "fake://host/redirect?to=" + target
		},
		Transfers: func(line string) bool { return strings.HasPrefix(line, "GET ") },
		Caps:      Caps{Resume: true, NoIdleTimeout: true},
	}
}

// netStallOpt is fakeOpt with a Stall URL that waits on a connection.
func netStallOpt(t testing.TB, d *fake) Opt {
	d.stallAddr = SilentServer(t)
	opt := fakeOpt(t, d)
	opt.Stall = func(testing.TB) string { return "fake://host/netstall" }
	opt.Caps.NoIdleTimeout = false
	return opt
}

func TestFakePasses(t *testing.T) {
	Run(t, fakeOpt(t, &fake{}))
}

// recorder stands in for a *testing.T so that a check can be seen to
// fail. What it does not override goes to the real test (TempDir,
// Context); Fatal and Skip end the check's goroutine as testing does.
type recorder struct {
	testing.TB

	mu       sync.Mutex
	failed   bool
	skipped  bool
	msgs     []string
	cleanups []func()
}

func (r *recorder) add(fail bool, msg string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.failed = r.failed || fail
	r.msgs = append(r.msgs, msg)
}

func (r *recorder) Helper()                           {}
func (r *recorder) Log(args ...any)                   { r.add(false, fmt.Sprint(args...)) }
func (r *recorder) Logf(format string, args ...any)   { r.add(false, fmt.Sprintf(format, args...)) }
func (r *recorder) Error(args ...any)                 { r.add(true, fmt.Sprint(args...)) }
func (r *recorder) Errorf(format string, args ...any) { r.add(true, fmt.Sprintf(format, args...)) }
func (r *recorder) Fail()                             { r.add(true, "Fail") }
func (r *recorder) FailNow()                          { r.Fail(); runtime.Goexit() }
func (r *recorder) Fatal(args ...any)                 { r.Error(args...); runtime.Goexit() }
func (r *recorder) Fatalf(format string, args ...any) { r.Errorf(format, args...); runtime.Goexit() }
func (r *recorder) SkipNow()                          { r.skip("SkipNow") }
func (r *recorder) Skip(args ...any)                  { r.skip(fmt.Sprint(args...)) }
func (r *recorder) Skipf(format string, args ...any)  { r.skip(fmt.Sprintf(format, args...)) }

func (r *recorder) skip(msg string) {
	r.mu.Lock()
	r.skipped = true
	r.msgs = append(r.msgs, "skip: "+msg)
	r.mu.Unlock()
	runtime.Goexit()
}

func (r *recorder) Failed() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.failed
}

func (r *recorder) Skipped() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.skipped
}

func (r *recorder) Cleanup(f func()) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.cleanups = append(r.cleanups, f)
}

func (r *recorder) String() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return strings.Join(r.msgs, "\n")
}

// runCheck runs the named check against opt with a recorder and returns
// it once the check and its cleanups are done.
func runCheck(t *testing.T, name string, opt Opt) *recorder {
	t.Helper()
	var c *check
	for i := range checks {
		if checks[i].name == name {
			c = &checks[i]
		}
	}
	if c == nil {
		t.Fatalf("no check named %q", name)
	}
	r := &recorder{TB: t}
	done := make(chan struct{})
	go func() {
		defer close(done)
		c.run(r, &suite{opt: opt})
	}()
	<-done
	for i := len(r.cleanups) - 1; i >= 0; i-- {
		r.cleanups[i]()
	}
	return r
}

// TestSuiteCatches runs each check against a fake broken in the way the
// check exists to catch.
func TestSuiteCatches(t *testing.T) {
	tests := []struct {
		fault string
		d     *fake
		check string
		want  string // in the failure message
	}{
		{"nil body", &fake{nilBody: true}, "BodyNotNil", "Body = nil with a nil error"},
		{"nil body through the Client", &fake{nilBody: true}, "Found", "returned no body"},
		{"wrong kind", &fake{missingKind: fetch.ErrProtocol}, "Missing", "want ErrNotFound"},
		{"Close panics", &fake{closePanics: true}, "CloseTwice", "second Body.Close() panicked"},
		{"Close panics unread", &fake{closePanics: true}, "CloseUnread", "panicked"},
		{"read after close", &fake{readAfterEnd: true}, "CloseUnread", "Body.Read after Close = 13, nil"},
		{"own closed error", &fake{ownClosedError: true}, "CloseUnread", "want fetch.ErrBodyClosed"},
		{"context ignored", &fake{readAfterEnd: true}, "CancelAfterFetch", "want context.Canceled"},
		{"context ignored before", &fake{readAfterEnd: true}, "CancelBeforeFetch", "want context.Canceled"},
		{"stall ignores cancel", &fake{ignoresCancel: true}, "CancelStalled", "still blocked 1s after cancel()"},
		{"no CR/LF check", &fake{noCheckLine: true}, "Inject", "want ErrUnsafe"},
		{"base64 password in errors", &fake{leaksBasic: true}, "Secret", "it shows the password"},
		{"base64 password in trace", &fake{leaksBasic: true}, "Secret", "Authorization: Basic"},
		{"relative entries", &fake{relativeURLs: true}, "Listing", "does not parse"},
		{"Length lies", &fake{lengthLies: true}, "Found", "Length = 14, but Body yielded 13 bytes"},
		{"Offset lies", &fake{offsetLies: true}, "Offset", `body = "hello, world\n", want " world\n" (Offset 6)`},
		{"no trace", &fake{silent: true}, "Trace", "traced nothing"},
		{"no idle timeout", &fake{rawDial: true}, "IdleTimeout", "still blocked after 1.2s"},
		{"raw dial ignores cancel", &fake{rawDial: true}, "CancelStalled", "still blocked 1s after cancel()"},
		{"follows a redirect", &fake{follows: true}, "NoFollow", "a driver never follows a redirect"},
		{"deadline not ErrTimeout", &fake{rawContext: true}, "Deadline", "want ErrTimeout and context.DeadlineExceeded"},
		{"refused not ErrConnect", &fake{dialKind: fetch.ErrProtocol}, "Refused", "want ErrConnect"},
		{"Head transfers", &fake{headIgnored: true}, "Head", `sent "GET /hello", which transfers the resource`},
		{"Head has a body", &fake{headIgnored: true}, "Head", `Body yielded "hello, world\n"; want no bytes`},
		{"Head Length lies", &fake{headLengthLies: true}, "Head", "Length = 14, but Fetch's Body yields 13 bytes"},
	}
	for _, tt := range tests {
		var opt Opt
		if tt.d.rawDial {
			opt = netStallOpt(t, tt.d)
		} else {
			opt = fakeOpt(t, tt.d)
		}
		r := runCheck(t, tt.check, opt)
		if !r.Failed() {
			t.Errorf("check %s passed a fake with fault %q; want a failure\n%s", tt.check, tt.fault, r)
			continue
		}
		if !strings.Contains(r.String(), tt.want) {
			t.Errorf("check %s on fault %q reported:\n%s\nwant a message containing %q", tt.check, tt.fault, r, tt.want)
		}
	}
}

// A driver that answers a Head request where its scheme has no metadata
// (Caps.NoHead) fails the Head check.
func TestHeadNoHeadCatches(t *testing.T) {
	opt := fakeOpt(t, &fake{})
	opt.Caps.NoHead = true
	r := runCheck(t, "Head", opt)
	if !r.Failed() || !strings.Contains(r.String(), "want ErrUnsupported (Caps.NoHead)") {
		t.Errorf("check Head with Caps.NoHead on a fake that answers Head reported:\n%s\nwant a failure wanting ErrUnsupported", r)
	}
}

// TestNetworkStall runs the suite with a Stall URL that waits on a
// connection, where the Client's idle timeout applies.
func TestNetworkStall(t *testing.T) {
	Run(t, netStallOpt(t, &fake{}))
}

// TestChecksPassFake runs every check with the recorder against the good
// fake, so that the recorder path itself is seen to pass.
func TestChecksPassFake(t *testing.T) {
	for _, c := range checks {
		r := runCheck(t, c.name, fakeOpt(t, &fake{}))
		if r.Failed() {
			t.Errorf("check %s failed the good fake:\n%s", c.name, r)
		}
	}
}

func TestValidate(t *testing.T) {
	good := func() Opt { return fakeOpt(t, &fake{}) }
	tests := []struct {
		name   string
		change func(o *Opt)
		want   string
	}{
		{"no scheme", func(o *Opt) { o.Scheme = "" }, "Scheme is empty"},
		{"no driver", func(o *Opt) { o.Driver = nil }, "exactly one"},
		{"two drivers", func(o *Opt) { o.NewClient = func(testing.TB) *fetch.Client { return nil } }, "exactly one"},
		{"no Found", func(o *Opt) { o.Found = nil }, "Found is empty"},
		{"no Missing", func(o *Opt) { o.Missing = "" }, "Caps.NoNotFound"},
		{"no Inject", func(o *Opt) { o.Inject = nil }, "Caps.NoProtocolLines"},
		{"other scheme", func(o *Opt) { o.Denied = "ftp://host/x" }, `not of scheme "fake"`},
		{"bad URL", func(o *Opt) { o.Listing = "fake://host/a b" }, "space"},
		{"secret without URL", func(o *Opt) { o.SecretURLs = []string{"fake://u:pw@host/"} }, "Opt.Secret"},
		{"URL without secret", func(o *Opt) {
			o.Secret = "pw"
			o.SecretURLs = []string{"fake://u:other@host/"}
		}, "does not carry"},
	}
	for _, tt := range tests {
		o := good()
		tt.change(&o)
		err := o.validate()
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: validate() = %v, want an error containing %q", tt.name, err, tt.want)
		}
	}
	o := good()
	o.Missing, o.Inject = "", nil
	o.Caps.NoNotFound, o.Caps.NoProtocolLines = true, true
	if err := o.validate(); err != nil {
		t.Errorf("validate() with Caps.NoNotFound and NoProtocolLines = %v, want nil", err)
	}
}

// TestNewClient runs the suite through Opt.NewClient, with a trace hook
// of the fixture's own that must still see every line.
func TestNewClient(t *testing.T) {
	opt := fakeOpt(t, &fake{})
	d := opt.Driver
	var mu sync.Mutex
	lines := 0
	opt.Driver = nil
	opt.NewClient = func(testing.TB) *fetch.Client {
		c := &fetch.Client{NetrcFile: "-", Trace: func(fetch.Direction, string) { mu.Lock(); lines++; mu.Unlock() }}
		c.Register("fake", d)
		return c
	}
	Run(t, opt)
	mu.Lock()
	defer mu.Unlock()
	if lines == 0 {
		t.Error("the Client's own Trace hook saw no line; the suite must chain it")
	}
}

// basicAuth is the HTTP Basic credential of u's user and password.
func basicAuth(u *uri.URL) string {
	pw, _ := u.PasswordValue()
	return base64.StdEncoding.EncodeToString([]byte(u.Username() + ":" + pw))
}
