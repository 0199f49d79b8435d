package mailto

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"mime"
	"net/mail"
	"strings"
	"testing"
	"time"

	"github.com/urlfetch/urlfetch/fetch"
)

func TestReadHead(t *testing.T) {
	long := strings.Repeat("x", 2*MaxHeader) // read 4096 bytes (bufio's buffer) at a time
	for _, tc := range []struct {
		name, in    string
		header      bool
		raw, blank  string
		date        bool
		messageID   string
		errKind     error
		nonASCIIHdr bool
	}{
		{name: "empty", in: "", raw: ""},
		{name: "text", in: "Hello Ann,\nhow are you?\n", raw: "Hello Ann,\n"},
		{name: "fields", in: "Subject: hi\nTo: a@b\n\nbody\n", header: true, raw: "Subject: hi\nTo: a@b\n", blank: "\n"},
		{name: "CRLF", in: "Subject: hi\r\nX-A: 1\r\n\r\nbody", header: true, raw: "Subject: hi\r\nX-A: 1\r\n", blank: "\r\n"},
		{name: "continuation", in: "Subject: a\n\tlong one\n  and more\n\nb", header: true, raw: "Subject: a\n\tlong one\n  and more\n", blank: "\n"},
		{name: "empty value", in: "Subject:\n\nb", header: true, raw: "Subject:\n", blank: "\n"},
		{name: "no empty line", in: "Note: call me\n", raw: "Note: call me\n"},
		{name: "no end at all", in: "Note: call me", raw: "Note: call me"},
		{name: "text after fields", in: "Re: your letter\nthanks!\n\nAnn\n", raw: "Re: your letter\nthanks!\n"},
		{name: "mbox From line", in: "From ann Tue Mar  1 10:00:00 1994\nSubject: x\n\n", raw: "From ann Tue Mar  1 10:00:00 1994\n"},
		{name: "space before colon", in: "Subject : x\n\nb", raw: "Subject : x\n"},
		{name: "starts empty", in: "\nSubject: x\n\n", raw: "\n"},
		{name: "starts with space", in: " Subject: x\n\n", raw: " Subject: x\n"},
		{name: "Date and Message-ID", in: "date: now\nMessage-Id:  <a@b> \n\n", header: true, raw: "date: now\nMessage-Id:  <a@b> \n", blank: "\n", date: true, messageID: "<a@b>"},
		{name: "non-ASCII field", in: "Subject: Grüße\n\nb", header: true, raw: "Subject: Grüße\n", blank: "\n", nonASCIIHdr: true},
		{name: "long first line of text", in: long + "\nmore\n", raw: long[:MaxHeader+4096]},
		{name: "long field", in: "X-Long: " + long + "\n\n", errKind: fetch.ErrUnsupported},
		{name: "many fields", in: strings.Repeat("X-Field: 0123456789\n", MaxHeader/20+1) + "\n", errKind: fetch.ErrUnsupported},
	} {
		t.Run(tc.name, func(t *testing.T) {
			br := bufio.NewReader(strings.NewReader(tc.in))
			h, err := readHead(br)
			if tc.errKind != nil {
				if !errors.Is(err, tc.errKind) {
					t.Fatalf("readHead(%.40q) error = %v, want %v", tc.in, err, tc.errKind)
				}
				return
			}
			if err != nil {
				t.Fatalf("readHead(%.40q) error = %v", tc.in, err)
			}
			if h.hasHeader() != tc.header || string(h.raw) != tc.raw || string(h.blank) != tc.blank {
				t.Errorf("readHead(%.40q) = header %v, raw %.40q, blank %q; want %v, %.40q, %q", tc.in, h.hasHeader(), h.raw, h.blank, tc.header, tc.raw, tc.blank)
			}
			if h.hasDate != tc.date || h.messageID != tc.messageID || h.nonASCII != tc.nonASCIIHdr {
				t.Errorf("readHead(%.40q) = date %v, Message-ID %q, non-ASCII %v; want %v, %q, %v", tc.in, h.hasDate, h.messageID, h.nonASCII, tc.date, tc.messageID, tc.nonASCIIHdr)
			}
			rest, _ := io.ReadAll(br)
			if got := string(h.raw) + string(h.blank) + string(rest); got != tc.in {
				t.Errorf("readHead(%.40q): start and rest = %.40q, want every byte of the input back", tc.in, got)
			}
		})
	}
}

