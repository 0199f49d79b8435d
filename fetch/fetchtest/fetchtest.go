// Package fetchtest is the conformance suite of fetch.Driver: the contract
// every driver keeps, checked by one call from the driver's tests.
//
//	func TestConformance(t *testing.T) {
//		srv := newFakeServer(t) // the driver's own scripted server
//		fetchtest.Run(t, fetchtest.Opt{
//			Scheme:  "gopher",
//			Driver:  &gopher.Driver{},
//			Found:   []fetchtest.Case{{URL: srv.URL + "/0/hello", Want: "hello\n"}},
//			Missing: srv.URL + "/0/nothing",
//			Listing: srv.URL + "/1/",
//			Stall:   srv.StallURL,
//			Inject:  []string{srv.URL + "/0/a%0D%0AQUIT"},
//		})
//	}
//
// Run checks, each in a subtest named after it: that the documents of
// Opt.Found come back whole, with a Length that adds up and a resume from
// an offset that says where it started; that a failure carries the right
// kind (ErrNotFound, ErrAuth, ErrUnsafe) for errors.Is and reads as one
// line; that a Head request (Request.Head) gives the metadata a fetch
// gives without transferring anything; that err == nil means Body != nil; that Close may be called twice
// and ends an unread body at once; that a listing's entries carry absolute
// URLs; that a cancelled context ends a Fetch, a read and a stalled read
// within a second with context.Canceled; that no password shows in an
// error, a trace line or the metadata; and that the Client's own policies
// (unknown schemes, other protocols' ports) hold around the driver.
//
// Drivers' own tests share two of the suite's tools: SilentServer, a
// server that accepts and never answers, and TraceLog, a Client's trace
// that may be read while the driver writes to it.
package fetchtest

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/urlfetch/urlfetch/fetch"
	"github.com/urlfetch/urlfetch/uri"
)

// Opt describes a driver and its fixtures to Run. URLs are absolute and
// of Scheme; those that are optional are skipped when empty.
type Opt struct {
	// Scheme is the scheme the driver serves.
	Scheme string
	// Driver is the driver under test. The suite registers it for Scheme
	// with a Client of default settings that reads no netrc file.
	Driver fetch.Driver
	// NewClient, used instead of Driver when set, returns a new Client with
	// the driver registered for Scheme and the settings its fixture needs
	// (a DialContext, AllowPorts). The suite chains its own Trace hook in
	// front of any the Client has and may set IdleTimeout.
	NewClient func(t testing.TB) *fetch.Client

	// Found are documents that exist; at least one is required. The first
	// is also used to check closing, resuming, tracing and cancellation.
	Found []Case
	// Missing must fail with ErrNotFound. Required unless Caps.NoNotFound.
	Missing string
	// Denied, if set, must fail with ErrAuth.
	Denied string
	// Listing, if set, must be a Listing with at least one entry; every
	// entry but an info or error line has an absolute URL of Scheme.
	Listing string
	// Stall, if set, returns a URL whose Fetch or Body read blocks until
	// the context is cancelled (a server that accepts and never answers, a
	// FIFO nobody writes to). It is called once per check that uses it.
	Stall func(t testing.TB) string
	// Inject are URLs whose decoded data would put a CR, LF or NUL into a
	// protocol line or system call: each must fail with ErrUnsafe.
	// Required unless Caps.NoProtocolLines.
	Inject []string

	// Invalid are URLs of Scheme that parse but that the scheme's view
	// refuses (a bad ;type= of ftp, a user in an http URL): each must
	// fail with ErrURL, as in every driver.
	Invalid []string
	// Broken, if set, returns a URL whose server closes the connection in
	// the middle of its reply: the fetch must end with ErrConnect, at
	// Fetch or reading the Body, as in every driver (fetch.ConnBroken).
	// internal/misbehaving's CloseMidTransfer servers are such servers.
	Broken func(t testing.TB) string

	// Redirect, if set, returns a URL of Scheme whose server answers with
	// a redirect to target, an absolute URL with no character that needs
	// escaping in a query. The driver must return that redirect unfollowed
	// (a Response of Kind Redirect whose Location is target) and connect
	// to nothing at target; the Client follows it. Leave it nil for a
	// scheme that has no redirects.
	Redirect func(t testing.TB, target string) string

	// Transfers, if set, reports whether a protocol line the driver sent
	// (traced as fetch.Out) transfers a resource or a listing, or opens
	// the way to one: FTP's RETR, LIST, EPSV; NNTP's ARTICLE and OVER;
	// an HTTP GET. A Head request must send no such line.
	Transfers func(line string) bool

	// Secret is the password that SecretURLs carry. When SecretURLs is
	// empty the suite writes DefaultSecret into Found[0], Missing, Denied
	// and Listing itself, if the scheme allows a password in its URLs.
	// Fetching them may succeed or fail; the password, decoded, encoded or
	// in base64 with its user, must show in no error, trace line or Meta.
	Secret     string
	SecretURLs []string

	Caps Caps
}

// Case is a document the driver must fetch.
type Case struct {
	URL string
	// Want is the exact body; SHA256 the body's SHA-256 in hex (EmptySHA256
	// for an empty one). With neither, the body must not be empty.
	Want   string
	SHA256 string
	// Kind is the Response's Kind; 0 means fetch.Document.
	Kind fetch.Kind
	// Type, if set, is the media type the Response must give, exactly.
	Type string
}

// EmptySHA256 is the SHA-256 of no bytes: the Case.SHA256 of an empty
// document.
const EmptySHA256 = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

// DefaultSecret is the password the suite writes into URLs when
// Opt.SecretURLs is empty. It holds the bytes a URL must encode, so a
// driver that prints a URL's raw password is caught too.
const DefaultSecret = "fetchtest:s3cr@t/pw%"

