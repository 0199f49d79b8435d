package nntp_test

import (
	"bufio"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"io"
	"net"
	"path"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/urlfetch/urlfetch/fetch/fetchtest"
)

// fake is a scripted NNTP server on 127.0.0.1:0 for the unit tests: it
// does what the harness's INN does not (ask for AUTHINFO, want MODE
// READER, lack OVER, send garbage, stall, hang up, hold 100,000 groups,
// refuse STARTTLS or change its capabilities under TLS).
// The tests whose names end in _FakeServer use it; the integration tests
// run against INN.
type fake struct {
	opts fakeOpts
	addr string
	ln   net.Listener

	mu    sync.Mutex
	conns []net.Conn
	log   []string // every command received, in order; "[tls] " before those over TLS
	wg    sync.WaitGroup
}

type fakeOpts struct {
	greeting   string   // "200 fake news server ready" by default
	caps       []string // nil: CAPABILITIES is unknown (500)
	modeReader bool     // caps list MODE-READER, not READER, until MODE READER
	// transit is the reply to a reader command before MODE READER on a
	// modeReader server: RFC 3977's "401 MODE-READER" when empty; an
	// older server's "500 What?" or "502 ..." when set.
	transit    string
	noOver     bool              // OVER is unknown; XOVER works
	user, pass string            // set: commands want AUTHINFO first (480)
	replies    map[string]string // command -> raw reply, in place of the usual
	stall      map[string]bool   // commands never answered
	hangUp     map[string]bool   // commands after whose reply the session ends
	groups     []*fakeGroup
	// active, if set, writes the LIST ACTIVE lines (without the dot).
	active func(w *bufio.Writer)

	// tls, if set, makes STARTTLS work (RFC 4642): the capabilities list
	// it until TLS is on, and a 382 turns the session to TLS with this
	// configuration.
	tls *tls.Config
	// startTLSInReader lists STARTTLS only after MODE READER, as a
	// mode-switching server may (RFC 3977 section 5.3.3).
	startTLSInReader bool
	// capsTLS, if set, are the capabilities under TLS in place of caps.
	capsTLS []string
}

// fakeGroup is a group whose articles article(n) makes, low to high.
type fakeGroup struct {
	name      string
	low, high int64
	article   func(n int64) *fakeArticle // nil for a missing number
	// numbers, if set, are the only numbers with an article, ascending:
	// a sparse group, whose range may be as wide as 2^63.
	numbers []int64
}

type fakeArticle struct {
	num     int64
	id      string // with < >
	subject string
	from    string
	date    string
	body    string // lines with LF, as posted
}

// wire is the article as an NNTP server sends it, dot-stuffed, with CRLF.
func (a *fakeArticle) wire() string {
	var b strings.Builder
	fmt.Fprintf(&b, "From: %s\r\nSubject: %s\r\nDate: %s\r\nMessage-ID: %s\r\n\r\n", a.from, a.subject, a.date, a.id)
	for _, l := range strings.SplitAfter(a.body, "\n") {
		if l == "" {
			continue
		}
		l = strings.TrimSuffix(l, "\n")
		if strings.HasPrefix(l, ".") {
			l = "." + l
		}
		b.WriteString(l + "\r\n")
	}
	return b.String()
}

// posted is the article as a client gives it back: LF, no stuffing.
func (a *fakeArticle) posted() string {
	return fmt.Sprintf("From: %s\nSubject: %s\nDate: %s\nMessage-ID: %s\n\n%s", a.from, a.subject, a.date, a.id, a.body)
}

func (a *fakeArticle) overview() string {
	return fmt.Sprintf("%d\t%s\t%s\t%s\t%s\t\t%d\t%d\tXref: fake %d", a.num, a.subject, a.from, a.date, a.id, len(a.wire()), strings.Count(a.body, "\n"), a.num)
}

// smallGroup is a group of the given articles, numbered from 1.
func smallGroup(name string, arts ...*fakeArticle) *fakeGroup {
	for i, a := range arts {
		a.num = int64(i + 1)
	}
	return &fakeGroup{name: name, low: 1, high: int64(len(arts)), article: func(n int64) *fakeArticle {
		if n < 1 || n > int64(len(arts)) {
			return nil
		}
		return arts[n-1]
	}}
}

// testArticles are misc.test's articles.
func testArticles() []*fakeArticle {
	return []*fakeArticle{
		{id: "<one@fake.test>", subject: "First", from: "A <a@fake.test>", date: "Tue, 20 Dec 1994 12:00:00 +0000", body: "hello\n"},
		{id: "<dots@fake.test>", subject: "Dots", from: "B <b@fake.test>", date: "Tue, 20 Dec 1994 13:00:00 +0000", body: ".one\n..two\n.\nend\n"},
	}
}

