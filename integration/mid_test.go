//go:build integration

package integration

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/emersion/go-smtp"
	"github.com/urlfetch/urlfetch/fetch"
	"github.com/urlfetch/urlfetch/fetch/fetchtest"
	"github.com/urlfetch/urlfetch/fetch/mid"
	"github.com/urlfetch/urlfetch/fetch/nntp"
)

// The mid: tests read mail the harness's postfix delivered: to MAILDIR
// (urlfetch@localhost), to the mbox file MBOX (mbox@localhost, written by
// postfix's virtual(8) with From_ lines and "From " quoting), and the same
// Maildir over IMAP from the harness's Dovecot (IMAPS implicit TLS, IMAP
// with STARTTLS, the account IMAP_USER). Each run sends its own messages,
// with Message-IDs no other run has, through postfix's SMTP.

// midMail are the messages one test run sent, delivered.
type midMail struct {
	token   string
	plainID string // a plain message with a "From " line in its body
	relID   string // a multipart/related message: an HTML part and an image part
	htmlCID string
	imgCID  string
	imgData []byte
	// plainFile and relFile are the messages as postfix wrote them to
	// the Maildir.
	plainFile, relFile []byte
}

var (
	midOnce sync.Once
	midSent *midMail
	midErr  error
)

// midMessages sends the test messages once per run and waits for their
// delivery to the Maildir and the mbox.
func midMessages(t *testing.T) *midMail {
	t.Helper()
	smtpAddr, maildir, mbox := addr(t, "SMTP"), env(t, "MAILDIR"), env(t, "MBOX")
	midOnce.Do(func() { midSent, midErr = sendMIDMessages(smtpAddr, maildir, mbox) })
	if midErr != nil {
		t.Fatal(midErr)
	}
	return midSent
}

func sendMIDMessages(smtpAddr, maildir, mbox string) (*midMail, error) {
	b := make([]byte, 8)
	rand.Read(b)
	m := &midMail{token: hex.EncodeToString(b)}
	m.plainID = "plain." + m.token + "@urlfetch.test"
	m.relID = "related." + m.token + "@urlfetch.test"
	m.htmlCID = "html." + m.token + "@urlfetch.test"
	m.imgCID = "img/" + m.token + "@urlfetch.test" // a "/" that a mid: URL encodes
	m.imgData = append([]byte("GIF89a"), bytes.Repeat([]byte{0, 1, 2, 0xff, 0xfe, '\r', '\n'}, 200)...)

	plain := "From: urlfetch tester <tester@urlfetch.test>\r\n" +
		"To: urlfetch@localhost, mbox@localhost\r\n" +
		"Subject: mid test " + m.token + "\r\n" +
		"Message-ID: <" + m.plainID + ">\r\n" +
		"Date: Tue, 20 Dec 1994 12:00:00 +0000\r\n" +
		"\r\n" +
		"A plain message.\r\n" +
		"From here on, a line that an mbox must quote.\r\n" +
		">From here too, already quoted.\r\n"
	img := encodeBase64Lines(m.imgData)
	related := "From: urlfetch tester <tester@urlfetch.test>\r\n" +
		"To: urlfetch@localhost, mbox@localhost\r\n" +
		"Subject: mid related " + m.token + "\r\n" +
		"Message-ID: <" + m.relID + ">\r\n" +
		"MIME-Version: 1.0\r\n" +
		"Content-Type: multipart/related; boundary=\"=_b1\"; type=\"text/html\"\r\n" +
		"\r\n" +
		"--=_b1\r\n" +
		"Content-Type: text/html; charset=utf-8\r\n" +
		"Content-Transfer-Encoding: quoted-printable\r\n" +
		"Content-ID: <" + m.htmlCID + ">\r\n" +
		"\r\n" +
		"<p>caf=C3=A9 <img src=3D\"cid:img%2F" + m.token + "@urlfetch.test\"></p>\r\n" +
		"--=_b1\r\n" +
		"Content-Type: image/gif\r\n" +
		"Content-Transfer-Encoding: base64\r\n" +
		"Content-ID: <" + m.imgCID + ">\r\n" +
		"Content-Disposition: inline; filename=\"logo.gif\"\r\n" +
		"\r\n" +
		img +
		"--=_b1--\r\n"
	for _, msg := range []string{plain, related} {
		if err := smtpSend(smtpAddr, msg); err != nil {
			return nil, err
		}
	}
	var err error
	if m.plainFile, err = waitMaildir(maildir, m.plainID); err != nil {
		return nil, err
	}
	if m.relFile, err = waitMaildir(maildir, m.relID); err != nil {
		return nil, err
	}
	for _, id := range []string{m.plainID, m.relID} {
		if err := waitFile(mbox, "<"+id+">"); err != nil {
			return nil, err
		}
	}
	return m, nil
}