// Caps says which parts of the contract do not apply to a driver, or
// which optional ones it keeps.
type Caps struct {
	// Resume: the driver starts the Found documents at Request.Offset.
	// Without it the suite also accepts a restart at 0 that says so.
	Resume bool
	// NoNotFound: the scheme has no "not found" (telnet), so Missing may
	// be empty.
	NoNotFound bool
	// NoProtocolLines: no decoded URL data reaches a protocol line or a
	// system call, so Inject may be empty.
	NoProtocolLines bool
	// MixedSchemes: listing entries may point to other schemes (a Gopher
	// menu's telnet and http items).
	MixedSchemes bool
	// NoIdleTimeout: the Stall URL does not wait on a connection (a local
	// FIFO), so the Client's IdleTimeout cannot end it.
	NoIdleTimeout bool
	// NoServer: the driver connects to no server (file:), so a URL of
	// its scheme cannot be refused a connection.
	NoServer bool
	// NoHead: the scheme has no metadata to ask for (mailto, telnet): a
	// Head request fails with ErrUnsupported and sends nothing.
	NoHead bool
	// HeadFromURL: a Head request may be answered from the URL alone,
	// without asking the server (gopher without a Gopher+ string), so
	// that Missing need not fail under Head.
	HeadFromURL bool
}

// Time limits of the suite. A cancellation must take effect within
// cancelLimit; the rest only keep a broken driver from hanging the test.
const (
	cancelLimit  = time.Second
	closeLimit   = 2 * time.Second
	stallGrace   = 100 * time.Millisecond
	idleTimeout  = 200 * time.Millisecond
	fetchTimeout = 30 * time.Second
)

// Run runs the conformance suite against the driver opt describes, one
// subtest per check.
func Run(t *testing.T, opt Opt) {
	t.Helper()
	if err := opt.validate(); err != nil {
		t.Fatalf("fetchtest: %v", err)
	}
	s := &suite{opt: opt}
	for _, c := range checks {
		t.Run(c.name, func(t *testing.T) { c.run(t, s) })
	}
}

// validate reports an Opt the suite cannot work with.
func (o *Opt) validate() error {
	if o.Scheme == "" {
		return errors.New("Opt.Scheme is empty")
	}
	if (o.Driver == nil) == (o.NewClient == nil) {
		return errors.New("set exactly one of Opt.Driver and Opt.NewClient")
	}
	if len(o.Found) == 0 {
		return errors.New("Opt.Found is empty: give at least one document that exists")
	}
	if o.Missing == "" && !o.Caps.NoNotFound {
		return errors.New("Opt.Missing is empty: give a URL that does not exist, or set Caps.NoNotFound")
	}
	if len(o.Inject) == 0 && !o.Caps.NoProtocolLines {
		return errors.New("Opt.Inject is empty: give URLs with %0D%0A or %00 in a component, or set Caps.NoProtocolLines")
	}
	if len(o.SecretURLs) > 0 && o.Secret == "" {
		return errors.New("Opt.SecretURLs is set but Opt.Secret, the password they carry, is empty")
	}
	urls := []string{o.Missing, o.Denied, o.Listing}
	for _, c := range o.Found {
		urls = append(urls, c.URL)
	}
	urls = append(urls, o.Inject...)
	urls = append(urls, o.SecretURLs...)
	for _, raw := range urls {
		if raw == "" {
			continue
		}
		u, err := uri.Parse(raw)
		if err != nil {
			return fmt.Errorf("fixture URL %q: %v", raw, err)
		}
		if u.Scheme != o.Scheme {
			return fmt.Errorf("fixture URL %q is not of scheme %q", raw, o.Scheme)
		}
	}
	for _, raw := range o.SecretURLs {
		if p, ok := uri.MustParse(raw).PasswordValue(); !ok || p != o.Secret {
			return fmt.Errorf("Opt.SecretURLs: %q does not carry Opt.Secret as its password", raw)
		}
	}
	return nil
}

// A check is one part of the contract. It reports through t, so the
// suite's own tests can run it with a recorder in place of a *testing.T.
type check struct {
	name string
	run  func(t testing.TB, s *suite)
}

// checks is the suite, in the order Run runs it.
var checks = []check{
	{"Found", checkFound},
	{"BodyNotNil", checkBodyNotNil},
	{"CloseTwice", checkCloseTwice},
	{"CloseUnread", checkCloseUnread},
	{"Offset", checkOffset},
	{"Missing", checkMissing},
	{"Denied", checkDenied},
	{"Listing", checkListing},
	{"Head", checkHead},
	{"Inject", checkInject},
	{"NoFollow", checkNoFollow},
	{"Secret", checkSecret},
	{"Trace", checkTrace},
	{"CancelBeforeFetch", checkCancelBeforeFetch},
	{"CancelAfterFetch", checkCancelAfterFetch},
	{"CancelStalled", checkCancelStalled},
	{"IdleTimeout", checkIdleTimeout},
	{"Deadline", checkDeadline},
	{"Refused", checkRefused},
	{"Invalid", checkInvalid},
	{"Broken", checkBroken},
	{"UnknownScheme", checkUnknownScheme},
	{"PortPolicy", checkPortPolicy},
}

// suite is what every check shares: the options.
type suite struct {
	opt Opt
}

// client returns a new Client with the driver registered and a trace
// hook that records every line.
func (s *suite) client(t testing.TB) (*fetch.Client, *TraceLog) {
	t.Helper()
	var c *fetch.Client
	if s.opt.NewClient != nil {
		c = s.opt.NewClient(t)
		if c.Driver(s.opt.Scheme) == nil {
			t.Fatalf("Opt.NewClient returned a Client with no driver for %q", s.opt.Scheme)
		}
	} else {
		c = &fetch.Client{NetrcFile: "-"}
		c.Register(s.opt.Scheme, s.opt.Driver)
	}
	log := &TraceLog{}
	next := c.Trace
	c.Trace = func(dir fetch.Direction, line string) {
		log.Add(dir, line)
		if next != nil {
			next(dir, line)
		}
	}
	t.Cleanup(func() { c.Close() })
	return c, log
}

// context returns a context that ends with the test, or after
// fetchTimeout so that a hung driver fails rather than hangs.
func (s *suite) context(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), fetchTimeout)
	t.Cleanup(cancel)
	return ctx
}

// firstDocument returns the first Found case that is a Document.
func (s *suite) firstDocument() (Case, bool) {
	for _, c := range s.opt.Found {
		if c.Kind == 0 || c.Kind == fetch.Document {
			return c, true
		}
	}
	return Case{}, false
}

// fetchAll fetches rawURL through c and reads the Body to its end.
func fetchAll(ctx context.Context, c *fetch.Client, rawURL string) (resp *fetch.Response, body []byte, readErr error, err error) {
	resp, err = c.Fetch(ctx, rawURL)
	if err != nil {
		return nil, nil, nil, err
	}
	body, readErr = io.ReadAll(resp.Body)
	return resp, body, readErr, nil
}

