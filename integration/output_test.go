//go:build integration

package integration

import (
	"bufio"
	"encoding/json"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Issue 22 against the real servers: --json records, --raw listings,
// files named and timed as curl and wget name and time them, and server
// text made harmless on a terminal. The servers' trees hold a directory
// "hostile" of files named as a hostile server names its files (see
// hostile_names in servers/servers).

// hostileNames are the names in the servers' hostile directories.
var hostileNames = []string{
	"esc-\x1b]0;owned\a\x1b[2J.txt",
	"c1-\u009b31mred.txt",
	"bidi-\u202etxt.exe",
	"plain.txt",
}

// terminalControls are what must never reach a terminal raw.
var terminalControls = []string{"\x1b", "\a", "\u009b", "\u202e"}

// jsonRecords decodes --json output into generic records.
func jsonRecords(t *testing.T, out string) []map[string]any {
	t.Helper()
	var recs []map[string]any
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("--json line %q: %v", sc.Text(), err)
		}
		recs = append(recs, m)
	}
	return recs
}

// lastRecord is the record that ends a URL's records: the last one.
func lastRecord(t *testing.T, out string) map[string]any {
	t.Helper()
	recs := jsonRecords(t, out)
	if len(recs) == 0 {
		t.Fatalf("no records in %q", out)
	}
	return recs[len(recs)-1]
}

// Point 1 and 5: an FTP listing's entries are records that name their
// listing and keep hostile names exactly, JSON-escaped; the listing's
// record has the reply that began it and the count.
func TestJSONFTPListing(t *testing.T) {
	url := ftpBase(t) + "/hostile/"
	r := runFetch(t, t.TempDir(), "--json", url)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	for _, c := range terminalControls {
		if strings.Contains(r.stdout, c) {
			t.Errorf("--json output holds %q raw: %q", c, r.stdout)
		}
	}
	recs := jsonRecords(t, r.stdout)
	names := map[string]bool{}
	for _, m := range recs[:len(recs)-1] {
		if m["kind"] != "entry" || m["input"] != url || m["listing"] != url || m["type"] != "file" {
			t.Errorf("entry record %v", m)
		}
		names[m["name"].(string)] = true
	}
	for _, n := range hostileNames {
		if !names[n] {
			t.Errorf("no entry named %q exactly in %v", n, names)
		}
	}
	end := recs[len(recs)-1]
	if end["kind"] != "listing" || end["entries"] != float64(len(hostileNames)) || !strings.HasPrefix(end["status"].(string), "150 ") {
		t.Errorf("listing record %v", end)
	}
}

// Point 1: after a redirect the record has the URL given and the URL the
// document came from; a 404 is an error record with its class and code.
func TestJSONRedirectAndError(t *testing.T) {
	base := httpBase(t)
	dir := t.TempDir()
	r := runFetch(t, dir, "--json", "-o", "out.txt", base+"/redirect/301")
	m := lastRecord(t, r.stdout)
	if r.code != 0 || m["kind"] != "document" || m["input"] != base+"/redirect/301" || m["url"] == m["input"] ||
		m["status"] != "200 OK" || m["output"] != "out.txt" || m["bytes"] != m["length"] {
		t.Errorf("redirect: exit %d, record %v", r.code, m)
	}
	r = runFetch(t, dir, "--json", base+"/no/such/file")
	m = lastRecord(t, r.stdout)
	if r.code != 4 || m["kind"] != "error" || m["class"] != "not_found" || m["exit_code"] != 4.0 || !strings.Contains(m["message"].(string), "404") {
		t.Errorf("404: exit %d, record %v", r.code, m)
	}
}

// Point 1: mailto and telnet write their records too.
func TestJSONSentAndSession(t *testing.T) {
	r := runFetchInput(t, t.TempDir(), "hello from --json\n", "--json", "--smtp-server", addr(t, "SMTP"),
		"--from", "cli@localhost", "--subject", "issue 22", "mailto:"+env(t, "SMTP_RECIPIENT"))
	m := lastRecord(t, r.stdout)
	if r.code != 0 || m["kind"] != "sent" || !strings.HasPrefix(m["status"].(string), "250") {
		t.Errorf("mailto: exit %d, record %v: %s", r.code, m, r.stderr)
	}
	r = runFetchInput(t, t.TempDir(), "echo issue-22\nexit\n", "--json", telnetURL(t, true))
	// The session shows on standard error: standard output is the
	// records'.
	recs := jsonRecords(t, r.stdout)
	if r.code != 0 || len(recs) != 1 || recs[0]["kind"] != "session" || !strings.Contains(r.stderr, "issue-22") {
		t.Errorf("telnet: exit %d, output %q: %s", r.code, r.stdout, r.stderr)
	}
}

