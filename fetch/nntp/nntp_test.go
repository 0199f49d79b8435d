package nntp_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/urlfetch/urlfetch/fetch"
	"github.com/urlfetch/urlfetch/fetch/fetchtest"
	"github.com/urlfetch/urlfetch/fetch/nntp"
	"github.com/urlfetch/urlfetch/internal/misbehaving"
)

// newClient returns a Client with d for news and nntp URLs, reading no
// netrc, tracing into the returned log.
func newClient(t testing.TB, d *nntp.Driver) (*fetch.Client, *fetchtest.TraceLog) {
	log := &fetchtest.TraceLog{}
	c := &fetch.Client{NetrcFile: "-", IdleTimeout: 10 * time.Second, Trace: log.Add}
	c.Register("news", d)
	c.Register("nntp", d)
	t.Cleanup(func() { c.Close() })
	return c, log
}

// fetchBody fetches rawURL and reads its Body to the end.
func fetchBody(t testing.TB, c *fetch.Client, rawURL string) (*fetch.Response, string) {
	t.Helper()
	resp, err := c.Fetch(t.Context(), rawURL)
	if err != nil {
		t.Fatalf("Fetch(%q) error = %v", rawURL, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("Fetch(%q): reading Body: %v", rawURL, err)
	}
	return resp, string(b)
}

func TestConformance_FakeServer(t *testing.T) {
	arts := testArticles()
	f := newFake(t, fakeOpts{
		caps:   []string{"OVER", "LIST ACTIVE"},
		groups: []*fakeGroup{smallGroup("misc.test", arts...), {name: "stall.group", low: 1, high: 1}},
		stall:  map[string]bool{"ARTICLE <stall@fake.test>": true, "GROUP stall.group": true},
	})
	auth := newFake(t, fakeOpts{
		caps:   []string{"OVER"},
		user:   "joe",
		pass:   "right",
		groups: []*fakeGroup{smallGroup("misc.test", testArticles()...)},
	})
	base := "nntp://" + f.addr
	t.Run("nntp", func(t *testing.T) {
		fetchtest.Run(t, fetchtest.Opt{
			Scheme: "nntp",
			Driver: &nntp.Driver{},
			Found: []fetchtest.Case{
				{URL: base + "/misc.test/1", Want: arts[0].posted(), Type: nntp.ArticleType},
				{URL: base + "/misc.test/2", Want: arts[1].posted(), Type: nntp.ArticleType},
			},
			Missing: base + "/misc.test/99",
			Denied:  "nntp://joe:wrong@" + auth.addr + "/misc.test/1",
			Listing: base + "/misc.test",
			Stall:   func(testing.TB) string { return base + "/stall.group/1" },
			Inject:  []string{base + "/misc.test%0D%0AQUIT/1", base + "/misc%00test", "nntp://joe%0D%0AQUIT:pw@" + f.addr + "/misc.test/1"},
			Invalid: []string{base + "/misc.test/x", base + "/misc.test/1/2"},
			Broken: func(t testing.TB) string {
				return misbehaving.Serve(t, misbehaving.NNTP, misbehaving.CloseMidTransfer).URL()
			},
			Transfers: transfers,
		})
	})
	t.Run("news", func(t *testing.T) {
		fetchtest.Run(t, fetchtest.Opt{
			Scheme: "news",
			Driver: &nntp.Driver{Server: f.addr},
			Found: []fetchtest.Case{
				{URL: "news:one@fake.test", Want: arts[0].posted(), Type: nntp.ArticleType},
				{URL: "news:dots@fake.test", Want: arts[1].posted(), Type: nntp.ArticleType},
			},
			Missing:   "news:none@fake.test",
			Listing:   "news:misc.test",
			Stall:     func(testing.TB) string { return "news:stall@fake.test" },
			Inject:    []string{"news:x%0D%0AQUIT@fake.test", "news:misc.test%0AQUIT", "news:misc%00test"},
			Invalid:   []string{"news:"},
			Transfers: transfers,
		})
	})
}

// A decoded CR, LF, NUL or white space in a group or message-id never
// reaches the server: no connection is made.
func TestUnsafe_FakeServer(t *testing.T) {
	f := newFake(t, fakeOpts{})
	c, _ := newClient(t, &nntp.Driver{Server: f.addr})
	for _, tc := range []struct {
		url  string
		kind error
	}{
		{"news:a%0D%0AQUIT@fake.test", fetch.ErrUnsafe},
		{"news:a%0A@fake.test", fetch.ErrUnsafe},
		{"news:misc.test%0D%0AQUIT", fetch.ErrUnsafe},
		{"news:misc%00test", fetch.ErrUnsafe},
		{"nntp://" + f.addr + "/misc.test%0D/1", fetch.ErrUnsafe},
		{"nntp://a%0Db:pw@" + f.addr + "/misc.test/1", fetch.ErrUnsafe},
		{"nntp://joe:p%0Aw@" + f.addr + "/misc.test/1", fetch.ErrUnsafe},
		{"news:misc%20test", fetch.ErrNotFound},
		{"news:a%09b@fake.test", fetch.ErrNotFound},
	} {
		_, err := c.Fetch(t.Context(), tc.url)
		if !errors.Is(err, tc.kind) {
			t.Errorf("Fetch(%q) error = %v, want %v", tc.url, err, tc.kind)
		}
	}
	if n := f.dials(); n != 0 {
		t.Errorf("%d connections made, want none", n)
	}
}

func TestNoServer(t *testing.T) {
	c, _ := newClient(t, &nntp.Driver{})
	_, err := c.Fetch(t.Context(), "news:comp.lang.go")
	if !errors.Is(err, fetch.ErrUnsupported) {
		t.Fatalf("Fetch(news:comp.lang.go) with no Server: error = %v, want ErrUnsupported", err)
	}
	for _, want := range []string{"--news-server", "NNTPSERVER", "RFC 1738 section 3.6"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error = %q, want it to say %q", err, want)
		}
	}
	c, _ = newClient(t, &nntp.Driver{Server: "host:port:bad"})
	if _, err := c.Fetch(t.Context(), "news:comp.lang.go"); !errors.Is(err, fetch.ErrUnsupported) || !strings.Contains(err.Error(), "host:port:bad") {
		t.Errorf("Fetch with Server %q: error = %v, want ErrUnsupported naming the setting", "host:port:bad", err)
	}
}

