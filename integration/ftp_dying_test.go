//go:build integration

package integration

import (
	"bufio"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Issue 23, point 7: a vsftpd whose passive range has fewer ports than
// the transfers under way answers some EPSVs with "500 OOPS:
// vsf_sysutil_bind" (or a RETR with "500 OOPS: priv_sock_get_int") and
// ends the session. Each such failure is a broken connection in the
// server's own words (exit 10, not an internal message and exit 1), and
// --retry completes the batch on fresh connections: better than curl,
// which fails those files (exit 13).
func TestFTPServerDiesMidSession(t *testing.T) {
	base := startSmallPassiveVsftpd(t, 4)
	dir := t.TempDir()
	var list strings.Builder
	for i := 0; i < 1000; i++ {
		fmt.Fprintf(&list, "%s/small1000/file-%04d.txt\n", base, i)
	}
	listFile := filepath.Join(dir, "urls.txt")
	if err := os.WriteFile(listFile, []byte(list.String()), 0o644); err != nil {
		t.Fatal(err)
	}

	// Without --retry: whatever failed says why in the server's words.
	once := filepath.Join(dir, "once")
	os.Mkdir(once, 0o755)
	r := runFetch(t, dir, "-q", "-P", "8", "-O", "--dir", once, "-i", listFile)
	lines := strings.Split(strings.TrimSpace(r.stderr), "\n")
	if r.stderr == "" {
		lines = nil
	}
	t.Logf("without --retry: exit %d, %d failures", r.code, len(lines))
	if r.code != 0 && r.code != 10 {
		t.Errorf("without --retry: exit %d; want 0 or 10 (a broken connection)\n%s", r.code, clipped(r.stderr))
	}
	words := regexp.MustCompile(`: (500 OOPS: |the server answered "5)`)
	for _, l := range lines {
		if !words.MatchString(l) || strings.Contains(l, "pipelined") {
			t.Errorf("failure line %q; want the server's own words", l)
			break
		}
	}

	// With --retry: every file, whole.
	out := filepath.Join(dir, "out")
	os.Mkdir(out, 0o755)
	r = runFetch(t, dir, "-q", "-P", "8", "--retry", "3", "-O", "--dir", out, "-i", listFile)
	if r.code != 0 {
		t.Fatalf("with --retry 3: exit %d\n%s", r.code, clipped(r.stderr))
	}
	checkSums(t, env(t, "SMALL1000_SUMS"), out, 1000)
}

// startSmallPassiveVsftpd starts a second vsftpd on the harness's anonymous
// tree, its configuration but for a free port and a passive range of n
// ports, and stops it when the test ends. It returns its ftp:// base URL.
func startSmallPassiveVsftpd(t *testing.T, n int) string {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Fatal("vsftpd needs root to start (it switches users); the integration suite runs as root")
	}
	conf, err := os.ReadFile(filepath.Join(env(t, "RUN"), "vsftpd", "vsftpd.conf"))
	if err != nil {
		t.Fatal(err)
	}
	port := freePort(t)
	low := freePorts(t, n)
	dir := t.TempDir()
	set := map[string]string{
		"listen_port":     strconv.Itoa(port),
		"pasv_min_port":   strconv.Itoa(low),
		"pasv_max_port":   strconv.Itoa(low + n - 1),
		"vsftpd_log_file": filepath.Join(dir, "vsftpd.log"),
	}
	var b strings.Builder
	sc := bufio.NewScanner(strings.NewReader(string(conf)))
	for sc.Scan() {
		line := sc.Text()
		if k, _, ok := strings.Cut(line, "="); ok {
			if v, ok := set[k]; ok {
				line = k + "=" + v
			}
		}
		b.WriteString(line + "\n")
	}
	path := filepath.Join(dir, "vsftpd.conf")
	if err := os.WriteFile(path, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("vsftpd", path)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting vsftpd: %v", err)
	}
	t.Cleanup(func() {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
		cmd.Wait()
	})
	addr := net.JoinHostPort("127.0.0.1", strconv.Itoa(port))
	deadline := time.Now().Add(10 * time.Second)
	for {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			c.Close()
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the second vsftpd does not answer on %s: %v", addr, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
	return "ftp://" + addr
}

// freePort returns a TCP port of 127.0.0.1 that nothing listens on.
func freePort(t *testing.T) int {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

// freePorts returns the first of n consecutive free ports of 127.0.0.1
// from 18400 on (above the harness's own passive range).
func freePorts(t *testing.T, n int) int {
	for low := 18400; low < 19000; low += n {
		ok := true
		for p := low; p < low+n && ok; p++ {
			ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(p)))
			if err != nil {
				ok = false
				continue
			}
			ln.Close()
		}
		if ok {
			return low
		}
	}
	t.Fatal("no free ports for the passive range")
	return 0
}

// clipped is at most the first 2000 bytes of s, for a failure message.
func clipped(s string) string {
	if len(s) > 2000 {
		return s[:2000] + "..."
	}
	return s
}