// Point 4: --raw writes a gopher menu as the very bytes the server sends
// for its selector, and an FTP listing as its LIST text; rendered, a
// gopher menu says what each item is.
func TestRawListings(t *testing.T) {
	gopher := addr(t, "GOPHER_PYGOPHERD")
	dir := t.TempDir()
	r := runFetch(t, dir, "--raw", "-o", "menu", "gopher://"+gopher+"/1/hostile")
	got, _ := os.ReadFile(filepath.Join(dir, "menu"))
	want := rawGopher(t, gopher, "/hostile")
	if r.code != 0 || string(got) != want {
		t.Errorf("--raw gopher menu: exit %d,\n got %q\nwant %q", r.code, got, want)
	}

	r = runFetch(t, dir, "--raw", ftpBase(t)+"/hostile/")
	for _, n := range hostileNames {
		if r.code != 0 || !strings.Contains(r.stdout, " "+n+"\r\n") {
			t.Errorf("--raw FTP listing lacks the line of %q: exit %d %q", n, r.code, r.stdout)
		}
	}

	// A Gopher+ attribute block: as the server sent it after its
	// header line, not laid out for people.
	attrs := rawGopher(t, gopher, "/hello.txt\t!")
	_, block, _ := strings.Cut(attrs, "\r\n")
	r = runFetch(t, dir, "--raw", "gopher://"+gopher+"/0/hello.txt%09%09!")
	if r.code != 0 || !strings.HasPrefix(block, "+INFO:") || r.stdout != block {
		t.Errorf("--raw Gopher+ attributes: exit %d,\n got %q\nwant %q", r.code, r.stdout, block)
	}

	r = runFetch(t, dir, "gopher://"+gopher+"/1/")
	for _, want := range []string{"\ntext ", "\nbinary ", "\nsearch ", "\nmenu "} {
		if !strings.Contains("\n"+r.stdout, want) {
			t.Errorf("gopher menu shows no %q item:\n%s", strings.TrimSpace(want), r.stdout)
		}
	}
	r = runFetch(t, dir, "--json", "gopher://"+gopher+"/1/")
	for _, m := range jsonRecords(t, r.stdout) {
		if m["name"] == "binary.bin" && (m["item"] != "9" || m["media"] != "application/octet-stream" || m["type"] != "file") {
			t.Errorf("binary.bin's record %v, want item 9 and its media type", m)
		}
	}
}

// rawGopher sends selector to a gopher server and returns its reply,
// byte for byte.
func rawGopher(t *testing.T, addr, selector string) string {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(10 * time.Second))
	io.WriteString(c, selector+"\r\n")
	b, err := io.ReadAll(c)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// Point 5: an FTP listing and a gopher menu on a terminal show hostile
// names escaped.
func TestHostileNamesOnTerminal(t *testing.T) {
	for _, url := range []string{ftpBase(t) + "/hostile/", "gopher://" + addr(t, "GOPHER_PYGOPHERD") + "/1/hostile"} {
		run := startOnPty(t, t.TempDir(), nil, url)
		if code := run.wait(t); code != 0 {
			t.Errorf("%s: exit %d: %q", url, code, run.term.String())
		}
		term := run.term.String()
		for _, c := range terminalControls {
			if strings.Contains(term, c) {
				t.Errorf("%s: the terminal got %q raw: %q", url, c, term)
			}
		}
		if !strings.Contains(term, `esc-\e]0;owned\x07\e[2J.txt`) || !strings.Contains(term, `bidi-\u202etxt.exe`) {
			t.Errorf("%s: the terminal shows no escaped names:\n%s", url, term)
		}
	}
}

// Point 3: two URLs of one run that name one file (the issue's own:
// http://h/ and gopher://h/1/ are both "index") write two; -R gives each
// file the server's time (FTP MDTM, HTTP Last-Modified).
func TestOutputFilesFromServers(t *testing.T) {
	dir := t.TempDir()
	r := runFetch(t, dir, "-O", "--dir", "got", httpBase(t)+"/", "gopher://"+addr(t, "GOPHER_PYGOPHERD")+"/1/")
	a, errA := os.ReadFile(filepath.Join(dir, "got", "index"))
	b, errB := os.ReadFile(filepath.Join(dir, "got", "index.1"))
	if r.code != 0 || errA != nil || errB != nil || !strings.Contains(string(b), "hello.txt") || string(a) == string(b) ||
		!strings.Contains(r.stderr, "saving as got/index.1") {
		t.Errorf("index and index.1: exit %d, %v %v: %s", r.code, errA, errB, r.stderr)
	}

	for _, c := range []struct{ url, src string }{
		{ftpBase(t) + "/readme.txt", filepath.Join(env(t, "FTP_ANON_ROOT"), "readme.txt")},
		{httpBase(t) + "/hello.txt", filepath.Join(env(t, "HTTP_ROOT"), "hello.txt")},
	} {
		fi, err := os.Stat(c.src)
		if err != nil {
			t.Fatal(err)
		}
		r := runFetch(t, dir, "-R", "-o", "timed", c.url)
		got, err := os.Stat(filepath.Join(dir, "timed"))
		if r.code != 0 || err != nil || !got.ModTime().Equal(fi.ModTime().Truncate(time.Second)) {
			t.Errorf("-R %s: exit %d, %v; mtime %v, want %v: %s", c.url, r.code, err, got.ModTime(), fi.ModTime(), r.stderr)
		}
	}
}
