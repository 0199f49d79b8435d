package nntp

import (
	"bytes"
	"errors"
	"io"
	"iter"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/urlfetch/urlfetch/fetch"
	"github.com/urlfetch/urlfetch/uri"
)

// Issue 12: overview lines and LIST ACTIVE lines come from the news
// server, which may be hostile. Seeds: testdata/fuzz/FuzzOverview and
// FuzzListLines (INN's replies in the test bed, other servers' forms,
// lines at and just over maxLine).
//
// Each target takes the bytes and a pad, which lengthens the first line
// to around maxLine; see stretch.

// minPad is the smallest pad that counts: a pad lengthens a line to within
// 4 KiB of maxLine or beyond it, and a smaller one is ignored, so that
// most inputs stay short and quick (the fuzzer minimizes an input with
// its pad, and would spend its time on 64 KiB lines).
const minPad = maxLine - 4<<10

// stretch returns b with pad 'x' bytes after its first byte, or b itself
// when pad is below minPad.
func stretch(b []byte, pad uint16) []byte {
	if int(pad) < minPad {
		return b
	}
	at := min(1, len(b))
	out := make([]byte, 0, len(b)+int(pad))
	out = append(out, b[:at]...)
	out = append(out, bytes.Repeat([]byte{'x'}, int(pad))...)
	return append(out, b[at:]...)
}

// listingLine is a line of a listing as eachLine must see it.
type listingLine struct {
	text string // without its line end
	long bool   // longer than maxLine: an error, not an entry
}

// listingLines splits a listing's Body: LF ends a line, CRs before it
// go, and empty lines are no lines.
func listingLines(b []byte) []listingLine {
	var ls []listingLine
	for len(b) > 0 {
		line := b
		if i := bytes.IndexByte(b, '\n'); i >= 0 {
			line, b = b[:i], b[i+1:]
		} else {
			b = nil
		}
		switch text := string(bytes.TrimRight(line, "\r")); {
		case len(line)+1 > maxLine:
			ls = append(ls, listingLine{long: true})
		case text != "":
			ls = append(ls, listingLine{text: text})
		}
	}
	return ls
}

// fuzzDriver is the driver whose targets the listings belong to.
var fuzzDriver = &Driver{Server: "news.example.com:1119"}

// fuzzTarget is the target of rawURL.
func fuzzTarget(t *testing.T, rawURL string) *target {
	t.Helper()
	tg, err := fuzzDriver.target(uri.MustParse(rawURL))
	if err != nil {
		t.Fatal(err)
	}
	return tg
}

// checkLines checks that entries yields one entry or one ErrProtocol error
// per line of listing, in order, an error for a line over maxLine, and an
// entry exactly when ok says the line is one; check checks each entry.
// Breaking out of the loop must end the parser.
func checkLines(t *testing.T, listing []byte, entries func() iter.Seq2[fetch.Entry, error], ok func(line string) bool, check func(line string, e fetch.Entry)) {
	t.Helper()
	want := listingLines(listing)
	n := 0
	for e, err := range entries() {
		if n >= len(want) {
			t.Fatalf("%d items for the %d lines of %.300q", n+1, len(want), listing)
		}
		l := want[n]
		n++
		switch {
		case err != nil && !errors.Is(err, fetch.ErrProtocol):
			t.Fatalf("line %d (%.300q): error %v, want ErrProtocol", n, l.text, err)
		case l.long && err == nil:
			t.Fatalf("line %d, longer than maxLine, gave entry %+.300v, want an error", n, e)
		case l.long:
		case ok(l.text) != (err == nil):
			t.Fatalf("line %.300q gave %+.300v, %v", l.text, e, err)
		case err == nil:
			if strings.ContainsAny(e.Name, "\r\n") {
				t.Fatalf("line %.300q: name %.300q holds a CR or LF", l.text, e.Name)
			}
			check(l.text, e)
		}
	}
	if n != len(want) {
		t.Fatalf("%d items for the %d lines of %.300q", n, len(want), listing)
	}
	if stop := len(listing) % (len(want) + 1); stop < len(want) {
		i := 0
		for range entries() {
			if i == stop {
				break
			}
			i++
		}
	}
}

