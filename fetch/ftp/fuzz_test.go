package ftp

import (
	"bufio"
	"bytes"
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/urlfetch/urlfetch/fetch"
	"github.com/urlfetch/urlfetch/uri"
)

// Issue 12: a LIST or MLSD reply is bytes from the server, which may be
// hostile. Seeds: testdata/fuzz/FuzzList (vsftpd's ls -l in the test bed,
// DOS/IIS, EPLF and hosted formats) and FuzzMLSD (MLSD facts lines as
// ProFTPD and Pure-FTPd send them), and lines at and just over maxLine.
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

// fuzzNow is the time the listings are read at, which dates ls -l's
// times without a year.
var fuzzNow = time.Date(2024, time.March, 1, 12, 0, 0, 0, time.UTC)

// fuzzBase is the directory listed: ftp://joe@ftp.example.org:2121/pub/incoming/.
var fuzzBase = uri.FTP{
	Login: uri.Login{User: "joe", HasUser: true, Host: "ftp.example.org", Port: 2121},
	Dirs:  []string{"pub", "incoming"},
}

// FuzzList checks the parser of LIST replies, which the driver gives a
// listing's Body to; see checkListing.
func FuzzList(f *testing.F) {
	f.Fuzz(func(t *testing.T, listing []byte, pad uint16) {
		checkListing(t, stretch(listing, pad), false)
	})
}

// FuzzMLSD checks the parser of MLSD replies; see checkListing.
func FuzzMLSD(f *testing.F) {
	f.Fuzz(func(t *testing.T, listing []byte, pad uint16) {
		checkListing(t, stretch(listing, pad), true)
	})
}

// listItem is what a listing yields: an entry, or an error.
type listItem struct {
	e   fetch.Entry
	err error
}

// entries collects what listEntries yields for listing.
func entries(listing []byte, mlsd bool) []listItem {
	var items []listItem
	for e, err := range listEntries(bytes.NewReader(listing), mlsd, fuzzBase, fuzzNow) {
		items = append(items, listItem{e, err})
	}
	return items
}

// checkListing checks listEntries on a listing, read as MLSD facts when
// mlsd, else as LIST lines:
//   - no line is dropped: every line that is not blank, a summary ("total
//     N", MLSD's cdir and pdir) or "." or ".." yields one entry, a line of
//     no known format a name-only entry; or, if it holds a CR, which no
//     name may, one ErrProtocol error;
//   - each line yields what it yields alone (the parser keeps no state
//     from one line to the next that could shift entries onto lines);
//   - a line longer than maxLine ends the listing with one ErrProtocol
//     error, after the entries of the lines before it;
//   - an entry's name is not empty, holds no CR or LF, and is part of its
//     line; its URL parses, and is the base URL with the name as one more
//     segment (a directory's ending in "/");
//   - stopping early stops the parser.
func checkListing(t *testing.T, listing []byte, mlsd bool) {
	t.Helper()
	got := entries(listing, mlsd)
	var want []listItem
	long := false
	for rest := listing; len(rest) > 0; {
		piece := rest
		if i := bytes.IndexByte(rest, '\n'); i >= 0 {
			piece, rest = rest[:i], rest[i+1:]
		} else {
			rest = nil
		}
		if len(piece)+1 > maxLine {
			long = true
			break
		}
		line := strings.TrimRight(string(piece), "\r")
		alone := entries(append(slices.Clip(piece), '\n'), mlsd)
		switch {
		case len(alone) > 1:
			t.Fatalf("line %.300q gave %d items", line, len(alone))
		case len(alone) == 0 && !summary(line, mlsd):
			t.Fatalf("line %.300q was dropped", line)
		case len(alone) == 0:
		case alone[0].err != nil:
			if !errors.Is(alone[0].err, fetch.ErrProtocol) || !strings.Contains(line, "\r") {
				t.Fatalf("line %.300q: %v", line, alone[0].err)
			}
		default:
			checkListEntry(t, line, alone[0].e, mlsd)
		}
		want = append(want, alone...)
	}
	if long {
		if len(got) != len(want)+1 || got[len(got)-1].err == nil || !errors.Is(got[len(got)-1].err, fetch.ErrProtocol) {
			t.Fatalf("listEntries(%.300q), with a line over maxLine after %d items, = %.300v, want those and an ErrProtocol error", listing, len(want), got)
		}
		got = got[:len(got)-1]
	}
	if len(got) != len(want) {
		t.Fatalf("listEntries(%.300q) = %.300v, but its lines one by one give %.300v", listing, got, want)
	}
	for i := range got {
		if !reflect.DeepEqual(got[i].e, want[i].e) || (got[i].err == nil) != (want[i].err == nil) {
			t.Fatalf("listEntries(%.300q)[%d] = %.300v, but its line alone gives %.300v", listing, i, got[i], want[i])
		}
	}

	if stop := len(listing) % (len(got) + 1); stop < len(got) {
		n := 0
		for range listEntries(bytes.NewReader(listing), mlsd, fuzzBase, fuzzNow) {
			if n == stop {
				break
			}
			n++
		}
	}
}

