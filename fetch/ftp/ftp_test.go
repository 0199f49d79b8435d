package ftp

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/iotest"
	"time"

	"github.com/urlfetch/urlfetch/fetch"
	"github.com/urlfetch/urlfetch/fetch/fetchtest"
	"github.com/urlfetch/urlfetch/internal/misbehaving"
	"github.com/urlfetch/urlfetch/uri"
)

func TestConformance(t *testing.T) {
	srv := newFakeServer(t)
	fetchtest.Run(t, fetchtest.Opt{
		Scheme: "ftp",
		NewClient: func(t testing.TB) *fetch.Client {
			c := &fetch.Client{NetrcFile: "-"}
			c.Register("ftp", &Driver{})
			return c
		},
		Found: []fetchtest.Case{
			{URL: srv.URL("/readme.txt"), Want: "hello, ftp\n"},
			{URL: srv.URL("/empty.txt"), SHA256: fetchtest.EmptySHA256},
			{URL: srv.URL("/%2Fetc/motd"), Want: "message of the day\n"},
			{URL: srv.URL("/pub/lines.txt;type=a"), Want: "one\ntwo\nthree\rfour\n"},
			{URL: srv.URLAs("joe:secret", "/welcome.txt"), Want: "welcome, joe\n"},
			{URL: srv.URL("/pub/"), Kind: fetch.Listing},
		},
		Missing: srv.URL("/nothing.txt"),
		Denied:  srv.URLAs("joe:wrong", "/welcome.txt"),
		Listing: srv.URL("/pub/a/"),
		Stall:   stallServer,
		Inject: []string{
			srv.URL("/pub%0D%0AQUIT/readme.txt"),
			srv.URL("/readme.txt%0D%0ADELE%20x"),
			srv.URL("/readme%00.txt"),
			srv.URLAs("joe%0D%0A", "/readme.txt"),
			srv.URLAs("joe:se%0Acret", "/readme.txt"),
		},
		Broken: func(t testing.TB) string {
			return misbehaving.Serve(t, misbehaving.FTP, misbehaving.CloseMidTransfer).URL()
		},
		Transfers: transfers,
		Caps:      fetchtest.Caps{Resume: true},
	})
}

// transfers reports whether an FTP command transfers a file or a
// listing, or opens a data connection for one: what a Head never sends.
func transfers(cmd string) bool {
	verb, _, _ := strings.Cut(cmd, " ")
	switch strings.ToUpper(verb) {
	case "RETR", "LIST", "MLSD", "NLST", "EPSV", "PASV", "EPRT", "PORT", "REST", "PRET", "STOR":
		return true
	}
	return false
}

// newClient returns a Client with d (a new Driver when nil) registered,
// reading no netrc, its trace in the test log.
func newClient(t *testing.T, d *Driver) *fetch.Client {
	t.Helper()
	if d == nil {
		d = &Driver{}
	}
	c := &fetch.Client{NetrcFile: "-"}
	c.Register("ftp", d)
	c.Trace = func(dir fetch.Direction, line string) { t.Logf("%c %s", dir, line) }
	t.Cleanup(func() { c.Close() })
	return c
}

// get fetches rawURL and reads its body whole.
func get(t *testing.T, c *fetch.Client, rawURL string) (*fetch.Response, string) {
	t.Helper()
	resp, err := c.Fetch(t.Context(), rawURL)
	if err != nil {
		t.Fatalf("Fetch(%q): %v", rawURL, err)
	}
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("Fetch(%q): reading: %v", rawURL, err)
	}
	if err := resp.Body.Close(); err != nil {
		t.Fatalf("Fetch(%q): Close: %v", rawURL, err)
	}
	return resp, string(b)
}

// afterLogin drops the login and feature probe from a command log: the
// commands a URL's path gave.
func afterLogin(cmds []string) []string {
	for i, c := range cmds {
		if c == "PWD" {
			return cmds[i+1:]
		}
	}
	return cmds
}

// RFC 1738 section 3.2.2: one CWD per segment, then TYPE and RETR.
func TestCommandSequence(t *testing.T) {
	srv := newFakeServer(t)
	tests := []struct {
		path string
		want []string
	}{
		{"/readme.txt", []string{"TYPE I", "SIZE readme.txt", "MDTM readme.txt", "EPSV", "RETR readme.txt", "QUIT"}},
		{"/%2Fetc/motd", []string{"CWD /etc", "TYPE I", "SIZE motd", "MDTM motd", "EPSV", "RETR motd", "QUIT"}},
		{"/pub/a/b/nested.txt;type=i", []string{"CWD pub", "CWD a", "CWD b", "TYPE I", "SIZE nested.txt", "MDTM nested.txt", "EPSV", "RETR nested.txt", "QUIT"}},
		{"/pub/lines.txt;type=a", []string{"CWD pub", "TYPE A", "MDTM lines.txt", "EPSV", "RETR lines.txt", "QUIT"}},
		{"/pub/;type=d", []string{"CWD pub", "EPSV", "NLST", "QUIT"}},
		{"/pub/a;type=d", []string{"CWD pub", "EPSV", "NLST a", "QUIT"}},
		{"/pub/", []string{"CWD pub", "EPSV", "LIST", "QUIT"}},
		{"/pub/a", []string{"CWD pub", "TYPE I", "SIZE a", "MDTM a", "EPSV", "RETR a", "CWD a", "EPSV", "LIST", "QUIT"}},
	}
	for _, tt := range tests {
		c := newClient(t, nil)
		get(t, c, srv.URL(tt.path))
		c.Close()
		waitFor(t, func() bool { return slices.Contains(srv.peek(), "QUIT") })
		if got := afterLogin(srv.commands()); !slices.Equal(got, tt.want) {
			t.Errorf("Fetch(%q) sent %q, want %q", tt.path, got, tt.want)
		}
	}
}

// peek returns the commands received so far, keeping them.
func (s *fakeServer) peek() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.cmds...)
}

// waitFor polls cond for up to five seconds.
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not met within 5s")
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// An empty segment is a CWD with an empty argument (RFC 1738 section
// 3.2.2: ftp://myname@host.dom//etc/motd), which this server refuses.
func TestEmptySegment(t *testing.T) {
	srv := newFakeServer(t)
	c := newClient(t, nil)
	_, err := c.Fetch(t.Context(), srv.URL("//etc/motd"))
	if !errors.Is(err, fetch.ErrNotFound) {
		t.Fatalf("Fetch(//etc/motd) error = %v, want ErrNotFound", err)
	}
	var re *ReplyError
	if !errors.As(err, &re) || re.Code != 550 || re.Command != "CWD " {
		t.Errorf("Fetch(//etc/motd) error = %#v, want a 550 reply to %q", re, "CWD ")
	}
	if got := afterLogin(srv.commands()); len(got) == 0 || got[0] != "CWD " {
		t.Errorf("commands after login = %q, want CWD with an empty argument first", got)
	}
}