func TestAuthinfo_FakeServer(t *testing.T) {
	opts := fakeOpts{
		caps:   []string{"OVER"},
		user:   "joe",
		pass:   "s3cret-pw",
		groups: []*fakeGroup{smallGroup("misc.test", testArticles()...)},
	}
	const secret = "s3cret-pw"
	noSecret := func(t *testing.T, err error, log *fetchtest.TraceLog) {
		t.Helper()
		if err != nil && strings.Contains(err.Error(), secret) {
			t.Errorf("error %q shows the password", err)
		}
		if strings.Contains(log.String(), secret) {
			t.Errorf("trace shows the password:\n%s", log)
		}
	}

	t.Run("URL", func(t *testing.T) {
		f := newFake(t, opts)
		c, log := newClient(t, &nntp.Driver{})
		_, body := fetchBody(t, c, "nntp://joe:"+secret+"@"+f.addr+"/misc.test/1")
		if !strings.HasSuffix(body, "\n\nhello\n") {
			t.Errorf("body = %q", body)
		}
		want := []string{"GROUP misc.test", "AUTHINFO USER joe", "AUTHINFO PASS " + secret, "GROUP misc.test", "ARTICLE 1"}
		if got := f.commands(); !slices.Equal(got, want) {
			t.Errorf("the server got %q, want %q", got, want)
		}
		if !strings.Contains(log.String(), "> AUTHINFO PASS ***") {
			t.Errorf("trace has no masked AUTHINFO PASS:\n%s", log)
		}
		noSecret(t, nil, log)
	})

	t.Run("Netrc", func(t *testing.T) {
		f := newFake(t, opts)
		netrc := filepath.Join(t.TempDir(), "netrc")
		os.WriteFile(netrc, []byte("machine 127.0.0.1 login joe password "+secret+"\n"), 0o600)
		c, log := newClient(t, &nntp.Driver{Server: f.addr})
		c.NetrcFile = netrc
		if _, body := fetchBody(t, c, "news:dots@fake.test"); !strings.HasSuffix(body, "\n\n.one\n..two\n.\nend\n") {
			t.Errorf("body = %q", body)
		}
		noSecret(t, nil, log)
	})

	t.Run("Prompt", func(t *testing.T) {
		f := newFake(t, opts)
		c, log := newClient(t, &nntp.Driver{})
		var asked []string
		c.Prompt = func(_ context.Context, prompt string) (string, error) {
			asked = append(asked, prompt)
			return secret, nil
		}
		fetchBody(t, c, "nntp://joe@"+f.addr+"/misc.test/2")
		if len(asked) != 1 || !strings.Contains(asked[0], "joe@127.0.0.1") {
			t.Errorf("prompts = %q, want one for joe@127.0.0.1", asked)
		}
		noSecret(t, nil, log)
	})

	t.Run("NoCredentials", func(t *testing.T) {
		f := newFake(t, opts)
		c, log := newClient(t, &nntp.Driver{Server: f.addr})
		_, err := c.Fetch(t.Context(), "news:misc.test")
		if !errors.Is(err, fetch.ErrAuth) || !strings.Contains(err.Error(), "480 Authentication required") || !strings.Contains(err.Error(), "netrc") {
			t.Errorf("error = %v, want ErrAuth with the server's 480 and how to give a login", err)
		}
		noSecret(t, err, log)
	})

	t.Run("WrongPassword", func(t *testing.T) {
		f := newFake(t, opts)
		c, log := newClient(t, &nntp.Driver{})
		_, err := c.Fetch(t.Context(), "nntp://joe:wrong-pw@"+f.addr+"/misc.test/1")
		var re *nntp.ReplyError
		if !errors.Is(err, fetch.ErrAuth) || !errors.As(err, &re) || re.Code != nntp.StatusAuthRejected {
			t.Errorf("error = %v, want ErrAuth wrapping the 481", err)
		}
		if strings.Contains(fmt.Sprint(err), "wrong-pw") || strings.Contains(log.String(), "wrong-pw") {
			t.Errorf("the password shows: error %v, trace:\n%s", err, log)
		}
	})

	t.Run("EncryptionRequired", func(t *testing.T) {
		o := opts
		o.replies = map[string]string{"AUTHINFO USER joe": "483 Encryption required\r\n"}
		f := newFake(t, o)
		c, _ := newClient(t, &nntp.Driver{})
		_, err := c.Fetch(t.Context(), "nntp://joe:pw@"+f.addr+"/misc.test/1")
		if !errors.Is(err, fetch.ErrAuth) || !strings.Contains(err.Error(), "483 Encryption required") {
			t.Errorf("error = %v, want ErrAuth with the 483", err)
		}
	})
}