func checkFound(t testing.TB, s *suite) {
	c, _ := s.client(t)
	ctx := s.context(t)
	for _, tc := range s.opt.Found {
		resp, body, readErr, err := fetchAll(ctx, c, tc.URL)
		if err != nil {
			t.Errorf("Fetch(%q) error = %v, want nil", tc.URL, err)
			continue
		}
		want := tc.Kind
		if want == 0 {
			want = fetch.Document
		}
		if resp.Kind != want {
			t.Errorf("Fetch(%q).Kind = %v, want %v", tc.URL, resp.Kind, want)
		}
		if tc.Type != "" && resp.Type != tc.Type {
			t.Errorf("Fetch(%q).Type = %q, want %q", tc.URL, resp.Type, tc.Type)
		}
		if readErr != nil {
			t.Errorf("Fetch(%q): reading Body: %v", tc.URL, readErr)
		}
		switch sum := sha256.Sum256(body); {
		case tc.Want != "" && string(body) != tc.Want:
			t.Errorf("Fetch(%q) body = %s, want %s", tc.URL, short(body), short([]byte(tc.Want)))
		case tc.SHA256 != "" && !strings.EqualFold(hex.EncodeToString(sum[:]), tc.SHA256):
			t.Errorf("Fetch(%q) body SHA-256 = %x, want %s", tc.URL, sum, tc.SHA256)
		case tc.Want == "" && tc.SHA256 == "" && len(body) == 0:
			t.Errorf("Fetch(%q) body is empty, want some bytes", tc.URL)
		}
		if readErr == nil && resp.Length >= 0 && resp.Length != int64(len(body)) {
			t.Errorf("Fetch(%q).Length = %d, but Body yielded %d bytes", tc.URL, resp.Length, len(body))
		}
		if resp.Offset != 0 {
			t.Errorf("Fetch(%q).Offset = %d, want 0 (no offset was asked)", tc.URL, resp.Offset)
		}
		if p, err := safeClose(resp.Body); p != nil {
			t.Errorf("Fetch(%q): Body.Close() panicked: %v", tc.URL, p)
		} else if err != nil && readErr == nil {
			t.Errorf("Fetch(%q): Body.Close() after a full read = %v, want nil", tc.URL, err)
		}
	}
}

// checkBodyNotNil calls the driver itself: the Client would turn a nil
// Body into an error and hide the fault.
func checkBodyNotNil(t testing.TB, s *suite) {
	c, _ := s.client(t)
	ctx := s.context(t)
	d := c.Driver(s.opt.Scheme)
	urls := []string{s.opt.Listing}
	for _, tc := range s.opt.Found {
		urls = append(urls, tc.URL)
	}
	for _, raw := range urls {
		if raw == "" {
			continue
		}
		resp, err := d.Fetch(ctx, fetch.NewRequest(c, uri.MustParse(raw)))
		switch {
		case err != nil:
			t.Errorf("Driver.Fetch(%q) error = %v, want nil", raw, err)
		case resp == nil:
			t.Errorf("Driver.Fetch(%q) = nil Response and nil error; err == nil must mean Body != nil", raw)
		case resp.Body == nil:
			t.Errorf("Driver.Fetch(%q).Body = nil with a nil error; err == nil must mean Body != nil", raw)
		default:
			resp.Body.Close()
		}
	}
	for _, raw := range []string{s.opt.Missing, s.opt.Denied} {
		if raw == "" {
			continue
		}
		resp, err := d.Fetch(ctx, fetch.NewRequest(c, uri.MustParse(raw)))
		if err == nil {
			t.Errorf("Driver.Fetch(%q) error = nil, want an error", raw)
		}
		if resp != nil && resp.Body != nil {
			resp.Body.Close()
		}
	}
}

// closeTwice closes body twice: neither may panic, and the second must
// return nil or the first one's error. It returns what went wrong, or "".
func closeTwice(body io.Closer) string {
	p, err1 := safeClose(body)
	if p != nil {
		return fmt.Sprintf("Body.Close() panicked: %v", p)
	}
	p, err2 := safeClose(body)
	if p != nil {
		return fmt.Sprintf("second Body.Close() panicked: %v", p)
	}
	if err2 != nil && (err1 == nil || err2.Error() != err1.Error()) {
		return fmt.Sprintf("second Body.Close() = %v, want nil or the first Close's %v", err2, err1)
	}
	return ""
}

func checkCloseTwice(t testing.TB, s *suite) {
	c, _ := s.client(t)
	ctx := s.context(t)
	for _, raw := range []string{s.opt.Found[0].URL, s.opt.Listing} {
		if raw == "" {
			continue
		}
		resp, _, _, err := fetchAll(ctx, c, raw)
		if err != nil {
			t.Errorf("Fetch(%q) error = %v, want nil", raw, err)
			continue
		}
		if msg := closeTwice(resp.Body); msg != "" {
			t.Errorf("Fetch(%q): %s", raw, msg)
		}
	}
}

// checkCloseUnread closes a body nothing has read: Close must end the
// exchange promptly, and a Read after it must fail, not panic.
func checkCloseUnread(t testing.TB, s *suite) {
	c, _ := s.client(t)
	ctx := s.context(t)
	for _, raw := range []string{s.opt.Found[0].URL, s.opt.Listing} {
		if raw == "" {
			continue
		}
		resp, err := c.Fetch(ctx, raw)
		if err != nil {
			t.Errorf("Fetch(%q) error = %v, want nil", raw, err)
			continue
		}
		what := fmt.Sprintf("Fetch(%q) unread", raw)
		msg, ok := within(closeLimit, func() string { return closeTwice(resp.Body) })
		switch {
		case !ok:
			t.Errorf("%s: Body.Close() still running after %v", what, closeLimit)
			continue
		case msg != "":
			t.Errorf("%s: %s", what, msg)
			continue
		}
		n, p, err := safeRead(resp.Body)
		switch {
		case p != nil:
			t.Errorf("%s: Body.Read after Close panicked: %v", what, p)
		case err == nil:
			t.Errorf("%s: Body.Read after Close = %d, nil; want an error", what, n)
		case !errors.Is(err, fetch.ErrBodyClosed):
			t.Errorf("%s: Body.Read after Close = %d, %v; want fetch.ErrBodyClosed (the Body comes from fetch.NewBody)", what, n, err)
		}
	}
}