func TestCWDMethods(t *testing.T) {
	srv := newFakeServer(t)
	tests := []struct {
		method CWDMethod
		path   string
		want   []string
	}{
		{CWDWhole, "/pub/a/b/nested.txt", []string{"CWD pub/a/b", "TYPE I", "SIZE nested.txt", "MDTM nested.txt", "EPSV", "RETR nested.txt"}},
		{CWDWhole, "//etc/motd", []string{"CWD /etc", "TYPE I", "SIZE motd", "MDTM motd", "EPSV", "RETR motd"}},
		{CWDNone, "/pub/a/b/nested.txt", []string{"TYPE I", "SIZE pub/a/b/nested.txt", "MDTM pub/a/b/nested.txt", "EPSV", "RETR pub/a/b/nested.txt"}},
		{CWDNone, "/pub/a/", []string{"EPSV", "LIST pub/a"}},
		{CWDNone, "/pub/a", []string{"TYPE I", "SIZE pub/a", "MDTM pub/a", "EPSV", "RETR pub/a", "CWD pub/a", "EPSV", "LIST"}},
	}
	for _, tt := range tests {
		c := newClient(t, &Driver{CWDMethod: tt.method})
		get(t, c, srv.URL(tt.path))
		c.Close()
		waitFor(t, func() bool { return slices.Contains(srv.peek(), "QUIT") })
		got := afterLogin(srv.commands())
		if got = got[:len(got)-1]; !slices.Equal(got, tt.want) {
			t.Errorf("%v: Fetch(%q) sent %q, want %q", tt.method, tt.path, got, tt.want)
		}
	}
}

func TestParseCWDMethod(t *testing.T) {
	for _, m := range []CWDMethod{CWDEach, CWDWhole, CWDNone} {
		if got, err := ParseCWDMethod(m.String()); err != nil || got != m {
			t.Errorf("ParseCWDMethod(%q) = %v, %v; want %v", m.String(), got, err, m)
		}
	}
	if _, err := ParseCWDMethod("fastcwd"); err == nil {
		t.Error(`ParseCWDMethod("fastcwd") succeeded`)
	}
}

func TestDocumentMetadata(t *testing.T) {
	srv := newFakeServer(t)
	c := newClient(t, nil)
	resp, body := get(t, c, srv.URL("/readme.txt"))
	if resp.Kind != fetch.Document || resp.Length != int64(len(body)) || body != "hello, ftp\n" {
		t.Errorf("readme.txt: Kind %v Length %d body %q", resp.Kind, resp.Length, body)
	}
	if want := time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC); !resp.Modified.Equal(want) {
		t.Errorf("readme.txt: Modified = %v, want %v (MDTM)", resp.Modified, want)
	}
	if !strings.HasPrefix(resp.Type, "text/plain") {
		t.Errorf("readme.txt: Type = %q, want text/plain from the suffix", resp.Type)
	}
	if r := resp.Meta.Get("Ftp-Reply"); !strings.HasPrefix(r, "150 ") {
		t.Errorf("readme.txt: Meta Ftp-Reply = %q, want the 150 reply", r)
	}
	resp, _ = get(t, c, srv.URL("/etc/motd"))
	if resp.Type != "application/octet-stream" {
		t.Errorf("motd: Type = %q, want application/octet-stream (no suffix)", resp.Type)
	}
	// ASCII mode: no Length, since the conversion changes it.
	resp, body = get(t, c, srv.URL("/pub/lines.txt;type=a"))
	if resp.Length != -1 || body != "one\ntwo\nthree\rfour\n" {
		t.Errorf("lines.txt;type=a: Length %d body %q", resp.Length, body)
	}
	// Without MDTM in FEAT, no MDTM is sent.
	srv.set(func() { srv.noMDTM = true })
	c2 := newClient(t, nil)
	srv.commands()
	resp, _ = get(t, c2, srv.URL("/readme.txt"))
	if !resp.Modified.IsZero() || slices.ContainsFunc(srv.commands(), func(s string) bool { return strings.HasPrefix(s, "MDTM") }) {
		t.Errorf("no MDTM feature: Modified %v, or MDTM was sent", resp.Modified)
	}
}

func TestNamesThatNeedEncoding(t *testing.T) {
	srv := newFakeServer(t)
	c := newClient(t, nil)
	for path, want := range map[string]string{
		"/pub/name%20with%20space.txt": "space\n",
		"/pub/semi%3Bcolon.txt":        "semicolon\n",
	} {
		if _, body := get(t, c, srv.URL(path)); body != want {
			t.Errorf("Fetch(%q) = %q, want %q", path, body, want)
		}
	}
}

func TestDirectories(t *testing.T) {
	srv := newFakeServer(t)
	c := newClient(t, nil)
	want := []string{
		"dir a " + srv.URL("/pub/a/"),
		"file lines.txt " + srv.URL("/pub/lines.txt"),
		"file name with space.txt " + srv.URL("/pub/name%20with%20space.txt"),
		"file semi;colon.txt " + srv.URL("/pub/semi%3Bcolon.txt"),
	}
	for _, p := range []string{"/pub/", "/pub"} {
		resp, err := c.Fetch(t.Context(), srv.URL(p))
		if err != nil {
			t.Fatalf("Fetch(%q): %v", p, err)
		}
		if resp.Kind != fetch.Listing {
			t.Errorf("Fetch(%q).Kind = %v, want listing", p, resp.Kind)
		}
		if got := entryLines(t, resp); !slices.Equal(got, want) {
			t.Errorf("Fetch(%q) entries:\n%s\nwant:\n%s", p, strings.Join(got, "\n"), strings.Join(want, "\n"))
		}
		resp.Body.Close()
	}
	// An empty directory is a listing without entries.
	resp, err := c.Fetch(t.Context(), srv.URL("/emptydir/"))
	if err != nil {
		t.Fatal(err)
	}
	if got := entryLines(t, resp); resp.Kind != fetch.Listing || len(got) != 0 {
		t.Errorf("emptydir/: %v %q, want an empty listing", resp.Kind, got)
	}
	// A missing directory is not found.
	if _, err := c.Fetch(t.Context(), srv.URL("/nowhere/")); !errors.Is(err, fetch.ErrNotFound) {
		t.Errorf("nowhere/: error %v, want ErrNotFound", err)
	}
}

func entryLines(t *testing.T, resp *fetch.Response) []string {
	t.Helper()
	var got []string
	for e, err := range resp.Entries() {
		if err != nil {
			t.Fatalf("Entries: %v", err)
		}
		got = append(got, e.Type.String()+" "+e.Name+" "+e.URL)
	}
	return got
}

func TestMLSD(t *testing.T) {
	srv := newFakeServer(t)
	srv.set(func() { srv.mlsd = true })
	c := newClient(t, nil)
	resp, err := c.Fetch(t.Context(), srv.URL("/pub/a/"))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := entryLines(t, resp), []string{"dir b " + srv.URL("/pub/a/b/")}; !slices.Equal(got, want) {
		t.Errorf("MLSD entries = %q, want %q", got, want)
	}
	if !slices.Contains(srv.commands(), "MLSD") {
		t.Error("MLSD was not used though FEAT offers MLST")
	}
}

