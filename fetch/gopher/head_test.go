package gopher_test

import (
	"errors"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/urlfetch/urlfetch/fetch"
	"github.com/urlfetch/urlfetch/fetch/fetchtest"
	"github.com/urlfetch/urlfetch/fetch/gopher"
)

// transfers reports whether a traced gopher request line (a quoted Go
// string) asks for the item rather than its attributes.
func transfers(line string) bool { return !strings.Contains(line, `\t!`) }

func headClient() *fetch.Client {
	c := &fetch.Client{NetrcFile: "-"}
	c.Register("gopher", &gopher.Driver{})
	return c
}

// Issue 22, point 2: an item the URL marks as Gopher+ is asked with "!",
// and its attribute blocks are the metadata: +ADMIN's Mod-Date the time,
// the first +VIEWS entry the media type, every block in Meta. The view,
// form or data block the URL names is never sent.
func TestHeadAttributes_FakeServer(t *testing.T) {
	s := newFakeServer(t)
	host, port := s.hostPort()
	s.Reply("/doc\t!", "+-1\r\n+INFO: 9doc\t/doc\t"+host+"\t"+strconv.Itoa(port)+"\t+\r\n+ADMIN:\r\n Admin: someone <a@b>\r\n Mod-Date: Tue Dec 20 10:00:00 1994 <19941220100000>\r\n+VIEWS:\r\n Image/GIF En_US: <12k>\r\n text/plain: <1k>\r\n+ABSTRACT:\r\n A picture.\r\n.\r\n")
	c := headClient()
	for _, raw := range []string{
		s.URL("/9/doc%09%09+"),
		s.URL("/9/doc%09%09+image/gif"),
		s.URL("/9/doc%09%09?"),
		s.URL("/9/doc%09%09+%0D%0A1%0D%0Ax%0D%0A.%0D%0A"),
	} {
		resp, err := fetchtest.Head(t, c, raw)
		if err != nil {
			t.Errorf("Head(%q) = %v", raw, err)
			continue
		}
		if resp.Kind != fetch.Document || resp.Length != -1 || !resp.Modified.Equal(time.Date(1994, 12, 20, 10, 0, 0, 0, time.UTC)) || resp.Status != "+-1" {
			t.Errorf("Head(%q) = %v, Length %d, Modified %v, Status %q", raw, resp.Kind, resp.Length, resp.Modified, resp.Status)
		}
		if resp.Type != "application/octet-stream" && resp.Type != "image/gif" {
			t.Errorf("Head(%q).Type = %q", raw, resp.Type)
		}
		if got := resp.Meta["Gopher-Views"]; !slices.Equal(got, []string{"Image/GIF En_US: <12k>", "text/plain: <1k>"}) {
			t.Errorf("Head(%q) Meta Gopher-Views = %q", raw, got)
		}
		if resp.Meta.Get("Gopher-Abstract") != "A picture." {
			t.Errorf("Head(%q) Meta = %v", raw, resp.Meta)
		}
	}
	for _, got := range s.Got() {
		if got != "/doc\t!\r\n" {
			t.Errorf("the Heads sent %q; want only the \"!\" request", got)
		}
	}
}

// RFC 1436 has no metadata request: a URL that does not mark its item
// as Gopher+ is answered without a connection.
func TestHeadPlain_FakeServer(t *testing.T) {
	s := newFakeServer(t)
	c := headClient()
	for raw, want := range map[string]struct {
		kind fetch.Kind
		typ  string
	}{
		s.URL("/0/a"):              {fetch.Document, "text/plain"},
		s.URL("/9/b"):              {fetch.Document, "application/octet-stream"},
		s.URL("/1/c"):              {fetch.Listing, gopher.MenuType},
		s.URL("/7/search"):         {fetch.Listing, gopher.MenuType}, // no words asked for
		s.URL("/I/image"):          {fetch.Document, ""},             // only the bytes would tell
		s.URL("/"):                 {fetch.Listing, gopher.MenuType},
		s.URL("/0/a%0D%0Ab%09%09"): {}, // refused, as for a fetch
	} {
		resp, err := fetchtest.Head(t, c, raw)
		if want.kind == 0 {
			if !errors.Is(err, fetch.ErrUnsafe) {
				t.Errorf("Head(%q) = %v, want ErrUnsafe", raw, err)
			}
			continue
		}
		if err != nil || resp.Kind != want.kind || resp.Type != want.typ || resp.Length != -1 || resp.Meta.Get("Gopher-Metadata") == "" {
			t.Errorf("Head(%q) = %+v, %v; want %v of %q from the URL", raw, resp, err, want.kind, want.typ)
		}
	}
	if got := s.Got(); len(got) > 0 {
		t.Errorf("the Heads sent %q; want no connection", got)
	}
	if _, err := fetchtest.Head(t, c, s.URL("/8/telnet")); !errors.Is(err, fetch.ErrUnsupported) {
		t.Errorf("Head of a telnet item = %v, want ErrUnsupported", err)
	}
}

// What a hostile or broken server answers to "!": the document itself
// (not Gopher+ after all), a Gopher+ error, blocks without end, lines
// without end, a view that names no type, a Mod-Date no calendar has.
// Each ends in a bounded time with the metadata that can be trusted or a
// classified error.
func TestHeadHostile_FakeServer(t *testing.T) {
	tests := []struct {
		name  string
		reply string
		err   error
		check func(t *testing.T, resp *fetch.Response)
	}{
		{"the document", "\x1b[2JHello, world.\r\n" + strings.Repeat("more text\r\n", 10000), nil, func(t *testing.T, resp *fetch.Response) {
			if m := resp.Meta.Get("Gopher-Metadata"); !strings.Contains(m, "no attribute blocks") || !strings.Contains(m, `\x1b[2J`) {
				t.Errorf("Meta Gopher-Metadata = %q; want it to say so, the reply's bytes escaped", m)
			}
		}},
		{"error", "--1\r\n1 Not here <a@b>\r\nNo such item.\r\n.\r\n", fetch.ErrNotFound, nil},
		{"endless blocks", "+-2\r\n+INFO: 0x\tx\th\t70\r\n" + strings.Repeat("+A:\r\n", 1<<17), fetch.ErrProtocol, nil},
		{"endless line", "+-2\r\n+INFO: " + strings.Repeat("x", 1<<17), fetch.ErrProtocol, nil},
		{"bad view and date", "+-1\r\n+INFO: 0x\tx\th\t70\r\n+ADMIN:\r\n Mod-Date: <20241399999999>\r\n+VIEWS:\r\n \x1b]0;evil\x07: <1k>\r\n.\r\n", nil, func(t *testing.T, resp *fetch.Response) {
			if !resp.Modified.IsZero() || resp.Type != "text/plain" {
				t.Errorf("Modified %v, Type %q; want no time and the URL's type", resp.Modified, resp.Type)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newFakeServer(t)
			s.Reply("/x\t!", tt.reply)
			resp, err := fetchtest.Head(t, headClient(), s.URL("/0/x%09%09+"))
			if tt.err != nil {
				if !errors.Is(err, tt.err) {
					t.Errorf("Head = %v, want %v", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatalf("Head = %v", err)
			}
			tt.check(t, resp)
		})
	}
}