func checkOffset(t testing.TB, s *suite) {
	tc, ok := s.firstDocument()
	if !ok {
		t.Skip("no Found case is a Document")
	}
	c, _ := s.client(t)
	ctx := s.context(t)
	resp, whole, readErr, err := fetchAll(ctx, c, tc.URL)
	if err != nil || readErr != nil {
		t.Fatalf("Fetch(%q) error = %v, %v; want nil", tc.URL, err, readErr)
	}
	resp.Body.Close()
	if len(whole) < 2 {
		t.Skipf("Fetch(%q) has %d bytes, too few to resume in the middle", tc.URL, len(whole))
	}
	off := int64(len(whole) / 2)
	req, err := c.NewRequest(tc.URL)
	if err != nil {
		t.Fatalf("NewRequest(%q) error = %v", tc.URL, err)
	}
	req.Offset = off
	call := fmt.Sprintf("Do(%q with Offset %d)", tc.URL, off)
	resp, err = c.Do(ctx, req)
	if err != nil {
		t.Fatalf("%s error = %v, want nil", call, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s: reading Body: %v", call, err)
	}
	switch {
	case resp.Offset == off:
	case resp.Offset == 0 && !s.opt.Caps.Resume:
	case resp.Offset == 0:
		t.Errorf("%s.Offset = 0, want %d (Caps.Resume is set)", call, off)
		return
	default:
		t.Errorf("%s.Offset = %d, want %d, or 0 for a restart", call, resp.Offset, off)
		return
	}
	if want := whole[resp.Offset:]; string(body) != string(want) {
		t.Errorf("%s body = %s, want %s (Offset %d)", call, short(body), short(want), resp.Offset)
	}
	if resp.Length >= 0 && resp.Length != int64(len(body)) {
		t.Errorf("%s.Length = %d, but Body yielded %d bytes", call, resp.Length, len(body))
	}
}

// checkHead asks for the metadata of each Found case and of the Listing
// (Request.Head) between two fetches of it. The Response must be of the
// fetch's Kind, with its Type (or none), a Length of -1 or the fetch's
// byte count, the fetch's Modified when the fetch had one, Offset 0 and
// an empty Body that closes twice. Nothing the driver sends may transfer
// the resource (Opt.Transfers), and the fetch after the Head, on the
// connection it left in the driver's pool, must come whole. Missing fails
// under Head as it does without (unless Caps.HeadFromURL), and a redirect
// comes back as the redirect.
func checkHead(t testing.TB, s *suite) {
	c, log := s.client(t)
	ctx := s.context(t)
	if s.opt.Caps.NoHead {
		raw := s.opt.Found[0].URL
		resp, err := s.head(ctx, c, raw)
		if err == nil {
			resp.Body.Close()
			t.Errorf("Do(%q with Head) error = nil, want ErrUnsupported (Caps.NoHead)", raw)
		} else if !errors.Is(err, fetch.ErrUnsupported) {
			t.Errorf("Do(%q with Head) error = %v, want ErrUnsupported (Caps.NoHead)", raw, err)
		}
		for _, line := range log.Lines() {
			if strings.HasPrefix(line, "> ") {
				t.Errorf("Do(%q with Head) sent %q; want nothing sent for a scheme without metadata", raw, line)
			}
		}
		return
	}
	cases := append([]Case(nil), s.opt.Found...)
	if s.opt.Listing != "" {
		cases = append(cases, Case{URL: s.opt.Listing, Kind: fetch.Listing})
	}
	for _, tc := range cases {
		got, n, sum, err := fetchSum(ctx, c, tc.URL)
		if err != nil {
			t.Errorf("Fetch(%q) error = %v, want nil", tc.URL, err)
			continue
		}
		log.Reset()
		call := fmt.Sprintf("Do(%q with Head)", tc.URL)
		head, err := s.head(ctx, c, tc.URL)
		if err != nil {
			t.Errorf("%s error = %v, want nil", call, err)
			continue
		}
		body, readErr := io.ReadAll(head.Body)
		switch {
		case readErr != nil:
			t.Errorf("%s: reading Body: %v", call, readErr)
		case len(body) > 0:
			t.Errorf("%s: Body yielded %s; want no bytes", call, short(body))
		}
		if msg := closeTwice(head.Body); msg != "" {
			t.Errorf("%s: %s", call, msg)
		}
		if head.Kind != got.Kind {
			t.Errorf("%s.Kind = %v, want %v as Fetch gives", call, head.Kind, got.Kind)
		}
		if want := tc.Type; want != "" && head.Type != want {
			t.Errorf("%s.Type = %q, want %q", call, head.Type, want)
		} else if head.Type != "" && got.Type != "" && head.Type != got.Type {
			t.Errorf("%s.Type = %q, but Fetch gives %q", call, head.Type, got.Type)
		}
		if head.Length != -1 && head.Length != n {
			t.Errorf("%s.Length = %d, but Fetch's Body yields %d bytes; want that or -1", call, head.Length, n)
		}
		if !got.Modified.IsZero() && !head.Modified.Equal(got.Modified) {
			t.Errorf("%s.Modified = %v, want %v as Fetch gives", call, head.Modified, got.Modified)
		}
		if head.Offset != 0 {
			t.Errorf("%s.Offset = %d, want 0", call, head.Offset)
		}
		for _, line := range log.Lines() {
			if cmd, ok := strings.CutPrefix(line, "> "); ok && s.opt.Transfers != nil && s.opt.Transfers(cmd) {
				t.Errorf("%s sent %q, which transfers the resource", call, cmd)
			}
		}
		// The connection the Head used is back in the pool, ready.
		if _, n2, sum2, err := fetchSum(ctx, c, tc.URL); err != nil {
			t.Errorf("Fetch(%q) after a Head: error = %v, want nil", tc.URL, err)
		} else if n2 != n || sum2 != sum {
			t.Errorf("Fetch(%q) after a Head yields %d bytes (SHA-256 %s), before it %d (%s)", tc.URL, n2, sum2, n, sum)
		}
	}
	if s.opt.Missing != "" && !s.opt.Caps.HeadFromURL {
		raw := s.opt.Missing
		if resp, err := s.head(ctx, c, raw); err == nil {
			resp.Body.Close()
			t.Errorf("Do(%q with Head) error = nil, want ErrNotFound", raw)
		} else if !errors.Is(err, fetch.ErrNotFound) {
			t.Errorf("Do(%q with Head) error = %v, want ErrNotFound", raw, err)
		}
	}
	if s.opt.Redirect != nil {
		target := s.opt.Scheme + "://" + newWitness(t).addr + "/fetchtest-target"
		raw := s.opt.Redirect(t, target)
		req := fetch.NewRequest(c, uri.MustParse(raw))
		req.Head = true
		resp, err := c.Driver(s.opt.Scheme).Fetch(ctx, req)
		if err != nil {
			t.Errorf("Driver.Fetch(%q with Head) error = %v; want the redirect to %s", raw, err, target)
			return
		}
		resp.Body.Close()
		if want := uri.MustParse(target).String(); resp.Kind != fetch.Redirect || resp.Location == nil || resp.Location.String() != want {
			t.Errorf("Driver.Fetch(%q with Head) = %v to %v; want a %v to %s", raw, resp.Kind, resp.Location, fetch.Redirect, want)
		}
	}
}

// head asks c for rawURL's metadata (Request.Head).
func (s *suite) head(ctx context.Context, c *fetch.Client, rawURL string) (*fetch.Response, error) {
	req, err := c.NewRequest(rawURL)
	if err != nil {
		return nil, err
	}
	req.Head = true
	return c.Do(ctx, req)
}

// fetchSum fetches rawURL through c and streams its Body into SHA-256:
// the Response, the byte count and the digest.
func fetchSum(ctx context.Context, c *fetch.Client, rawURL string) (*fetch.Response, int64, string, error) {
	resp, err := c.Fetch(ctx, rawURL)
	if err != nil {
		return nil, 0, "", err
	}
	defer resp.Body.Close()
	h := sha256.New()
	n, err := io.Copy(h, resp.Body)
	if err != nil {
		return nil, 0, "", fmt.Errorf("reading Body: %w", err)
	}
	return resp, n, hex.EncodeToString(h.Sum(nil)), nil
}

// checkNoFollow checks that a driver never follows a redirect itself: it
// returns it as data, and only the Client connects to the target. A
// listener is the witness: it must see no connection from the driver's
// Fetch nor from a Client told not to follow (ErrUseLastResponse), and
// one when the Client follows.
func checkNoFollow(t testing.TB, s *suite) {
	if s.opt.Redirect == nil {
		t.Skip("no Opt.Redirect: the scheme has no redirects")
	}
	w := newWitness(t)
	same := s.opt.Scheme + "://" + w.addr + "/fetchtest-target"
	for _, target := range []string{same, "ftp://" + w.addr + "/fetchtest-target"} {
		raw := s.opt.Redirect(t, target)
		want := uri.MustParse(target).String()
		c, _ := s.client(t)
		ctx := s.context(t)
		resp, err := c.Driver(s.opt.Scheme).Fetch(ctx, fetch.NewRequest(c, uri.MustParse(raw)))
		switch {
		case err != nil:
			t.Errorf("Driver.Fetch(%q) error = %v; want the redirect to %s as a Response", raw, err, target)
		case resp == nil || resp.Body == nil:
			t.Errorf("Driver.Fetch(%q) = a Response without a Body; err == nil must mean Body != nil", raw)
		default:
			resp.Body.Close()
			if resp.Kind != fetch.Redirect || resp.Location == nil || resp.Location.String() != want {
				t.Errorf("Driver.Fetch(%q) = %v to %v; want a %v to %s", raw, resp.Kind, resp.Location, fetch.Redirect, want)
			}
		}
		if n := w.count(); n != 0 {
			t.Errorf("Driver.Fetch(%q): the redirect's target %s got %d connections; a driver never follows a redirect", raw, target, n)
		}
		if target != same {
			continue // the suite's Client may have no driver for ftp
		}

		c.CheckRedirect = func(*fetch.Request, []*fetch.Request) error { return fetch.ErrUseLastResponse }
		resp, err = c.Fetch(ctx, raw)
		if err != nil {
			t.Errorf("Fetch(%q) with CheckRedirect saying ErrUseLastResponse: error %v; want the redirect", raw, err)
		} else {
			resp.Body.Close()
			if resp.Kind != fetch.Redirect || resp.Location.String() != want {
				t.Errorf("Fetch(%q) with CheckRedirect saying ErrUseLastResponse = %v to %v; want the redirect to %s", raw, resp.Kind, resp.Location, want)
			}
		}
		if n := w.count(); n != 0 {
			t.Errorf("Fetch(%q) with CheckRedirect saying ErrUseLastResponse: the target got %d connections", raw, n)
		}

		// The witness sees what following does: the Client's doing.
		c.CheckRedirect = nil
		if resp, err := c.Fetch(ctx, raw); err == nil {
			resp.Body.Close()
		}
		if n := w.count(); n != 1 {
			t.Errorf("Fetch(%q) by a Client that follows: the target got %d connections, want 1 (is the witness reachable?)", raw, n)
		}
	}
}

// A witness is a listener that counts the connections made to it and
// closes each at once.
type witness struct {
	addr  string
	mu    sync.Mutex
	peers []string // the remote address of each connection, in order
}

func newWitness(t testing.TB) *witness {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	w := &witness{addr: ln.Addr().String()}
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			w.mu.Lock()
			w.peers = append(w.peers, c.RemoteAddr().String())
			w.mu.Unlock()
			c.Close()
		}
	}()
	t.Cleanup(func() { ln.Close(); <-done })
	return w
}