func newFake(t testing.TB, opts fakeOpts) *fake {
	t.Helper()
	if opts.greeting == "" {
		opts.greeting = "200 fake news server ready"
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	f := &fake{opts: opts, addr: ln.Addr().String(), ln: ln}
	f.wg.Add(1)
	go f.accept()
	t.Cleanup(f.close)
	return f
}

func (f *fake) accept() {
	defer f.wg.Done()
	for {
		c, err := f.ln.Accept()
		if err != nil {
			return
		}
		f.mu.Lock()
		f.conns = append(f.conns, c)
		f.mu.Unlock()
		f.wg.Add(1)
		go func() {
			defer f.wg.Done()
			defer c.Close()
			f.serve(c)
		}()
	}
}

func (f *fake) close() {
	f.ln.Close()
	f.mu.Lock()
	for _, c := range f.conns {
		c.Close()
	}
	f.mu.Unlock()
	f.wg.Wait()
}

// dials returns how many connections the fake accepted.
func (f *fake) dials() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.conns)
}

// commands returns the commands received so far.
func (f *fake) commands() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.log...)
}

func (f *fake) group(name string) *fakeGroup {
	for _, g := range f.opts.groups {
		if g.name == name {
			return g
		}
	}
	return nil
}

// serve runs one session.
func (f *fake) serve(c net.Conn) {
	br := bufio.NewReader(c)
	bw := bufio.NewWriter(c)
	send := func(s string) {
		bw.WriteString(s)
		bw.Flush()
	}
	send(f.opts.greeting + "\r\n")
	var (
		authed   = f.opts.user == ""
		user     string
		reader   = !f.opts.modeReader
		selected *fakeGroup
		secure   bool
	)
	for {
		raw, err := br.ReadString('\n')
		if err != nil {
			return
		}
		line := strings.TrimRight(raw, "\r\n")
		f.mu.Lock()
		if secure {
			f.log = append(f.log, "[tls] "+line)
		} else {
			f.log = append(f.log, line)
		}
		f.mu.Unlock()
		if f.opts.stall[line] {
			io.Copy(io.Discard, br) // until the client or the test hangs up
			return
		}
		if r, ok := f.opts.replies[line]; ok {
			send(r)
			if f.opts.hangUp[line] {
				return
			}
			continue
		}
		verb, arg, _ := strings.Cut(line, " ")
		verb = strings.ToUpper(verb)
		if !authed && verb != "CAPABILITIES" && verb != "MODE" && verb != "AUTHINFO" && verb != "STARTTLS" && verb != "QUIT" {
			send("480 Authentication required for command\r\n")
			continue
		}
		if f.opts.modeReader && !reader && readerCommand[verb] {
			if f.opts.transit == "" {
				send("401 MODE-READER\r\n")
			} else {
				send(f.opts.transit + "\r\n")
			}
			continue
		}
		switch verb {
		case "CAPABILITIES":
			if f.opts.caps == nil {
				send("500 What?\r\n")
				break
			}
			caps := append([]string{"VERSION 2"}, f.opts.caps...)
			if secure && f.opts.capsTLS != nil {
				caps = append([]string{"VERSION 2"}, f.opts.capsTLS...)
			}
			if f.opts.tls != nil && !secure && (reader || !f.opts.startTLSInReader) {
				caps = append(caps, "STARTTLS")
			}
			if reader {
				caps = append(caps, "READER")
			} else {
				caps = append(caps, "MODE-READER")
			}
			send("101 Capability list:\r\n" + strings.Join(caps, "\r\n") + "\r\n.\r\n")
		case "STARTTLS":
			if f.opts.tls == nil || secure {
				send("502 Command unavailable\r\n")
				break
			}
			send("382 Continue with TLS negotiation\r\n")
			tc := tls.Server(c, f.opts.tls)
			if tc.Handshake() != nil {
				return
			}
			secure = true
			br, bw = bufio.NewReader(tc), bufio.NewWriter(tc)
		case "MODE":
			reader = true
			send("200 Reader mode, posting permitted\r\n")
		case "AUTHINFO":
			k, v, _ := strings.Cut(arg, " ")
			switch {
			case strings.EqualFold(k, "USER"):
				user = v
				send("381 Enter password\r\n")
			case strings.EqualFold(k, "PASS") && user == f.opts.user && v == f.opts.pass:
				authed = true
				send("281 Authentication accepted\r\n")
			default:
				send("481 Authentication failed\r\n")
			}
		case "GROUP":
			g := f.group(arg)
			if g == nil {
				send("411 No such group " + arg + "\r\n")
				break
			}
			selected = g
			n := int64(0)
			switch {
			case g.numbers != nil:
				n = int64(len(g.numbers))
			case g.high >= g.low:
				n = g.high - g.low + 1
			}
			send(fmt.Sprintf("211 %d %d %d %s\r\n", n, g.low, g.high, g.name))
		case "ARTICLE":
			a := f.find(arg, selected)
			switch {
			case a == nil && strings.HasPrefix(arg, "<"):
				send("430 No such article\r\n")
			case a == nil:
				send("423 No article with that number\r\n")
			default:
				send(fmt.Sprintf("220 %d %s\r\n%s.\r\n", a.num, a.id, a.wire()))
			}
		case "HEAD":
			a := f.find(arg, selected)
			switch {
			case a == nil && strings.HasPrefix(arg, "<"):
				send("430 No such article\r\n")
			case a == nil:
				send("423 No article with that number\r\n")
			default:
				head, _, _ := strings.Cut(a.wire(), "\r\n\r\n")
				send(fmt.Sprintf("221 %d %s\r\n%s\r\n.\r\n", a.num, a.id, head))
			}
		case "OVER", "XOVER":
			if verb == "OVER" && f.opts.noOver {
				send("500 What?\r\n")
				break
			}
			f.over(selected, arg, bw)
		case "LIST":
			kw, wildmat, _ := strings.Cut(arg, " ")
			if kw != "" && !strings.EqualFold(kw, "ACTIVE") {
				send("501 Syntax error\r\n")
				break
			}
			bw.WriteString("215 list of newsgroups follows\r\n")
			if f.opts.active != nil {
				f.opts.active(bw)
			}
			for _, g := range f.opts.groups {
				if ok, _ := path.Match(wildmat, g.name); wildmat == "" || ok {
					fmt.Fprintf(bw, "%s %d %d y\r\n", g.name, g.high, g.low)
				}
			}
			send(".\r\n")
		case "QUIT":
			send("205 Bye\r\n")
			return
		default:
			send("500 What?\r\n")
		}
		if f.opts.hangUp[line] {
			return
		}
	}
}