// Issue 24, point 2: the capabilities and the reader mode are asked for
// only when the server's replies call for them. A server in reader mode
// (INN's nnrpd) gets no CAPABILITIES and no MODE READER; a mode-switching
// one gets MODE READER after it refuses the first reader command, and the
// command again; CAPABILITIES only when the refusal does not name the
// way (an older server's 500 or 502). Each command is a round trip, so
// the lists are the round trips after the greeting.
func TestModeReader_FakeServer(t *testing.T) {
	for _, tc := range []struct {
		name string
		opts fakeOpts
		want []string
	}{
		{"Reader", fakeOpts{caps: []string{"OVER"}},
			[]string{"GROUP misc.test", "OVER 1-2"}},
		{"Switch401", fakeOpts{caps: []string{"OVER"}, modeReader: true},
			[]string{"GROUP misc.test", "MODE READER", "GROUP misc.test", "OVER 1-2"}},
		{"Switch502", fakeOpts{caps: []string{"OVER"}, modeReader: true, transit: "502 Transit service only"},
			[]string{"GROUP misc.test", "CAPABILITIES", "MODE READER", "GROUP misc.test", "OVER 1-2"}},
		{"NoCapabilitiesSwitch500", fakeOpts{modeReader: true, transit: "500 What?", noOver: true},
			[]string{"GROUP misc.test", "CAPABILITIES", "MODE READER", "GROUP misc.test", "XOVER 1-2"}},
		{"NoCapabilities", fakeOpts{noOver: true},
			[]string{"GROUP misc.test", "OVER 1-2", "XOVER 1-2"}},
		{"OverUnknown", fakeOpts{caps: []string{"OVER"}, noOver: true},
			[]string{"GROUP misc.test", "OVER 1-2", "XOVER 1-2"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.opts.groups = []*fakeGroup{smallGroup("misc.test", testArticles()...)}
			f := newFake(t, tc.opts)
			c, _ := newClient(t, &nntp.Driver{Server: f.addr})
			resp, body := fetchBody(t, c, "news:misc.test")
			if resp.Kind != fetch.Listing || strings.Count(body, "\n") != 2 {
				t.Errorf("Kind = %v, body %q; want a listing of 2 articles", resp.Kind, body)
			}
			if got := f.commands(); !slices.Equal(got, tc.want) {
				t.Errorf("the server got %q, want %q", got, tc.want)
			}
		})
	}
}