// count returns how many connections were made since the last call. It
// connects once itself and waits until that connection is accepted: the
// kernel queues connections in order, so every one made before the call
// has been accepted by then.
func (w *witness) count() int {
	c, err := net.Dial("tcp", w.addr)
	if err != nil {
		return -1
	}
	me := c.LocalAddr().String()
	c.Close()
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		w.mu.Lock()
		for i, p := range w.peers {
			if p == me {
				w.peers = w.peers[i+1:]
				w.mu.Unlock()
				return i
			}
		}
		w.mu.Unlock()
		time.Sleep(5 * time.Millisecond)
	}
	return -1
}

// wantKind checks that fetching rawURL fails with kind, on one line.
func (s *suite) wantKind(t testing.TB, c *fetch.Client, rawURL string, kind error, name string) {
	t.Helper()
	resp, err := c.Fetch(s.context(t), rawURL)
	if err == nil {
		resp.Body.Close()
		t.Errorf("Fetch(%q) error = nil, want %s", rawURL, name)
		return
	}
	if !errors.Is(err, kind) {
		t.Errorf("Fetch(%q) error = %v, want %s", rawURL, err, name)
	}
	if msg := err.Error(); strings.ContainsAny(msg, "\r\n") {
		t.Errorf("Fetch(%q) error = %q, want one line", rawURL, msg)
	}
}

