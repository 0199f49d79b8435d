package mid

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/urlfetch/urlfetch/fetch"
	"github.com/urlfetch/urlfetch/fetch/fetchtest"
	"github.com/urlfetch/urlfetch/uri"
)

// The messages of the tests: a plain one and a multipart/related one
// after RFC 2392's second example, an HTML part that shows an image part
// by its cid: URL.
const (
	plainMsg = "Return-Path: <a@example.org>\n" +
		"From: Ann <a@example.org>\n" +
		"To: urlfetch@localhost\n" +
		"Subject: plain\n" +
		"Message-ID: <plain.1@example.org>\n" +
		"Date: Tue, 20 Dec 1994 12:00:00 +0000\n" +
		"\n" +
		"Hello.\n" +
		"From here on, a line an mbox quotes.\n" +
		">From here too, in mboxrd.\n"

	relatedMsg = "From: Ann <a@example.org>\n" +
		"Subject: related\n" +
		"Message-ID:\n <related.2@Example.ORG> (folded)\n" +
		"MIME-Version: 1.0\n" +
		"Content-Type: multipart/related; boundary=\"b1\"; type=\"text/html\"\n" +
		"\n" +
		"preamble\n" +
		"--b1\n" +
		"Content-Type: text/html; charset=iso-8859-1\n" +
		"Content-Transfer-Encoding: quoted-printable\n" +
		"Content-ID: <html.2@example.org>\n" +
		"\n" +
		"<img src=3D\"cid:logo.2@example.org\"> caf=E9\n" +
		"--b1\n" +
		"Content-Type: image/gif\n" +
		"Content-Transfer-Encoding: base64\n" +
		"Content-ID: <logo.2@example.org>\n" +
		"Content-Disposition: inline; filename=\"logo.gif\"\n" +
		"\n" +
		"R0lGODlhAQABAAAAACw=\n" +
		"--b1\n" +
		"Content-Type: text/plain\n" +
		"\n" +
		"no Content-ID here\n" +
		"--b1--\n"
)

// logoGIF is the image part, decoded.
const logoGIF = "GIF89a\x01\x00\x01\x00\x00\x00\x00,"