// FuzzOverview checks the parser of a group listing's Body, overview
// lines (RFC 3977 section 8.3), for a news: and an nntp: URL: one entry
// or error per line; an entry exactly for a line with five fields or
// more whose first is an article number, named by that number, no longer
// than the line allows; and its URL, decoded as the driver decodes a URL
// it is given, asks for that article: by message-id, or by number in the
// listed group on the listed server.
func FuzzOverview(f *testing.F) {
	f.Fuzz(func(t *testing.T, listing []byte, pad uint16) {
		listing = stretch(listing, pad)
		ok := func(line string) bool {
			fs := strings.Split(line, "\t")
			n, err := strconv.ParseInt(fs[0], 10, 64)
			return len(fs) >= 5 && err == nil && n > 0
		}
		for _, rawURL := range []string{"news:comp.lang.go", "nntp://reader@news.example.org:1190/alt.test"} {
			tg := fuzzTarget(t, rawURL)
			entries := func() iter.Seq2[fetch.Entry, error] { return tg.overviewEntries(bytes.NewReader(listing)) }
			checkLines(t, listing, entries, ok, func(line string, e fetch.Entry) {
				fs := strings.Split(line, "\t")
				n, _ := strconv.ParseInt(fs[0], 10, 64)
				if e.Name != fs[0] || e.Type != fetch.EntryArticle || e.Media != ArticleType {
					t.Fatalf("line %.300q: entry %.300q, want article %s", line, e.Name, fs[0])
				}
				// Decoded words may grow: a byte of a B-encoded US-ASCII
				// word that is not ASCII becomes a 3-byte U+FFFD.
				size := int64(-1) // the sixth field after the number: bytes
				if len(fs) > 6 {
					if b, err := strconv.ParseInt(strings.TrimSpace(fs[6]), 10, 64); err == nil && b >= 0 {
						size = b
					}
				}
				if e.Size != size || len(e.Title) > 3*len(line)+3 || len(e.URL) > 3*len(line)+len(rawURL)+32 {
					t.Fatalf("line %.300q: size %d, title %.300q, URL %.300q", line, e.Size, e.Title, e.URL)
				}
				u, err := uri.Parse(e.URL)
				if err != nil {
					t.Fatalf("line %.300q: URL %.300q does not parse: %v", line, e.URL, err)
				}
				at, err := fuzzDriver.target(u)
				if err != nil {
					t.Fatalf("line %.300q: URL %.300q: %v", line, e.URL, err)
				}
				id := strings.TrimSuffix(strings.TrimPrefix(strings.TrimSpace(fs[4]), "<"), ">")
				switch {
				case at.kind == articleByID && at.id == id && tg.scheme == "news":
				case at.kind == articleByNumber && at.number == n && at.group == tg.group && at.addr == tg.addr && at.user == tg.user:
				default:
					t.Fatalf("line %.300q: URL %.300q asks for %+.300v, not article %d (%.300q) of %+.300v", line, e.URL, at, n, id, tg)
				}
			})
		}
	})
}

// FuzzListLines checks the parser of the list of groups, LIST ACTIVE
// lines (RFC 3977 section 7.6.3), for news:* and nntp://host/: one entry
// or error per line; an entry exactly for a line of four fields or more
// whose second and third are numbers, named by the first; and its URL,
// decoded as the driver decodes a URL it is given, lists that group on
// that server, unless the name holds a byte no command may carry.
func FuzzListLines(f *testing.F) {
	f.Fuzz(func(t *testing.T, listing []byte, pad uint16) {
		listing = stretch(listing, pad)
		ok := func(line string) bool {
			fs := strings.Fields(line)
			if len(fs) < 4 {
				return false
			}
			// High and low are article numbers: 0 to 2^63-1 (issue 23).
			high, err1 := strconv.ParseInt(fs[1], 10, 64)
			low, err2 := strconv.ParseInt(fs[2], 10, 64)
			return err1 == nil && err2 == nil && high >= 0 && low >= 0
		}
		for _, rawURL := range []string{"news:*", "nntp://reader@news.example.org:1190/"} {
			tg := fuzzTarget(t, rawURL)
			entries := func() iter.Seq2[fetch.Entry, error] { return tg.activeEntries(bytes.NewReader(listing)) }
			checkLines(t, listing, entries, ok, func(line string, e fetch.Entry) {
				name := strings.Fields(line)[0]
				if e.Name != name || e.Type != fetch.EntryGroup || len(e.Title) > len(line)+64 || len(e.URL) > 3*len(line)+len(rawURL)+32 {
					t.Fatalf("line %.300q: entry %+.300v", line, e)
				}
				u, err := uri.Parse(e.URL)
				if err != nil {
					t.Fatalf("line %.300q: URL %.300q does not parse: %v", line, e.URL, err)
				}
				at, err := fuzzDriver.target(u)
				switch {
				case errors.Is(err, fetch.ErrUnsafe):
				case err != nil:
					t.Fatalf("line %.300q: URL %.300q: %v", line, e.URL, err)
				case at.kind != groupListing || at.group != name || at.addr != tg.addr || at.user != tg.user:
					t.Fatalf("line %.300q: URL %.300q asks for %+.300v, not the group %.300q of %+.300v", line, e.URL, at, name, tg)
				}
			})
		}
	})
}