func checkMissing(t testing.TB, s *suite) {
	if s.opt.Missing == "" {
		t.Skip("Caps.NoNotFound: the scheme has no missing resource")
	}
	c, _ := s.client(t)
	s.wantKind(t, c, s.opt.Missing, fetch.ErrNotFound, "ErrNotFound")
}

func checkDenied(t testing.TB, s *suite) {
	if s.opt.Denied == "" {
		t.Skip("no Opt.Denied URL")
	}
	c, _ := s.client(t)
	s.wantKind(t, c, s.opt.Denied, fetch.ErrAuth, "ErrAuth")
}

func checkListing(t testing.TB, s *suite) {
	if s.opt.Listing == "" {
		t.Skip("no Opt.Listing URL")
	}
	raw := s.opt.Listing
	c, _ := s.client(t)
	resp, err := c.Fetch(s.context(t), raw)
	if err != nil {
		t.Fatalf("Fetch(%q) error = %v, want nil", raw, err)
	}
	defer resp.Body.Close()
	if resp.Kind != fetch.Listing {
		t.Errorf("Fetch(%q).Kind = %v, want listing", raw, resp.Kind)
	}
	internet := false
	if sc, ok := uri.LookupScheme(s.opt.Scheme); ok {
		internet = sc.Internet
	}
	n := 0
	for e, err := range resp.Entries() {
		if err != nil {
			t.Errorf("Fetch(%q).Entries() error = %v, want none", raw, err)
			continue
		}
		n++
		if e.URL == "" {
			if e.Type != fetch.EntryInfo && e.Type != fetch.EntryError {
				t.Errorf("Fetch(%q) entry %q (%v) has no URL, want an absolute one", raw, e.Name, e.Type)
			}
			continue
		}
		if e.Name == "" {
			t.Errorf("Fetch(%q) entry with URL %q has no Name", raw, e.URL)
		}
		u, err := uri.Parse(e.URL)
		if err != nil {
			t.Errorf("Fetch(%q) entry %q: URL %q does not parse: %v", raw, e.Name, e.URL, err)
			continue
		}
		if u.Scheme != s.opt.Scheme && !s.opt.Caps.MixedSchemes {
			t.Errorf("Fetch(%q) entry %q: URL %q is not of scheme %q", raw, e.Name, e.URL, s.opt.Scheme)
		}
		if u.Scheme == s.opt.Scheme && internet && !u.Authority {
			t.Errorf("Fetch(%q) entry %q: URL %q has no \"//host\"", raw, e.Name, e.URL)
		}
	}
	if n == 0 {
		t.Errorf("Fetch(%q).Entries() yielded nothing; want a Listing fixture with entries", raw)
	}
}

func checkInject(t testing.TB, s *suite) {
	if len(s.opt.Inject) == 0 {
		t.Skip("Caps.NoProtocolLines: no URL data reaches a protocol line")
	}
	c, log := s.client(t)
	for _, raw := range s.opt.Inject {
		s.wantKind(t, c, raw, fetch.ErrUnsafe, "ErrUnsafe")
	}
	for _, line := range log.Lines() {
		if strings.ContainsAny(line, "\r\n\x00") {
			t.Errorf("trace line %q holds a CR, LF or NUL: it was sent", line)
		}
	}
}

// withLogin returns rawURL with user and password in it, or false when
// its scheme takes none.
func withLogin(rawURL, user, password string) (string, bool) {
	u, err := uri.Parse(rawURL)
	if err != nil || !u.Authority {
		return "", false
	}
	if sc, _ := uri.LookupScheme(u.Scheme); !sc.Login {
		return "", false
	}
	u.User, u.HasUser = uri.Escape(user, uri.ComponentUser), true
	u.Password, u.HasPassword = uri.Escape(password, uri.ComponentPassword), true
	return u.String(), true
}

// secretForms are the ways a password can leak: as itself, as its URL
// encoding, and in base64 beside its user (HTTP Basic, SASL PLAIN).
func secretForms(u *uri.URL, secret string) []string {
	user := u.Username()
	forms := []string{secret, uri.Escape(secret, uri.ComponentPassword), u.Password}
	for _, s := range []string{user + ":" + secret, "\x00" + user + "\x00" + secret} {
		forms = append(forms, base64.StdEncoding.EncodeToString([]byte(s)))
	}
	return forms
}

func checkSecret(t testing.TB, s *suite) {
	secret, urls := s.opt.Secret, s.opt.SecretURLs
	if len(urls) == 0 {
		secret = DefaultSecret
		for _, raw := range []string{s.opt.Found[0].URL, s.opt.Missing, s.opt.Denied, s.opt.Listing} {
			if raw == "" {
				continue
			}
			if u, ok := withLogin(raw, "fetchtest", secret); ok {
				urls = append(urls, u)
			}
		}
	}
	if len(urls) == 0 {
		t.Skipf("%s URLs carry no password", s.opt.Scheme)
	}
	c, log := s.client(t)
	ctx := s.context(t)
	var forms []string
	leaks := func(text string) bool {
		for _, f := range forms {
			if f != "" && strings.Contains(text, f) {
				return true
			}
		}
		return false
	}
	for _, raw := range urls {
		forms = secretForms(uri.MustParse(raw), secret)
		shown := uri.MustParse(raw).Redacted()
		resp, _, readErr, err := fetchAll(ctx, c, raw)
		if err != nil && leaks(err.Error()) {
			t.Errorf("Fetch(%q) error = %q: it shows the password", shown, err)
		}
		if err == nil {
			if readErr != nil && leaks(readErr.Error()) {
				t.Errorf("Fetch(%q): reading Body: %q: it shows the password", shown, readErr)
			}
			if err := resp.Body.Close(); err != nil && leaks(err.Error()) {
				t.Errorf("Fetch(%q): Body.Close() = %q: it shows the password", shown, err)
			}
			for k, vs := range resp.Meta {
				for _, v := range vs {
					if leaks(k) || leaks(v) {
						t.Errorf("Fetch(%q).Meta[%q] = %q: it shows the password", shown, k, v)
					}
				}
			}
		}
		for _, line := range log.Lines() {
			if leaks(line) {
				t.Errorf("Fetch(%q) traced %q: it shows the password", shown, line)
			}
		}
	}
}