// Issue 24, point 2: news:<message-id> is the greeting and one ARTICLE;
// what a connection learned (the mode, the capabilities) stays with it
// in the pool, so the next fetch on it asks nothing again.
func TestRoundTripsPooled_FakeServer(t *testing.T) {
	t.Run("Reader", func(t *testing.T) {
		f := newFake(t, fakeOpts{caps: []string{"OVER"}, groups: []*fakeGroup{smallGroup("misc.test", testArticles()...)}})
		c, _ := newClient(t, &nntp.Driver{Server: f.addr})
		fetchBody(t, c, "news:one@fake.test")
		fetchBody(t, c, "news:dots@fake.test")
		want := []string{"ARTICLE <one@fake.test>", "ARTICLE <dots@fake.test>"}
		if got := f.commands(); !slices.Equal(got, want) || f.dials() != 1 {
			t.Errorf("the server got %q on %d connections, want %q on 1", got, f.dials(), want)
		}
	})
	t.Run("Switch502", func(t *testing.T) {
		f := newFake(t, fakeOpts{caps: []string{"OVER"}, modeReader: true, transit: "502 Transit service only",
			groups: []*fakeGroup{smallGroup("misc.test", testArticles()...)}})
		c, _ := newClient(t, &nntp.Driver{Server: f.addr})
		fetchBody(t, c, "news:one@fake.test")
		fetchBody(t, c, "news:misc.test")
		fetchBody(t, c, "news:dots@fake.test")
		want := []string{"ARTICLE <one@fake.test>", "CAPABILITIES", "MODE READER", "ARTICLE <one@fake.test>",
			"GROUP misc.test", "OVER 1-2", "ARTICLE <dots@fake.test>"}
		if got := f.commands(); !slices.Equal(got, want) || f.dials() != 1 {
			t.Errorf("the server got %q on %d connections, want %q on 1", got, f.dials(), want)
		}
	})
}

// A refusal that is not about the mode is the fetch's answer: a missing
// group costs no CAPABILITIES; a 502 to the first command of a server
// that lists READER is a refusal after one CAPABILITIES, and no MODE
// READER is sent.
func TestRefusalNotMode_FakeServer(t *testing.T) {
	t.Run("NoSuchGroup", func(t *testing.T) {
		f := newFake(t, fakeOpts{caps: []string{"OVER"}})
		c, _ := newClient(t, &nntp.Driver{Server: f.addr})
		if _, err := c.Fetch(t.Context(), "news:no.such.group"); !errors.Is(err, fetch.ErrNotFound) {
			t.Errorf("error = %v, want ErrNotFound", err)
		}
		if got, want := f.commands(), []string{"GROUP no.such.group"}; !slices.Equal(got, want) {
			t.Errorf("the server got %q, want %q", got, want)
		}
	})
	t.Run("Denied", func(t *testing.T) {
		f := newFake(t, fakeOpts{caps: []string{"OVER"}, replies: map[string]string{"ARTICLE <one@fake.test>": "502 Permission denied\r\n"}})
		c, _ := newClient(t, &nntp.Driver{Server: f.addr})
		if _, err := c.Fetch(t.Context(), "news:one@fake.test"); !errors.Is(err, fetch.ErrAuth) || !strings.Contains(err.Error(), "502 Permission denied") {
			t.Errorf("error = %v, want ErrAuth with the 502", err)
		}
		if got, want := f.commands(), []string{"ARTICLE <one@fake.test>", "CAPABILITIES"}; !slices.Equal(got, want) {
			t.Errorf("the server got %q, want %q", got, want)
		}
	})
}

