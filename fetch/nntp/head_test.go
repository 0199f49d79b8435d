package nntp_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/urlfetch/urlfetch/fetch"
	"github.com/urlfetch/urlfetch/fetch/fetchtest"
	"github.com/urlfetch/urlfetch/fetch/nntp"
)

// transfers reports whether an NNTP command transfers an article or a
// listing: ARTICLE, BODY, LIST, NEWNEWS, and an overview of more than
// one article.
func transfers(line string) bool {
	verb, arg, _ := strings.Cut(line, " ")
	switch strings.ToUpper(verb) {
	case "ARTICLE", "BODY", "LIST", "NEWNEWS", "NEWGROUPS":
		return true
	case "OVER", "XOVER":
		lo, hi, ok := strings.Cut(arg, "-")
		return !ok || lo != hi
	}
	return false
}

// Issue 22, point 2: HEAD for an article, GROUP for a group, nothing for
// a list of groups; the header parsed, OVER's size added; the connection
// kept for the next fetch.
func TestHead_FakeServer(t *testing.T) {
	arts := testArticles()
	f := newFake(t, fakeOpts{caps: []string{"OVER", "LIST ACTIVE"}, groups: []*fakeGroup{smallGroup("misc.test", arts...)}})
	c, _ := newClient(t, &nntp.Driver{Server: f.addr})
	resp, err := fetchtest.Head(t, c, "news:"+strings.Trim(arts[0].id, "<>"))
	if err != nil || resp.Kind != fetch.Document || resp.Meta.Get("Subject") != arts[0].subject || resp.Modified.IsZero() || resp.Length != -1 {
		t.Errorf("Head(news:id) = %+v, %v", resp, err)
	}
	resp, err = fetchtest.Head(t, c, "nntp://"+f.addr+"/misc.test/2")
	if err != nil || resp.Meta.Get("Message-Id") != arts[1].id || resp.Meta.Get("Bytes") == "" || resp.Meta.Get("Lines") == "" {
		t.Errorf("Head(nntp://.../misc.test/2) = %+v, %v; want the header, Bytes and Lines", resp, err)
	}
	resp, err = fetchtest.Head(t, c, "news:misc.test")
	if err != nil || resp.Kind != fetch.Listing || resp.Meta.Get("Nntp-High") != "2" || !strings.HasPrefix(resp.Status, "211 ") {
		t.Errorf("Head(news:misc.test) = %+v, %v", resp, err)
	}
	resp, err = fetchtest.Head(t, c, "news:*")
	if err != nil || resp.Kind != fetch.Listing || resp.Status != "200 fake news server ready" {
		t.Errorf("Head(news:*) = %+v, %v; want the greeting", resp, err)
	}
	if _, err := fetchtest.Head(t, c, "news:none@fake.test"); !errors.Is(err, fetch.ErrNotFound) {
		t.Errorf("Head(missing) = %v, want ErrNotFound", err)
	}
	if _, body := fetchBody(t, c, "news:"+strings.Trim(arts[0].id, "<>")); body != arts[0].posted() {
		t.Errorf("the fetch after the Heads = %q", body)
	}
	f.mu.Lock()
	log := slices.Clone(f.log)
	conns := len(f.conns)
	f.mu.Unlock()
	for _, l := range log[:len(log)-1] {
		if transfers(l) {
			t.Errorf("the Heads sent %q", l)
		}
	}
	if conns != 1 {
		t.Errorf("%d connections, want 1", conns)
	}
}

// What a hostile server answers to HEAD: a header without end, a reply
// that is no reply, a header line no parser takes, an overview line that
// lies. The Head ends, bounded, with what can be trusted or a classified
// error.
func TestHeadHostile_FakeServer(t *testing.T) {
	long := "221 1 <a@b> head\r\nSubject: x\r\n" + strings.Repeat("X-Filler: "+strings.Repeat("y", 1000)+"\r\n", 1100) + ".\r\n"
	tests := []struct {
		name    string
		replies map[string]string
		url     string
		err     error
		check   func(t *testing.T, resp *fetch.Response)
	}{
		{"endless header", map[string]string{"HEAD <a@b>": long}, "news:a@b", fetch.ErrProtocol, nil},
		{"no reply", map[string]string{"HEAD <a@b>": "hello there\r\n"}, "news:a@b", fetch.ErrProtocol, nil},
		{"broken header line", map[string]string{"HEAD <a@b>": "221 1 <a@b>\r\nSubject: ok\r\nno colon here\r\nFrom: late\r\n.\r\n"}, "news:a@b", nil, func(t *testing.T, resp *fetch.Response) {
			if resp.Meta.Get("Subject") != "ok" {
				t.Errorf("Meta = %v; want what came before the bad line", resp.Meta)
			}
		}},
		{"lying overview", map[string]string{
			"GROUP g":  "211 1 1 1 g\r\n",
			"HEAD 1":   "221 1 <a@b>\r\nSubject: s\r\n.\r\n",
			"OVER 1-1": "224 ok\r\n7\ts\tf\td\t<a@b>\t\t-5\tlots\r\n.\r\n",
		}, "nntp://%s/g/1", nil, func(t *testing.T, resp *fetch.Response) {
			if resp.Meta.Get("Bytes") != "" || resp.Meta.Get("Lines") != "" {
				t.Errorf("Meta = %v; want no Bytes or Lines from an overview line of another article", resp.Meta)
			}
		}},
		{"refused overview", map[string]string{
			"GROUP g":  "211 1 1 1 g\r\n",
			"HEAD 1":   "221 1 <a@b>\r\nSubject: s\r\n.\r\n",
			"OVER 1-1": "502 no\r\n",
		}, "nntp://%s/g/1", nil, func(t *testing.T, resp *fetch.Response) {
			if resp.Meta.Get("Subject") != "s" || resp.Meta.Get("Bytes") != "" {
				t.Errorf("Meta = %v; want the header and no size", resp.Meta)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFake(t, fakeOpts{caps: []string{"OVER"}, replies: tt.replies})
			c, _ := newClient(t, &nntp.Driver{Server: f.addr})
			raw := tt.url
			if strings.Contains(raw, "%s") {
				raw = strings.Replace(raw, "%s", f.addr, 1)
			}
			resp, err := fetchtest.Head(t, c, raw)
			if tt.err != nil {
				if !errors.Is(err, tt.err) {
					t.Errorf("Head(%s) = %v, want %v", raw, err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatalf("Head(%s) = %v", raw, err)
			}
			tt.check(t, resp)
		})
	}
}