// encodeBase64Lines is b in base64, 76 columns, CRLF line ends.
func encodeBase64Lines(b []byte) string {
	const cols = 76
	var s strings.Builder
	enc := make([]byte, base64.StdEncoding.EncodedLen(len(b)))
	base64.StdEncoding.Encode(enc, b)
	for len(enc) > cols {
		s.Write(enc[:cols])
		s.WriteString("\r\n")
		enc = enc[cols:]
	}
	s.Write(enc)
	s.WriteString("\r\n")
	return s.String()
}

// smtpSend sends msg to urlfetch@localhost and mbox@localhost through the
// harness's postfix, in one transaction.
func smtpSend(addr, msg string) error {
	c, err := smtp.Dial(addr)
	if err != nil {
		return err
	}
	defer c.Close()
	if err := c.Hello("localhost"); err != nil {
		return err
	}
	if err := c.Mail("tester@urlfetch.test", nil); err != nil {
		return err
	}
	for _, to := range []string{"urlfetch@localhost", "mbox@localhost"} {
		if err := c.Rcpt(to, nil); err != nil {
			return err
		}
	}
	w, err := c.Data()
	if err != nil {
		return err
	}
	if _, err := io.WriteString(w, msg); err != nil {
		return err
	}
	if err := w.Close(); err != nil {
		return err
	}
	return c.Quit()
}