// The replies of a broken or hostile server: each fetch fails with the
// right kind and a one-line message.
func TestHostileReplies_FakeServer(t *testing.T) {
	long := "220 " + strings.Repeat("x", 20000) + "\r\n"
	for _, tc := range []struct {
		name    string
		opts    fakeOpts
		url     string
		kind    error
		message string
	}{
		{"GreetingGarbage", fakeOpts{greeting: "HELLO THERE"}, "news:one@fake.test", fetch.ErrProtocol, "not an NNTP reply"},
		{"GreetingBusy", fakeOpts{greeting: "400 too busy, try later"}, "news:one@fake.test", fetch.ErrConnect, "400 too busy, try later"},
		{"GreetingDenied", fakeOpts{greeting: "502 you may not read"}, "news:one@fake.test", fetch.ErrAuth, "502 you may not read"},
		{"GroupGarbage", fakeOpts{replies: map[string]string{"GROUP misc.test": "211 lots of articles\r\n"}}, "news:misc.test", fetch.ErrProtocol, "unreadable reply"},
		{"ReplyTooLong", fakeOpts{replies: map[string]string{"ARTICLE <one@fake.test>": long}}, "news:one@fake.test", fetch.ErrProtocol, "longer than"},
		{"ReplyCode", fakeOpts{replies: map[string]string{"ARTICLE <one@fake.test>": "999 what\r\n"}}, "news:one@fake.test", fetch.ErrProtocol, "not an NNTP reply"},
		{"ReplyUnexpected", fakeOpts{replies: map[string]string{"ARTICLE <one@fake.test>": "221 1 <one@fake.test> head\r\n"}}, "news:one@fake.test", fetch.ErrProtocol, "221 1 <one@fake.test> head"},
		{"HangUpInHeader", fakeOpts{
			replies: map[string]string{"ARTICLE <one@fake.test>": "220 1 <one@fake.test>\r\nFrom: x\r\nSubj"},
			hangUp:  map[string]bool{"ARTICLE <one@fake.test>": true},
		}, "news:one@fake.test", fetch.ErrConnect, "closed the connection"},
		{"HangUpAfterGreeting", fakeOpts{
			replies: map[string]string{"ARTICLE <one@fake.test>": ""},
			hangUp:  map[string]bool{"ARTICLE <one@fake.test>": true},
		}, "news:one@fake.test", fetch.ErrConnect, "closed the connection"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.opts.groups = []*fakeGroup{smallGroup("misc.test", testArticles()...)}
			f := newFake(t, tc.opts)
			c, _ := newClient(t, &nntp.Driver{Server: f.addr})
			resp, err := c.Fetch(t.Context(), tc.url)
			if err == nil {
				resp.Body.Close()
				t.Fatalf("Fetch(%q) error = nil, want %v", tc.url, tc.kind)
			}
			if !errors.Is(err, tc.kind) || !strings.Contains(err.Error(), tc.message) || strings.ContainsAny(err.Error(), "\r\n") {
				t.Errorf("Fetch(%q) error = %q, want %v saying %q on one line", tc.url, err, tc.kind, tc.message)
			}
		})
	}
}

