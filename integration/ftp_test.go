//go:build integration

package integration

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"crypto/tls"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/urlfetch/urlfetch/fetch"
	"github.com/urlfetch/urlfetch/fetch/fetchtest"
	"github.com/urlfetch/urlfetch/fetch/ftp"
)

// ftpBase is ftp://host:port of the harness's vsftpd, anonymous.
func ftpBase(t testing.TB) string { return "ftp://" + addr(t, "FTP") }

// ftpLocal is ftp://user:password@host:port of the local account.
func ftpLocal(t testing.TB, password string) string {
	return "ftp://" + url.UserPassword(env(t, "FTP_USER"), password).String() + "@" + addr(t, "FTP")
}

// anonFile reads a file of the anonymous tree as vsftpd serves it.
func anonFile(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(env(t, "FTP_ANON_ROOT"), name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// traceClient is client(t) whose trace also lands in the returned log,
// which drivers may write from any goroutine.
func traceClient(t testing.TB) (*fetch.Client, *fetchtest.TraceLog) {
	c := client(t)
	log := &fetchtest.TraceLog{}
	next := c.Trace
	c.Trace = func(dir fetch.Direction, line string) {
		log.Add(dir, line)
		next(dir, line)
	}
	return c, log
}

func TestFTPConformance(t *testing.T) { ftpConformance(t, "ftp", addr(t, "FTP"), nil) }

// ftpConformance runs the conformance suite on the harness's vsftpd at
// hostport with scheme (ftp, or ftps over TLS trusting tlsConfig's CA).
func ftpConformance(t *testing.T, scheme, hostport string, tlsConfig *tls.Config) {
	base := scheme + "://" + hostport
	fetchtest.Run(t, fetchtest.Opt{
		Scheme: scheme,
		NewClient: func(t testing.TB) *fetch.Client {
			c := &fetch.Client{NetrcFile: "-", TLSConfig: tlsConfig}
			c.Register(scheme, &ftp.Driver{})
			return c
		},
		Found: []fetchtest.Case{
			{URL: base + "/readme.txt", Want: string(anonFile(t, "readme.txt"))},
			{URL: base + "/binary.bin", SHA256: env(t, "BINARY_SHA256")},
			{URL: base + "/empty.txt", SHA256: fetchtest.EmptySHA256},
		},
		Missing:   base + "/no-such-file.txt",
		Denied:    scheme + "://" + url.UserPassword(env(t, "FTP_USER"), "wrong-password").String() + "@" + hostport + "/welcome.txt",
		Listing:   base + "/",
		Inject:    []string{base + "/a%0D%0ADELE%20x/readme.txt", base + "/readme.txt%0AQUIT"},
		Transfers: ftpTransfers,
		Caps:      fetchtest.Caps{Resume: true},
	})
}

func TestFTPAnonymous(t *testing.T) {
	c, trace := traceClient(t)
	want := anonFile(t, "readme.txt")
	resp, body := get(t, c, ftpBase(t)+"/readme.txt")
	if !bytes.Equal(body, want) {
		t.Errorf("readme.txt = %q, want %q", body, want)
	}
	if resp.Kind != fetch.Document || resp.Length != int64(len(want)) || resp.Modified.IsZero() || !strings.HasPrefix(resp.Type, "text/plain") {
		t.Errorf("readme.txt: Kind %v Length %d Modified %v Type %q; want a text/plain document with SIZE and MDTM", resp.Kind, resp.Length, resp.Modified, resp.Type)
	}
	for _, line := range []string{"> USER anonymous", "> PASS ***", "> TYPE I", "> SIZE readme.txt", "> MDTM readme.txt", "> RETR readme.txt", "< 226 Transfer complete."} {
		if !strings.Contains(trace.String(), line+"\n") {
			t.Errorf("trace has no %q:\n%s", line, trace)
		}
	}
}

// The command asks for the modification time (MDTM) only when it shows
// it: with --json, whose "modified" is the time vsftpd gives.
func TestFTPCommandModTime(t *testing.T) {
	dir := t.TempDir()
	url := ftpBase(t) + "/readme.txt"
	r := runFetch(t, dir, "-v", "--json", url)
	fi, err := os.Stat(filepath.Join(env(t, "FTP_ANON_ROOT"), "readme.txt"))
	if err != nil {
		t.Fatal(err)
	}
	var meta struct{ Modified time.Time }
	if err := json.Unmarshal([]byte(r.stdout), &meta); r.code != 0 || err != nil || !meta.Modified.Equal(fi.ModTime().UTC().Truncate(time.Second)) {
		t.Errorf("--json: exit %d, %v, modified %v, want %v: %s", r.code, err, meta.Modified, fi.ModTime().UTC(), r.stdout)
	}
	if !strings.Contains(r.stderr, "> MDTM readme.txt\n") {
		t.Errorf("--json -v: no MDTM in the trace:\n%s", r.stderr)
	}
	r = runFetch(t, dir, "-v", "-o", "out", url)
	if r.code != 0 || strings.Contains(r.stderr, "> MDTM") {
		t.Errorf("-v -o: exit %d; want no MDTM in the trace:\n%s", r.code, r.stderr)
	}
}

func TestFTPLocalAccount(t *testing.T) {
	want, err := os.ReadFile(filepath.Join(env(t, "FTP_HOME"), "welcome.txt"))
	if err != nil {
		t.Fatal(err)
	}
	_, body := get(t, client(t), ftpLocal(t, env(t, "FTP_PASSWORD"))+"/welcome.txt")
	if !bytes.Equal(body, want) {
		t.Errorf("welcome.txt = %q, want %q", body, want)
	}
}

// RFC 1738 section 3.2.2: "%2F" makes an absolute CWD; the local account
// is not chrooted, so it reaches the anonymous tree by its full path.
func TestFTPAbsolutePath(t *testing.T) {
	root := env(t, "FTP_ANON_ROOT") // /tmp/urlfetch-servers/vsftpd/anon
	segs := strings.Split(strings.TrimPrefix(root, "/"), "/")
	for i := range segs {
		segs[i] = url.PathEscape(segs[i])
	}
	c, trace := traceClient(t)
	raw := ftpLocal(t, env(t, "FTP_PASSWORD")) + "/%2F" + strings.Join(segs, "/") + "/a/b/c/file.txt"
	_, body := get(t, c, raw)
	if !bytes.Equal(body, anonFile(t, "a/b/c/file.txt")) {
		t.Errorf("%s = %q", raw, body)
	}
	if !strings.Contains(trace.String(), "> CWD /"+strings.SplitN(strings.TrimPrefix(root, "/"), "/", 2)[0]+"\n") {
		t.Errorf("trace has no absolute CWD:\n%s", trace)
	}
	// Anonymous is chrooted to its tree: "/" is that tree's root.
	c, trace = traceClient(t)
	_, body = get(t, c, ftpBase(t)+"/%2Fa/b/c/file.txt")
	if !bytes.Equal(body, anonFile(t, "a/b/c/file.txt")) {
		t.Errorf("anonymous %%2Fa/b/c/file.txt = %q", body)
	}
	if !strings.Contains(trace.String(), "> CWD /a\n") {
		t.Errorf("trace has no CWD /a:\n%s", trace)
	}
}

// Issue 24, point 2: the round trips of ftp URLs on vsftpd, counted as
// the groups of commands the client writes before it reads a reply (the
// trace shows each command as written, each reply as read). A file in a
// directory: USER; PASS; FEAT and PWD; CWD, TYPE, SIZE, MDTM (a
// library Client wants the time; the command does not) and EPSV; RETR
// (the data connection between): five, where the CWD was a round trip
// of its own before. The next file on the connection: MDTM, EPSV and
// RETR, one, with no TYPE or SIZE again; a file in other directories:
// the way back and the CWDs with MDTM and EPSV, then RETR; a file below
// where the session is: only the CWDs past it.
func TestFTPRoundTrips(t *testing.T) {
	c, trace := traceClient(t)
	groups := func() [][]string {
		var gs [][]string
		var cur []string
		for _, l := range strings.Split(trace.String(), "\n") {
			switch {
			case strings.HasPrefix(l, "> "):
				cur = append(cur, strings.TrimPrefix(l, "> "))
			case strings.HasPrefix(l, "< ") && cur != nil:
				gs, cur = append(gs, cur), nil
			}
		}
		trace.Reset()
		return gs
	}
	get(t, c, ftpBase(t)+"/small100/file-000.txt")
	want := [][]string{{"USER anonymous"}, {"PASS ***"}, {"FEAT", "PWD"}, {"CWD small100", "TYPE I", "SIZE file-000.txt", "MDTM file-000.txt", "EPSV"}, {"RETR file-000.txt"}}
	if got := groups(); !slices.EqualFunc(got, want, slices.Equal) {
		t.Errorf("first file: round trips %q, want %q", got, want)
	}
	get(t, c, ftpBase(t)+"/small100/file-001.txt")
	want = [][]string{{"MDTM file-001.txt", "EPSV", "RETR file-001.txt"}}
	if got := groups(); !slices.EqualFunc(got, want, slices.Equal) {
		t.Errorf("next file: round trips %q, want %q", got, want)
	}
	get(t, c, ftpBase(t)+"/a/b/c/file.txt")
	want = [][]string{{"CWD /", "CWD a", "CWD b", "CWD c", "MDTM file.txt", "EPSV"}, {"RETR file.txt"}}
	if got := groups(); !slices.EqualFunc(got, want, slices.Equal) {
		t.Errorf("a file in other directories: round trips %q, want %q", got, want)
	}
	get(t, c, ftpBase(t)+"/a/")
	groups()
	get(t, c, ftpBase(t)+"/a/b/c/file.txt")
	want = [][]string{{"CWD b", "CWD c", "MDTM file.txt", "EPSV"}, {"RETR file.txt"}}
	if got := groups(); !slices.EqualFunc(got, want, slices.Equal) {
		t.Errorf("a file below the directory of the last URL: round trips %q, want %q", got, want)
	}
}

// Of the idle sessions, a fetch takes one already in the URL's
// directories, though another was kept later: the file in a/b/c after
// a session went back to the pool from small100 is a RETR without a CWD.
func TestFTPIdleSessionInTheDirectory(t *testing.T) {
	c, trace := traceClient(t)
	inSmall, err := c.Fetch(t.Context(), ftpBase(t)+"/small100/file-000.txt")
	if err != nil {
		t.Fatal(err)
	}
	get(t, c, ftpBase(t)+"/a/b/c/file.txt") // a second session, idle in a/b/c
	if _, err := io.ReadAll(inSmall.Body); err != nil {
		t.Fatal(err)
	}
	inSmall.Body.Close() // the first, idle in small100, the most recent
	trace.Reset()
	if _, body := get(t, c, ftpBase(t)+"/a/b/c/file.txt"); !bytes.Equal(body, anonFile(t, "a/b/c/file.txt")) {
		t.Errorf("a/b/c/file.txt = %q", body)
	}
	if strings.Contains(trace.String(), "> CWD") || !strings.Contains(trace.String(), "* reusing the connection") {
		t.Errorf("want the session idle in a/b/c reused, without a CWD:\n%s", trace)
	}
}

// An empty segment is "CWD " with an empty argument, which vsftpd
// refuses: not found. One CWD of the whole path reaches the file.
func TestFTPEmptySegment(t *testing.T) {
	c, trace := traceClient(t)
	raw := ftpBase(t) + "//a/b/c/file.txt"
	_, err := c.Fetch(context.Background(), raw)
	if !errors.Is(err, fetch.ErrNotFound) || !strings.Contains(err.Error(), "550") {
		t.Errorf("%s: error %v, want ErrNotFound with vsftpd's 550", raw, err)
	}
	// The CWDs go out with TYPE, SIZE and EPSV (issue 24, point 2): the
	// empty one's 550 is the first reply after them, and no RETR follows.
	if miss := inOrder(trace.String(), "> CWD \n> CWD a\n", "> EPSV\n< 550 "); miss != "" || strings.Contains(trace.String(), "> RETR") {
		t.Errorf("trace has no CWD with an empty argument refused with 550 (missing %q), or a RETR:\n%s", miss, trace)
	}

	c = client(t)
	c.Driver("ftp").(*ftp.Driver).CWDMethod = ftp.CWDWhole
	if _, body := get(t, c, raw); !bytes.Equal(body, anonFile(t, "a/b/c/file.txt")) {
		t.Errorf("%s with singlecwd = %q", raw, body)
	}
}

func TestFTPTypecodes(t *testing.T) {
	c, trace := traceClient(t)
	base := ftpBase(t)
	// ;type=a: vsftpd sends CRLF, the body has the local newline again.
	want := anonFile(t, "readme.txt")
	resp, body := get(t, c, base+"/readme.txt;type=a")
	if !bytes.Equal(body, want) || resp.Length != -1 {
		t.Errorf("readme.txt;type=a = %q (Length %d), want %q", body, resp.Length, want)
	}
	if !strings.Contains(trace.String(), "> TYPE A\n") || !strings.Contains(trace.String(), "ASCII mode data connection") {
		t.Errorf("no ASCII transfer in the trace:\n%s", trace)
	}
	// ;type=i: the bytes as stored.
	_, body = get(t, c, base+"/binary.bin;type=i")
	if sum := sha256.Sum256(body); hex.EncodeToString(sum[:]) != env(t, "BINARY_SHA256") {
		t.Errorf("binary.bin;type=i: sha256 %x", sum)
	}
	// ;type=d: NLST, names only.
	resp, err := c.Fetch(context.Background(), base+"/a/b/;type=d")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var names []string
	for e, err := range resp.Entries() {
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, e.Name+" "+e.URL)
	}
	if want := []string{"c " + base + "/a/b/c"}; resp.Kind != fetch.Listing || !slices.Equal(names, want) {
		t.Errorf("a/b/;type=d = %v %q, want %q", resp.Kind, names, want)
	}
	if !strings.Contains(trace.String(), "> NLST\n") {
		t.Errorf("no NLST in the trace:\n%s", trace)
	}
}

func TestFTPAwkwardNames(t *testing.T) {
	c := client(t)
	for name, path := range map[string]string{
		"name with space.txt": "/name%20with%20space.txt",
		"semi;colon.txt":      "/semi%3Bcolon.txt",
		"per%cent.txt":        "/per%25cent.txt",
		"hash#mark.txt":       "/hash%23mark.txt",
		"a/b/c/file.txt":      "/a/b/c/file.txt",
	} {
		if _, body := get(t, c, ftpBase(t)+path); !bytes.Equal(body, anonFile(t, name)) {
			t.Errorf("%s = %q, want the file %s", path, body, name)
		}
	}
}

func TestFTPDirectories(t *testing.T) {
	c := client(t)
	base := ftpBase(t)
	for _, path := range []string{"/", "/a/", "/a", "/a/b"} {
		resp, err := c.Fetch(context.Background(), base+path)
		if err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		if resp.Kind != fetch.Listing {
			t.Errorf("%s: Kind %v, want listing", path, resp.Kind)
		}
		got := map[string]fetch.Entry{}
		for e, err := range resp.Entries() {
			if err != nil {
				t.Fatal(err)
			}
			got[e.Name] = e
		}
		resp.Body.Close()
		switch path {
		case "/":
			for name, wantURL := range map[string]string{
				"hash#mark.txt":       base + "/hash%23mark.txt",
				"name with space.txt": base + "/name%20with%20space.txt",
				"semi;colon.txt":      base + "/semi%3Bcolon.txt",
				"per%cent.txt":        base + "/per%25cent.txt",
				"emptydir":            base + "/emptydir/",
			} {
				if got[name].URL != wantURL {
					t.Errorf("/: entry %q URL %q, want %q", name, got[name].URL, wantURL)
				}
			}
			if e := got["big.bin"]; e.Type != fetch.EntryFile || e.Size != 64<<20 || e.Time.IsZero() {
				t.Errorf("/: big.bin entry %+v", e)
			}
		case "/a/", "/a":
			if e := got["b"]; len(got) != 1 || e.Type != fetch.EntryDir || e.URL != base+"/a/b/" {
				t.Errorf("%s: entries %+v, want the directory b at %s/a/b/", path, got, base)
			}
		case "/a/b":
			if e := got["c"]; len(got) != 1 || e.URL != base+"/a/b/c/" {
				t.Errorf("%s: entries %+v", path, got)
			}
		}
	}
}

func TestFTPEmpty(t *testing.T) {
	c := client(t)
	resp, body := get(t, c, ftpBase(t)+"/empty.txt")
	if len(body) != 0 || resp.Length != 0 || resp.Kind != fetch.Document {
		t.Errorf("empty.txt: %v Length %d body %q", resp.Kind, resp.Length, body)
	}
	resp, err := c.Fetch(context.Background(), ftpBase(t)+"/emptydir/")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	n := 0
	for range resp.Entries() {
		n++
	}
	if resp.Kind != fetch.Listing || n != 0 {
		t.Errorf("emptydir/: %v with %d entries, want an empty listing", resp.Kind, n)
	}
}

// Exit codes of the command: not found (4) and not authorized (5).
func TestFTPExitCodes(t *testing.T) {
	dir := t.TempDir()
	r := runFetch(t, dir, ftpBase(t)+"/no-such-file.txt")
	if r.code != 4 || !strings.Contains(r.stderr, "550") {
		t.Errorf("missing file: exit %d, stderr %q; want 4 and vsftpd's 550", r.code, r.stderr)
	}
	r = runFetch(t, dir, ftpLocal(t, "wrong-password")+"/welcome.txt")
	if r.code != 5 || !strings.Contains(r.stderr, "530") || strings.Contains(r.stderr, "wrong-password") {
		t.Errorf("wrong password: exit %d, stderr %q; want 5, vsftpd's 530 and no password", r.code, r.stderr)
	}
	r = runFetch(t, dir, "--netrc-file", "-", "ftp://"+env(t, "FTP_USER")+"@"+addr(t, "FTP")+"/welcome.txt")
	if r.code != 5 || !strings.Contains(r.stderr, "needs a password") {
		t.Errorf("no password, no terminal: exit %d, stderr %q; want 5 saying a password is needed", r.code, r.stderr)
	}
}

// The 64 MiB file through the command: the bytes by SHA-256, and the
// process's peak RSS, which a streaming transfer keeps small.
func TestFTPBigFileStreams(t *testing.T) {
	checkBigFile(t, ftpBase(t)+"/big.bin")
}

func TestFTPResume(t *testing.T) {
	c, trace := traceClient(t)
	whole := anonFile(t, "binary.bin")
	req, err := c.NewRequest(ftpBase(t) + "/binary.bin")
	if err != nil {
		t.Fatal(err)
	}
	req.Offset = 1000
	resp, err := c.Do(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil || !bytes.Equal(body, whole[1000:]) || resp.Offset != 1000 || resp.Length != int64(len(whole)-1000) {
		t.Errorf("binary.bin from 1000: %d bytes, Offset %d, Length %d, %v", len(body), resp.Offset, resp.Length, err)
	}
	if !strings.Contains(trace.String(), "> REST 1000\n< 350") {
		t.Errorf("no REST 1000 in the trace:\n%s", trace)
	}
	// The end of the big file.
	req, _ = c.NewRequest(ftpBase(t) + "/big.bin")
	req.Offset = 64<<20 - 4096
	resp, err = c.Do(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	tail, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	big, err := os.ReadFile(env(t, "BIG_FILE"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(tail, big[64<<20-4096:]) {
		t.Errorf("big.bin from %d: %d bytes that differ", req.Offset, len(tail))
	}
}

// vsftpdLogLine is one line of the harness's vsftpd log: its process and
// what it says.
var vsftpdLogLine = regexp.MustCompile(`\[pid (\d+)\] (?:\[[^]]*\] )?(.*)$`)

// RFC 1738 section 3.2.5: 100 files in one run of the command, over one
// control connection, as vsftpd's log shows: one CONNECT, and every RETR
// from the same session process.
func TestFTPManyFilesOneConnection(t *testing.T) {
	// addr checks that the server answers with a connection of its own:
	// once, before the log is measured.
	base, control := ftpBase(t), env(t, "FTP")
	logPath := env(t, "FTP_LOG")
	before, err := os.Stat(logPath)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	args := []string{"-v", "-O", "--dir", dir}
	for i := 0; i < 100; i++ {
		args = append(args, fmt.Sprintf("%s/small100/file-%03d.txt", base, i))
	}
	r := runFetch(t, dir, args...)
	if r.code != 0 {
		t.Fatalf("fetch of 100 files: exit %d: %s", r.code, r.stderr)
	}
	// Every file, by the harness's sums.
	sums, err := os.ReadFile(env(t, "SMALL100_SUMS"))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, line := range strings.Split(strings.TrimSpace(string(sums)), "\n") {
		want, name, _ := strings.Cut(line, "  ")
		b, err := os.ReadFile(filepath.Join(dir, filepath.Base(name)))
		sum := sha256.Sum256(b)
		if err != nil || hex.EncodeToString(sum[:]) != want {
			t.Errorf("%s: %v, sha256 %x, want %s", name, err, sum, want)
		}
		n++
	}
	if n != 100 {
		t.Errorf("%d sums in %s, want 100", n, env(t, "SMALL100_SUMS"))
	}
	// The trace: one connection to the control port, 99 reuses.
	if c := strings.Count(r.stderr, "* connecting to "+control+"\n"); c != 1 {
		t.Errorf("the trace connects to the control port %d times, want 1", c)
	}
	if c := strings.Count(r.stderr, "* reusing the connection"); c != 99 {
		t.Errorf("the trace reuses the connection %d times, want 99", c)
	}
	// vsftpd's log since the run began.
	f, err := os.Open(logPath)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.Seek(before.Size(), io.SeekStart); err != nil {
		t.Fatal(err)
	}
	// A control connection is a CONNECT line; the harness's own probes
	// (addr) connect too but never log in, so the connections of this run
	// are the processes that got a USER.
	connects, users, retrs := map[string]bool{}, map[string]bool{}, map[string]int{}
	sizes, mdtms := 0, 0
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		m := vsftpdLogLine.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		pid, what := m[1], m[2]
		switch {
		case strings.HasPrefix(what, `CONNECT: Client "127.0.0.1"`):
			connects[pid] = true
		case strings.HasPrefix(what, `FTP command: Client "127.0.0.1", "USER `):
			users[pid] = true
		case strings.HasPrefix(what, `FTP command: Client "127.0.0.1", "RETR file-`):
			retrs[pid]++
		case strings.HasPrefix(what, `FTP command: Client "127.0.0.1", "SIZE `):
			sizes++
		case strings.HasPrefix(what, `FTP command: Client "127.0.0.1", "MDTM `):
			mdtms++
		}
	}
	t.Logf("vsftpd log: %d CONNECT (probes included), %d logins, RETR by process %v", len(connects), len(users), retrs)
	for pid := range users {
		if !connects[pid] {
			t.Errorf("vsftpd log: a login by process %s without its CONNECT line", pid)
		}
	}
	total := 0
	for _, n := range retrs {
		total += n
	}
	if len(users) != 1 || len(retrs) != 1 || total != 100 {
		t.Errorf("vsftpd log: %d control connections logged in, RETR by process %v; want one connection and its session process with all 100 RETR", len(users), retrs)
	}
	// vsftpd's 150 reply gives the size: SIZE only for the first file.
	// The command shows no modification time without --json: no MDTM.
	if sizes != 1 || mdtms != 0 {
		t.Errorf("vsftpd log: %d SIZE and %d MDTM for 100 files; want 1 SIZE (the size is in every 150 reply) and no MDTM", sizes, mdtms)
	}
}

// The library sends SIZE for the first file of a connection only, once
// vsftpd's 150 reply gave the same size; MDTM still gives every file its
// time. Lengths stay right, and so does the check on a short transfer.
func TestFTPSizeFrom150(t *testing.T) {
	base := ftpBase(t)
	var trace []string
	c := client(t)
	defer c.Close()
	c.Trace = func(dir fetch.Direction, line string) { trace = append(trace, string(dir)+" "+line) }
	for i := range 3 {
		trace = nil
		resp, err := c.Fetch(t.Context(), fmt.Sprintf("%s/small100/file-%03d.txt", base, i))
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil || resp.Length != int64(len(b)) || resp.Length == 0 || resp.Modified.IsZero() {
			t.Errorf("file %d: %v, Length %d for %d bytes, Modified %v", i, err, resp.Length, len(b), resp.Modified)
		}
		size := slices.ContainsFunc(trace, func(l string) bool { return strings.HasPrefix(l, "> SIZE ") })
		if size != (i == 0) {
			t.Errorf("file %d: SIZE sent = %v, want it for the first file only: %q", i, size, trace)
		}
	}
}

// The command's FTP options: --ftp-method as curl's, checked.
func TestFTPMethodFlag(t *testing.T) {
	dir := t.TempDir()
	raw := ftpBase(t) + "//a/b/c/file.txt"
	r := runFetch(t, dir, "-v", "--ftp-method", "singlecwd", raw)
	if r.code != 0 || r.stdout != string(anonFile(t, "a/b/c/file.txt")) || !strings.Contains(r.stderr, "> CWD /a/b/c\n") {
		t.Errorf("--ftp-method singlecwd %s: exit %d, stdout %q, stderr %q", raw, r.code, r.stdout, r.stderr)
	}
	r = runFetch(t, dir, "-v", "--ftp-method", "nocwd", "--ftp-no-pipelining", ftpBase(t)+"/a/b/c/file.txt")
	if r.code != 0 || !strings.Contains(r.stderr, "> RETR a/b/c/file.txt\n") || strings.Contains(r.stderr, "> CWD") {
		t.Errorf("--ftp-method nocwd: exit %d, stderr %q", r.code, r.stderr)
	}
	if r = runFetch(t, dir, "--ftp-method", "fastcwd", raw); r.code != 2 {
		t.Errorf("--ftp-method fastcwd: exit %d, want 2 (usage)", r.code)
	}
}

// -u logs in to the FTP server of the user's URL as curl's does, in place
// of the anonymous login: with the password given, from netrc's machine
// entry, or refused (exit 5) with vsftpd's 530 and no password shown. A
// user in the URL comes first. The password never shows in -v's trace.
func TestFTPUserOption(t *testing.T) {
	user, password := env(t, "FTP_USER"), env(t, "FTP_PASSWORD")
	want, err := os.ReadFile(filepath.Join(env(t, "FTP_HOME"), "welcome.txt"))
	if err != nil {
		t.Fatal(err)
	}
	url := ftpBase(t) + "/welcome.txt"
	dir := t.TempDir()

	r := runFetch(t, dir, "-v", "-u", user+":"+password, url)
	if r.code != 0 || r.stdout != string(want) {
		t.Fatalf("-u USER:PASSWORD: exit %d, stdout %q, stderr %q; want welcome.txt of %s's home", r.code, r.stdout, r.stderr, user)
	}
	if !strings.Contains(r.stderr, "> USER "+user+"\n") || !strings.Contains(r.stderr, "> PASS ***") || strings.Contains(r.stderr, password) {
		t.Errorf("-v trace %q: want USER %s, PASS *** and never the password", r.stderr, user)
	}

	netrc := filepath.Join(t.TempDir(), "netrc")
	host := strings.Split(addr(t, "FTP"), ":")[0]
	if err := os.WriteFile(netrc, []byte("machine "+host+" login "+user+" password "+password+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if r := runFetch(t, dir, "--netrc-file", netrc, "-u", user, url); r.code != 0 || r.stdout != string(want) {
		t.Errorf("-u USER, the password in netrc: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}

	r = runFetch(t, dir, "-u", user+":not-the-password", url)
	if r.code != 5 || !strings.Contains(r.stderr, "530") || strings.Contains(r.stderr, "not-the-password") {
		t.Errorf("-u with a wrong password: exit %d, stderr %q; want 5, vsftpd's 530 and no password", r.code, r.stderr)
	}

	// The URL's own user wins over -u's.
	r = runFetch(t, dir, "-u", "nobody:nothing", ftpLocal(t, password)+"/welcome.txt")
	if r.code != 0 || r.stdout != string(want) {
		t.Errorf("a user in the URL and -u: exit %d, stdout %q, stderr %q; want the URL's login", r.code, r.stdout, r.stderr)
	}

	// Without -u the same URL is the anonymous account's, where
	// welcome.txt is not.
	if r := runFetch(t, dir, url); r.code != 4 {
		t.Errorf("without -u: exit %d, stderr %q; want 4 (anonymous has no welcome.txt)", r.code, r.stderr)
	}
}