func checkTrace(t testing.TB, s *suite) {
	raw := s.opt.Found[0].URL
	c, log := s.client(t)
	resp, _, _, err := fetchAll(s.context(t), c, raw)
	if err != nil {
		t.Fatalf("Fetch(%q) error = %v, want nil", raw, err)
	}
	resp.Body.Close()
	lines := log.Lines()
	if len(lines) == 0 {
		t.Errorf("Fetch(%q) traced nothing; want each protocol line sent and read, or a note of what the driver did", raw)
	}
	for _, line := range lines {
		if strings.ContainsAny(line, "\r\n") {
			t.Errorf("Fetch(%q) traced %q: a trace line holds one line", raw, line)
		}
	}
}

// checkCancelBeforeFetch calls the driver itself, as the Client looks at
// the context before the driver does.
func checkCancelBeforeFetch(t testing.TB, s *suite) {
	raw := s.opt.Found[0].URL
	c, _ := s.client(t)
	d := c.Driver(s.opt.Scheme)
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	type result struct {
		resp *fetch.Response
		err  error
	}
	r, ok := within(cancelLimit, func() result {
		resp, err := d.Fetch(ctx, fetch.NewRequest(c, uri.MustParse(raw)))
		return result{resp, err}
	})
	call := fmt.Sprintf("Driver.Fetch(%q) with a cancelled context", raw)
	switch {
	case !ok:
		t.Errorf("%s still running after %v", call, cancelLimit)
	case r.err != nil:
		if !errors.Is(r.err, context.Canceled) {
			t.Errorf("%s error = %v, want context.Canceled", call, r.err)
		}
	case r.resp == nil || r.resp.Body == nil:
		t.Errorf("%s = no Body and a nil error", call)
	default:
		// A driver that does no I/O before the Body is read may succeed;
		// then the Body must refuse.
		defer r.resp.Body.Close()
		n, p, err := safeRead(r.resp.Body)
		if p != nil || !errors.Is(err, context.Canceled) {
			t.Errorf("%s succeeded, and Body.Read = %d, %v (panic %v); want context.Canceled", call, n, err, p)
		}
	}
}

func checkCancelAfterFetch(t testing.TB, s *suite) {
	raw := s.opt.Found[0].URL
	c, _ := s.client(t)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	resp, err := c.Fetch(ctx, raw)
	if err != nil {
		t.Fatalf("Fetch(%q) error = %v, want nil", raw, err)
	}
	defer resp.Body.Close()
	cancel()
	type result struct {
		n   int64
		err error
	}
	r, ok := within(cancelLimit, func() result {
		n, err := io.Copy(io.Discard, resp.Body)
		return result{n, err}
	})
	switch {
	case !ok:
		t.Errorf("Fetch(%q), cancel(): reading Body still running after %v", raw, cancelLimit)
	case !errors.Is(r.err, context.Canceled):
		t.Errorf("Fetch(%q), cancel(): reading Body = %d bytes, error %v; want context.Canceled", raw, r.n, r.err)
	}
}

// stallResult is how a fetch of the Stall URL ended: in Fetch or while
// reading the Body.
type stallResult struct {
	phase string
	err   error
}

// startStall fetches rawURL in a goroutine that reads the whole Body; the
// channel gets the outcome. The goroutine ends when the fetch does.
func startStall(ctx context.Context, c *fetch.Client, rawURL string) <-chan stallResult {
	done := make(chan stallResult, 1)
	go func() {
		resp, err := c.Fetch(ctx, rawURL)
		if err != nil {
			done <- stallResult{"Fetch", err}
			return
		}
		defer resp.Body.Close()
		_, err = io.Copy(io.Discard, resp.Body)
		done <- stallResult{"reading Body", err}
	}()
	return done
}

// stalled waits stallGrace for the fetch to block; it reports false, and
// a failure, when the fetch ended instead.
func stalled(t testing.TB, rawURL string, done <-chan stallResult) bool {
	t.Helper()
	grace := time.NewTimer(stallGrace)
	defer grace.Stop()
	select {
	case r := <-done:
		t.Errorf("Fetch(%q) did not stall: %s ended with %v; want a Stall URL that blocks", rawURL, r.phase, r.err)
		return false
	case <-grace.C:
		return true
	}
}

func checkCancelStalled(t testing.TB, s *suite) {
	if s.opt.Stall == nil {
		t.Skip("no Opt.Stall URL")
	}
	raw := s.opt.Stall(t)
	c, _ := s.client(t)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	done := startStall(ctx, c, raw)
	if !stalled(t, raw, done) {
		return
	}
	cancel()
	limit := time.NewTimer(cancelLimit)
	defer limit.Stop()
	select {
	case r := <-done:
		if !errors.Is(r.err, context.Canceled) {
			t.Errorf("Fetch(%q), cancel(): %s error = %v, want context.Canceled", raw, r.phase, r.err)
		}
	case <-limit.C:
		t.Errorf("Fetch(%q) still blocked %v after cancel()", raw, cancelLimit)
	}
}

func checkIdleTimeout(t testing.TB, s *suite) {
	switch {
	case s.opt.Stall == nil:
		t.Skip("no Opt.Stall URL")
	case s.opt.Caps.NoIdleTimeout:
		t.Skip("Caps.NoIdleTimeout: the Stall URL waits on no connection")
	}
	raw := s.opt.Stall(t)
	c, _ := s.client(t)
	c.IdleTimeout = idleTimeout
	done := startStall(s.context(t), c, raw)
	limit := time.NewTimer(idleTimeout + cancelLimit)
	defer limit.Stop()
	select {
	case r := <-done:
		if !errors.Is(r.err, fetch.ErrTimeout) {
			t.Errorf("Fetch(%q) with IdleTimeout %v: %s error = %v, want ErrTimeout", raw, idleTimeout, r.phase, r.err)
		}
	case <-limit.C:
		t.Errorf("Fetch(%q) with IdleTimeout %v still blocked after %v", raw, idleTimeout, idleTimeout+cancelLimit)
	}
}