// The server hangs up in the middle of an article: the read fails, it
// does not end quietly as if the article were whole.
func TestHangUpInBody_FakeServer(t *testing.T) {
	f := newFake(t, fakeOpts{
		replies: map[string]string{"ARTICLE <one@fake.test>": "220 1 <one@fake.test>\r\nFrom: x\r\n\r\nfirst line\r\nsecond"},
		hangUp:  map[string]bool{"ARTICLE <one@fake.test>": true},
	})
	c, _ := newClient(t, &nntp.Driver{Server: f.addr})
	resp, err := c.Fetch(t.Context(), "news:one@fake.test")
	if err != nil {
		t.Fatalf("Fetch error = %v, want the header read", err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if !errors.Is(err, fetch.ErrConnect) || !strings.Contains(err.Error(), "closed the connection") {
		t.Errorf("reading Body = %q, %v; want ErrConnect (a broken connection): closed the connection", b, err)
	}
	if resp.Meta.Get("From") != "x" {
		t.Errorf("Meta = %v", resp.Meta)
	}
}

// Overview lines the driver cannot use yield an error each, and the
// listing goes on; odd message-ids get an nntp URL; encoded words are
// decoded.
func TestOverviewGarbage_FakeServer(t *testing.T) {
	over := strings.Join([]string{
		"224 Overview information follows",
		"1\ttoo few fields",
		"2\t" + strings.Repeat("x", 70000),
		"two\tnot a number\tF\tTue, 20 Dec 1994 12:00:00 +0000\t<two@fake.test>\t\t10\t1",
		"3\tLiteral domain\tE\tnot a date\t<x@[127.0.0.1]>\t\tnot-a-size\t1",
		"4\tNo at sign\tD <d@fake.test>\tTue, 20 Dec 1994 12:00:00 +0000\t<no-at-sign>\t\t10\t1",
		"5\t=?UTF-8?Q?Gr=C3=BC=C3=9Fe?=\t=?ISO-8859-1?Q?J=F6rg?= <j@fake.test>\tTue, 20 Dec 1994 12:00:00 +0000\t<five@fake.test>\t\t100\t2",
		".", "",
	}, "\r\n")
	f := newFake(t, fakeOpts{
		caps:    []string{"OVER"},
		groups:  []*fakeGroup{{name: "garbage.group", low: 1, high: 6}},
		replies: map[string]string{"OVER 1-6": over},
	})
	c, _ := newClient(t, &nntp.Driver{Server: f.addr})
	resp, err := c.Fetch(t.Context(), "news:garbage.group")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var got []string
	for e, err := range resp.Entries() {
		if err != nil {
			if !errors.Is(err, fetch.ErrProtocol) {
				t.Errorf("entry error %v, want ErrProtocol", err)
			}
			got = append(got, "error")
			continue
		}
		got = append(got, fmt.Sprintf("%s|%s|%s|%d|%v", e.Name, e.Title, e.URL, e.Size, e.Time.IsZero()))
	}
	base := "nntp://" + f.addr + "/garbage.group/"
	want := []string{
		"5|Grüße (Jörg <j@fake.test>)|news:five@fake.test|100|false",
		"4|No at sign (D <d@fake.test>)|" + base + "4|10|false",
		"3|Literal domain (E)|news:x@%5B127.0.0.1%5D|-1|true", // RFC 5536 id-right, now a news: URL
		"error", // "two"
		"error", // a line longer than the driver reads
		"error", // too few fields
	}
	if !slices.Equal(got, want) {
		t.Errorf("entries:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// A server that answers OVER 1-2 with 100,000 lines: the driver keeps
// two and drops the rest, rather than gathering them all.
func TestOverviewFlood_FakeServer(t *testing.T) {
	var b strings.Builder
	b.WriteString("224 Overview information follows\r\n")
	for n := 1; n <= 100000; n++ {
		fmt.Fprintf(&b, "%d\tSubject %d\tF\tTue, 20 Dec 1994 12:00:00 +0000\t<f%d@fake.test>\t\t10\t1\r\n", n, n, n)
	}
	b.WriteString(".\r\n")
	f := newFake(t, fakeOpts{
		caps:    []string{"OVER"},
		groups:  []*fakeGroup{{name: "flood.group", low: 1, high: 2}},
		replies: map[string]string{"OVER 1-2": b.String()},
	})
	c, log := newClient(t, &nntp.Driver{Server: f.addr})
	_, body := fetchBody(t, c, "news:flood.group")
	if want := "2\tSubject 2\tF\tTue, 20 Dec 1994 12:00:00 +0000\t<f2@fake.test>\t\t10\t1\n" +
		"1\tSubject 1\tF\tTue, 20 Dec 1994 12:00:00 +0000\t<f1@fake.test>\t\t10\t1\n"; body != want {
		t.Errorf("body = %.200q, want the two lines asked for", body)
	}
	if !strings.Contains(log.String(), "ignored 99998 overview lines") {
		t.Errorf("trace does not note the ignored lines:\n%.2000s", log)
	}
}

func TestActiveGarbage_FakeServer(t *testing.T) {
	f := newFake(t, fakeOpts{
		caps:    []string{"LIST ACTIVE"},
		replies: map[string]string{"LIST ACTIVE": "215 list follows\r\nmisc.test 3 1 y\r\nbroken\r\nother.group x y y\r\nmod.group 10 1 m\r\n.\r\n"},
	})
	c, _ := newClient(t, &nntp.Driver{Server: f.addr})
	resp, err := c.Fetch(t.Context(), "news:*")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var got []string
	for e, err := range resp.Entries() {
		if err != nil {
			got = append(got, "error")
			continue
		}
		got = append(got, e.Name+"|"+e.Title+"|"+e.URL)
	}
	want := []string{"misc.test|3 articles, posting allowed|news:misc.test", "error", "error", "mod.group|10 articles, moderated|news:mod.group"}
	if !slices.Equal(got, want) {
		t.Errorf("entries = %q, want %q", got, want)
	}
}

// A connection the server closed while it was idle is replaced without
// the caller seeing an error.
func TestStaleConnection_FakeServer(t *testing.T) {
	f := newFake(t, fakeOpts{
		groups: []*fakeGroup{smallGroup("misc.test", testArticles()...)},
		hangUp: map[string]bool{"ARTICLE <one@fake.test>": true},
	})
	c, log := newClient(t, &nntp.Driver{Server: f.addr})
	fetchBody(t, c, "news:one@fake.test") // the server hangs up after it
	if _, body := fetchBody(t, c, "news:dots@fake.test"); !strings.HasSuffix(body, "\nend\n") {
		t.Errorf("body = %q", body)
	}
	if n := f.dials(); n != 2 {
		t.Errorf("%d connections, want 2", n)
	}
	if !strings.Contains(log.String(), "connecting again") {
		t.Errorf("trace does not tell of the reconnection:\n%s", log)
	}
}

// heapInUse returns the live heap after a collection.
func heapInUse() uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

// A server with 100,000 groups: news:* streams them in flat memory
// (about 11 MB of lines pass; the live heap may grow by 4 MiB at most).
func TestListActive100000Groups_FakeServer(t *testing.T) {
	const groups = 100000
	pad := strings.Repeat("x", 90)
	f := newFake(t, fakeOpts{
		caps: []string{"LIST ACTIVE"},
		active: func(w *bufio.Writer) {
			for i := range groups {
				fmt.Fprintf(w, "group.%06d.%s %d 1 y\r\n", i, pad, i)
			}
		},
	})
	c, _ := newClient(t, &nntp.Driver{Server: f.addr})
	base := heapInUse()
	resp, err := c.Fetch(t.Context(), "news:*")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	peak := heapInUse()
	n := 0
	for e, err := range resp.Entries() {
		if err != nil {
			t.Fatal(err)
		}
		if want := fmt.Sprintf("group.%06d.%s", n, pad); e.Name != want {
			t.Fatalf("entry %d = %q, want %q", n, e.Name, want)
		}
		if n++; n%20000 == 0 {
			peak = max(peak, heapInUse())
		}
	}
	if n != groups {
		t.Errorf("%d entries, want %d", n, groups)
	}
	t.Logf("live heap %d KiB before, at most %d KiB while listing %d groups", base>>10, peak>>10, n)
	if peak > base+4<<20 {
		t.Errorf("live heap grew from %d to %d bytes: the listing is not streamed", base, peak)
	}
}

// A group of 100,000 article numbers with every third one missing: every
// article, newest first, in flat memory; and exactly the newest 50.
func TestGroupListingLarge_FakeServer(t *testing.T) {
	const high = 100000
	subject := strings.Repeat("s", 100)
	g := &fakeGroup{name: "big.group", low: 1, high: high, article: func(n int64) *fakeArticle {
		if n%3 == 0 {
			return nil
		}
		return &fakeArticle{num: n, id: fmt.Sprintf("<a%d@fake.test>", n), subject: subject, from: "F <f@fake.test>", date: "Tue, 20 Dec 1994 12:00:00 +0000", body: "x\n"}
	}}
	f := newFake(t, fakeOpts{caps: []string{"OVER"}, groups: []*fakeGroup{g}})

	t.Run("All", func(t *testing.T) {
		c, _ := newClient(t, &nntp.Driver{Server: f.addr, MaxEntries: -1})
		base := heapInUse()
		resp, err := c.Fetch(t.Context(), "news:big.group")
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		peak := heapInUse()
		want, count := int64(high), 0
		for e, err := range resp.Entries() {
			if err != nil {
				t.Fatal(err)
			}
			for want%3 == 0 {
				want--
			}
			if e.Name != strconv.FormatInt(want, 10) || e.URL != fmt.Sprintf("news:a%d@fake.test", want) {
				t.Fatalf("entry %d: %q %q, want article %d", count, e.Name, e.URL, want)
			}
			want--
			if count++; count%20000 == 0 {
				peak = max(peak, heapInUse())
			}
		}
		if wantCount := high - high/3; count != wantCount {
			t.Errorf("%d entries, want %d", count, wantCount)
		}
		t.Logf("live heap %d KiB before, at most %d KiB while listing %d articles", base>>10, peak>>10, count)
		if peak > base+4<<20 {
			t.Errorf("live heap grew from %d to %d bytes: the listing is not streamed", base, peak)
		}
	})

	t.Run("Newest50", func(t *testing.T) {
		c, _ := newClient(t, &nntp.Driver{Server: f.addr, MaxEntries: 50})
		_, body := fetchBody(t, c, "news:big.group")
		var got, want []string
		for n := int64(high); len(want) < 50; n-- {
			if n%3 != 0 {
				want = append(want, strconv.FormatInt(n, 10))
			}
		}
		for line := range strings.Lines(body) {
			num, _, _ := strings.Cut(line, "\t")
			got = append(got, num)
		}
		if !slices.Equal(got, want) {
			t.Errorf("listed %q, want the newest 50: %q", got, want)
		}
	})
}

// Issue 23, point 1: a group whose range is 2^63 numbers wide, with two
// articles at its bottom and nothing above ("211 2 1 9223372036854775807
// g" and empty OVER replies), lists in a bounded number of OVERs, with
// or without a limit on the entries. The fake server says it; INN never
// would.
func TestHugeGroupRange_FakeServer(t *testing.T) {
	arts := testArticles()
	byNum := map[int64]*fakeArticle{1: arts[0], 2: arts[1]}
	arts[0].num, arts[1].num = 1, 2
	f := newFake(t, fakeOpts{caps: []string{"OVER"}, groups: []*fakeGroup{{
		name: "huge.group", low: 1, high: math.MaxInt64, numbers: []int64{1, 2},
		article: func(n int64) *fakeArticle { return byNum[n] },
	}}})
	for _, max := range []int{0, 5, -1} {
		c, _ := newClient(t, &nntp.Driver{Server: f.addr, MaxEntries: max})
		ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
		before := len(f.commands())
		resp, err := c.Fetch(ctx, "news:huge.group")
		if err != nil {
			cancel()
			t.Fatal(err)
		}
		var names []string
		for e, err := range resp.Entries() {
			if err != nil {
				t.Errorf("MaxEntries %d: entry error %v", max, err)
				continue
			}
			names = append(names, e.Name)
		}
		resp.Body.Close()
		cancel()
		overs := 0
		for _, c := range f.commands()[before:] {
			if strings.HasPrefix(c, "OVER ") {
				overs++
			}
		}
		if strings.Join(names, ",") != "2,1" || overs > 100 {
			t.Errorf("MaxEntries %d: entries %q after %d OVERs; want 2,1 in at most 100", max, names, overs)
		}
	}
}

// Issue 23, point 2: a GROUP reply with negative numbers is the server
// breaking its protocol (RFC 3977 section 6.1.1.2: 1 to 2^63-1); no OVER
// with overflowed arithmetic is sent.
func TestNegativeGroupRange_FakeServer(t *testing.T) {
	f := newFake(t, fakeOpts{caps: []string{"OVER"}, replies: map[string]string{
		"GROUP neg.group":  "211 5 -9223372036854775808 -9223372036854775800 neg.group\r\n",
		"GROUP neg.count":  "211 -5 1 9 neg.count\r\n",
		"GROUP huge.count": "211 9223372036854775808 1 9 huge.count\r\n",
	}})
	c, _ := newClient(t, &nntp.Driver{Server: f.addr})
	for _, g := range []string{"neg.group", "neg.count", "huge.count"} {
		_, err := c.Fetch(t.Context(), "news:"+g)
		if !errors.Is(err, fetch.ErrProtocol) {
			t.Errorf("news:%s: error %v; want ErrProtocol", g, err)
		}
	}
	for _, c := range f.commands() {
		if strings.HasPrefix(c, "OVER") || strings.HasPrefix(c, "XOVER") {
			t.Errorf("sent %q after a GROUP reply with numbers no group has", c)
		}
	}
}

// Issue 23, the sweep: a multi-line block of nothing but empty lines
// reached no callback, so no bound counted it: a capability list of
// endless "\r\n" went on for ever. Every block is bounded in bytes. The
// server is a fake: no real one sends this.
func TestEndlessEmptyLines_FakeServer(t *testing.T) {
	addr := fetchtest.ServeOnce(t, func(c net.Conn) {
		c.Write([]byte("200 fake\r\n"))
		br := bufio.NewReader(c)
		br.ReadString('\n') // GROUP, refused as by a server in transit mode
		c.Write([]byte("502 Transit service only\r\n"))
		br.ReadString('\n') // CAPABILITIES
		c.Write([]byte("101 caps\r\n"))
		empty := []byte(strings.Repeat("\r\n", 1<<16))
		for range 512 { // 64 MiB, more than any bound
			if _, err := c.Write(empty); err != nil {
				return
			}
		}
	})
	c, _ := newClient(t, &nntp.Driver{})
	_, err := c.Fetch(t.Context(), "nntp://"+addr+"/misc.test/1")
	if !errors.Is(err, fetch.ErrProtocol) || !strings.Contains(err.Error(), "capability list goes on past") {
		t.Errorf("a capability list of endless empty lines: %v; want ErrProtocol at the bound", err)
	}
}

// Issue 24: Close ends an idle connection with QUIT and does not wait for
// the 205, a round trip a command about to exit has no use for. This
// server never answers QUIT: Close returns at once all the same (it
// waited for the 2 s bound before).
func TestQuitDoesNotWait_FakeServer(t *testing.T) {
	f := newFake(t, fakeOpts{caps: []string{"OVER"}, stall: map[string]bool{"QUIT": true}, groups: []*fakeGroup{smallGroup("misc.test", testArticles()...)}})
	c, _ := newClient(t, &nntp.Driver{Server: f.addr})
	fetchBody(t, c, "news:one@fake.test")
	start := time.Now()
	c.Close()
	if d := time.Since(start); d > 500*time.Millisecond {
		t.Errorf("Close took %v waiting for the reply to QUIT", d)
	}
	deadline := time.Now().Add(5 * time.Second)
	for !slices.Contains(f.commands(), "QUIT") {
		if time.Now().After(deadline) {
			t.Fatalf("the server got %q, no QUIT", f.commands())
		}
		time.Sleep(5 * time.Millisecond)
	}
}