// newMaildir makes a Maildir holding the messages, one in new/ and the
// rest in cur/ with flags.
func newMaildir(t testing.TB, msgs ...string) string {
	t.Helper()
	dir := t.TempDir()
	for _, sub := range []string{"cur", "new", "tmp"} {
		if err := os.Mkdir(filepath.Join(dir, sub), 0o700); err != nil {
			t.Fatal(err)
		}
	}
	for i, m := range msgs {
		name := filepath.Join(dir, "new", "1734.M"+string(rune('0'+i))+".host")
		if i > 0 {
			name = filepath.Join(dir, "cur", "1734.M"+string(rune('0'+i))+".host:2,S")
		}
		if err := os.WriteFile(name, []byte(m), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	// What a Maildir also holds, and the driver must pass over.
	os.WriteFile(filepath.Join(dir, "cur", ".hidden"), []byte("Message-ID: <plain.1@example.org>\n\nno\n"), 0o600)
	os.WriteFile(filepath.Join(dir, "tmp", "1734.M9.host"), []byte("Message-ID: <tmp.9@example.org>\n\nno\n"), 0o600)
	return dir
}

// fetchBody fetches rawURL with d and reads it whole.
func fetchBody(t *testing.T, d *Driver, rawURL string) (*fetch.Response, string, error) {
	t.Helper()
	c := &fetch.Client{NetrcFile: "-"}
	c.Register("mid", d)
	c.Register("cid", d)
	resp, err := c.Fetch(context.Background(), rawURL)
	if err != nil {
		return nil, "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("Fetch(%q): reading the body: %v", rawURL, err)
	}
	return resp, string(b), nil
}

func TestMaildir(t *testing.T) {
	d := &Driver{Mailbox: newMaildir(t, plainMsg, relatedMsg)}
	tests := []struct {
		url, want, typ string
	}{
		{"mid:plain.1@example.org", plainMsg, MessageType},
		{"mid:%3Cplain.1@example.org%3E", plainMsg, MessageType},
		// The domain in any case; the folded field with a comment. The
		// line end before a boundary is the boundary's (RFC 2046 5.1.1).
		{"mid:related.2@example.org", relatedMsg, MessageType},
		{"mid:related.2@example.org/logo.2@example.org", logoGIF, "image/gif"},
		{"mid:related.2@example.org/html.2@EXAMPLE.org", "<img src=\"cid:logo.2@example.org\"> caf\xe9", "text/html; charset=iso-8859-1"},
	}
	for _, tt := range tests {
		resp, body, err := fetchBody(t, d, tt.url)
		if err != nil {
			t.Errorf("Fetch(%q) error = %v", tt.url, err)
			continue
		}
		if body != tt.want || resp.Type != tt.typ {
			t.Errorf("Fetch(%q) = %q (%s), want %q (%s)", tt.url, body, resp.Type, tt.want, tt.typ)
		}
		if resp.Type == MessageType && resp.Length != int64(len(tt.want)) {
			t.Errorf("Fetch(%q).Length = %d, want %d", tt.url, resp.Length, len(tt.want))
		}
	}
	// The local part is case-sensitive; tmp/ and dot files are not mail.
	for _, raw := range []string{"mid:PLAIN.1@example.org", "mid:tmp.9@example.org", "mid:related.2@example.org/nothing@example.org"} {
		_, _, err := fetchBody(t, d, raw)
		if !errors.Is(err, fetch.ErrNotFound) {
			t.Errorf("Fetch(%q) error = %v, want ErrNotFound", raw, err)
		}
		if raw == "mid:PLAIN.1@example.org" && !strings.Contains(fmt.Sprint(err), d.Mailbox) {
			t.Errorf("Fetch(%q) error = %v, want it to name the mailbox %s", raw, err, d.Mailbox)
		}
	}
}

func TestListing(t *testing.T) {
	d := &Driver{Mailbox: newMaildir(t, plainMsg, relatedMsg)}
	c := &fetch.Client{NetrcFile: "-"}
	c.Register("mid", d)
	raw := "mid:related.2@example.org/"
	resp, err := c.Fetch(context.Background(), raw)
	if err != nil {
		t.Fatalf("Fetch(%q) error = %v", raw, err)
	}
	defer resp.Body.Close()
	if resp.Kind != fetch.Listing {
		t.Fatalf("Fetch(%q).Kind = %v, want listing", raw, resp.Kind)
	}
	var got []string
	for e, err := range resp.Entries() {
		if err != nil {
			t.Fatalf("Entries() error = %v", err)
		}
		got = append(got, fmt.Sprintf("%s|%s|%s|%d|%s|%s", e.Type, e.Name, e.URL, e.Size, e.Media, e.Title))
	}
	if len(got) != 3 || got[1] != "file|logo.2@example.org|mid:related.2@example.org/logo.2@example.org|14|image/gif|logo.gif" ||
		got[2] != "info|part 3||18|text/plain|" || !strings.HasPrefix(got[0], "file|html.2@example.org|mid:related.2@example.org/html.2@example.org|39|text/html; charset=iso-8859-1") {
		t.Errorf("Fetch(%q).Entries() =\n%s", raw, strings.Join(got, "\n"))
	}
	// Each entry with a URL is a part the Client may follow from the
	// listing, and it fetches the part.
	for _, e := range fetchEntries(t, c, raw) {
		if e.URL == "" {
			continue
		}
		next := resp.Request.Follow(fetch.HopEntry, uri.MustParse(e.URL))
		r, err := c.Do(context.Background(), next)
		if err != nil {
			t.Errorf("following the entry %s: %v", e.URL, err)
			continue
		}
		r.Body.Close()
	}
}

// fetchEntries returns the entries of the listing at rawURL.
func fetchEntries(t *testing.T, c *fetch.Client, rawURL string) []fetch.Entry {
	t.Helper()
	resp, err := c.Fetch(context.Background(), rawURL)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var out []fetch.Entry
	for e, err := range resp.Entries() {
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, e)
	}
	return out
}

func TestCID(t *testing.T) {
	dir := newMaildir(t, plainMsg, relatedMsg)
	// No context yet.
	d := &Driver{Mailbox: dir}
	if _, _, err := fetchBody(t, d, "cid:logo.2@example.org"); !errors.Is(err, fetch.ErrUnsupported) || !strings.Contains(err.Error(), "--message") {
		t.Errorf("cid: without a context: error = %v, want ErrUnsupported saying --message", err)
	}
	// The message a mid: URL fetched is the context.
	if _, _, err := fetchBody(t, d, "mid:related.2@example.org"); err != nil {
		t.Fatal(err)
	}
	if _, body, err := fetchBody(t, d, "cid:logo.2@example.org"); err != nil || body != logoGIF {
		t.Errorf("cid: after mid: = %q, %v; want the image", body, err)
	}
	// --message FILE is the context, and is found by its Message-ID
	// without a mailbox.
	file := filepath.Join(t.TempDir(), "m.eml")
	os.WriteFile(file, []byte(relatedMsg), 0o600)
	d = &Driver{Message: file}
	if resp, body, err := fetchBody(t, d, "cid:%3Clogo.2@example.org%3E"); err != nil || body != logoGIF || resp.Type != "image/gif" {
		t.Errorf("cid: with --message = %q, %v; want the image", body, err)
	}
	if _, body, err := fetchBody(t, d, "mid:related.2@example.org"); err != nil || body != relatedMsg {
		t.Errorf("mid: of the --message file = %q, %v; want it whole", body, err)
	}
	if _, _, err := fetchBody(t, d, "mid:plain.1@example.org"); !errors.Is(err, fetch.ErrNotFound) {
		t.Errorf("mid: of another message with only --message: error = %v, want ErrNotFound", err)
	}
}

func TestMbox(t *testing.T) {
	// As Postfix writes an mbox (mboxo): a From_ line, "From " quoted,
	// an empty line after each message.
	quote := func(m string) string {
		lines := strings.SplitAfter(m, "\n")
		for i, l := range lines {
			if strings.HasPrefix(strings.TrimLeft(l, ">"), "From ") {
				lines[i] = ">" + l
			}
		}
		return strings.Join(lines, "")
	}
	other := "Message-ID: <other@example.org>\n\nFrom the start.\n"
	box := "From a@example.org  Tue Dec 20 12:00:00 1994\n" + quote(plainMsg) + "\n" +
		"From MAILER-DAEMON  Tue Dec 20 12:01:00 1994\n" + quote(relatedMsg) + "\n" +
		"From b@example.org  Tue Dec 20 12:02:00 1994\n" + quote(other) + "\n"
	crlf := strings.ReplaceAll(box, "\n", "\r\n")
	for name, content := range map[string]string{"lf": box, "crlf": crlf} {
		path := filepath.Join(t.TempDir(), "mbox")
		os.WriteFile(path, []byte(content), 0o600)
		d := &Driver{Mailbox: path}
		for _, tt := range []struct{ id, want string }{
			{"plain.1@example.org", plainMsg},
			{"related.2@example.org", relatedMsg},
			{"other@example.org", other},
		} {
			want := tt.want
			if name == "crlf" {
				want = strings.ReplaceAll(want, "\n", "\r\n")
			}
			resp, body, err := fetchBody(t, d, "mid:"+tt.id)
			if err != nil || body != want || resp.Length != int64(len(want)) {
				t.Errorf("%s: Fetch(mid:%s) = %q (Length %d), %v; want %q (%d)", name, tt.id, body, resp.Length, err, want, len(want))
			}
		}
		if _, body, err := fetchBody(t, d, "mid:related.2@example.org/logo.2@example.org"); err != nil || body != logoGIF {
			t.Errorf("%s: the image part from the mbox = %q, %v", name, body, err)
		}
		if _, _, err := fetchBody(t, d, "mid:none@example.org"); !errors.Is(err, fetch.ErrNotFound) || !strings.Contains(err.Error(), path) {
			t.Errorf("%s: a missing id: error = %v, want ErrNotFound naming %s", name, err, path)
		}
	}
	// A file that is no mbox says so.
	path := filepath.Join(t.TempDir(), "notes.txt")
	os.WriteFile(path, []byte("Dear diary\n"), 0o600)
	if _, _, err := fetchBody(t, &Driver{Mailbox: path}, "mid:a@b"); !errors.Is(err, fetch.ErrProtocol) || !strings.Contains(err.Error(), "not an mbox") {
		t.Errorf("an mbox that is none: error = %v", err)
	}
}

func TestConformance(t *testing.T) {
	dir := newMaildir(t, plainMsg, relatedMsg)
	fetchtest.Run(t, fetchtest.Opt{
		Scheme: "mid",
		Driver: &Driver{Mailbox: dir},
		Found: []fetchtest.Case{
			{URL: "mid:plain.1@example.org", Want: plainMsg, Type: MessageType},
			{URL: "mid:related.2@example.org/logo.2@example.org", Want: logoGIF, Type: "image/gif"},
		},
		Missing: "mid:missing@example.org",
		Listing: "mid:related.2@example.org/",
		Inject:  []string{"mid:a%0D%0Ab@example.org", "mid:plain.1@example.org/a%00b", "mid:a%0Ab@example.org/"},
		Invalid: []string{"mid://host/x@y", "mid:/cid@x"},
	})
}

// Issue 26, point 5: mid: and cid: read the user's mail, so no URL a
// server chose leads there, even when the user lets redirects go to any
// scheme; only a part of the message the user named may be followed from
// it.
func TestPolicyNeverFollowed(t *testing.T) {
	d := &Driver{Mailbox: newMaildir(t, plainMsg, relatedMsg)}
	for _, follow := range [][]string{nil, {"http", "mid", "cid"}} {
		c := &fetch.Client{NetrcFile: "-", FollowSchemes: follow}
		c.Register("mid", d)
		c.Register("cid", d)
		from := uri.MustParse("http://example.org/")
		for _, h := range []fetch.Hop{
			{Kind: fetch.HopRedirect, From: from, To: uri.MustParse("mid:plain.1@example.org")},
			{Kind: fetch.HopLink, From: from, To: uri.MustParse("cid:logo.2@example.org")},
			{Kind: fetch.HopEntry, From: from, To: uri.MustParse("mid:related.2@example.org/logo.2@example.org")},
			// Not even from one message to another, or to a cid:.
			{Kind: fetch.HopLink, From: uri.MustParse("mid:related.2@example.org/html.2@example.org"), To: uri.MustParse("mid:plain.1@example.org")},
			{Kind: fetch.HopLink, From: uri.MustParse("mid:related.2@example.org/html.2@example.org"), To: uri.MustParse("cid:logo.2@example.org")},
			{Kind: fetch.HopRedirect, From: uri.MustParse("mid:related.2@example.org/"), To: uri.MustParse("mid:related.2@example.org/logo.2@example.org")},
		} {
			if err := c.CheckHop(h); !errors.Is(err, fetch.ErrUnsafe) {
				t.Errorf("FollowSchemes %v: CheckHop(%s) = %v, want ErrUnsafe", follow, h, err)
			}
		}
		for _, h := range []fetch.Hop{
			{Kind: fetch.HopEntry, From: uri.MustParse("mid:related.2@example.org/"), To: uri.MustParse("mid:related.2@example.org/logo.2@example.org")},
			{Kind: fetch.HopLink, From: uri.MustParse("mid:related.2@example.org/html.2@example.org"), To: uri.MustParse("mid:related.2@EXAMPLE.org/logo.2@example.org")},
		} {
			if err := c.CheckHop(h); err != nil {
				t.Errorf("FollowSchemes %v: CheckHop(%s) = %v, want nil: a part of the message the user named", follow, h, err)
			}
		}
		if got := c.FollowableSchemes(); strings.Contains(strings.Join(got, ","), "mid") && follow == nil {
			t.Errorf("FollowableSchemes() = %v: mid is no scheme a server may send the Client to", got)
		}
	}
}

func TestNewsFallback(t *testing.T) {
	d := &Driver{Mailbox: newMaildir(t, plainMsg), NewsFallback: true}
	c := &fetch.Client{NetrcFile: "-"}
	c.Register("mid", d)
	var asked []string
	c.Register("news", fetch.DriverFunc(func(ctx context.Context, req *fetch.Request) (*fetch.Response, error) {
		asked = append(asked, req.URL.String())
		return &fetch.Response{Kind: fetch.Document, Type: MessageType, Length: 4, Body: io.NopCloser(strings.NewReader("news"))}, nil
	}))
	// A driver that is no FollowChecker is not followed by default:
	// allow news as the real nntp driver is allowed.
	c.FollowSchemes = []string{"news"}
	resp, body, err := func() (*fetch.Response, string, error) {
		resp, err := c.Fetch(context.Background(), "mid:in-news@example.org")
		if err != nil {
			return nil, "", err
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp, string(b), nil
	}()
	if err != nil || body != "news" || resp.URL.String() != "news:in-news@example.org" {
		t.Fatalf("Fetch(mid:in-news@example.org) with NewsFallback = %q from %v, %v; want the news article", body, resp, err)
	}
	// A message in the mailbox does not go to news, nor does a part.
	if _, body, err := fetchBody(t, d, "mid:plain.1@example.org"); err != nil || body != plainMsg {
		t.Errorf("a message the mailbox holds: %q, %v", body, err)
	}
	if _, _, err := fetchBody(t, d, "mid:in-news@example.org/part@example.org"); !errors.Is(err, fetch.ErrNotFound) {
		t.Errorf("a part of a message not in the mailbox: error = %v, want ErrNotFound", err)
	}
	if len(asked) != 1 {
		t.Errorf("the news driver was asked %v, want once", asked)
	}
}
