//go:build integration

package integration

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/mail"
	"os"
	"os/user"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/urlfetch/urlfetch/fetch"
	"github.com/urlfetch/urlfetch/fetch/fetchtest"
	"github.com/urlfetch/urlfetch/fetch/mailto"
	"github.com/urlfetch/urlfetch/uri"
)

// The harness's postfix (integration/servers/postfix) delivers
// urlfetch@localhost to MAILDIR and other@localhost to MAILDIR2, refuses
// refused@localhost at RCPT with 554 5.7.1, and every other user of
// localhost with 550 5.1.1. It offers STARTTLS, with a certificate of the
// harness's test CA (TLS_CA), which the driver takes: every test here goes
// over TLS. It offers no AUTH: that is tested in fetch/mailto against
// go-smtp's own server.

// mailtoToken returns a string no other message holds, to find the
// message this test sent among everything the Maildir has received.
func mailtoToken(t *testing.T) string {
	t.Helper()
	b := make([]byte, 8)
	rand.Read(b)
	return "urlfetch-" + hex.EncodeToString(b)
}

// mailtoClient returns the integration Client (every driver registered by
// fetch/all) with its mailto driver sending through the harness's postfix,
// and a log of the trace.
func mailtoClient(t *testing.T) (*fetch.Client, *mailto.Driver, *mailtoTrace) {
	t.Helper()
	c := client(t)
	d, ok := c.Driver("mailto").(*mailto.Driver)
	if !ok {
		t.Fatalf("all.NewClient().Driver(\"mailto\") = %T, want *mailto.Driver", c.Driver("mailto"))
	}
	d.Server = addr(t, "SMTP")
	tr := &mailtoTrace{}
	next := c.Trace
	c.Trace = func(dir fetch.Direction, line string) {
		tr.add(string(dir) + " " + line)
		next(dir, line)
	}
	return c, d, tr
}

type mailtoTrace struct {
	mu    sync.Mutex
	lines []string
}

func (m *mailtoTrace) add(line string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.lines = append(m.lines, line)
}

func (m *mailtoTrace) all() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]string(nil), m.lines...)
}

// mailtoSend sends input to rawURL through c.
func mailtoSend(t *testing.T, c *fetch.Client, rawURL string, input io.Reader) (*fetch.Response, string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	req, err := c.NewRequest(rawURL)
	if err != nil {
		t.Fatalf("NewRequest(%q): %v", rawURL, err)
	}
	req.Input = input
	resp, err := c.Do(ctx, req)
	if err != nil {
		return nil, "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("Do(%q): reading the body: %v", rawURL, err)
	}
	return resp, string(b), nil
}