// readerCommand holds the commands a mode-switching server refuses
// before MODE READER (RFC 3977 section 3.4.2: they are the READER
// capability's).
var readerCommand = map[string]bool{"GROUP": true, "ARTICLE": true, "HEAD": true, "OVER": true, "XOVER": true, "LIST": true}

// find returns the article that an ARTICLE argument names.
func (f *fake) find(arg string, selected *fakeGroup) *fakeArticle {
	if strings.HasPrefix(arg, "<") {
		for _, g := range f.opts.groups {
			for n := g.low; g.article != nil && n <= g.high && n-g.low < 1000; n++ {
				if a := g.article(n); a != nil && a.id == arg {
					return a
				}
			}
		}
		return nil
	}
	n, err := strconv.ParseInt(arg, 10, 64)
	if err != nil || selected == nil || selected.article == nil {
		return nil
	}
	return selected.article(n)
}

// over answers OVER lo-hi.
func (f *fake) over(g *fakeGroup, arg string, bw *bufio.Writer) {
	lo, hi, ok := strings.Cut(arg, "-")
	l, err1 := strconv.ParseInt(lo, 10, 64)
	h, err2 := strconv.ParseInt(hi, 10, 64)
	if g == nil || g.article == nil || !ok || err1 != nil || err2 != nil {
		bw.WriteString("501 Syntax error\r\n")
		bw.Flush()
		return
	}
	var lines []string
	if g.numbers != nil {
		for _, n := range g.numbers {
			if n >= l && n <= h {
				if a := g.article(n); a != nil {
					lines = append(lines, a.overview())
				}
			}
		}
	} else {
		for n := max(l, g.low); n <= min(h, g.high); n++ {
			if a := g.article(n); a != nil {
				lines = append(lines, a.overview())
			}
		}
	}
	if len(lines) == 0 {
		bw.WriteString("423 No articles in that range\r\n")
		bw.Flush()
		return
	}
	bw.WriteString("224 Overview information follows\r\n")
	for _, l := range lines {
		bw.WriteString(l + "\r\n")
	}
	bw.WriteString(".\r\n")
	bw.Flush()
}

// fakeTLS returns the TLS configuration of a fake server for 127.0.0.1,
// with a certificate made for the test, and the pool a client trusts it
// with.
func fakeTLS(t testing.TB) (*tls.Config, *x509.CertPool) {
	t.Helper()
	cert, pool := fetchtest.SelfSigned(t, "fake news server")
	return &tls.Config{Certificates: []tls.Certificate{cert}}, pool
}
