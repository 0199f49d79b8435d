//go:build integration

package integration

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// Issue 28, point 5: 200 clients at once through one fetch serve, each
// fetching three URLs one after another from the real servers (FTP,
// news, gopher, HTTP, and two 64 MiB files among them): every body
// checked, the FTP and NNTP connections reused through the core pool
// (the gateway's trace says "reusing the connection"), and the gateway's
// peak RSS bounded while the two 64 MiB files stream.
func TestServeLoad(t *testing.T) {
	s := startServe(t, "-q", "-v")
	anon, pyRoot, httpRoot := env(t, "FTP_ANON_ROOT"), env(t, "GOPHER_PYGOPHERD_ROOT"), env(t, "HTTP_ROOT")
	sums := map[string]string{}
	sumOf := func(path string) string {
		if s, ok := sums[path]; ok {
			return s
		}
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		sum, _, err := sha256Of(f)
		if err != nil {
			t.Fatal(err)
		}
		sums[path] = sum
		return sum
	}
	f, py, h := ftpBase(t), pygopherd(t).url(""), "http://"+addr(t, "HTTP")
	ftpFile := func(i int) loadCase {
		name := fmt.Sprintf("small1000/file-%04d.txt", i%1000)
		return loadCase{url: f + "/" + name, sum: sumOf(filepath.Join(anon, name))}
	}
	article := func(i int) loadCase {
		id := fmt.Sprintf("<big-%03d@urlfetch.test>", i%210+1)
		return loadCase{url: "news:" + strings.Trim(id, "<>"), want: "Message-ID: " + id}
	}
	other := func(i int) loadCase {
		if i%2 == 0 {
			return loadCase{url: py + "/9/binary.bin", sum: sumOf(filepath.Join(pyRoot, "binary.bin"))}
		}
		return loadCase{url: h + "/with%20space.txt", sum: sumOf(filepath.Join(httpRoot, "with space.txt"))}
	}
	const clients = 200
	plans := make([][]loadCase, clients)
	ftpFetches, newsFetches := 0, 0
	for i := range plans {
		kinds := []func(int) loadCase{ftpFile, article, other}
		for j := range 3 {
			// Each client starts with another kind, so that a third of
			// them talk to each server at a time.
			c := kinds[(i+j)%3](i*3 + j)
			if i == 0 && j == 0 {
				c = loadCase{url: py + "/9/big.bin", sum: env(t, "BIG_SHA256")}
			}
			if i == 1 && j == 0 {
				c = loadCase{url: f + "/big.bin", sum: env(t, "BIG_SHA256")}
			}
			switch {
			case strings.HasPrefix(c.url, "ftp:"):
				ftpFetches++
			case strings.HasPrefix(c.url, "news:"):
				newsFetches++
			}
			plans[i] = append(plans[i], c)
		}
	}

	client := &http.Client{Timeout: 3 * time.Minute, Transport: &http.Transport{MaxIdleConnsPerHost: clients, DisableCompression: true}}
	var failed atomic.Int32
	var wg sync.WaitGroup
	start := time.Now()
	begin := make(chan struct{})
	for i, plan := range plans {
		wg.Go(func() {
			<-begin
			for _, lc := range plan {
				if err := fetchThroughGateway(client, s, lc); err != nil {
					failed.Add(1)
					t.Errorf("client %d: %s: %v", i, lc.url, err)
				}
			}
		})
	}
	close(begin)
	wg.Wait()
	elapsed := time.Since(start)
	rss := vmHWM(t, s.cmd.Process.Pid)

	log := s.stderr()
	ftpNew := strings.Count(log, "* connecting to "+addr(t, "FTP")+"\n")
	ftpReused := strings.Count(log, "* reusing the connection to "+addr(t, "FTP")+" ")
	newsNew := strings.Count(log, "* connecting to "+addr(t, "NNTP")+"\n")
	newsReused := strings.Count(log, "* reusing the connection to "+addr(t, "NNTP")+"\n")
	t.Logf("%d clients, %d fetches through the gateway in %v; FTP: %d fetches on %d connections (%d reused); NNTP: %d fetches on %d connections (%d reused); the gateway's peak RSS %.1f MiB",
		clients, clients*3, elapsed.Round(time.Millisecond), ftpFetches, ftpNew, ftpReused, newsFetches, newsNew, newsReused, float64(rss)/(1<<20))
	if failed.Load() > 0 {
		return
	}
	if ftpReused == 0 || ftpNew >= ftpFetches {
		t.Errorf("FTP: %d fetches on %d connections, %d reused: the pool did not reuse them", ftpFetches, ftpNew, ftpReused)
	}
	if newsReused == 0 || newsNew >= newsFetches {
		t.Errorf("NNTP: %d fetches on %d connections, %d reused: the pool did not reuse them", newsFetches, newsNew, newsReused)
	}
	// Two 64 MiB transfers among 600: a gateway that held a body whole
	// would pass 128 MiB.
	if rss <= 0 || rss > 100<<20 {
		t.Errorf("the gateway's peak RSS is %.1f MiB, want under 100 MiB", float64(rss)/(1<<20))
	}
}

// fetchThroughGateway fetches lc's URL from the portal as a client that
// wants the server's bytes, and checks them, streamed into the hash.
func fetchThroughGateway(c *http.Client, s *served, lc loadCase) error {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, "GET", s.url+lc.url, nil)
	if err != nil {
		return err
	}
	resp, err := c.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
		return fmt.Errorf("status %d: %s", resp.StatusCode, b)
	}
	if lc.sum != "" {
		hash := sha256.New()
		n, err := io.Copy(hash, resp.Body)
		if err != nil {
			return err
		}
		if got := hex.EncodeToString(hash.Sum(nil)); got != lc.sum {
			return fmt.Errorf("%d bytes with sha256 %s, want %s", n, got, lc.sum)
		}
		return nil
	}
	b, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return err
	}
	return lc.check(b)
}

// vmHWM is a process's peak resident set size, in bytes.
func vmHWM(t testing.TB, pid int) int64 {
	t.Helper()
	status, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range bytes.Split(status, []byte("\n")) {
		if v, ok := bytes.CutPrefix(line, []byte("VmHWM:")); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(string(v)), "kB")), 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			return kb << 10
		}
	}
	t.Fatalf("no VmHWM in /proc/%d/status", pid)
	return 0
}