// mailtoDelivered waits for the message holding token to arrive in
// maildir and returns it, as postfix wrote it (LF line ends).
func mailtoDelivered(t *testing.T, maildir, token string) string {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		for _, sub := range []string{"new", "cur"} {
			files, _ := filepath.Glob(filepath.Join(maildir, sub, "*"))
			for _, f := range files {
				b, err := os.ReadFile(f)
				if err == nil && bytes.Contains(b, []byte(token)) {
					return string(b)
				}
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no message with %q in %s after 30s (see %s)", token, maildir, env(t, "SMTP_LOG"))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// postfixFields are the fields postfix puts in front of a delivered
// message.
var postfixFields = []string{"return-path", "x-original-to", "delivered-to", "received"}

// mailtoSplit cuts a delivered message into the fields postfix added in
// front, the message's own header block and its body.
func mailtoSplit(t *testing.T, msg string) (added, header, body string) {
	t.Helper()
	head, body, ok := strings.Cut(msg, "\n\n")
	if !ok {
		t.Fatalf("delivered message has no empty line:\n%s", msg)
	}
	lines := strings.SplitAfter(head+"\n", "\n")
	lines = lines[:len(lines)-1]
	i := 0
	for i < len(lines) {
		name, _, _ := strings.Cut(lines[i], ":")
		known := false
		for _, f := range postfixFields {
			known = known || strings.EqualFold(name, f)
		}
		if !known {
			break
		}
		i++
		for i < len(lines) && (lines[i][0] == ' ' || lines[i][0] == '\t') {
			i++
		}
	}
	return strings.Join(lines[:i], ""), strings.Join(lines[i:], ""), body
}

// fieldValue returns the value of the first field called name in header.
func fieldValue(header, name string) string {
	m, err := mail.ReadMessage(strings.NewReader(header + "\n"))
	if err != nil {
		return ""
	}
	return m.Header.Get(name)
}

var queuedAs = regexp.MustCompile(`^250 2\.0\.0 Ok: queued as ([0-9A-F]+)$`)

// checkSent checks a Response to a sent message and returns its queue id.
func checkSent(t *testing.T, resp *fetch.Response, body string) string {
	t.Helper()
	if resp.Kind != fetch.Sent {
		t.Errorf("Kind = %v, want sent", resp.Kind)
	}
	reply := resp.Meta.Get("Reply")
	m := queuedAs.FindStringSubmatch(reply)
	if m == nil {
		t.Fatalf("Meta Reply = %q, want postfix's \"250 2.0.0 Ok: queued as ID\"", reply)
	}
	if body != reply {
		t.Errorf("Body = %q, want the final reply %q", body, reply)
	}
	if got := resp.Meta.Get("Queue-Id"); got != m[1] {
		t.Errorf("Meta Queue-Id = %q, want %q", got, m[1])
	}
	if resp.Length != int64(len(body)) {
		t.Errorf("Length = %d, want %d", resp.Length, len(body))
	}
	return m[1]
}

// checkDate checks that a Date field parses and is about now.
func checkDate(t *testing.T, date string, sent time.Time) {
	t.Helper()
	d, err := mail.ParseDate(date)
	if err != nil {
		t.Errorf("Date %q: %v", date, err)
		return
	}
	if d.Before(sent.Add(-2*time.Second)) || d.After(time.Now().Add(2*time.Second)) {
		t.Errorf("Date %q = %v, want the time of sending, %v", date, d, sent)
	}
}

// TestMailtoSendReadBack sends a message without a header block; the
// driver writes one. The delivered message, read back from the Maildir,
// holds exactly that header and the body byte for byte, including lines
// that start with "." (one is the lone "." that ends SMTP data) and
// non-ASCII text.
func TestMailtoSendReadBack(t *testing.T) {
	c, d, _ := mailtoClient(t)
	d.From = "urlfetch-sender@localhost"
	token := mailtoToken(t)
	subject := "Grüße " + token
	raw := (&uri.Mailto{To: []string{"urlfetch@localhost"}, Fields: []uri.Field{{Name: "subject", Value: subject}}}).String()
	body := "first line " + token + "\n.starts with a dot\n..two dots\n.\n" +
		"non-ASCII: Grüße, 日本語, ½\n\nafter an empty line\nlast line\n"
	sent := time.Now()
	resp, reply, err := mailtoSend(t, c, raw, strings.NewReader(body))
	if err != nil {
		t.Fatalf("Fetch(%q) error = %v", raw, err)
	}
	queueID := checkSent(t, resp, reply)
	if got := resp.Meta.Get("Server"); got != d.Server {
		t.Errorf("Meta Server = %q, want %q", got, d.Server)
	}
	if got := resp.Meta.Values("Recipient"); len(got) != 1 || got[0] != "urlfetch@localhost" {
		t.Errorf("Meta Recipient = %q, want [urlfetch@localhost]", got)
	}

	msg := mailtoDelivered(t, env(t, "MAILDIR"), token)
	added, header, gotBody := mailtoSplit(t, msg)
	if !strings.Contains(added, "Return-Path: <urlfetch-sender@localhost>\n") {
		t.Errorf("postfix's fields %q: want the envelope sender urlfetch-sender@localhost", added)
	}
	if !strings.Contains(added, " id "+queueID+"\n") {
		t.Errorf("postfix's fields %q: want the queue id %s of the reply", added, queueID)
	}
	if gotBody != body {
		t.Errorf("delivered body = %q, want %q", gotBody, body)
	}

	// The fields whose values vary are checked on their own, then the
	// whole header block byte for byte.
	rawSubject := fieldValue(header, "Subject")
	if dec, err := new(mime.WordDecoder).DecodeHeader(rawSubject); err != nil || dec != subject {
		t.Errorf("Subject %q decodes to %q, %v; want %q", rawSubject, dec, err, subject)
	}
	for _, r := range rawSubject {
		if r > 127 {
			t.Errorf("Subject %q is not ASCII: want RFC 2047 encoded words", rawSubject)
			break
		}
	}
	date := fieldValue(header, "Date")
	checkDate(t, date, sent)
	id := resp.Meta.Get("Message-Id")
	if !regexp.MustCompile(`^<[^<>@\s]+@[^<>@\s]+>$`).MatchString(id) {
		t.Errorf("Meta Message-Id = %q, want <unique@host>", id)
	}
	want := "From: urlfetch-sender@localhost\n" +
		"To: urlfetch@localhost\n" +
		"Subject: " + rawSubject + "\n" +
		"Date: " + date + "\n" +
		"Message-ID: " + id + "\n" +
		"MIME-Version: 1.0\n" +
		"Content-Type: text/plain; charset=utf-8\n" +
		"Content-Transfer-Encoding: 8bit\n"
	if header != want {
		t.Errorf("delivered header =\n%s\nwant\n%s", header, want)
	}
}

// TestMailtoDefaultFrom: without a From setting the sender is the user at
// this host, in the envelope and in the From field.
func TestMailtoDefaultFrom(t *testing.T) {
	c, _, _ := mailtoClient(t)
	u, err := user.Current()
	if err != nil {
		t.Fatal(err)
	}
	host, err := os.Hostname()
	if err != nil {
		t.Fatal(err)
	}
	from := u.Username + "@" + host
	token := mailtoToken(t)
	resp, reply, err := mailtoSend(t, c, "mailto:urlfetch@localhost?subject="+token, strings.NewReader("hello\n"))
	if err != nil {
		t.Fatal(err)
	}
	checkSent(t, resp, reply)
	added, header, _ := mailtoSplit(t, mailtoDelivered(t, env(t, "MAILDIR"), token))
	if got := fieldValue(header, "From"); got != from {
		t.Errorf("From = %q, want %q", got, from)
	}
	if !strings.Contains(added, "Return-Path: <"+from+">\n") {
		t.Errorf("postfix's fields %q: want the envelope sender %s", added, from)
	}
}

// TestMailtoOwnHeader: a message with its own header block gets Date and
// Message-ID when it lacks them, and nothing else changes.
func TestMailtoOwnHeader(t *testing.T) {
	c, d, _ := mailtoClient(t)
	d.From = "urlfetch-sender@localhost"
	d.Subject = "a subject setting that must not be used"

	t.Run("adds Date and Message-ID", func(t *testing.T) {
		token := mailtoToken(t)
		header := "From: Someone Else <someone@example.test>\n" +
			"To: whoever@example.test\n" +
			"Subject:  two  spaces " + token + "\n" +
			"X-Folded: first part\n\tsecond part\n" +
			"Content-Type: text/plain; charset=utf-8\n"
		body := "the body\n.a dot line\nümlaut\n"
		sent := time.Now()
		resp, reply, err := mailtoSend(t, c, "mailto:urlfetch@localhost?subject=ignored", strings.NewReader(header+"\n"+body))
		if err != nil {
			t.Fatal(err)
		}
		checkSent(t, resp, reply)
		_, got, gotBody := mailtoSplit(t, mailtoDelivered(t, env(t, "MAILDIR"), token))
		date := fieldValue(got, "Date")
		checkDate(t, date, sent)
		want := header + "Date: " + date + "\nMessage-ID: " + resp.Meta.Get("Message-Id") + "\n"
		if got != want {
			t.Errorf("delivered header =\n%s\nwant\n%s", got, want)
		}
		if gotBody != body {
			t.Errorf("delivered body = %q, want %q", gotBody, body)
		}
	})

	t.Run("keeps its own Date and Message-ID", func(t *testing.T) {
		token := mailtoToken(t)
		id := "<" + token + "@example.test>"
		header := "Date: Tue, 01 Mar 1994 10:00:00 +0100\n" +
			"From: urlfetch-sender@localhost\n" +
			"message-id: " + id + "\n" +
			"Subject: " + token + "\n"
		body := "only the body\n"
		resp, reply, err := mailtoSend(t, c, "mailto:urlfetch@localhost", strings.NewReader(header+"\n"+body))
		if err != nil {
			t.Fatal(err)
		}
		checkSent(t, resp, reply)
		if got := resp.Meta.Get("Message-Id"); got != id {
			t.Errorf("Meta Message-Id = %q, want the message's own %q", got, id)
		}
		_, got, gotBody := mailtoSplit(t, mailtoDelivered(t, env(t, "MAILDIR"), token))
		if got != header || gotBody != body {
			t.Errorf("delivered message = %q + %q, want it unchanged: %q + %q", got, gotBody, header, body)
		}
	})
}

// TestMailtoRFC6068 sends to the RFC 6068 form: two addresses, a cc, a
// subject and the body in the URL. Each mailbox gets the message.
func TestMailtoRFC6068(t *testing.T) {
	c, d, _ := mailtoClient(t)
	d.From = "urlfetch-sender@localhost"
	token := mailtoToken(t)
	raw := "mailto:urlfetch@localhost?cc=other@localhost&subject=RFC%206068%20" + token +
		"&body=line%20one%0D%0A.line%20two%0D%0A100%25%20sure%0D%0A"
	// The URL's body is the message: the input is not read.
	resp, reply, err := mailtoSend(t, c, raw, strings.NewReader("NOT THE BODY\n"))
	if err != nil {
		t.Fatal(err)
	}
	checkSent(t, resp, reply)
	if got := resp.Meta.Values("Recipient"); strings.Join(got, " ") != "urlfetch@localhost other@localhost" {
		t.Errorf("Meta Recipient = %q, want [urlfetch@localhost other@localhost]", got)
	}
	for _, box := range []string{"MAILDIR", "MAILDIR2"} {
		_, header, body := mailtoSplit(t, mailtoDelivered(t, env(t, box), token))
		for _, f := range []string{"To: urlfetch@localhost\n", "Cc: other@localhost\n", "Subject: RFC 6068 " + token + "\n"} {
			if !strings.Contains(header, f) {
				t.Errorf("%s: header %q lacks %q", box, header, f)
			}
		}
		if want := "line one\n.line two\n100% sure\n"; body != want {
			t.Errorf("%s: body = %q, want %q", box, body, want)
		}
	}
}

// TestMailtoPercentDecoded: %25 in the address is "%" (RFC 1738 section
// 3.5), as the server's own refusal of that user shows.
func TestMailtoPercentDecoded(t *testing.T) {
	c, _, tr := mailtoClient(t)
	_, _, err := mailtoSend(t, c, "mailto:no%25such@localhost", strings.NewReader("x\n"))
	if !errors.Is(err, fetch.ErrNotFound) {
		t.Fatalf("error = %v, want ErrNotFound", err)
	}
	if want := "550 5.1.1 <no%such@localhost>: Recipient address rejected: User unknown"; !strings.Contains(err.Error(), want) {
		t.Errorf("error = %q, want the server's words %q", err, want)
	}
	if !slicesContains(tr.all(), "> RCPT TO:<no%such@localhost>") {
		t.Errorf("trace %q lacks the decoded RCPT TO", tr.all())
	}
}

func slicesContains(lines []string, s string) bool {
	for _, l := range lines {
		if l == s {
			return true
		}
	}
	return false
}

// TestMailtoRefusedRecipient: one refused recipient does not stop the
// message going to the others, and is reported as an error with the
// server's words; a message all of whose recipients are refused is not
// sent.
func TestMailtoRefusedRecipient(t *testing.T) {
	c, d, _ := mailtoClient(t)
	d.From = "urlfetch-sender@localhost"

	t.Run("one of two", func(t *testing.T) {
		token := mailtoToken(t)
		_, _, err := mailtoSend(t, c, "mailto:refused@localhost,urlfetch@localhost?subject="+token, strings.NewReader("to two\n"))
		if !errors.Is(err, fetch.ErrAuth) {
			t.Fatalf("error = %v, want ErrAuth (5.7.1)", err)
		}
		var re *mailto.RecipientError
		if !errors.As(err, &re) {
			t.Fatalf("error = %v, want a *mailto.RecipientError", err)
		}
		if len(re.Accepted) != 1 || re.Accepted[0] != "urlfetch@localhost" || !queuedAs.MatchString(re.Reply) {
			t.Errorf("RecipientError Accepted = %q, Reply = %q; want [urlfetch@localhost] and postfix's queue reply", re.Accepted, re.Reply)
		}
		if len(re.Refused) != 1 || re.Refused[0].Code != 554 || re.Refused[0].Command != "RCPT TO:<refused@localhost>" {
			t.Errorf("RecipientError Refused = %v, want the 554 to RCPT TO:<refused@localhost>", re.Refused)
		}
		msg := err.Error()
		for _, want := range []string{"urlfetch@localhost", re.Reply, "554 5.7.1 <refused@localhost>: Recipient address rejected: refused by the urlfetch test bed"} {
			if !strings.Contains(msg, want) {
				t.Errorf("error = %q, want it to say %q", msg, want)
			}
		}
		mailtoDelivered(t, env(t, "MAILDIR"), token)
	})

	t.Run("all", func(t *testing.T) {
		token := mailtoToken(t)
		_, _, err := mailtoSend(t, c, "mailto:refused@localhost,nobody@localhost?subject="+token, strings.NewReader("to none\n"))
		var re *mailto.RecipientError
		if !errors.As(err, &re) || len(re.Accepted) != 0 || len(re.Refused) != 2 || re.Reply != "" {
			t.Fatalf("error = %v, want a *mailto.RecipientError with two refused and none accepted", err)
		}
		if !errors.Is(err, fetch.ErrAuth) {
			t.Errorf("error = %v, want ErrAuth, the kind of the first refusal", err)
		}
		for _, want := range []string{"refused by the urlfetch test bed", "550 5.1.1 <nobody@localhost>: Recipient address rejected: User unknown in virtual mailbox table"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("error = %q, want the server's words %q", err, want)
			}
		}
	})

	t.Run("unknown user", func(t *testing.T) {
		token := mailtoToken(t)
		_, _, err := mailtoSend(t, c, "mailto:nobody@localhost?subject="+token, strings.NewReader("x\n"))
		if !errors.Is(err, fetch.ErrNotFound) {
			t.Fatalf("error = %v, want ErrNotFound (5.1.1)", err)
		}
		if strings.ContainsAny(err.Error(), "\r\n") {
			t.Errorf("error = %q, want one line", err)
		}
	})
}

// TestMailtoNothingSentWhenRefused: when every recipient is refused no
// message is queued; the first message for another box, sent later, is.
func TestMailtoNothingSentWhenRefused(t *testing.T) {
	c, _, tr := mailtoClient(t)
	token := mailtoToken(t)
	_, _, err := mailtoSend(t, c, "mailto:refused@localhost?subject="+token, strings.NewReader("x\n"))
	if err == nil {
		t.Fatal("error = nil, want the refusal")
	}
	if slicesContains(tr.all(), "> DATA") {
		t.Errorf("trace %q has DATA; want no message sent", tr.all())
	}
}

// TestMailtoRefusedSender: postfix refuses a sender it cannot parse (an
// address literal that is no address) with 501; the error carries the
// reply.
func TestMailtoRefusedSender(t *testing.T) {
	c, d, tr := mailtoClient(t)
	d.From = "urlfetch@[300.1.1.1]"
	_, _, err := mailtoSend(t, c, "mailto:urlfetch@localhost", strings.NewReader("x\n"))
	var re *mailto.ReplyError
	if !errors.As(err, &re) || re.Code != 501 || re.Command != "MAIL FROM:<urlfetch@[300.1.1.1]>" {
		t.Fatalf("error = %v, want a *mailto.ReplyError, 501 to MAIL FROM", err)
	}
	if want := "MAIL FROM:<urlfetch@[300.1.1.1]>: 501 5.1.7 Bad sender address syntax"; !strings.Contains(err.Error(), want) {
		t.Errorf("error = %q, want %q", err, want)
	}
	for _, l := range tr.all() {
		if strings.HasPrefix(l, "> RCPT") {
			t.Errorf("traced %q after the sender was refused", l)
		}
	}
}

// TestMailtoServerDown: nothing listens at the SMTP server's address.
func TestMailtoServerDown(t *testing.T) {
	c, d, _ := mailtoClient(t)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	d.Server = l.Addr().String()
	l.Close()
	_, _, err = mailtoSend(t, c, "mailto:urlfetch@localhost", strings.NewReader("x\n"))
	if !errors.Is(err, fetch.ErrConnect) {
		t.Fatalf("error = %v, want ErrConnect", err)
	}
	for _, want := range []string{d.Server, "connection refused"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error = %q, want it to name %q", err, want)
		}
	}
}

// TestMailtoUnsafe: a decoded CR or LF in an address or a header value
// from the URL is refused before anything is sent (not even a dial).
func TestMailtoUnsafe(t *testing.T) {
	c, _, tr := mailtoClient(t)
	for _, raw := range []string{
		"mailto:urlfetch%0D%0A@localhost",
		"mailto:urlfetch@localhost%0ARCPT%20TO:%3Cother@localhost%3E",
		"mailto:urlfetch@localhost?subject=hi%0D%0ABcc:%20other@localhost",
		"mailto:urlfetch@localhost?cc=other@localhost%0D%0A",
		"mailto:urlfetch@localhost?bcc=other%0A@localhost",
		"mailto:urlfetch@localhost?in-reply-to=%3Ca@b%3E%0AX-Evil:%201",
		"mailto:urlfetch@localhost?subject=nul%00byte",
		"mailto:urlfetch@localhost?body=a%00b",
	} {
		_, _, err := mailtoSend(t, c, raw, strings.NewReader("x\n"))
		if !errors.Is(err, fetch.ErrUnsafe) {
			t.Errorf("Fetch(%q) error = %v, want ErrUnsafe", raw, err)
		}
		if err != nil && strings.ContainsAny(err.Error(), "\r\n") {
			t.Errorf("Fetch(%q) error = %q, want one line", raw, err)
		}
	}
	if lines := tr.all(); len(lines) > 0 {
		t.Errorf("traced %q; want nothing sent, nothing dialed", lines)
	}
}

// TestMailtoBadAddress: an address that is no RFC 5322 addr-spec is
// refused before anything is sent.
func TestMailtoBadAddress(t *testing.T) {
	c, _, tr := mailtoClient(t)
	for _, tc := range []struct{ url, addr string }{
		{"mailto:no-at-sign", "no-at-sign"},
		{"mailto:a..b@localhost", "a..b@localhost"},
		{"mailto:urlfetch@", "urlfetch@"},
		{"mailto:two@at@localhost", "two@at@localhost"},
		{"mailto:urlfetch@localhost?cc=not%20an%20address", "not an address"},
		{"mailto:%3Curlfetch@localhost%3E", "<urlfetch@localhost>"},
	} {
		_, _, err := mailtoSend(t, c, tc.url, strings.NewReader("x\n"))
		var ae *mailto.AddressError
		if !errors.Is(err, fetch.ErrURL) || !errors.As(err, &ae) || ae.Addr != tc.addr {
			t.Errorf("Fetch(%q) error = %v, want ErrURL and a *mailto.AddressError for %q", tc.url, err, tc.addr)
			continue
		}
		if !strings.Contains(err.Error(), fmt.Sprintf("%q", tc.addr)) {
			t.Errorf("Fetch(%q) error = %q, want it to quote the address", tc.url, err)
		}
	}
	if lines := tr.all(); len(lines) > 0 {
		t.Errorf("traced %q; want nothing sent, nothing dialed", lines)
	}
}

// TestMailtoConformance runs the conformance suite against postfix. A
// mailto URL designates no object (RFC 1738 section 3.5): its Found case
// is a sent message (Kind Sent, the Body the server's reply), so Offset
// does not apply; there is no listing, and neither a password nor a port
// in a mailto URL (Secret and PortPolicy skip).
// Missing is a user postfix does not know (550 5.1.1), Denied the one it
// refuses (554 5.7.1). The Stall server, the one fake, is a listener that
// accepts and never greets: no real server does that on purpose.
func TestMailtoConformance(t *testing.T) {
	smtpAddr := addr(t, "SMTP")
	var mu sync.Mutex
	stalled := map[testing.TB]string{} // the checks that asked for the Stall URL
	fetchtest.Run(t, fetchtest.Opt{
		Scheme: "mailto",
		NewClient: func(t testing.TB) *fetch.Client {
			d := &mailto.Driver{Server: smtpAddr, From: "urlfetch-sender@localhost"}
			mu.Lock()
			if a, ok := stalled[t]; ok {
				d.Server = a
			}
			mu.Unlock()
			c := &fetch.Client{NetrcFile: "-", TLSConfig: testTLS(t)}
			c.Register("mailto", d)
			return c
		},
		Found: []fetchtest.Case{
			{URL: "mailto:urlfetch@localhost?subject=conformance&body=fetchtest%20Found", Kind: fetch.Sent, Type: "text/plain"},
			{URL: "mailto:urlfetch@localhost,other@localhost?subject=conformance", Kind: fetch.Sent},
		},
		Missing: "mailto:nobody@localhost",
		Denied:  "mailto:refused@localhost",
		Stall: func(t testing.TB) string {
			mu.Lock()
			stalled[t] = fetchtest.SilentServer(t)
			mu.Unlock()
			return "mailto:urlfetch@localhost?subject=stall"
		},
		Inject: []string{
			"mailto:urlfetch@localhost%0D%0ADATA",
			"mailto:urlfetch@localhost?subject=a%0D%0AX-Injected:%201",
			"mailto:urlfetch@localhost?cc=other@localhost%00",
		},
		Caps: fetchtest.Caps{NoHead: true},
	})
}

// TestMailtoCommand runs the fetch command as a user does: the message
// on standard input or in a --body file, one line saying where it went,
// and a non-zero exit code for a refused recipient.
func TestMailtoCommand(t *testing.T) {
	smtpAddr := addr(t, "SMTP")
	sentLine := regexp.MustCompile(`^fetch: sent to (\S+): 250 2\.0\.0 Ok: queued as [0-9A-F]+\n$`)

	t.Run("stdin", func(t *testing.T) {
		token := mailtoToken(t)
		r := runFetchInput(t, t.TempDir(), "from stdin\n.dot\n", "--smtp-server", smtpAddr, "--from", "cli@localhost", "--subject", token, "mailto:urlfetch@localhost")
		if r.code != 0 {
			t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
		}
		if m := sentLine.FindStringSubmatch(r.stderr); m == nil || m[1] != "mailto:urlfetch@localhost" {
			t.Errorf("stderr = %q, want one line \"fetch: sent to mailto:urlfetch@localhost: 250 ...\"", r.stderr)
		}
		if r.stdout != "" {
			t.Errorf("stdout = %q, want nothing", r.stdout)
		}
		_, header, body := mailtoSplit(t, mailtoDelivered(t, env(t, "MAILDIR"), token))
		if fieldValue(header, "From") != "cli@localhost" || fieldValue(header, "Subject") != token || body != "from stdin\n.dot\n" {
			t.Errorf("delivered %q + %q, want From cli@localhost, Subject %s, the body from stdin", header, body, token)
		}
	})

	t.Run("body file", func(t *testing.T) {
		token := mailtoToken(t)
		file := filepath.Join(t.TempDir(), "message.txt")
		if err := os.WriteFile(file, []byte("Subject: "+token+"\nFrom: cli@localhost\n\nfrom the file\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		r := runFetchInput(t, t.TempDir(), "NOT THE MESSAGE\n", "--smtp-server", smtpAddr, "--from", "cli@localhost", "--body", file, "mailto:urlfetch@localhost")
		if r.code != 0 || !sentLine.MatchString(r.stderr) {
			t.Fatalf("exit %d, stderr %q; want 0 and the sent line", r.code, r.stderr)
		}
		_, header, body := mailtoSplit(t, mailtoDelivered(t, env(t, "MAILDIR"), token))
		if !strings.HasPrefix(header, "Subject: "+token+"\n") || body != "from the file\n" {
			t.Errorf("delivered %q + %q, want the file's message", header, body)
		}
	})

	t.Run("refused recipient", func(t *testing.T) {
		token := mailtoToken(t)
		r := runFetchInput(t, t.TempDir(), "x\n", "-v", "--smtp-server", smtpAddr, "--from", "cli@localhost", "--subject", token, "mailto:urlfetch@localhost,refused@localhost")
		if r.code != 5 {
			t.Errorf("exit %d, want 5 (not authorized: 554 5.7.1)", r.code)
		}
		for _, want := range []string{"> MAIL FROM:<cli@localhost>", "< 554 5.7.1 <refused@localhost>", "refused by the urlfetch test bed"} {
			if !strings.Contains(r.stderr, want) {
				t.Errorf("stderr = %q, want %q", r.stderr, want)
			}
		}
		mailtoDelivered(t, env(t, "MAILDIR"), token)
	})

	t.Run("smtp-user without AUTH", func(t *testing.T) {
		// postfix here offers no AUTH: the login the user asked for
		// cannot happen, and nothing is sent.
		r := runFetchInput(t, t.TempDir(), "x\n", "-v", "--smtp-server", smtpAddr, "--smtp-user", "ann", "mailto:urlfetch@localhost")
		if r.code != 5 || !strings.Contains(r.stderr, "offers no AUTH, cannot log in as ann") {
			t.Errorf("exit %d, stderr %q; want 5 and no AUTH", r.code, r.stderr)
		}
		if strings.Contains(r.stderr, "> MAIL") {
			t.Errorf("stderr = %q, want no MAIL sent", r.stderr)
		}
	})

	t.Run("bad from", func(t *testing.T) {
		r := runFetchInput(t, t.TempDir(), "x\n", "--smtp-server", smtpAddr, "--from", "not an address", "mailto:urlfetch@localhost")
		if r.code != 2 || !strings.Contains(r.stderr, "--from") {
			t.Errorf("exit %d, stderr %q; want 2, a usage error about --from", r.code, r.stderr)
		}
	})
}

// TestMailtoSTARTTLS: postfix offers STARTTLS and the driver takes it with
// the Client's TLS settings (here: trust the test CA), says so in the
// trace with the server certificate's subject, and in the Response's Meta;
// postfix's Received field says the message came over TLS.
func TestMailtoSTARTTLS(t *testing.T) {
	c, d, tr := mailtoClient(t)
	d.From = "tls@localhost"
	token := mailtoToken(t)
	resp, body, err := mailtoSend(t, c, "mailto:urlfetch@localhost?subject="+token, strings.NewReader("over TLS\n"))
	if err != nil {
		t.Fatal(err)
	}
	checkSent(t, resp, body)
	if got := resp.Meta.Get("Tls"); !strings.HasPrefix(got, "TLS 1.") {
		t.Errorf("Meta Tls = %q, want the TLS version", got)
	}
	lines := tr.all()
	subject := fmt.Sprintf("subject %q", env(t, "TLS_SERVER_SUBJECT"))
	var tlsLine, certLine bool
	for _, l := range lines {
		tlsLine = tlsLine || strings.HasPrefix(l, "* TLS: TLS 1.")
		certLine = certLine || strings.HasPrefix(l, "* TLS certificate: ") && strings.Contains(l, subject)
	}
	if !slicesContains(lines, "> STARTTLS") || !tlsLine || !certLine {
		t.Errorf("trace lacks STARTTLS, the TLS line or the certificate's %s:\n%s", subject, strings.Join(lines, "\n"))
	}
	added, _, _ := mailtoSplit(t, mailtoDelivered(t, env(t, "MAILDIR"), token))
	if !strings.Contains(added, "(using TLSv1.") {
		t.Errorf("postfix's fields %q do not say the message came over TLS", added)
	}
}

// TestMailtoCommandTLS: the command trusts what --cacert names, or skips
// the check with -k; trusting neither (the system's roots do not know the
// test CA), it stops at the handshake with exit 11 (ErrTLS), naming the
// host and saying how to trust it, and sends nothing.
func TestMailtoCommandTLS(t *testing.T) {
	smtpAddr := addr(t, "SMTP")
	subject := fmt.Sprintf("subject %q", env(t, "TLS_SERVER_SUBJECT"))
	send := func(t *testing.T, run func(t testing.TB, dir, input string, args ...string) cmdResult, opts ...string) (cmdResult, string) {
		token := mailtoToken(t)
		args := append(opts, "-v", "--smtp-server", smtpAddr, "--from", "cli@localhost", "--subject", token, "mailto:urlfetch@localhost")
		return run(t, t.TempDir(), "x\n", args...), token
	}

	t.Run("cacert", func(t *testing.T) {
		r, token := send(t, runFetchInput, "--ssl-reqd")
		if r.code != 0 || !strings.Contains(r.stderr, "* TLS: TLS 1.") || !strings.Contains(r.stderr, subject) {
			t.Errorf("exit %d, stderr %q; want 0, the TLS line and the certificate's %s", r.code, r.stderr, subject)
		}
		mailtoDelivered(t, env(t, "MAILDIR"), token)
	})

	t.Run("untrusted", func(t *testing.T) {
		r, _ := send(t, execFetch)
		if r.code != 11 {
			t.Errorf("exit %d, want 11 (TLS failed)", r.code)
		}
		for _, want := range []string{"the certificate of 127.0.0.1 is not trusted", "--cacert", "-k"} {
			if !strings.Contains(r.stderr, want) {
				t.Errorf("stderr = %q, want %q", r.stderr, want)
			}
		}
		if strings.Contains(r.stderr, "> MAIL") {
			t.Errorf("stderr = %q, want nothing sent after the handshake failed", r.stderr)
		}
	})

	t.Run("insecure", func(t *testing.T) {
		r, token := send(t, execFetch, "-k")
		if r.code != 0 || !strings.Contains(r.stderr, "* TLS: TLS 1.") {
			t.Errorf("exit %d, stderr %q; want 0 over TLS", r.code, r.stderr)
		}
		mailtoDelivered(t, env(t, "MAILDIR"), token)
	})
}