// waitMaildir waits for the message with Message-ID id in the Maildir dir
// and returns its file.
func waitMaildir(dir, id string) ([]byte, error) {
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		for _, sub := range []string{"new", "cur"} {
			files, _ := filepath.Glob(filepath.Join(dir, sub, "*"))
			for _, f := range files {
				b, err := os.ReadFile(f)
				if err == nil && bytes.Contains(b, []byte("Message-ID: <"+id+">")) {
					return b, nil
				}
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
	return nil, fmt.Errorf("no message <%s> in %s after 30s", id, dir)
}

// waitFile waits for the file to hold s.
func waitFile(path, s string) error {
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if b, err := os.ReadFile(path); err == nil && bytes.Contains(b, []byte(s)) {
			return nil
		}
		time.Sleep(50 * time.Millisecond)
	}
	return fmt.Errorf("no %q in %s after 30s", s, path)
}

// midClient is the integration Client with its mid driver reading
// mailbox, and a netrc file with the IMAP account's password.
func midClient(t testing.TB, mailbox string) (*fetch.Client, *mid.Driver, *fetchtest.TraceLog) {
	t.Helper()
	c := client(t)
	netrc := filepath.Join(t.TempDir(), "netrc")
	os.WriteFile(netrc, []byte("machine 127.0.0.1 login "+env(t, "IMAP_USER")+" password "+env(t, "IMAP_PASSWORD")+"\n"), 0o600)
	c.NetrcFile = netrc
	d := c.Driver("mid").(*mid.Driver)
	d.Mailbox = mailbox
	log := &fetchtest.TraceLog{}
	next := c.Trace
	c.Trace = func(dir fetch.Direction, line string) {
		log.Add(dir, line)
		next(dir, line)
	}
	return c, d, log
}

// midMailboxes are the harness's mailboxes that hold the test messages:
// how each names them, and how the message comes back from it.
func midMailboxes(t testing.TB) map[string]string {
	return map[string]string{
		"maildir":       env(t, "MAILDIR"),
		"mbox":          env(t, "MBOX"),
		"imaps":         "imaps://" + env(t, "IMAP_USER") + "@" + addr(t, "IMAPS") + "/INBOX",
		"imap+starttls": "imap://" + env(t, "IMAP_USER") + "@" + addr(t, "IMAP") + "/INBOX",
	}
}

// wantWhole is what mid:ID gives of msg, the Maildir file of a message,
// from the mailbox kind: the file itself; from the mbox, the same
// delivery to mbox@localhost; over IMAP, the file with CRLF line ends
// (RFC 3501: a message travels in its canonical form).
func wantWhole(kind string, file []byte) []byte {
	switch kind {
	case "mbox":
		// Postfix writes mboxo: it quotes "From " lines, not ">From "
		// ones, so the file cannot tell the plain message's two lines
		// apart, and both come back as "From " lines (see fetch/mid's
		// mbox).
		b := bytes.ReplaceAll(file, []byte("urlfetch@localhost\n"), []byte("mbox@localhost\n"))
		return bytes.ReplaceAll(b, []byte("\n>From here too"), []byte("\nFrom here too"))
	case "imaps", "imap+starttls":
		return bytes.ReplaceAll(file, []byte("\n"), []byte("\r\n"))
	}
	return file
}

func TestMIDWholeMessage(t *testing.T) {
	m := midMessages(t)
	for kind, box := range midMailboxes(t) {
		t.Run(kind, func(t *testing.T) {
			c, _, log := midClient(t, box)
			for _, tt := range []struct {
				id   string
				file []byte
			}{{m.plainID, m.plainFile}, {m.relID, m.relFile}} {
				raw := mid.PartURL(tt.id, "")
				resp, body := get(t, c, raw)
				want := wantWhole(kind, tt.file)
				if !bytes.Equal(body, want) {
					t.Errorf("Fetch(%q) from %s =\n%s\nwant\n%s", raw, kind, body, want)
				}
				if resp.Type != "message/rfc822" || resp.Length != int64(len(body)) {
					t.Errorf("Fetch(%q) from %s: Type %q, Length %d; want message/rfc822, %d", raw, kind, resp.Type, resp.Length, len(body))
				}
				if got := resp.Meta.Get("Message-Id"); got != "<"+tt.id+">" {
					t.Errorf("Fetch(%q) from %s: Meta Message-Id %q", raw, kind, got)
				}
			}
			if kind == "mbox" && !bytes.Contains(mustRead(t, env(t, "MBOX")), []byte("\n>From here on, a line that an mbox must quote.")) {
				t.Errorf("%s does not quote the plain message's From line: the test checks nothing", env(t, "MBOX"))
			}
			if strings.HasPrefix(kind, "imap") {
				checkIMAPTrace(t, log.Lines(), kind)
			}
		})
	}
}

// A Head of mid:ID from every mailbox says the message's length, type
// and header without transferring it: over IMAP, RFC822.SIZE and no
// BODY.PEEK[] of the message (issue 22, point 2).
func TestMIDHead(t *testing.T) {
	m := midMessages(t)
	for kind, box := range midMailboxes(t) {
		t.Run(kind, func(t *testing.T) {
			c, _, log := midClient(t, box)
			raw := mid.PartURL(m.plainID, "")
			resp, err := fetchtest.Head(t, c, raw) // the Body empty
			if err != nil {
				t.Fatalf("Head %s: %v", raw, err)
			}
			want := int64(len(wantWhole(kind, m.plainFile)))
			if resp.Length != want || resp.Type != "message/rfc822" || resp.Meta.Get("Message-Id") != "<"+m.plainID+">" {
				t.Errorf("Head %s from %s: Length %d (want %d), Type %q, Message-Id %q",
					raw, kind, resp.Length, want, resp.Type, resp.Meta.Get("Message-Id"))
			}
			if strings.HasPrefix(kind, "imap") {
				trace := log.String()
				if !strings.Contains(trace, "RFC822.SIZE") || strings.Contains(trace, "BODY.PEEK[])") {
					t.Errorf("Head over %s: want RFC822.SIZE and no BODY.PEEK[] in the trace:\n%s", kind, trace)
				}
			}
		})
	}
}

// checkIMAPTrace checks what the trace of an IMAP fetch shows: the TLS,
// the LOGIN masked, the mailbox opened read-only.
func checkIMAPTrace(t *testing.T, lines []string, kind string) {
	t.Helper()
	all := strings.Join(lines, "\n")
	for _, want := range []string{"TLS: TLS 1.3", " LOGIN ***", " EXAMINE \"INBOX\"", "UID SEARCH HEADER Message-ID", "BODY.PEEK[]"} {
		if !strings.Contains(all, want) {
			t.Errorf("%s: the trace has no %q:\n%s", kind, want, all)
		}
	}
	if kind == "imap+starttls" && !strings.Contains(all, " STARTTLS") {
		t.Errorf("%s: no STARTTLS in the trace", kind)
	}
	if strings.Contains(all, env(t, "IMAP_PASSWORD")) {
		t.Errorf("%s: the trace shows the IMAP password", kind)
	}
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestMIDPartsByContentID(t *testing.T) {
	m := midMessages(t)
	html := "<p>caf\u00e9 <img src=\"cid:img%2F" + m.token + "@urlfetch.test\"></p>"
	for kind, box := range midMailboxes(t) {
		t.Run(kind, func(t *testing.T) {
			c, d, _ := midClient(t, box)
			raw := mid.PartURL(m.relID, m.imgCID)
			if !strings.Contains(raw, "img%2F") {
				t.Fatalf("PartURL = %q: the content-id's \"/\" must be encoded", raw)
			}
			resp, body := get(t, c, raw)
			if !bytes.Equal(body, m.imgData) || resp.Type != "image/gif" {
				t.Errorf("Fetch(%q) from %s = %d bytes (%s), want the %d bytes of the image (image/gif)", raw, kind, len(body), resp.Type, len(m.imgData))
			}
			raw = mid.PartURL(m.relID, m.htmlCID)
			resp, body = get(t, c, raw)
			if string(body) != html || resp.Type != "text/html; charset=utf-8" {
				t.Errorf("Fetch(%q) from %s = %q (%s), want %q (text/html; charset=utf-8)", raw, kind, body, resp.Type, html)
			}
			// The HTML's cid: link resolves against the message a mid:
			// URL just named.
			if _, body := get(t, c, "cid:img%2F"+m.token+"@urlfetch.test"); !bytes.Equal(body, m.imgData) {
				t.Errorf("cid: after mid: from %s = %d bytes, want the image", kind, len(body))
			}
			// The listing names both parts with their sizes.
			listing := mid.PartURL(m.relID, "") + "/"
			resp, err := c.Fetch(context.Background(), listing)
			if err != nil {
				t.Fatalf("Fetch(%q): %v", listing, err)
			}
			defer resp.Body.Close()
			got := map[string]fetch.Entry{}
			for e, err := range resp.Entries() {
				if err != nil {
					t.Fatalf("Fetch(%q).Entries(): %v", listing, err)
				}
				got[e.Name] = e
			}
			if e := got[m.imgCID]; e.Size != int64(len(m.imgData)) || e.Media != "image/gif" || e.URL != mid.PartURL(m.relID, m.imgCID) || e.Title != "logo.gif" {
				t.Errorf("Fetch(%q): the image's entry = %+v", listing, e)
			}
			if e := got[m.htmlCID]; e.Size != int64(len(html)) || e.Media != "text/html; charset=utf-8" {
				t.Errorf("Fetch(%q): the HTML's entry = %+v", listing, e)
			}
			_ = d
		})
	}
}

func TestMIDMissingNamesMailbox(t *testing.T) {
	midMessages(t)
	for kind, box := range midMailboxes(t) {
		t.Run(kind, func(t *testing.T) {
			c, _, _ := midClient(t, box)
			raw := "mid:no-such-message-" + kind + "@urlfetch.test"
			_, err := c.Fetch(context.Background(), raw)
			shown := box
			if strings.HasPrefix(kind, "imap") {
				shown = strings.TrimSuffix(box, "/INBOX")
			}
			if !errors.Is(err, fetch.ErrNotFound) || !strings.Contains(fmt.Sprint(err), shown) {
				t.Errorf("Fetch(%q) from %s: error %v, want ErrNotFound naming %s", raw, kind, err, shown)
			}
		})
	}
}

// Issue 26, point 5: a Message-ID with a quote or a backslash goes into
// the SEARCH quoted, one with CR or LF never reaches the server, and the
// server sees one command per line.
func TestMIDIMAPSearchInjection(t *testing.T) {
	midMessages(t)
	box := midMailboxes(t)["imaps"]
	c, _, log := midClient(t, box)
	raw := `mid:a%22)%20OR%20ALL%20(%5C@urlfetch.test`
	if _, err := c.Fetch(context.Background(), raw); !errors.Is(err, fetch.ErrNotFound) {
		t.Errorf("Fetch(%q) = %v, want ErrNotFound: the quote must not end the SEARCH's string (OR ALL would match every message)", raw, err)
	}
	if all := strings.Join(log.Lines(), "\n"); !strings.Contains(all, `UID SEARCH HEADER Message-ID "<a\") OR ALL (\\@urlfetch.test>"`) {
		t.Errorf("Fetch(%q): the SEARCH was not sent quoted:\n%s", raw, all)
	}
	// Bytes a quoted string cannot carry go as a literal, announced and
	// counted: they cannot end the command either.
	c, _, log = midClient(t, box)
	raw = "mid:caf%C3%A9%22)%20OR%20ALL%20(@urlfetch.test"
	if _, err := c.Fetch(context.Background(), raw); !errors.Is(err, fetch.ErrNotFound) {
		t.Errorf("Fetch(%q) = %v, want ErrNotFound", raw, err)
	}
	if all := strings.Join(log.Lines(), "\n"); !strings.Contains(all, "UID SEARCH CHARSET UTF-8 HEADER Message-ID {32}") || !strings.Contains(all, "(a literal of 32 bytes)") {
		t.Errorf("Fetch(%q): the SEARCH did not send the id as a literal:\n%s", raw, all)
	}
	c, _, log = midClient(t, box)
	for _, raw := range []string{"mid:a%0D%0Aa1%20LOGOUT@urlfetch.test", "mid:a%0Ab@urlfetch.test"} {
		if _, err := c.Fetch(context.Background(), raw); !errors.Is(err, fetch.ErrUnsafe) {
			t.Errorf("Fetch(%q) = %v, want ErrUnsafe", raw, err)
		}
	}
	if lines := log.Lines(); len(lines) != 0 {
		t.Errorf("a refused Message-ID was traced: %q; want nothing sent, no connection", lines)
	}
}

func TestMIDIMAPWrongPassword(t *testing.T) {
	c, _, log := midClient(t, "imaps://"+env(t, "IMAP_USER")+":not-the-password@"+addr(t, "IMAPS")+"/INBOX")
	_, err := c.Fetch(context.Background(), "mid:any@urlfetch.test")
	if !errors.Is(err, fetch.ErrAuth) || strings.Contains(fmt.Sprint(err), "not-the-password") {
		t.Errorf("a wrong IMAP password: error %v, want ErrAuth without the password", err)
	}
	if all := strings.Join(log.Lines(), "\n"); strings.Contains(all, "not-the-password") {
		t.Errorf("the trace shows the password:\n%s", all)
	}
	// A mailbox that does not exist is not found.
	c, _, _ = midClient(t, "imaps://"+env(t, "IMAP_USER")+"@"+addr(t, "IMAPS")+"/No-Such-Box")
	if _, err := c.Fetch(context.Background(), "mid:any@urlfetch.test"); !errors.Is(err, fetch.ErrNotFound) || !strings.Contains(err.Error(), "No-Such-Box") {
		t.Errorf("a missing IMAP mailbox: error %v, want ErrNotFound naming it", err)
	}
}

// A message-id the mailbox does not hold is fetched from the news server
// when one is set: INN has <hello@urlfetch.test>, the Maildir does not.
func TestMIDNewsFallback(t *testing.T) {
	c, d, log := midClient(t, env(t, "MAILDIR"))
	d.NewsFallback = true
	c.Driver("news").(*nntp.Driver).Server = addr(t, "NNTP")
	resp, body := get(t, c, "mid:hello@urlfetch.test")
	if resp.URL.String() != "news:hello@urlfetch.test" || !bytes.Contains(body, []byte("Message-ID: <hello@urlfetch.test>")) {
		t.Errorf("mid:hello@urlfetch.test with a news server: from %s:\n%s", resp.URL, body)
	}
	if all := strings.Join(log.Lines(), "\n"); !strings.Contains(all, "ARTICLE <hello@urlfetch.test>") {
		t.Errorf("no ARTICLE in the trace:\n%s", all)
	}
	// Without the fallback it is not found, naming the Maildir.
	d.NewsFallback = false
	if _, err := c.Fetch(context.Background(), "mid:hello@urlfetch.test"); !errors.Is(err, fetch.ErrNotFound) || !strings.Contains(err.Error(), env(t, "MAILDIR")) {
		t.Errorf("without the fallback: %v, want ErrNotFound naming the Maildir", err)
	}
}

// Issue 26, point 6: the conformance suite against the mid driver, on the
// Maildir postfix delivers to and on Dovecot's IMAP.
func TestMIDConformance(t *testing.T) {
	m := midMessages(t)
	for _, kind := range []string{"maildir", "imaps"} {
		t.Run(kind, func(t *testing.T) {
			box := midMailboxes(t)[kind]
			fetchtest.Run(t, fetchtest.Opt{
				Scheme: "mid",
				NewClient: func(t testing.TB) *fetch.Client {
					c, _, _ := midClient(t, box)
					return c
				},
				Found: []fetchtest.Case{
					{URL: mid.PartURL(m.plainID, ""), Want: string(wantWhole(kind, m.plainFile)), Type: "message/rfc822"},
					{URL: mid.PartURL(m.relID, m.imgCID), Want: string(m.imgData), Type: "image/gif"},
				},
				Missing: "mid:missing-" + m.token + "@urlfetch.test",
				Listing: mid.PartURL(m.relID, "") + "/",
				Inject:  []string{"mid:a%0D%0Ab@urlfetch.test", "mid:" + m.relID + "/a%00b"},
				Invalid: []string{"mid://host/x@y"},
			})
		})
	}
}

// The command, as a user runs it: --mailbox, a listing, --message with
// cid:, and the exit code of a missing message.
func TestMIDCommand(t *testing.T) {
	m := midMessages(t)
	dir := t.TempDir()
	r := runFetch(t, dir, "--mailbox", env(t, "MAILDIR"), mid.PartURL(m.plainID, ""))
	if r.code != 0 || r.stdout != string(m.plainFile) {
		t.Errorf("fetch --mailbox MAILDIR mid:... = %d %q\n%s", r.code, r.stdout, r.stderr)
	}
	r = runFetch(t, dir, "--mailbox", env(t, "MBOX"), mid.PartURL(m.relID, "")+"/")
	if r.code != 0 || !strings.Contains(r.stdout, m.imgCID) || !strings.Contains(r.stdout, "logo.gif") {
		t.Errorf("fetch --mailbox MBOX mid:.../ = %d %q\n%s", r.code, r.stdout, r.stderr)
	}
	eml := filepath.Join(dir, "saved.eml")
	os.WriteFile(eml, m.relFile, 0o600)
	r = runFetch(t, dir, "--message", eml, "-o", "logo.gif", "cid:img%2F"+m.token+"@urlfetch.test")
	if got, _ := os.ReadFile(filepath.Join(dir, "logo.gif")); r.code != 0 || !bytes.Equal(got, m.imgData) {
		t.Errorf("fetch --message saved.eml -o logo.gif cid:... = %d, %d bytes\n%s", r.code, len(got), r.stderr)
	}
	r = runFetch(t, dir, "--mailbox", env(t, "MAILDIR"), "mid:missing-"+m.token+"@urlfetch.test")
	if r.code != 4 || !strings.Contains(r.stderr, env(t, "MAILDIR")) {
		t.Errorf("fetch mid:missing = %d %q, want exit 4 naming the Maildir", r.code, r.stderr)
	}
}
