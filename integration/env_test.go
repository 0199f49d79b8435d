//go:build integration

// Package integration tests the drivers and the fetch command against
// real servers: nginx, vsftpd, pygopherd, gophernicus, INN, postfix,
// telnetd, yaz-ztest and zebrasrv, started on loopback by
// integration/servers/servers (or docker compose). With the build tag, a
// server that does not answer is a failure, never a skip.
package integration

import (
	"bufio"
	"context"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/urlfetch/urlfetch/fetch"
	"github.com/urlfetch/urlfetch/fetch/all"
	"github.com/urlfetch/urlfetch/internal/buildflags"
	"github.com/urlfetch/urlfetch/internal/recordcheck"
)

// serversFile is where the harness writes the servers' addresses.
func serversFile() string {
	if p := os.Getenv("URLFETCH_SERVERS"); p != "" {
		return p
	}
	run := os.Getenv("URLFETCH_RUN")
	if run == "" {
		run = "/tmp/urlfetch-servers"
	}
	return filepath.Join(run, "servers.env")
}

var (
	envOnce sync.Once
	envMap  map[string]string
	envErr  error
)

// env returns the value of key from the servers file, failing the test
// when the file or the key is missing: the servers must be running.
func env(t testing.TB, key string) string {
	t.Helper()
	envOnce.Do(func() {
		f, err := os.Open(serversFile())
		if err != nil {
			envErr = err
			return
		}
		defer f.Close()
		envMap = map[string]string{}
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			line := strings.TrimSpace(sc.Text())
			if line == "" || strings.HasPrefix(line, "#") {
				continue
			}
			if k, v, ok := strings.Cut(line, "="); ok {
				envMap[k] = v
			}
		}
		envErr = sc.Err()
	})
	if envErr != nil {
		t.Fatalf("reading %s (start the servers: integration/servers/servers start): %v", serversFile(), envErr)
	}
	v, ok := envMap[key]
	if !ok {
		t.Fatalf("%s has no %s: is the harness up to date?", serversFile(), key)
	}
	return v
}

// addr returns the address of a server and checks that it answers.
func addr(t testing.TB, key string) string {
	t.Helper()
	a := env(t, key)
	c, err := net.DialTimeout("tcp", a, 5*time.Second)
	if err != nil {
		t.Fatalf("server %s at %s does not answer: %v (integration/servers/servers status)", key, a, err)
	}
	c.Close()
	return a
}

