//go:build integration

package integration

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/urlfetch/urlfetch/fetch"
	"github.com/urlfetch/urlfetch/fetch/all"
	"github.com/urlfetch/urlfetch/fetch/nntp"
)

// loadCase is one URL of the load test and the sha256 its body must have.
type loadCase struct {
	url, sum string
	size     int  // with sum: the document's size
	listing  bool // a listing: its body must hold want
	want     string
}

// loadCases are 200 URLs across every real server of the harness that
// serves documents: nginx, vsftpd (anonymous and the local account),
// pygopherd, gophernicus, INN, zebra, and the file system. Each one's
// expected bytes come from the harness's own files, or for articles and
// searches from what they must contain.
func loadCases(t *testing.T) []loadCase {
	t.Helper()
	fileSum := func(path string) (string, int) {
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		sum, n, err := sha256Of(f)
		if err != nil {
			t.Fatal(err)
		}
		return sum, int(n)
	}
	httpRoot, anon := env(t, "HTTP_ROOT"), env(t, "FTP_ANON_ROOT")
	pyRoot, gnRoot := env(t, "GOPHER_PYGOPHERD_ROOT"), env(t, "GOPHER_GOPHERNICUS_ROOT")
	h, f := "http://"+addr(t, "HTTP"), ftpBase(t)
	py, gn := "gopher://"+addr(t, "GOPHER_PYGOPHERD"), "gopher://"+addr(t, "GOPHER_GOPHERNICUS")
	local := ftpLocal(t, env(t, "FTP_PASSWORD"))
	addr(t, "NNTP")
	zebra := zebraDB(t)

	var cs []loadCase
	add := func(url, path string) {
		sum, n := fileSum(path)
		cs = append(cs, loadCase{url: url, sum: sum, size: n})
	}
	// Four 64 MiB transfers at once among the rest: memory must stay flat.
	add(h+"/big.bin", filepath.Join(httpRoot, "big.bin"))
	add(f+"/big.bin", filepath.Join(anon, "big.bin"))
	add(py+"/9/big.bin", filepath.Join(pyRoot, "big.bin"))
	add(gn+"/9/big.bin", filepath.Join(gnRoot, "big.bin"))
	for i := 0; i < 60; i++ {
		add(fmt.Sprintf("%s/small1000/file-%04d.txt", f, i*7), filepath.Join(anon, fmt.Sprintf("small1000/file-%04d.txt", i*7)))
	}
	for i := 0; i < 30; i++ {
		add(h+"/binary.bin", filepath.Join(httpRoot, "binary.bin"))
		add(h+"/with%20space.txt", filepath.Join(httpRoot, "with space.txt"))
	}
	// The gopher servers answer slowly (gophernicus takes half a second
	// a request under inetd): fewer of them keep the test short.
	for i := 0; i < 10; i++ {
		add(py+"/9/binary.bin", filepath.Join(pyRoot, "binary.bin"))
		if i%2 == 0 {
			add(gn+"/9/binary.bin", filepath.Join(gnRoot, "binary.bin"))
		}
	}
	for i := 0; i < 22; i++ {
		add(fmt.Sprintf("%s/small100/file-%03d.txt", f, i*4), filepath.Join(anon, fmt.Sprintf("small100/file-%03d.txt", i*4)))
	}
	for i := 0; i < 10; i++ {
		add(local+"/welcome.txt", filepath.Join(env(t, "FTP_HOME"), "welcome.txt"))
		add("file://"+filepath.Join(httpRoot, "hello.txt"), filepath.Join(httpRoot, "hello.txt"))
	}
	// Articles and searches last: the command's test finds them in what
	// follows the documents.
	for i := 0; i < 10; i++ {
		cs = append(cs, loadCase{url: fmt.Sprintf("news:big-%03d@urlfetch.test", i+1), want: fmt.Sprintf("Message-ID: <big-%03d@urlfetch.test>", i+1)})
	}
	for len(cs) < 200 {
		cs = append(cs, loadCase{url: zebra + "?flamingo", listing: true, want: "flamingo"})
	}
	return cs
}

// check verifies one fetched body.
func (c loadCase) check(body []byte) error {
	if c.sum != "" {
		sum := sha256.Sum256(body)
		if got := hex.EncodeToString(sum[:]); got != c.sum {
			return fmt.Errorf("%d bytes with sha256 %s, want %s", len(body), got, c.sum)
		}
		return nil
	}
	if !strings.Contains(string(body), c.want) {
		return fmt.Errorf("%d bytes without %q", len(body), c.want)
	}
	return nil
}