// FuzzGroupWalk: the arithmetic of a group listing, whatever a server
// says (issue 23). A GROUP reply that parses gives no negative number; the
// walk down its range then asks only for numbers in it, each OVER below
// the last, and ends within a bound that does not rest on the server's
// good will, having listed every article in the range newest first.
func FuzzGroupWalk(f *testing.F) {
	f.Add("2 1 9223372036854775807 g", []byte{1, 2}, int8(5))
	f.Add("5 -9223372036854775808 -9223372036854775800 g", []byte{}, int8(0))
	f.Add("0 0 0 empty", []byte{}, int8(-1))
	f.Add("3 100 99 empty", []byte{100}, int8(-1))
	f.Add("1000 1 1000 g", []byte{1, 128, 129, 200, 255, 7, 0}, int8(-1))
	f.Fuzz(func(t *testing.T, msg string, gaps []byte, max int8) {
		count, low, high, err := parseGroup(msg)
		if err != nil {
			return
		}
		if count < 0 || low < 0 || high < 0 {
			t.Fatalf("parseGroup(%q) = %d %d %d, a negative number", msg, count, low, high)
		}
		// The articles: numbers from high down, gaps apart (a gap byte
		// of 255 is a gap of 2^40 numbers).
		var nums []int64 // ascending
		n := high
		for _, g := range gaps {
			step := int64(g)
			if g == 255 {
				step = 1 << 40
			}
			if n < low || n <= 0 {
				break
			}
			nums = append([]int64{n}, nums...)
			n -= step + 1
		}
		left := int64(max)
		if left == 0 {
			left = DefaultMaxEntries
		}
		calls, lastLo := 0, int64(math.MaxInt64)
		o := newOverview(fetch.NewRequest(nil, nil), low, high, left, func(lo, hi int64, fn func([]byte) error) error {
			calls++
			if lo < low || hi > high || lo > hi || calls > 1 && hi >= lastLo {
				t.Fatalf("OVER %d-%d in the group %d-%d after one from %d", lo, hi, low, high, lastLo)
			}
			lastLo = lo
			for _, n := range nums {
				if n >= lo && n <= hi {
					if err := fn([]byte(strconv.FormatInt(n, 10) + "\tsubject\tfrom\tdate\t<id>")); err != nil {
						return err
					}
				}
			}
			return nil
		})
		b, err := io.ReadAll(o)
		if err != nil {
			t.Fatalf("walk: %v", err)
		}
		if limit := 64 * (len(nums) + 1); calls > limit {
			t.Fatalf("%d OVERs for %d articles in %d-%d; want at most %d", calls, len(nums), low, high, limit)
		}
		want := len(nums)
		if left > 0 && int64(want) > left {
			want = int(left)
		}
		lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
		if len(b) == 0 {
			lines = nil
		}
		if len(lines) != want {
			t.Fatalf("listed %d lines of %d articles (left %d): %q", len(lines), len(nums), left, b)
		}
		for i, l := range lines {
			if got, _ := overviewNumber([]byte(l)); got != nums[len(nums)-1-i] {
				t.Fatalf("line %d = %q; want article %d (newest first)", i, l, nums[len(nums)-1-i])
			}
		}
	})
}