// testTLS returns TLS settings that trust the harness's test CA (TLS_CA),
// which signed the certificate of every server that speaks TLS, and no
// other.
func testTLS(t testing.TB) *tls.Config {
	t.Helper()
	ca := env(t, "TLS_CA")
	b, err := os.ReadFile(ca)
	if err != nil {
		t.Fatalf("the harness's test CA: %v", err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(b) {
		t.Fatalf("%s holds no PEM certificate", ca)
	}
	return &tls.Config{RootCAs: pool}
}

// client returns a Client with every driver, trusting the test CA and
// tracing into the test log.
func client(t testing.TB) *fetch.Client {
	c := all.NewClient()
	c.TLSConfig = testTLS(t)
	c.NetrcFile = "-"
	c.ConnectTimeout = 10 * time.Second
	c.IdleTimeout = 30 * time.Second
	c.Trace = func(dir fetch.Direction, line string) {
		if len(line) > 200 {
			line = line[:200] + "..."
		}
		t.Logf("%c %s", dir, line)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// get fetches rawURL and returns the whole body.
func get(t testing.TB, c *fetch.Client, rawURL string) (*fetch.Response, []byte) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	resp, err := c.Fetch(ctx, rawURL)
	if err != nil {
		t.Fatalf("Fetch(%q): %v", rawURL, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("Fetch(%q): reading the body: %v", rawURL, err)
	}
	if err := resp.Body.Close(); err != nil {
		t.Fatalf("Fetch(%q): closing the body: %v", rawURL, err)
	}
	return resp, b
}

// sha256Of streams a body into SHA-256 and returns the hex digest and
// the byte count.
func sha256Of(r io.Reader) (string, int64, error) {
	h := sha256.New()
	n, err := io.Copy(h, r)
	return hex.EncodeToString(h.Sum(nil)), n, err
}

// fetchBin is the fetch command, built once for the tests that run it as
// a user does.
var fetchBin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "fetch-integration-")
	if err != nil {
		panic(err)
	}
	fetchBin = filepath.Join(dir, "fetch")
	build := exec.Command("go", "build", "-tags", buildflags.Tags(), "-o", fetchBin, "../cmd/fetch")
	build.Stderr = os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "building fetch:", err)
		os.Exit(2)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// cmdResult is what a run of the fetch command did.
type cmdResult struct {
	stdout, stderr string
	code           int
	maxRSS         int64 // peak resident set size of the process, bytes (VmHWM)
}

// runFetch runs the fetch command in dir with args and an empty stdin.
func runFetch(t testing.TB, dir string, args ...string) cmdResult {
	t.Helper()
	return runFetchInput(t, dir, "", args...)
}

// runFetchInput runs the fetch command in dir with input as its standard
// input (a pipe, not a terminal), trusting the harness's test CA as a user
// of these servers would (--cacert $TLS_CA).
func runFetchInput(t testing.TB, dir, input string, args ...string) cmdResult {
	t.Helper()
	return execFetch(t, dir, input, append([]string{"--cacert", env(t, "TLS_CA")}, args...)...)
}

// execFetch runs the fetch command in dir with input as its standard input
// and args as they are: without --cacert, it trusts the system's roots.
func execFetch(t testing.TB, dir, input string, args ...string) cmdResult {
	t.Helper()
	return execFetchEnv(t, dir, input, nil, args...)
}

// execFetchEnv is execFetch with extra environment variables.
func execFetchEnv(t testing.TB, dir, input string, extraEnv []string, args ...string) cmdResult {
	t.Helper()
	cmd := exec.Command(fetchBin, args...)
	cmd.Dir = dir
	cmd.Stdin = strings.NewReader(input)
	peakFile := filepath.Join(t.TempDir(), "peak-rss")
	cmd.Env = append(append(os.Environ(), "NETRC=/nonexistent", "URLFETCH_PEAK_RSS_FILE="+peakFile), extraEnv...)
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	r := cmdResult{stdout: out.String(), stderr: errb.String()}
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		r.code = ee.ExitCode()
	case err != nil:
		t.Fatalf("running fetch %q: %v", args, err)
	}
	// Issue 22, point 1: every record the tests make is one of the
	// schema's.
	if slices.Contains(args, "--json") {
		if err := recordcheck.Check([]byte(r.stdout)); err != nil {
			t.Errorf("fetch %q: %v", args, err)
		}
	}
	// The process's own VmHWM: wait4's rusage may carry this test
	// process's high-water mark across the exec.
	if b, err := os.ReadFile(peakFile); err == nil {
		var kb int64
		if _, err := fmt.Sscanf(string(b), "%d kB", &kb); err == nil {
			r.maxRSS = kb * 1024
		}
	}
	return r
}

// maxTransferRSS bounds the peak RSS of the command for one transfer of
// any size (issue 24, point 6; 40 MiB before): the program itself is
// some 10 MiB of it.
const maxTransferRSS = 16 << 20

// checkBigFile fetches the harness's 64 MiB file from rawURL with the
// command and checks its bytes by SHA-256 and size, and the process's
// peak RSS: a transfer that streams stays under maxTransferRSS whatever
// the size.
func checkBigFile(t *testing.T, rawURL string) {
	t.Helper()
	dir := t.TempDir()
	r := runFetch(t, dir, "-o", "big.bin", rawURL)
	if r.code != 0 {
		t.Fatalf("fetch -o big.bin %s: exit %d: %s", rawURL, r.code, r.stderr)
	}
	f, err := os.Open(filepath.Join(dir, "big.bin"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sum, n, err := sha256Of(f)
	if err != nil || sum != env(t, "BIG_SHA256") || n != 64<<20 {
		t.Errorf("big.bin from %s: %d bytes, sha256 %s, %v; want %s", rawURL, n, sum, err, env(t, "BIG_SHA256"))
	}
	t.Logf("peak RSS of fetch for 64 MiB from %s: %.1f MiB", rawURL, float64(r.maxRSS)/(1<<20))
	if r.maxRSS <= 0 || r.maxRSS >= maxTransferRSS {
		t.Errorf("peak RSS = %d bytes, want under %d MiB", r.maxRSS, maxTransferRSS>>20)
	}
}