// 200 fetches across every real server, 50 at once, through one Client:
// every body verified, the heap's peak bounded while four 64 MiB
// transfers run among the rest, and after Close no goroutine and no file
// descriptor (connection) left over.
func TestLoadLibrary(t *testing.T) {
	cases := loadCases(t)
	runtime.GC()
	baseG := runtime.NumGoroutine()
	baseFD := openFDs(t)

	c := all.NewClient()
	c.NetrcFile = "-"
	nd, ok := c.Driver("news").(*nntp.Driver)
	if !ok {
		t.Fatalf("news: driver %T", c.Driver("news"))
	}
	nd.Server = addr(t, "NNTP")
	c.ConnectTimeout = 10 * time.Second
	c.IdleTimeout = 30 * time.Second
	peak, stop := heapPeak()
	var wg sync.WaitGroup
	sem := make(chan struct{}, 50)
	var failed atomic.Int32
	start := time.Now()
	for _, lc := range cases {
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			if err := fetchAndCheck(c, lc); err != nil {
				failed.Add(1)
				t.Errorf("%s: %v", lc.url, err)
			}
		})
	}
	wg.Wait()
	stop()
	t.Logf("200 fetches, 50 at once: %v; peak heap in use %.1f MiB", time.Since(start), float64(peak.Load())/(1<<20))
	if peak.Load() > 64<<20 {
		t.Errorf("peak heap in use %.1f MiB, want under 64 MiB (four 64 MiB bodies must stream)", float64(peak.Load())/(1<<20))
	}
	if err := c.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	// Goroutines and connections end shortly after Close.
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) && (runtime.NumGoroutine() > baseG || openFDs(t) > baseFD) {
		time.Sleep(50 * time.Millisecond)
	}
	if g, fd := runtime.NumGoroutine(), openFDs(t); g > baseG || fd > baseFD {
		buf := make([]byte, 1<<20)
		t.Errorf("after Close: %d goroutines (before: %d), %d open files (before: %d)\n%s", g, baseG, fd, baseFD, buf[:runtime.Stack(buf, true)])
	}
}

func fetchAndCheck(c *fetch.Client, lc loadCase) error {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	resp, err := c.Fetch(ctx, lc.url)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if lc.listing != (resp.Kind == fetch.Listing) {
		return fmt.Errorf("kind %v", resp.Kind)
	}
	var body []byte
	if lc.sum != "" {
		// Streamed into the hash: the test holds no body whole.
		h := sha256.New()
		n, err := io.Copy(h, resp.Body)
		if err != nil {
			return err
		}
		if got := hex.EncodeToString(h.Sum(nil)); got != lc.sum {
			return fmt.Errorf("%d bytes with sha256 %s, want %s", n, got, lc.sum)
		}
	} else if body, err = io.ReadAll(io.LimitReader(resp.Body, 1<<20)); err != nil {
		return err
	} else if err := lc.check(body); err != nil {
		return err
	}
	return resp.Body.Close()
}

// heapPeak samples the heap in use every millisecond until stop.
func heapPeak() (*atomic.Uint64, func()) {
	var peak atomic.Uint64
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		var m runtime.MemStats
		for {
			runtime.ReadMemStats(&m)
			if m.HeapInuse > peak.Load() {
				peak.Store(m.HeapInuse)
			}
			select {
			case <-done:
				return
			case <-time.After(time.Millisecond):
			}
		}
	})
	return &peak, func() { close(done); wg.Wait() }
}

// openFDs counts the test process's open file descriptors.
func openFDs(t *testing.T) int {
	t.Helper()
	es, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	return len(es)
}

// The same 200 URLs through the command with -P 50: the exit code is 0,
// every document comes out on standard output whole and in the order of
// the URLs (each checked against its sha256 by slicing the stream with
// its size), then the articles and search listings, each holding what it
// must; and the process's peak RSS stays bounded.
func TestLoadCommand(t *testing.T) {
	cases := loadCases(t)
	dir := t.TempDir()
	args := []string{"-q", "-P", "50", "--netrc-file", "-", "--news-server", addr(t, "NNTP")}
	for _, lc := range cases {
		args = append(args, lc.url)
	}
	// Standard output to a file: 256 MiB of it is more than a test
	// should hold.
	outPath, peakPath := filepath.Join(dir, "stdout"), filepath.Join(dir, "peak")
	out, err := os.Create(outPath)
	if err != nil {
		t.Fatal(err)
	}
	var errb strings.Builder
	cmd := exec.Command(fetchBin, args...)
	cmd.Stdout, cmd.Stderr = out, &errb
	cmd.Env = append(os.Environ(), "URLFETCH_PEAK_RSS_FILE="+peakPath)
	start := time.Now()
	err = cmd.Run()
	out.Close()
	var kb int64
	if b, rerr := os.ReadFile(peakPath); rerr == nil {
		fmt.Sscanf(string(b), "%d kB", &kb)
	}
	t.Logf("200 URLs with -P 50 to standard output: %v, peak RSS %.1f MiB", time.Since(start), float64(kb)/1024)
	if err != nil {
		t.Fatalf("%v: %s", err, errb.String())
	}
	if kb == 0 || kb > 100<<10 {
		t.Errorf("peak RSS %d kB, want under 100 MiB", kb)
	}
	f, err := os.Open(outPath)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for _, lc := range cases {
		if lc.sum == "" {
			break // articles and searches come last (loadCases puts them there)
		}
		h := sha256.New()
		if n, err := io.CopyN(h, f, int64(lc.size)); err != nil {
			t.Fatalf("%s: standard output ends %d bytes early", lc.url, int64(lc.size)-n)
		}
		if got := hex.EncodeToString(h.Sum(nil)); got != lc.sum {
			t.Fatalf("%s: standard output out of order or corrupt: sha256 %s, want %s", lc.url, got, lc.sum)
		}
	}
	rest, err := io.ReadAll(io.LimitReader(f, 16<<20))
	if err != nil {
		t.Fatal(err)
	}
	for _, lc := range cases {
		if lc.sum == "" && !strings.Contains(string(rest), lc.want) {
			t.Errorf("%s: %q is not in the rest of standard output", lc.url, lc.want)
		}
	}
}