func TestHeaderFormat(t *testing.T) {
	date := time.Date(1994, 12, 20, 17, 5, 0, 0, time.FixedZone("", -8*3600))
	f := headerFields{
		From:      &mail.Address{Name: "Ann Smith", Address: "ann@example.org"},
		To:        []string{"bob@example.org", "a%b@host.dom"},
		Cc:        []string{"cy@example.org"},
		Subject:   "Grüße",
		Extra:     []field{{"In-Reply-To", "<x@y>"}, {"Keywords", "plain"}},
		Date:      date,
		MessageID: "<id@host>",
	}
	want := "From: \"Ann Smith\" <ann@example.org>\r\n" +
		"To: bob@example.org, a%b@host.dom\r\n" +
		"Cc: cy@example.org\r\n" +
		"Subject: =?utf-8?q?Gr=C3=BC=C3=9Fe?=\r\n" +
		"In-Reply-To: <x@y>\r\n" +
		"Keywords: plain\r\n" +
		"Date: Tue, 20 Dec 1994 17:05:00 -0800\r\n" +
		"Message-ID: <id@host>\r\n" +
		"MIME-Version: 1.0\r\n" +
		"Content-Type: text/plain; charset=utf-8\r\n" +
		"Content-Transfer-Encoding: 8bit\r\n" +
		"\r\n"
	if got := string(f.format()); got != want {
		t.Errorf("format() =\n%s\nwant\n%s", got, want)
	}
	// Without a name, a Cc or a Subject.
	f = headerFields{From: &mail.Address{Address: "ann@example.org"}, To: []string{"bob@example.org"}, Date: date, MessageID: "<id@host>"}
	if got := string(f.format()); !strings.HasPrefix(got, "From: ann@example.org\r\nTo: bob@example.org\r\nDate: ") {
		t.Errorf("format() = %q, want From, To, Date and no Cc or Subject", got)
	}
}

// TestWriteFieldFolds: RFC 5322 section 2.2.3, long values fold before
// white space and unfold to what they were; encoded words too.
func TestWriteFieldFolds(t *testing.T) {
	for _, value := range []string{
		strings.Repeat("word ", 40) + "end",
		strings.Repeat("x", 100) + " y",
		"two  spaces " + strings.Repeat("and more words ", 10),
		encodeText(strings.Repeat("Grüße aus Zürich, ", 8)),
		strings.Repeat("z", 200),
	} {
		var b bytes.Buffer
		writeField(&b, "Subject", value)
		got := b.String()
		if !strings.HasSuffix(got, "\r\n") {
			t.Fatalf("writeField(%q) = %q, want a CRLF end", value, got)
		}
		lines := strings.Split(strings.TrimSuffix(got, "\r\n"), "\r\n")
		for i, l := range lines {
			if i > 0 && !strings.HasPrefix(l, " ") {
				t.Errorf("writeField(%q): line %q continues without white space", value, l)
			}
			if len(l) > foldAt && strings.Contains(strings.TrimSpace(l), " ") && i > 0 {
				t.Errorf("writeField(%q): line %q is longer than %d though it could fold", value, l, foldAt)
			}
			if strings.TrimSpace(l) == "" {
				t.Errorf("writeField(%q): line %d is only white space", value, i)
			}
		}
		if unfolded := strings.ReplaceAll(got, "\r\n", ""); unfolded != "Subject: "+value {
			t.Errorf("writeField(%q) unfolds to %q", value, unfolded)
		}
	}
	if dec, err := new(mime.WordDecoder).DecodeHeader(encodeText("Grüße aus Zürich")); err != nil || dec != "Grüße aus Zürich" {
		t.Errorf("encodeText round trip = %q, %v", dec, err)
	}
}

func TestAdditions(t *testing.T) {
	date := time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC)
	for _, tc := range []struct {
		h    head
		want string
	}{
		{head{}, "Date: Tue, 02 Jan 2024 03:04:05 +0000\r\nMessage-ID: <n@h>\r\n"},
		{head{hasDate: true}, "Message-ID: <n@h>\r\n"},
		{head{messageID: "<m@h>"}, "Date: Tue, 02 Jan 2024 03:04:05 +0000\r\n"},
		{head{hasDate: true, messageID: "<m@h>"}, ""},
	} {
		if got := string(tc.h.additions(date, "<n@h>")); got != tc.want {
			t.Errorf("head{date %v, id %q}.additions() = %q, want %q", tc.h.hasDate, tc.h.messageID, got, tc.want)
		}
	}
}

// blockedReader blocks every Read until done is closed; started says a
// Read has begun.
type blockedReader struct{ started, done chan struct{} }

func (b blockedReader) Read(p []byte) (int, error) {
	close(b.started)
	<-b.done
	return 0, io.EOF
}

// TestCtxReaderBlocked: a source that blocks (a terminal nobody types
// at) does not keep a cancelled read waiting.
func TestCtxReaderBlocked(t *testing.T) {
	src := blockedReader{make(chan struct{}), make(chan struct{})}
	defer close(src.done)
	ctx, cancel := context.WithCancel(context.Background())
	r := &ctxReader{ctx: ctx, r: src}
	errc := make(chan error, 1)
	go func() {
		_, err := r.Read(make([]byte, 10))
		errc <- err
	}()
	<-src.started
	cancel()
	select {
	case err := <-errc:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("Read after cancel() = %v, want context.Canceled", err)
		}
	case <-time.After(time.Second):
		t.Fatal("Read still blocked a second after cancel()")
	}
	if n, err := r.Read(make([]byte, 10)); n != 0 || !errors.Is(err, context.Canceled) {
		t.Errorf("second Read = %d, %v; want 0, context.Canceled", n, err)
	}
}

func TestCtxReaderReads(t *testing.T) {
	in := strings.Repeat("0123456789", 10000)
	b, err := io.ReadAll(&ctxReader{ctx: context.Background(), r: strings.NewReader(in)})
	if err != nil || string(b) != in {
		t.Errorf("ReadAll(ctxReader) = %d bytes, %v; want the %d bytes of the source", len(b), err, len(in))
	}
}