// Lines the parsers of jlaffaye/ftp do not know are kept, name only.
func TestListingKeepsUnparsedLines(t *testing.T) {
	srv := newFakeServer(t)
	rawList := "total 3\r\n" +
		"-rw-r--r--    1 0        0              10 Jan 02  2024 plain.txt\r\n" +
		"this line is no listing format\r\n" +
		"lrwxrwxrwx    1 0        0               9 Jan 02  2024 latest -> plain.txt\r\n" +
		"01-02-24  03:04PM       <DIR>          dosdir\r\n" +
		"drwxr-xr-x    2 0        0            4096 Jan 02  2024 with space dir\r\n"
	srv.set(func() { srv.rawList["/pub"] = rawList })
	c := newClient(t, nil)
	resp, err := c.Fetch(t.Context(), srv.URL("/pub/"))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"file plain.txt " + srv.URL("/pub/plain.txt"),
		"other this line is no listing format " + srv.URL("/pub/this%20line%20is%20no%20listing%20format"),
		"link latest " + srv.URL("/pub/latest"),
		"dir dosdir " + srv.URL("/pub/dosdir/"),
		"dir with space dir " + srv.URL("/pub/with%20space%20dir/"),
	}
	if got := entryLines(t, resp); !slices.Equal(got, want) {
		t.Errorf("entries:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// Each listing format, line by line: what the parsers make of the lines
// of real servers, and that a line of no known format is kept.
func TestListEntriesFormats(t *testing.T) {
	base := dirURL(&uri.FTP{Login: uri.Login{Host: "h", User: "u", HasUser: true, Password: "p", HasPassword: true}}, []string{"d"})
	now := time.Date(2024, time.March, 10, 12, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		mlsd bool
		line string
		want string // type name size time url
	}{
		{false, "-rw-r--r--    1 0        0              10 Jan 02  2023 plain.txt", "file plain.txt 10 2023-01-02T00:00 ftp://u@h/d/plain.txt"},
		{false, "-rw-r--r--    1 ftp      ftp            10 Mar 09 11:30 recent.txt", "file recent.txt 10 2024-03-09T11:30 ftp://u@h/d/recent.txt"},
		{false, "-rw-r--r--    1 ftp      ftp            10 Dec 24 11:30 lastyear.txt", "file lastyear.txt 10 2023-12-24T11:30 ftp://u@h/d/lastyear.txt"},
		{false, "-rw-r--r--    1 ftp      ftp            10 Jan 02  2023  two  spaces ", "file  two  spaces  10 2023-01-02T00:00 ftp://u@h/d/%20two%20%20spaces%20"},
		{false, "-rw-r--r-- 1 owner 7 Jan 02 2023 nogroup", "file nogroup 7 2023-01-02T00:00 ftp://u@h/d/nogroup"},
		{false, "drwxr-xr-x    2 0        0            4096 Jan 02  2023 sub dir", "dir sub dir -1 2023-01-02T00:00 ftp://u@h/d/sub%20dir/"},
		{false, "lrwxrwxrwx    1 0        0               9 Jan 02  2023 latest -> plain.txt", "link latest 9 2023-01-02T00:00 ftp://u@h/d/latest"},
		{false, "crw-rw-rw-    1 0        0          1,   3 Jan 02  2023 null", "other null -1 2023-01-02T00:00 ftp://u@h/d/null"},
		{false, "01-16-02  11:14AM       <DIR>          eps group", "dir eps group -1 2002-01-16T11:14 ftp://u@h/d/eps%20group/"},
		{false, "06-05-2002  03:47PM                370 readme.txt", "file readme.txt 370 2002-06-05T15:47 ftp://u@h/d/readme.txt"},
		{false, "06-05-02  12:05AM                  1 midnight", "file midnight 1 2002-06-05T00:05 ftp://u@h/d/midnight"},
		{false, "+i8388621.48594,m825718503,r,s280,\tdjb.html", "file djb.html 280 1996-03-01T22:15 ftp://u@h/d/djb.html"},
		{false, "+i8388621.50690,m824255907,/,\t514", "dir 514 -1 1996-02-13T23:58 ftp://u@h/d/514/"},
		// Issue 23: a time past year 9999 is no file's (and JSON cannot write it).
		{false, "+m300000000000,r,s1,\tfar", "file far 1 - ftp://u@h/d/far"},
		{false, "+m9223372036854775807,r,s1,\tfarther", "file farther 1 - ftp://u@h/d/farther"},
		{false, "this line is no listing format", "other this line is no listing format -1 - ftp://u@h/d/this%20line%20is%20no%20listing%20format"},
		{false, "total 12", ""},
		{true, "type=file;size=1024;modify=20240102030405.123; notes.txt", "file notes.txt 1024 2024-01-02T03:04 ftp://u@h/d/notes.txt"},
		{true, "Type=dir;Modify=20240102030405; a dir", "dir a dir -1 2024-01-02T03:04 ftp://u@h/d/a%20dir/"},
		{true, "type=OS.unix=slink:/pub/x;size=5; ln", "link ln 5 - ftp://u@h/d/ln"},
		{true, "type=cdir; .", ""},
		{true, "type=pdir; ..", ""},
		{true, "nofacts", "other nofacts -1 - ftp://u@h/d/nofacts"},
	} {
		var got []string
		for e, err := range listEntries(strings.NewReader(tc.line+"\r\n"), tc.mlsd, base, now) {
			if err != nil {
				t.Fatalf("%q: %v", tc.line, err)
			}
			tm := "-"
			if !e.Time.IsZero() {
				tm = e.Time.Format("2006-01-02T15:04")
			}
			got = append(got, fmt.Sprintf("%s %s %d %s %s", e.Type, e.Name, e.Size, tm, e.URL))
		}
		want := []string{}
		if tc.want != "" {
			want = []string{tc.want}
		}
		if got == nil {
			got = []string{}
		}
		if !slices.Equal(got, want) {
			t.Errorf("%q:\n got %q\nwant %q", tc.line, got, want)
		}
	}
}

// A listing line longer than the bound is an error, not an unbounded
// buffer.
func TestListEntriesLongLine(t *testing.T) {
	base := dirURL(&uri.FTP{Login: uri.Login{Host: "h"}}, nil)
	raw := "-rw-r--r-- 1 0 0 5 Jan 02 2024 a\r\n" + strings.Repeat("x", maxLine+1) + "\r\n"
	var n int
	var last error
	for _, err := range listEntries(strings.NewReader(raw), false, base, time.Now()) {
		n++
		last = err
	}
	if n != 2 || !errors.Is(last, fetch.ErrProtocol) {
		t.Errorf("got %d results, last error %v; want one entry and an ErrProtocol", n, last)
	}
}

func TestNameList(t *testing.T) {
	srv := newFakeServer(t)
	c := newClient(t, nil)
	for p, want := range map[string][]string{
		"/pub/;type=d":  {"other a " + srv.URL("/pub/a"), "other lines.txt " + srv.URL("/pub/lines.txt"), "other name with space.txt " + srv.URL("/pub/name%20with%20space.txt"), "other semi;colon.txt " + srv.URL("/pub/semi%3Bcolon.txt")},
		"/pub/a;type=d": {"other b " + srv.URL("/pub/a/b")},
	} {
		resp, err := c.Fetch(t.Context(), srv.URL(p))
		if err != nil {
			t.Fatal(err)
		}
		if got := entryLines(t, resp); !slices.Equal(got, want) {
			t.Errorf("Fetch(%q) entries = %q, want %q", p, got, want)
		}
	}
}

// loginServer is a fake server with more accounts: "nopass" needs no
// password, "foo" has an empty one.
func loginServer(t *testing.T) *fakeServer {
	srv := newFakeServer(t)
	srv.set(func() {
		srv.noPassword["nopass"] = true
		srv.users["foo"] = ""
	})
	return srv
}

func TestLogin(t *testing.T) {
	t.Run("anonymous", func(t *testing.T) {
		srv := loginServer(t)
		c := newClient(t, &Driver{AnonymousPassword: "me@example.org"})
		get(t, c, srv.URL("/readme.txt"))
		cmds := srv.commands()
		if cmds[0] != "USER anonymous" || cmds[1] != "PASS me@example.org" {
			t.Errorf("login = %q, want USER anonymous, PASS me@example.org", cmds[:2])
		}
	})
	t.Run("default anonymous password", func(t *testing.T) {
		d := &Driver{}
		if p := d.anonymousPassword(); !strings.Contains(p, "@") {
			t.Errorf("anonymousPassword() = %q, want USER@HOST", p)
		}
	})
	t.Run("user and password", func(t *testing.T) {
		srv := loginServer(t)
		c := newClient(t, nil)
		if _, body := get(t, c, srv.URLAs("joe:secret", "/welcome.txt")); body != "welcome, joe\n" {
			t.Errorf("body = %q", body)
		}
		srv.commands()
	})
	t.Run("wrong password", func(t *testing.T) {
		srv := loginServer(t)
		c := newClient(t, nil)
		_, err := c.Fetch(t.Context(), srv.URLAs("joe:nope", "/welcome.txt"))
		var re *ReplyError
		if !errors.Is(err, fetch.ErrAuth) || !errors.As(err, &re) || re.Code != 530 || !strings.Contains(err.Error(), "Login incorrect") {
			t.Errorf("error = %v, want ErrAuth with the server's 530 reply", err)
		}
		if strings.Contains(err.Error(), "nope") {
			t.Errorf("error %q shows the password", err)
		}
		srv.commands()
	})
	t.Run("no password and no terminal", func(t *testing.T) {
		srv := loginServer(t)
		c := newClient(t, nil)
		_, err := c.Fetch(t.Context(), srv.URLAs("joe", "/welcome.txt"))
		if !errors.Is(err, fetch.ErrAuth) || !strings.Contains(err.Error(), "needs a password") {
			t.Errorf("error = %v, want ErrAuth saying a password is needed", err)
		}
		srv.commands()
	})
	t.Run("prompt after 331", func(t *testing.T) {
		srv := loginServer(t)
		c := newClient(t, nil)
		var asked []string
		c.Prompt = func(ctx context.Context, prompt string) (string, error) {
			asked = append(asked, prompt)
			return "secret", nil
		}
		if _, body := get(t, c, srv.URLAs("joe", "/welcome.txt")); body != "welcome, joe\n" {
			t.Errorf("body = %q", body)
		}
		if len(asked) != 1 {
			t.Errorf("prompted %d times, want once", len(asked))
		}
		if cmds := srv.commands(); cmds[1] != "PASS secret" {
			t.Errorf("sent %q, want PASS secret", cmds[1])
		}
		// The prompt is asked only when the server asks (331).
		asked = nil
		get(t, c, srv.URLAs("nopass", "/readme.txt"))
		if len(asked) != 0 {
			t.Errorf("prompted %q for a user the server took without a password", asked)
		}
		srv.commands()
	})
	t.Run("netrc", func(t *testing.T) {
		srv := loginServer(t)
		netrc := filepath.Join(t.TempDir(), "netrc")
		host := strings.Split(srv.addr, ":")[0]
		if err := os.WriteFile(netrc, []byte("machine "+host+" login joe password secret\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		c := newClient(t, nil)
		c.NetrcFile = netrc
		if _, body := get(t, c, srv.URLAs("joe", "/welcome.txt")); body != "welcome, joe\n" {
			t.Errorf("body = %q", body)
		}
		srv.commands()
	})
	t.Run("empty user", func(t *testing.T) {
		srv := loginServer(t)
		// ftp://@host/: a user name that is empty, sent as it is; the
		// server asks for a password, which the prompt gives. This
		// server, like vsftpd, then refuses the login (503).
		c := newClient(t, nil)
		c.Prompt = func(context.Context, string) (string, error) { return "", nil }
		_, err := c.Fetch(t.Context(), srv.URLAs("", "/readme.txt"))
		if !errors.Is(err, fetch.ErrAuth) {
			t.Errorf("error = %v, want ErrAuth", err)
		}
		if cmds := srv.commands(); cmds[0] != "USER " || cmds[1] != "PASS " {
			t.Errorf("login = %q, want an empty USER and PASS", cmds[:2])
		}
	})
	t.Run("empty password", func(t *testing.T) {
		srv := loginServer(t)
		// ftp://foo:@host/: an empty password, sent without a prompt.
		c := newClient(t, nil)
		c.Prompt = func(context.Context, string) (string, error) {
			t.Error("prompted for a password the URL gives (empty)")
			return "", nil
		}
		get(t, c, srv.URLAs("foo:", "/readme.txt"))
		if cmds := srv.commands(); cmds[0] != "USER foo" || cmds[1] != "PASS " {
			t.Errorf("login = %q, want USER foo, PASS with an empty argument", cmds[:2])
		}
	})
}

func TestErrors(t *testing.T) {
	srv := newFakeServer(t)
	c := newClient(t, nil)
	_, err := c.Fetch(t.Context(), srv.URL("/pub/missing.txt"))
	var re *ReplyError
	if !errors.Is(err, fetch.ErrNotFound) || !errors.As(err, &re) || re.Code != 550 || !strings.Contains(err.Error(), "550 Failed to open file.") {
		t.Errorf("missing file: error = %v, want ErrNotFound with the server's reply", err)
	}
	_, err = c.Fetch(t.Context(), srv.URL("/nodir/file.txt"))
	if !errors.Is(err, fetch.ErrNotFound) || !strings.Contains(err.Error(), "CWD nodir") {
		t.Errorf("missing directory: error = %v, want ErrNotFound naming CWD nodir", err)
	}

	busy := newFakeServer(t)
	busy.set(func() { busy.greeting = "421 Too many users, try later." })
	_, err = c.Fetch(t.Context(), busy.URL("/readme.txt"))
	if !errors.Is(err, fetch.ErrConnect) || !errors.As(err, &re) || !re.Temporary() || !fetch.Temporary(err) {
		t.Errorf("421 greeting: error = %v, want ErrConnect and a temporary *ReplyError, which --retry tries again", err)
	}

	// Nothing is sent for a URL with a decoded CR or LF.
	n := srv.connections()
	_, err = c.Fetch(t.Context(), srv.URL("/a%0Ab/readme.txt"))
	if !errors.Is(err, fetch.ErrUnsafe) || srv.connections() != n {
		t.Errorf("LF in a segment: error %v, %d new connections; want ErrUnsafe before connecting", err, srv.connections()-n)
	}
}

// A data connection that closes before SIZE's count is a broken transfer:
// a connection error, which a retry may resume.
func TestShortTransfer(t *testing.T) {
	srv := newFakeServer(t)
	srv.set(func() { srv.shortBy = 3 })
	c := newClient(t, nil)
	resp, err := c.Fetch(t.Context(), srv.URL("/readme.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	_, err = io.ReadAll(resp.Body)
	if !errors.Is(err, fetch.ErrConnect) || !fetch.Temporary(err) || !strings.Contains(err.Error(), "8 of 11 bytes") {
		t.Errorf("short transfer: error = %v, want a temporary ErrConnect with the counts", err)
	}
}

func TestResume(t *testing.T) {
	srv := newFakeServer(t)
	c := newClient(t, nil)
	req, _ := c.NewRequest(srv.URL("/readme.txt"))
	req.Offset = 7
	resp, err := c.Do(t.Context(), req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if string(b) != "ftp\n" || resp.Offset != 7 || resp.Length != 4 {
		t.Errorf("resume at 7: %q Offset %d Length %d", b, resp.Offset, resp.Length)
	}
	if !slices.Contains(srv.commands(), "REST 7") {
		t.Error("no REST 7 sent")
	}
	// A server without REST: the body starts at 0, and says so.
	srv.set(func() { srv.noREST = true })
	req, _ = c.NewRequest(srv.URL("/readme.txt"))
	req.Offset = 7
	resp, err = c.Do(t.Context(), req)
	if err != nil {
		t.Fatal(err)
	}
	b, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	if string(b) != "hello, ftp\n" || resp.Offset != 0 {
		t.Errorf("resume without REST: %q Offset %d, want the whole file from 0", b, resp.Offset)
	}
}

func TestPASVFallback(t *testing.T) {
	srv := newFakeServer(t)
	srv.set(func() { srv.noEPSV = true })
	c := newClient(t, nil)
	if _, body := get(t, c, srv.URL("/readme.txt")); body != "hello, ftp\n" {
		t.Errorf("body = %q", body)
	}
	if cmds := srv.commands(); !slices.Contains(cmds, "EPSV") || !slices.Contains(cmds, "PASV") {
		t.Errorf("commands %q: want EPSV refused, then PASV", cmds)
	}
	srv.set(func() { srv.noEPSV = false })
	c = newClient(t, &Driver{DisableEPSV: true})
	get(t, c, srv.URL("/readme.txt"))
	if cmds := srv.commands(); slices.Contains(cmds, "EPSV") {
		t.Errorf("DisableEPSV: commands %q hold EPSV", cmds)
	}
}

// RFC 1738 section 3.2.5: one control connection for several URLs.
func TestReuse(t *testing.T) {
	srv := newFakeServer(t)
	c := newClient(t, nil)
	get(t, c, srv.URL("/pub/a/b/nested.txt"))
	srv.commands()
	get(t, c, srv.URL("/pub/a/b/nested.txt"))
	// The same directories: straight to the file (with no SIZE: the
	// server's 150 reply gave it the first time).
	if got, want := srv.commands(), []string{"MDTM nested.txt", "EPSV", "RETR nested.txt"}; !slices.Equal(got, want) {
		t.Errorf("second URL, same directories: sent %q, want %q", got, want)
	}
	get(t, c, srv.URL("/%2Fetc/motd"))
	// Other directories: back to the entry directory first.
	if got, want := srv.commands(), []string{"CWD /", "CWD /etc", "MDTM motd", "EPSV", "RETR motd"}; !slices.Equal(got, want) {
		t.Errorf("third URL: sent %q, want %q", got, want)
	}
	get(t, c, srv.URL("/readme.txt;type=a"))
	if got, want := srv.commands(), []string{"CWD /", "TYPE A", "MDTM readme.txt", "EPSV", "RETR readme.txt"}; !slices.Equal(got, want) {
		t.Errorf("fourth URL: sent %q, want %q", got, want)
	}
	// A refused file keeps the connection. Its RETR went out with EPSV,
	// and the server may close the data port before the dial: the error
	// is still the 550.
	for range 3 {
		if _, err := c.Fetch(t.Context(), srv.URL("/missing.txt")); !errors.Is(err, fetch.ErrNotFound) {
			t.Errorf("missing.txt on a reused connection: error %v, want ErrNotFound", err)
		}
	}
	get(t, c, srv.URL("/pub/"))
	if n := srv.connections(); n != 1 {
		t.Errorf("%d control connections for eight URLs, want 1", n)
	}
	// Another login is another connection.
	get(t, c, srv.URLAs("joe:secret", "/welcome.txt"))
	if n := srv.connections(); n != 2 {
		t.Errorf("%d control connections after a URL with another login, want 2", n)
	}
	// Close quits the idle connections.
	srv.commands()
	c.Close()
	waitFor(t, func() bool {
		n := 0
		for _, cmd := range srv.peek() {
			if cmd == "QUIT" {
				n++
			}
		}
		return n == 2
	})
}

// A connection the server closed while it was idle is replaced without
// the caller seeing it.
func TestReuseStale(t *testing.T) {
	srv := newFakeServer(t)
	c := newClient(t, nil)
	get(t, c, srv.URL("/pub/lines.txt"))
	srv.dropIdle(true)
	for i, p := range []string{"/pub/lines.txt", "/readme.txt", "/pub/", "/etc/motd"} {
		get(t, c, srv.URL(p))
		srv.dropIdle(i%2 == 1)
	}
	if n := srv.connections(); n != 5 {
		t.Errorf("%d connections, want 5 (one per fetch after each drop)", n)
	}
}

func TestIdleConnTimeout(t *testing.T) {
	srv := newFakeServer(t)
	c := newClient(t, &Driver{})
	c.IdleConnTimeout = 50 * time.Millisecond
	get(t, c, srv.URL("/readme.txt"))
	waitFor(t, func() bool { return slices.Contains(srv.peek(), "QUIT") })

	// Negative: no connection is kept.
	c = newClient(t, &Driver{})
	c.IdleConnTimeout = -1
	get(t, c, srv.URL("/readme.txt"))
	get(t, c, srv.URL("/readme.txt"))
	if n := srv.connections(); n != 3 {
		t.Errorf("%d connections, want 3", n)
	}
}

// Closing a body before its end drops the connection rather than reuse
// it in the middle of a transfer.
func TestCloseEarly(t *testing.T) {
	srv := newFakeServer(t)
	srv.set(func() { srv.files["/big.bin"] = strings.Repeat("x", 4<<20) })
	c := newClient(t, nil)
	resp, err := c.Fetch(t.Context(), srv.URL("/big.bin"))
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 10)
	if _, err := io.ReadFull(resp.Body, buf); err != nil {
		t.Fatal(err)
	}
	if err := resp.Body.Close(); err != nil {
		t.Errorf("Close before the end = %v, want nil", err)
	}
	if _, body := get(t, c, srv.URL("/readme.txt")); body != "hello, ftp\n" {
		t.Errorf("next fetch: %q", body)
	}
	if n := srv.connections(); n != 2 {
		t.Errorf("%d connections, want 2", n)
	}
}

// Fetches run at once each get their own connection.
func TestConcurrent(t *testing.T) {
	srv := newFakeServer(t)
	c := newClient(t, nil)
	var wg sync.WaitGroup
	for i := 0; i < 8; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			resp, err := c.Fetch(context.Background(), srv.URL("/pub/a/b/nested.txt"))
			if err != nil {
				t.Error(err)
				return
			}
			b, err := io.ReadAll(resp.Body)
			resp.Body.Close()
			if err != nil || string(b) != "nested\n" {
				t.Errorf("concurrent fetch: %q %v", b, err)
			}
		}()
	}
	wg.Wait()
}

func TestCRLFReader(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", ""},
		{"a\r\nb\r\n", "a\nb\n"},
		{"a\rb", "a\rb"},
		{"\r", "\r"},
		{"\r\r\n", "\r\n"},
		{"x\r", "x\r"},
		{"\r\n\r\n\r", "\n\n\r"},
		{"no line ends", "no line ends"},
	}
	for _, tt := range tests {
		for name, r := range map[string]io.Reader{
			"whole":    strings.NewReader(tt.in),
			"one byte": iotest.OneByteReader(strings.NewReader(tt.in)),
			"half":     iotest.HalfReader(strings.NewReader(tt.in)),
		} {
			got, err := io.ReadAll(newCRLFReader(r))
			if err != nil || string(got) != tt.want {
				t.Errorf("crlfReader(%q) %s = %q, %v; want %q", tt.in, name, got, err, tt.want)
			}
		}
		// Small reads of the output too.
		got, err := io.ReadAll(iotest.OneByteReader(newCRLFReader(iotest.OneByteReader(strings.NewReader(tt.in)))))
		if err != nil || string(got) != tt.want {
			t.Errorf("crlfReader(%q) byte by byte = %q, %v; want %q", tt.in, got, err, tt.want)
		}
	}
}

func TestTraceMasksPassword(t *testing.T) {
	srv := newFakeServer(t)
	c := newClient(t, nil)
	var lines []string
	c.Trace = func(dir fetch.Direction, line string) { lines = append(lines, string(dir)+" "+line) }
	// The trace hook runs in the fetching goroutine only.
	get(t, c, srv.URLAs("joe:secret", "/welcome.txt"))
	all := strings.Join(lines, "\n")
	if strings.Contains(all, "secret") || !strings.Contains(all, "> PASS ***") {
		t.Errorf("trace:\n%s\nwant PASS masked", all)
	}
	for _, want := range []string{"> USER joe", "< 331 Please specify the password.", "> RETR welcome.txt", "< 226 Transfer complete."} {
		if !strings.Contains(all, want) {
			t.Errorf("trace has no %q", want)
		}
	}
}

// Issue 24, point 2: a file's CWDs go out with TYPE, SIZE, MDTM and
// EPSV, a round trip less a directory change; RETR waits for their
// replies (in another directory it would fetch another file). A refused
// CWD is the fetch's error, sends no RETR, and leaves the connection in
// step for the next URL.
func TestPipelinedCWD(t *testing.T) {
	srv := newFakeServer(t)
	c := newClient(t, nil)
	var trace []string
	c.Trace = func(dir fetch.Direction, line string) { trace = append(trace, string(dir)+" "+line) }
	get(t, c, srv.URL("/pub/a/b/nested.txt"))
	i := slices.Index(trace, "> CWD pub")
	want := []string{"> CWD pub", "> CWD a", "> CWD b", "> TYPE I", "> SIZE nested.txt", "> MDTM nested.txt", "> EPSV", "< 250 Directory successfully changed."}
	if i < 0 || !slices.Equal(trace[i:min(len(trace), i+len(want))], want) {
		t.Errorf("trace %q, want %q in one write before the first reply", trace, want)
	}
	if j := slices.Index(trace, "> RETR nested.txt"); j < i+len(want) {
		t.Errorf("RETR at %d of %q, want it after the CWDs' replies", j, trace)
	}
	srv.commands()
	_, err := c.Fetch(t.Context(), srv.URL("/pub/nothere/x.txt"))
	if !errors.Is(err, fetch.ErrNotFound) || !strings.Contains(err.Error(), "CWD nothere") {
		t.Errorf("a missing directory: error %v, want ErrNotFound naming CWD nothere", err)
	}
	if cmds := srv.commands(); slices.ContainsFunc(cmds, func(c string) bool { return strings.HasPrefix(c, "RETR") }) {
		t.Errorf("after a refused CWD the server got %q: a RETR in the wrong directory", cmds)
	}
	if _, body := get(t, c, srv.URL("/readme.txt")); body != "hello, ftp\n" {
		t.Errorf("the next URL: %q", body)
	}
	if n := srv.connections(); n != 1 {
		t.Errorf("%d connections, want 1: the refused CWD's connection stays in step", n)
	}
	// CWDs after a refused one ran all the same, from where the server
	// was: the session knows where that is, and the next URLs get their
	// own files.
	if _, err := c.Fetch(t.Context(), srv.URL("/nothere/pub/lines.txt")); !errors.Is(err, fetch.ErrNotFound) {
		t.Errorf("/nothere/pub/lines.txt: error %v, want ErrNotFound", err)
	}
	if _, body := get(t, c, srv.URL("/pub/lines.txt")); body != "one\ntwo\r\nthree\rfour\n" {
		t.Errorf("/pub/lines.txt after it: %q", body)
	}
	if _, body := get(t, c, srv.URL("/readme.txt")); body != "hello, ftp\n" {
		t.Errorf("/readme.txt after it: %q", body)
	}
}

// The commands up to RETR go out in one write; the server sees them in
// order either way.
func TestPipelining(t *testing.T) {
	srv := newFakeServer(t)
	for _, d := range []*Driver{{}, {NoPipelining: true}, {DisableEPSV: true}} {
		c := newClient(t, d)
		var trace []string
		c.Trace = func(dir fetch.Direction, line string) { trace = append(trace, string(dir)+" "+line) }
		for range 2 {
			if _, body := get(t, c, srv.URL("/pub/lines.txt")); body != "one\ntwo\r\nthree\rfour\n" {
				t.Errorf("%+v: body %q", d, body)
			}
		}
		data := "EPSV"
		if d.DisableEPSV {
			data = "PASV"
		}
		want := []string{"MDTM lines.txt", data, "RETR lines.txt"}
		if got := srv.commands(); !slices.Equal(got[len(got)-3:], want) {
			t.Errorf("%+v: second fetch sent %q, want %q", d, got[len(got)-3:], want)
		}
		// The trace of the second fetch: the three commands before any
		// reply, unless pipelining is off.
		i := slices.Index(trace, "> MDTM lines.txt")
		i = i + 1 + slices.Index(trace[i+1:], "> MDTM lines.txt")
		pipelined := trace[i+1] == "> "+data && trace[i+2] == "> RETR lines.txt"
		if pipelined == d.NoPipelining {
			t.Errorf("%+v: trace %q, pipelined = %v", d, trace[i:i+3], pipelined)
		}
	}
	// A server that refuses EPSV: PASV from then on, pipelined too.
	srv.set(func() { srv.noEPSV = true })
	c := newClient(t, nil)
	for range 3 {
		get(t, c, srv.URL("/readme.txt"))
	}
	if got, want := srv.commands(), []string{"MDTM readme.txt", "PASV", "RETR readme.txt"}; !slices.Equal(got[len(got)-3:], want) {
		t.Errorf("after EPSV was refused: %q, want %q", got[len(got)-3:], want)
	}
}

// A server whose 150 reply to RETR gave the size SIZE gave is not asked
// SIZE again on that connection; one whose 150 gives none, or another
// number, is asked every time.
func TestSizeFrom150(t *testing.T) {
	for _, tc := range []struct {
		name   string
		change func(*fakeServer)
		sizes  int // SIZE commands for three fetches
	}{
		{"size in 150", func(*fakeServer) {}, 1},
		{"no size in 150", func(s *fakeServer) { s.no150Size = true }, 3},
		{"another size in 150", func(s *fakeServer) { s.off150 = 1 }, 3},
	} {
		srv := newFakeServer(t)
		srv.set(func() { tc.change(srv) })
		c := newClient(t, nil)
		for range 3 {
			resp, body := get(t, c, srv.URL("/readme.txt"))
			if body != "hello, ftp\n" || resp.Length != 11 {
				t.Errorf("%s: body %q Length %d, want the 11 bytes", tc.name, body, resp.Length)
			}
		}
		sizes := 0
		for _, cmd := range srv.commands() {
			if cmd == "SIZE readme.txt" {
				sizes++
			}
		}
		if sizes != tc.sizes {
			t.Errorf("%s: %d SIZE commands for three fetches, want %d", tc.name, sizes, tc.sizes)
		}
	}
	// A server that stops giving the size: that file's Length is
	// unknown, and SIZE is back for the next.
	srv := newFakeServer(t)
	c := newClient(t, nil)
	get(t, c, srv.URL("/readme.txt"))
	srv.set(func() { srv.no150Size = true })
	if resp, _ := get(t, c, srv.URL("/readme.txt")); resp.Length != -1 {
		t.Errorf("150 without the size: Length %d, want -1", resp.Length)
	}
	srv.commands()
	if resp, _ := get(t, c, srv.URL("/readme.txt")); resp.Length != 11 {
		t.Errorf("after a 150 without the size: Length %d, want 11", resp.Length)
	}
	if cmds := srv.commands(); !slices.Contains(cmds, "SIZE readme.txt") {
		t.Errorf("after a 150 without the size: sent %q, want SIZE again", cmds)
	}
	// A short transfer is still caught with the size from the 150.
	srv.set(func() { srv.no150Size = false })
	get(t, c, srv.URL("/readme.txt"))
	srv.set(func() { srv.shortBy, srv.off150 = 3, 3 })
	resp, err := c.Fetch(t.Context(), srv.URL("/readme.txt"))
	if err != nil {
		t.Fatal(err)
	}
	_, err = io.ReadAll(resp.Body)
	resp.Body.Close()
	if !errors.Is(err, fetch.ErrConnect) || !strings.Contains(err.Error(), "8 of 11 bytes") {
		t.Errorf("short transfer, size from the 150: error = %v, want ErrConnect with the counts", err)
	}
}

// Issue 23: a SIZE reply whose number no file has ("213 -5") is an unknown
// size, not a fetch that ends with neither a body nor an error. The fake
// server says it; vsftpd never would.
func TestNegativeSize_FakeServer(t *testing.T) {
	srv := newFakeServer(t)
	srv.set(func() { srv.size, srv.no150Size = "-5", true })
	c := newClient(t, nil)
	resp, body := get(t, c, srv.URL("/readme.txt"))
	if body != "hello, ftp\n" || resp.Length != -1 {
		t.Errorf("SIZE -5: body %q, Length %d; want the file and an unknown length", body, resp.Length)
	}
	// The connection went back to the pool, whole: the next fetch reuses it.
	get(t, c, srv.URL("/readme.txt"))
	if n := srv.connections(); n != 1 {
		t.Errorf("%d control connections for two fetches, want 1", n)
	}
}

func TestSizeOf150(t *testing.T) {
	for line, want := range map[string]int64{
		"150 Opening BINARY mode data connection for a.txt (31 bytes).":       31,
		"150 Opening BINARY mode data connection for a.txt (0 bytes)":         0,
		"150 Opening BINARY mode data connection for x (5 bytes) (7 bytes).":  7,
		"150 Opening BINARY mode data connection for a.txt (31 bytes).  ":     31,
		"150 Opening BINARY mode data connection for a.txt.":                  -1,
		"150 Opening BINARY mode data connection for a.txt (-1 bytes).":       -1,
		"150 Opening BINARY mode data connection for a.txt (lots bytes).":     -1,
		"125 Data connection already open; transfer starting (31 bytes).":     -1,
		"150 Opening data connection for a.txt (99999999999999999999 bytes).": -1,
	} {
		n, ok := sizeOf150(line)
		if !ok {
			n = -1
		}
		if n != want {
			t.Errorf("sizeOf150(%q) = %d, %v; want %d", line, n, ok, want)
		}
	}
}

// SkipModTime sends no MDTM, and leaves Modified zero.
func TestSkipModTime(t *testing.T) {
	srv := newFakeServer(t)
	c := newClient(t, &Driver{SkipModTime: true})
	resp, _ := get(t, c, srv.URL("/readme.txt"))
	if !resp.Modified.IsZero() {
		t.Errorf("Modified %v, want zero", resp.Modified)
	}
	if cmds := srv.commands(); slices.Contains(cmds, "MDTM readme.txt") {
		t.Errorf("sent %q, want no MDTM", cmds)
	}
}

func TestSuffixType(t *testing.T) {
	for name, want := range map[string]string{
		"README.txt":   "text/plain",
		"linux.tar.gz": "application/gzip",
		"old.tar.Z":    "application/x-compress",
		"SHOUT.TXT":    "text/plain",
		"Makefile":     "",
	} {
		if got := suffixType(name); got != want {
			t.Errorf("suffixType(%q) = %q, want %q", name, got, want)
		}
	}
}

// A URL with no path at all lists the entry directory.
func TestHostOnly(t *testing.T) {
	srv := newFakeServer(t)
	c := newClient(t, nil)
	for _, raw := range []string{srv.URL(""), srv.URL("/")} {
		resp, err := c.Fetch(t.Context(), raw)
		if err != nil {
			t.Fatal(err)
		}
		got := entryLines(t, resp)
		if resp.Kind != fetch.Listing || !slices.Contains(got, "file readme.txt "+srv.URL("/readme.txt")) {
			t.Errorf("Fetch(%q) = %v %q, want a listing of the entry directory", raw, resp.Kind, got)
		}
	}
}

// Issue 23, point 3: a one-character password is masked where it stands
// (the PASS argument, the URL's userinfo), and the rest of the trace keeps
// its letters: "connecting", not "conn***cting", which would show the
// password to anyone reading the trace.
func TestShortPasswordTrace_FakeServer(t *testing.T) {
	srv := newFakeServer(t)
	srv.set(func() { srv.users["u"] = "e"; srv.home["u"] = "/home/joe" })
	c := newClient(t, nil)
	var lines []string
	c.Trace = func(dir fetch.Direction, line string) { lines = append(lines, string(dir)+" "+line) }
	get(t, c, srv.URLAs("u:e", "/welcome.txt"))
	all := strings.Join(lines, "\n")
	if !strings.Contains(all, "> PASS ***") || !strings.Contains(all, "* connecting to ") || strings.Contains(all, "***cting") {
		t.Errorf("trace with the password \"e\":\n%s\nwant PASS masked and the other lines whole", all)
	}
	_, err := c.Fetch(t.Context(), srv.URLAs("u:e", "/missing.txt"))
	if err == nil || !strings.Contains(err.Error(), "u:***@") || strings.Contains(err.Error(), "***rr") {
		t.Errorf("error %v; want the userinfo masked and the rest whole", err)
	}
}

// Issue 23, point 5: a 227 or 229 reply that names no port, or no port
// TCP has, is the server breaking its protocol: ErrProtocol (exit 8), in
// the server's own words, and nothing --retry tries again. The fake
// server says it; vsftpd never would.
func TestBrokenPassiveReply_FakeServer(t *testing.T) {
	for _, tc := range []struct {
		noEPSV bool
		reply  string
	}{
		{true, "227 Entering Passive Mode (999,999,999,999,999,999)"},
		{true, "227 Entering Passive Mode (127,0,0,1,0,0)"},
		{true, "227 Entering Passive Mode (1,2,3)"},
		{true, "227 Entering Passive Mode (a,b,c,d,e,f)"},
		{true, "227 Entering Passive Mode"},
		{false, "229 Entering Extended Passive Mode (|||99999|)"},
		{false, "229 Entering Extended Passive Mode (|||-1|)"},
		{false, "229 Entering Extended Passive Mode (|||x|)"},
		{false, "229 no port here"},
	} {
		srv := newFakeServer(t)
		srv.set(func() { srv.noEPSV, srv.passive = tc.noEPSV, tc.reply })
		c := newClient(t, nil)
		_, err := c.Fetch(t.Context(), srv.URL("/readme.txt"))
		if !errors.Is(err, fetch.ErrProtocol) || fetch.Temporary(err) || !strings.Contains(err.Error(), tc.reply[:min(len(tc.reply), 20)]) {
			t.Errorf("reply %q: error %v; want ErrProtocol quoting the reply, not temporary", tc.reply, err)
		}
	}
}

// Issue 23, point 7: vsftpd out of passive ports answers EPSV, sent ahead
// of RETR, with "500 OOPS: vsf_sysutil_bind" and ends the session. The
// error is a broken connection in the server's own words, which --retry
// tries again, and the session is not kept. (The integration suite runs
// the real vsftpd with a small passive range.)
func TestServerDiesMidSession_FakeServer(t *testing.T) {
	srv := newFakeServer(t)
	c := newClient(t, nil)
	get(t, c, srv.URL("/readme.txt")) // a connection that knows EPSV works: RETR goes out with it
	srv.set(func() { srv.passive, srv.passiveDies = "500 OOPS: vsf_sysutil_bind", true })
	_, err := c.Fetch(t.Context(), srv.URL("/readme.txt"))
	if !errors.Is(err, fetch.ErrConnect) || !fetch.Temporary(err) || !strings.Contains(err.Error(), "500 OOPS: vsf_sysutil_bind") {
		t.Errorf("error %v; want ErrConnect in the server's words, temporary", err)
	}
	srv.set(func() { srv.passive, srv.passiveDies = "", false })
	if _, body := get(t, c, srv.URL("/readme.txt")); body != "hello, ftp\n" {
		t.Errorf("the next fetch: %q", body)
	}
	// vsftpd's "500 OOPS" to a command not sent ahead is the same.
	srv.set(func() { srv.noEPSV, srv.passive, srv.passiveDies = true, "500 OOPS: priv_sock_get_int", true })
	d := &Driver{DisableEPSV: true, NoPipelining: true}
	c2 := newClient(t, d)
	_, err = c2.Fetch(t.Context(), srv.URL("/readme.txt"))
	if !errors.Is(err, fetch.ErrConnect) || !fetch.Temporary(err) || !strings.Contains(err.Error(), "500 OOPS: priv_sock_get_int") {
		t.Errorf("without pipelining: error %v; want ErrConnect in the server's words, temporary", err)
	}
}

// Issue 23, the sweep: replies that made jlaffaye/ftp slice past their
// ends and panic, taking the whole process down, are ErrProtocol before
// the library reads them. The fake server says them; no real one would.
func TestRepliesThatPanicked_FakeServer(t *testing.T) {
	for _, tc := range []struct {
		name string
		set  func(s *fakeServer)
	}{
		{"PWD with one quote", func(s *fakeServer) { s.pwd = `257 " x` }},
		{"PASV inside out", func(s *fakeServer) { s.noEPSV, s.passive = true, "227 Entering Passive Mode )127,0,0,1,4,1(" }},
		{"PASV of big numbers", func(s *fakeServer) {
			s.noEPSV, s.passive = true, "227 Entering Passive Mode (127,0,0,1,72057594037927936,1)"
		}},
	} {
		srv := newFakeServer(t)
		srv.set(func() { tc.set(srv) })
		c := newClient(t, nil)
		_, err := c.Fetch(t.Context(), srv.URL("/readme.txt"))
		if !errors.Is(err, fetch.ErrProtocol) {
			t.Errorf("%s: error %v; want ErrProtocol", tc.name, err)
		}
	}
}

// Issue 23, the sweep: a multi-line reply ends only at a line with its own
// code (RFC 959 section 4.2), so "221 x" lines inside a "220-" greeting
// count towards its bound, and an endless one is an error, not a heap
// that grows for ever.
func TestEndlessMultiLineReply_FakeServer(t *testing.T) {
	addr := fetchtest.ServeOnce(t, func(c net.Conn) {
		c.Write([]byte("220-hello\r\n"))
		line := []byte("221 " + strings.Repeat("x", 1000) + "\r\n")
		for i := 0; i < 4096; i++ { // 4 MiB, more than maxReply
			if _, err := c.Write(line); err != nil {
				return
			}
		}
	})
	c := newClient(t, nil)
	_, err := c.Fetch(t.Context(), "ftp://"+addr+"/f")
	if !errors.Is(err, fetch.ErrProtocol) || !strings.Contains(err.Error(), "multi-line reply of more than") {
		t.Errorf("an endless 220- greeting of 221 lines: %v; want ErrProtocol at the bound", err)
	}
}

// Issue 23, the sweep: a SIZE reply whose number does not parse is an
// unknown size, as a negative one is, not a fetch that fails with an
// error of no class.
func TestUnreadableSize_FakeServer(t *testing.T) {
	for _, size := range []string{"99999999999999999999", "xyz", " 5"} {
		srv := newFakeServer(t)
		srv.set(func() { srv.size, srv.no150Size = size, true })
		c := newClient(t, nil)
		resp, body := get(t, c, srv.URL("/readme.txt"))
		if body != "hello, ftp\n" || resp.Length != -1 {
			t.Errorf("213 %s: body %q, Length %d; want the file, length unknown", size, body, resp.Length)
		}
	}
}

// A server that refuses AUTH TLS: with --ssl-reqd the fetch fails with
// ErrTLS and nothing but AUTH TLS was sent (no user, no password); with
// --ssl it goes on in the clear. The test bed's vsftpd offers TLS, so the
// fake server plays one that does not.
func TestAuthTLSRefused_FakeServer(t *testing.T) {
	srv := newFakeServer(t)
	c := newClient(t, nil)
	c.TLSUpgrade = fetch.UpgradeRequire
	_, err := c.Fetch(t.Context(), srv.URLAs("joe:secret", "/welcome.txt"))
	if !errors.Is(err, fetch.ErrTLS) || !strings.Contains(err.Error(), "refused AUTH TLS") {
		t.Errorf("--ssl-reqd, AUTH TLS refused: %v; want ErrTLS saying so", err)
	}
	waitFor(t, func() bool { return slices.Contains(srv.peek(), "QUIT") })
	if got := srv.commands(); !slices.Equal(got, []string{"AUTH TLS", "QUIT"}) {
		t.Errorf("--ssl-reqd, AUTH TLS refused: the server got %q; want only AUTH TLS and QUIT", got)
	}

	c = newClient(t, nil)
	c.TLSUpgrade = fetch.UpgradeTry
	if _, body := get(t, c, srv.URLAs("joe:secret", "/welcome.txt")); body != "welcome, joe\n" {
		t.Errorf("--ssl, AUTH TLS refused: body %q", body)
	}
	if got := srv.commands(); len(got) < 3 || !slices.Equal(got[:3], []string{"AUTH TLS", "USER joe", "PASS secret"}) {
		t.Errorf("--ssl, AUTH TLS refused: the server got %q; want AUTH TLS, then the login in the clear", got)
	}
}

// Bytes after the 234 reply, before the handshake, would be read as if
// they came under TLS (the STARTTLS injection of CVE-2011-0411): refused.
// No real server sends them.
func TestAuthTLSInjection_FakeServer(t *testing.T) {
	addr := fetchtest.ServeOnce(t, func(c net.Conn) {
		c.Write([]byte("220 hello\r\n"))
		r := bufio.NewReader(c)
		if line, _ := r.ReadString('\n'); line != "AUTH TLS\r\n" {
			return
		}
		c.Write([]byte("234 go ahead\r\n230 injected login\r\n"))
		r.ReadString('\n')
	})
	c := newClient(t, nil)
	c.TLSUpgrade = fetch.UpgradeRequire
	_, err := c.Fetch(t.Context(), "ftp://"+addr+"/f")
	if !errors.Is(err, fetch.ErrProtocol) || !strings.Contains(err.Error(), "after its 234 reply") {
		t.Errorf("bytes after 234: %v; want ErrProtocol", err)
	}
}
