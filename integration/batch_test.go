//go:build integration

package integration

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// 1000 files from vsftpd with -P 8, listed in an -i file: every file
// lands under its own name with the harness's sha256, and vsftpd's log
// shows at most 8 control connections (and more than one: the run was
// parallel) carrying the 1000 RETR.
func TestFTPParallelThousand(t *testing.T) {
	base := ftpBase(t)
	logPath := env(t, "FTP_LOG")
	before, err := os.Stat(logPath)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	if err := os.Mkdir(out, 0o755); err != nil {
		t.Fatal(err)
	}
	var list strings.Builder
	list.WriteString("# the harness's 1000 small files\n\n")
	for i := 0; i < 1000; i++ {
		if i%100 == 7 {
			fmt.Fprintf(&list, "<URL:%s/small1000/file-%04d.txt>\n", base, i) // RFC 1738's wrapper
		} else {
			fmt.Fprintf(&list, "%s/small1000/file-%04d.txt\n", base, i)
		}
	}
	listFile := filepath.Join(dir, "urls.txt")
	if err := os.WriteFile(listFile, []byte(list.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	r := runFetch(t, dir, "-q", "-P", "8", "-O", "--dir", out, "-i", listFile)
	t.Logf("1000 files with -P 8 in %v", time.Since(start))
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	checkSums(t, env(t, "SMALL1000_SUMS"), out, 1000)

	// vsftpd's log since the run began: the session processes that
	// retrieved small1000 files (file-NNNN.txt; small100's have three
	// digits), each a control connection.
	f, err := os.Open(logPath)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.Seek(before.Size(), io.SeekStart); err != nil {
		t.Fatal(err)
	}
	retr := regexp.MustCompile(`FTP command: Client "127.0.0.1", "RETR file-\d{4}\.txt"`)
	perConn := map[string]int{}
	total := 0
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		m := vsftpdLogLine.FindStringSubmatch(sc.Text())
		if m != nil && retr.MatchString(m[2]) {
			perConn[m[1]]++
			total++
		}
	}
	t.Logf("vsftpd log: RETR per control connection: %v", perConn)
	if total != 1000 || len(perConn) > 8 || len(perConn) < 2 {
		t.Errorf("vsftpd log: %d RETR over %d control connections; want 1000 over 2 to 8", total, len(perConn))
	}
}

// checkSums checks n files in dir against a sha256sum file.
func checkSums(t *testing.T, sumsFile, dir string, n int) {
	t.Helper()
	sums, err := os.ReadFile(sumsFile)
	if err != nil {
		t.Fatal(err)
	}
	got := 0
	for _, line := range strings.Split(strings.TrimSpace(string(sums)), "\n") {
		want, name, _ := strings.Cut(line, "  ")
		b, err := os.ReadFile(filepath.Join(dir, filepath.Base(name)))
		sum := sha256.Sum256(b)
		if err != nil || hex.EncodeToString(sum[:]) != want {
			t.Errorf("%s: %v, sha256 %x, want %s", name, err, sum, want)
		}
		got++
	}
	if got != n {
		t.Errorf("%d sums in %s, want %d", got, sumsFile, n)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != n {
		t.Errorf("%d files in %s, want %d (a temporary file left?)", len(entries), dir, n)
	}
}

// With -P, documents written to standard output still come out whole and
// in the order of the URLs.
func TestParallelStdoutInOrder(t *testing.T) {
	base := ftpBase(t)
	args := []string{"-q", "-P", "8"}
	var want strings.Builder
	for i := 0; i < 100; i++ {
		args = append(args, fmt.Sprintf("%s/small100/file-%03d.txt", base, i))
		b, err := os.ReadFile(filepath.Join(env(t, "FTP_ANON_ROOT"), fmt.Sprintf("small100/file-%03d.txt", i)))
		if err != nil {
			t.Fatal(err)
		}
		want.Write(b)
	}
	r := runFetch(t, t.TempDir(), args...)
	if r.code != 0 || r.stdout != want.String() {
		t.Errorf("exit %d, %d bytes on stdout (in order: %v); want the 100 files in order, %d bytes: %s", r.code, len(r.stdout), r.stdout == want.String(), want.Len(), r.stderr)
	}
}

// Several URLs, some failing: every failure is reported with its URL,
// the others are fetched, and the exit code is the worst (auth 5 over
// not found 4).
func TestManyURLsWorstExitCode(t *testing.T) {
	base := ftpBase(t)
	missing := base + "/no-such-file.txt"
	denied := ftpLocal(t, "wrong-password-for-batch") + "/readme.txt"
	ok := base + "/readme.txt"
	r := runFetch(t, t.TempDir(), "-P", "3", missing, ok, denied)
	if r.code != 5 {
		t.Errorf("exit %d, want 5 (auth, the worst of 4 and 5): %s", r.code, r.stderr)
	}
	if string(anonFile(t, "readme.txt")) != r.stdout {
		t.Errorf("stdout %q, want readme.txt", r.stdout)
	}
	lines := strings.Split(strings.TrimSpace(r.stderr), "\n")
	if len(lines) != 2 || !strings.Contains(r.stderr, "fetch: "+missing+": ") || !strings.Contains(r.stderr, "/readme.txt: ") {
		t.Errorf("stderr %q: want one line for each failed URL, naming it", r.stderr)
	}
	if strings.Contains(r.stderr, "wrong-password-for-batch") {
		t.Errorf("stderr shows the password: %q", r.stderr)
	}
}

// -C continues a partial file over FTP with REST: the bytes before the
// offset are not fetched again, and the whole file has the right sha256.
func TestFTPContinue(t *testing.T) {
	dir := t.TempDir()
	big, err := os.Open(env(t, "BIG_FILE"))
	if err != nil {
		t.Fatal(err)
	}
	defer big.Close()
	part, err := os.Create(filepath.Join(dir, "big.bin"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.CopyN(part, big, 10<<20+123); err != nil {
		t.Fatal(err)
	}
	part.Close()
	r := runFetch(t, dir, "-v", "-C", "-o", "big.bin", ftpBase(t)+"/big.bin")
	if r.code != 0 || !strings.Contains(r.stderr, fmt.Sprintf("> REST %d\n", 10<<20+123)) {
		t.Fatalf("exit %d; want REST %d in the trace: %s", r.code, 10<<20+123, lastLines(r.stderr, 10))
	}
	checkFileSum(t, filepath.Join(dir, "big.bin"))
}

// A scheme that cannot resume (gopher) starts again, says so, and still
// ends with the right file.
func TestContinueRestartsWhereNoResume(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "big.bin"), []byte("stale bytes that are not the file's"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := runFetch(t, dir, "-C", "-o", "big.bin", "gopher://"+addr(t, "GOPHER_PYGOPHERD")+"/9/big.bin")
	if r.code != 0 || !strings.Contains(r.stderr, "cannot resume at byte 35; starting again from byte 0") {
		t.Fatalf("exit %d, stderr %q; want a restart, said", r.code, r.stderr)
	}
	checkFileSum(t, filepath.Join(dir, "big.bin"))
}

// A transfer cut off mid-file (the connection from nginx broken by a
// relay) leaves the partial file with -C; a second -C run resumes it with
// a Range request to the right sha256.
func TestContinueAfterCutOff(t *testing.T) {
	relay := cutRelay(t, addr(t, "HTTP"), 5<<20, 1)
	dir := t.TempDir()
	raw := "http://" + relay.addr + "/big.bin"
	r := runFetch(t, dir, "-C", "-o", "big.bin", raw)
	fi, err := os.Stat(filepath.Join(dir, "big.bin"))
	if r.code == 0 || err != nil || fi.Size() == 0 || fi.Size() >= 64<<20 {
		t.Fatalf("cut-off run: exit %d, file %v %v; want a failure and a partial file: %s", r.code, fi, err, r.stderr)
	}
	t.Logf("cut off after %d bytes: %s", fi.Size(), strings.TrimSpace(r.stderr))
	r = runFetch(t, dir, "-v", "-C", "-o", "big.bin", raw)
	if r.code != 0 || !strings.Contains(r.stderr, fmt.Sprintf("> Range: bytes=%d-", fi.Size())) {
		t.Fatalf("resume: exit %d; want a Range from %d: %s", r.code, fi.Size(), lastLines(r.stderr, 12))
	}
	checkFileSum(t, filepath.Join(dir, "big.bin"))
}

// --retry: a transfer cut off once is tried again in the same run,
// resuming where it stopped, and the file (written under a temporary name
// until complete) ends with the right sha256.
func TestRetryResumesCutOff(t *testing.T) {
	relay := cutRelay(t, addr(t, "HTTP"), 5<<20, 1)
	dir := t.TempDir()
	r := runFetch(t, dir, "-v", "--retry", "2", "-o", "big.bin", "http://"+relay.addr+"/big.bin")
	if r.code != 0 || !strings.Contains(r.stderr, "trying again in 1s (retry 1 of 2)") || !strings.Contains(r.stderr, "> Range: bytes=") {
		t.Fatalf("exit %d; want one retry that resumes with a Range: %s", r.code, lastLines(r.stderr, 15))
	}
	if n := relay.conns.Load(); n != 2 {
		t.Errorf("%d connections through the relay, want 2", n)
	}
	checkFileSum(t, filepath.Join(dir, "big.bin"))
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("%d files in the output directory, want big.bin alone", len(entries))
	}
}

// --retry never retries a missing file; it retries a refused connection
// with growing delays (1s, then 2s) and then reports it.
func TestRetryOnlyTransient(t *testing.T) {
	start := time.Now()
	r := runFetch(t, t.TempDir(), "--retry", "3", ftpBase(t)+"/no-such-file.txt")
	if r.code != 4 || strings.Contains(r.stderr, "trying again") || time.Since(start) > 5*time.Second {
		t.Errorf("missing file: exit %d after %v, stderr %q; want exit 4 at once, no retry", r.code, time.Since(start), r.stderr)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := ln.Addr().String()
	ln.Close() // nothing listens there now: connections are refused
	start = time.Now()
	r = runFetch(t, t.TempDir(), "--retry", "2", "http://"+closed+"/x")
	took := time.Since(start)
	if r.code != 10 || strings.Count(r.stderr, "trying again") != 2 || took < 3*time.Second {
		t.Errorf("refused: exit %d after %v, stderr %q; want exit 10 after retries at 1s and 2s", r.code, took, r.stderr)
	}
}

// checkFileSum checks a file against the harness's 64 MiB file.
func checkFileSum(t *testing.T, path string) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sum, n, err := sha256Of(f)
	if err != nil || sum != env(t, "BIG_SHA256") || n != 64<<20 {
		t.Errorf("%s: %d bytes, sha256 %s, %v; want the 64 MiB file", path, n, sum, err)
	}
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}

// relay is a TCP relay in front of a real server that breaks its first
// connections (cuts of them) after some bytes from the server: the server
// is real, the cut is what no real server does on demand.
type relay struct {
	addr  string
	conns atomic.Int32
}

func cutRelay(t *testing.T, target string, after int64, cuts int32) *relay {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	r := &relay{addr: ln.Addr().String()}
	var wg sync.WaitGroup
	t.Cleanup(func() { ln.Close(); wg.Wait() })
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			n := r.conns.Add(1)
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer c.Close()
				s, err := net.Dial("tcp", target)
				if err != nil {
					return
				}
				defer s.Close()
				go func() {
					io.Copy(s, c)
					s.Close() // the client is gone: so is the server's side
				}()
				if n <= cuts {
					io.CopyN(c, s, after)
					return // both ends close: the transfer is cut
				}
				io.Copy(c, s)
			}()
		}
	}()
	return r
}