// The checks below hold every driver to the same class of error for the
// same event: a deadline that passes, a server that refuses the
// connection, a URL the scheme's view refuses, a connection that breaks.

// checkDeadline: a context whose deadline passes ends a stalled fetch with
// ErrTimeout, which is context.DeadlineExceeded too.
func checkDeadline(t testing.TB, s *suite) {
	if s.opt.Stall == nil {
		t.Skip("no Opt.Stall URL")
	}
	raw := s.opt.Stall(t)
	c, _ := s.client(t)
	ctx, cancel := context.WithTimeout(t.Context(), idleTimeout)
	defer cancel()
	done := startStall(ctx, c, raw)
	limit := time.NewTimer(idleTimeout + cancelLimit)
	defer limit.Stop()
	select {
	case r := <-done:
		if !errors.Is(r.err, fetch.ErrTimeout) || !errors.Is(r.err, context.DeadlineExceeded) || fetch.Class(r.err) != fetch.ErrTimeout {
			t.Errorf("Fetch(%q) past its context's deadline: %s error = %v, want ErrTimeout and context.DeadlineExceeded", raw, r.phase, r.err)
		}
	case <-limit.C:
		t.Errorf("Fetch(%q) still blocked %v after its context's deadline", raw, cancelLimit)
	}
}

// checkRefused: a server that refuses the connection is ErrConnect. The
// URL is Found[0]'s with its host and port made a closed port of
// 127.0.0.1.
func checkRefused(t testing.TB, s *suite) {
	u, err := uri.Parse(s.opt.Found[0].URL)
	if err != nil || !u.Authority || s.opt.Caps.NoServer {
		t.Skipf("%s URLs name no server", s.opt.Scheme)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	u.Host, u.Port = "127.0.0.1", port
	c, _ := s.client(t)
	s.wantKind(t, c, u.String(), fetch.ErrConnect, "ErrConnect")
}

// checkInvalid: a URL the scheme's view refuses is ErrURL.
func checkInvalid(t testing.TB, s *suite) {
	if len(s.opt.Invalid) == 0 {
		t.Skip("no Opt.Invalid URLs")
	}
	c, _ := s.client(t)
	for _, raw := range s.opt.Invalid {
		s.wantKind(t, c, raw, fetch.ErrURL, "ErrURL")
	}
}

// checkBroken: a connection that breaks in the middle of a reply is
// ErrConnect, at Fetch or reading the Body.
func checkBroken(t testing.TB, s *suite) {
	if s.opt.Broken == nil {
		t.Skip("no Opt.Broken URL")
	}
	raw := s.opt.Broken(t)
	c, _ := s.client(t)
	resp, body, readErr, err := fetchAll(s.context(t), c, raw)
	phase := "Fetch"
	if err == nil {
		resp.Body.Close()
		phase, err = "reading Body", readErr
	}
	if !errors.Is(err, fetch.ErrConnect) || fetch.Class(err) != fetch.ErrConnect {
		t.Errorf("Fetch(%q) from a server that closes mid-reply: %s error = %v (after %d bytes), want ErrConnect", raw, phase, err, len(body))
	}
}

// checkUnknownScheme and checkPortPolicy check the Client around the
// driver: the same for every driver, but a NewClient can break them.
func checkUnknownScheme(t testing.TB, s *suite) {
	const scheme = "x-fetchtest-unknown"
	c, _ := s.client(t)
	raw := scheme + "://host/"
	_, err := c.Fetch(s.context(t), raw)
	if !errors.Is(err, fetch.ErrUnsupported) || !strings.Contains(fmt.Sprint(err), scheme) {
		t.Errorf("Fetch(%q) error = %v, want ErrUnsupported naming %q", raw, err, scheme)
	}
}

func checkPortPolicy(t testing.TB, s *suite) {
	c, log := s.client(t)
	port := 0
	for _, p := range []int{25, 6667, 110, 143, 119} {
		if fetch.BadPort(s.opt.Scheme, p) && !allowed(c, p) {
			port = p
			break
		}
	}
	u, err := uri.Parse(s.opt.Found[0].URL)
	switch {
	case err != nil || !u.Authority:
		t.Skipf("%s URLs name no port", s.opt.Scheme)
	case port == 0:
		t.Skip("the Client allows every port the suite would try")
	}
	if u.Host == "" {
		u.Host = "localhost"
	}
	u.Port = port
	raw := u.String()
	s.wantKind(t, c, raw, fetch.ErrUnsafe, "ErrUnsafe")
	for _, line := range log.Lines() {
		t.Errorf("Fetch(%q) traced %q; want it refused before anything is sent", raw, line)
	}
}

func allowed(c *fetch.Client, port int) bool {
	for _, p := range c.AllowPorts {
		if p == port {
			return true
		}
	}
	return false
}

// within runs f in a goroutine and waits at most d for its result. On a
// timeout the goroutine is left to finish on its own.
func within[T any](d time.Duration, f func() T) (T, bool) {
	done := make(chan T, 1)
	go func() { done <- f() }()
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case v := <-done:
		return v, true
	case <-timer.C:
		var zero T
		return zero, false
	}
}

// safeClose closes body, turning a panic into a value.
func safeClose(body io.Closer) (panicked any, err error) {
	defer func() { panicked = recover() }()
	return nil, body.Close()
}

// safeRead reads once from body, turning a panic into a value.
func safeRead(body io.Reader) (n int, panicked any, err error) {
	defer func() { panicked = recover() }()
	n, err = body.Read(make([]byte, 512))
	return n, nil, err
}

// short quotes at most 64 bytes of b for a failure message.
func short(b []byte) string {
	if len(b) > 64 {
		return fmt.Sprintf("%q... (%d bytes)", b[:64], len(b))
	}
	return fmt.Sprintf("%q", b)
}