// summary reports whether a line may yield no entry: a blank one, ls's
// "total N", MLSD's entries for the directory itself and its parent, or
// one whose name is "." or "..".
func summary(line string, mlsd bool) bool {
	lower := strings.ToLower(line)
	switch {
	case strings.TrimSpace(line) == "":
		return true
	case !mlsd && strings.HasPrefix(line, "total "):
		return true
	case mlsd && (strings.Contains(lower, "type=cdir") || strings.Contains(lower, "type=pdir")):
		return true
	}
	return strings.HasSuffix(line, ".")
}

// mlsdName returns the name of an MLSD line (RFC 3659 section 7.2: facts,
// each "fact=value;", a space, the name), or false for a line of another
// form.
func mlsdName(line string) (string, bool) {
	facts, name, found := strings.Cut(line, " ")
	if !found || name == "" {
		return "", false
	}
	for _, f := range strings.Split(facts, ";") {
		if f != "" && strings.IndexByte(f, '=') < 1 {
			return "", false
		}
	}
	return name, true
}

// checkListEntry checks the entry of one line of a LIST or MLSD reply.
func checkListEntry(t *testing.T, line string, e fetch.Entry, mlsd bool) {
	t.Helper()
	if mlsd {
		name, ok := mlsdName(line)
		if !ok {
			name = line // no known format: a name-only entry
		}
		if e.Name != name {
			t.Fatalf("line %.300q: name %.300q, want %.300q", line, e.Name, name)
		}
	}
	// In every format the name runs to the end of the line (a link's
	// followed by " -> " and its target), and a line of no known format
	// is all name.
	named := strings.HasSuffix(line, e.Name) || (e.Type == fetch.EntryLink && strings.HasSuffix(line, e.Name+" -> "+e.Target))
	if e.Name == "" || strings.ContainsAny(e.Name, "\r\n") || !strings.Contains(line, e.Name) || !named {
		t.Fatalf("line %.300q: name %.300q (target %.300q)", line, e.Name, e.Target)
	}
	if e.Type == fetch.EntryOther && e.Name != line && !strings.HasPrefix(line, "+") && !strings.Contains(line, " ") {
		t.Fatalf("line %.300q: name-only entry %.300q, want the whole line", line, e.Name)
	}
	if e.Size < -1 || (e.Type == fetch.EntryDir && e.Size != -1) || e.Title != "" || len(e.Target) > len(line) {
		t.Fatalf("line %.300q: entry %+.300v", line, e)
	}
	base := fuzzBase.String()
	if max := len(base) + 3*len(line) + 1; len(e.URL) > max {
		t.Fatalf("line %.300q: URL %.300q is longer than %d bytes", line, e.URL, max)
	}
	u, err := uri.Parse(e.URL)
	if err != nil {
		t.Fatalf("line %.300q: URL %.300q does not parse: %v", line, e.URL, err)
	}
	v, err := u.FTP()
	if err != nil {
		t.Fatalf("line %.300q: URL %.300q: %v", line, e.URL, err)
	}
	dirs, name := fuzzBase.Dirs, e.Name
	if e.Type == fetch.EntryDir {
		dirs, name = append(slices.Clip(dirs), e.Name), ""
	}
	if v.Login != fuzzBase.Login || !slices.Equal(v.Dirs, dirs) || v.Name != name || v.Type != 0 {
		t.Fatalf("line %.300q: URL %.300q is not %.300q below %s", line, e.URL, e.Name, base)
	}
}

// FuzzReplies checks the control connection's reader on what a hostile
// server may send: replies are read one after another until an error, and
// each is parsed as every command's reply would be (EPSV, PASV, PWD, SIZE,
// MDTM, FEAT). Nothing may panic; every reply read has a code of 100 to
// 599; a port given is one TCP has; no line is longer than maxLine.
func FuzzReplies(f *testing.F) {
	for _, seed := range []string{
		"220 urlfetch test bed FTP (vsftpd)\r\n331 Please specify the password.\r\n230 Login successful.\r\n",
		"211-Features:\r\n EPSV\r\n MDTM\r\n PASV\r\n REST STREAM\r\n SIZE\r\n TVFS\r\n211 End\r\n",
		"257 \"/pub/\"\"quoted\"\"\" is the current directory\r\n",
		"229 Entering Extended Passive Mode (|||18123|)\r\n227 Entering Passive Mode (127,0,0,1,70,171).\r\n",
		"227 =127,0,0,1,70,171\r\n213 20240102030405.123\r\n213 1024\r\n",
		"220-hello\r\n221 inside\r\n220 end\r\n150 Opening BINARY mode data connection for x (5 bytes).\r\n",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		s := &session{d: &Driver{}, r: bufio.NewReaderSize(bytes.NewReader(b), 4096)}
		for range 64 {
			rp, err := s.readReply()
			if err != nil {
				return
			}
			if rp.Code < 100 || rp.Code > 599 {
				t.Fatalf("reply code %d", rp.Code)
			}
			if len(rp.Line) > maxLine {
				t.Fatalf("a line of %d bytes", len(rp.Line))
			}
			for _, parse := range []func(reply) (int, error){parseEPSV, parsePASV} {
				if port, err := parse(rp); err == nil && (port < 1 || port > 65535) {
					t.Fatalf("data port %d from %q", port, rp.Line)
				}
			}
			parsePWD(rp.Msg)
			parseSize(rp.Msg)
			parseMDTM(rp.Msg)
			parseFeatures(rp.Lines)
		}
	})
}
