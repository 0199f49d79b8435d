package main

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/urlfetch/urlfetch/internal/misbehaving"
	"github.com/urlfetch/urlfetch/internal/misbehaving/want"
	"github.com/urlfetch/urlfetch/uri"
)

// Limits of the fetch command against a misbehaving server.
const (
	// misbehavingIdle is the --idle-timeout of every run.
	misbehavingIdle = 500 * time.Millisecond
	// stallMargin is how much longer than the idle timeout a stalled
	// run may take: starting the binary, two runs at once on two cores.
	stallMargin = 4 * time.Second
	// boundTime bounds a run that is not a stall.
	boundTime = 20 * time.Second
	// maxPeakRSS bounds the binary's peak resident set: a fetch that
	// keeps an endless line, listing or reply grows far past it.
	maxPeakRSS = 96 << 20
)

// Issue 12: against a server that stalls, sends an endless line or
// listing, a huge reply, garbage, a wrong length or closes mid-transfer,
// the fetch command exits with the code of the error's kind, prints one
// error line that names the URL, leaves no file behind (nor a temporary
// one) with -o or with -O --dir, and its peak memory stays bounded.
func TestMisbehavingServers(t *testing.T) {
	for _, c := range misbehaving.Cases() {
		if c.NA != "" {
			continue // not applicable: internal/misbehaving's TestCases checks why
		}
		t.Run(c.Name(), func(t *testing.T) {
			if c.Gap != "" {
				t.Skip(c.Gap)
			}
			t.Parallel()
			srv, err := misbehaving.Start(c)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { srv.Close() })
			u, err := uri.Parse(srv.URL())
			if err != nil {
				t.Fatal(err)
			}
			kind := want.Kind(c)
			wantCode := exitCode(kind)
			for _, mode := range []string{"-o", "-O --dir"} {
				dir := t.TempDir()
				out := filepath.Join(dir, "out")
				if err := os.Mkdir(out, 0o755); err != nil {
					t.Fatal(err)
				}
				args := []string{"--idle-timeout", misbehavingIdle.String(), "--connect-timeout", "2s", "--timeout", "60s", "--netrc-file", "-"}
				if mode == "-o" {
					args = append(args, "-o", filepath.Join(out, "file"))
				} else {
					args = append(args, "-O", "--dir", out)
				}
				args = append(append(args, misbehavingArgs(srv)...), srv.URL())
				r := runMisbehaving(t, dir, args)
				t.Logf("%s %s: exit %d after %v, peak RSS %.1f MiB: %s", c.Name(), mode, r.code, r.elapsed.Round(time.Millisecond), float64(r.peakRSS)/(1<<20), strings.TrimSpace(r.stderr))

				if r.code != wantCode {
					t.Errorf("fetch %s %s: exit code %d, want %d (%v); stderr %q", mode, srv.URL(), r.code, wantCode, kind, r.stderr)
				}
				t.Run(mode+" one error line", func(t *testing.T) {
					lines := strings.Split(strings.TrimRight(r.stderr, "\n"), "\n")
					if len(lines) != 1 || !strings.HasPrefix(lines[0], "fetch: ") || !strings.Contains(lines[0], u.Redacted()) {
						t.Errorf("fetch %s %s: stderr %q, want one error line naming %s", mode, srv.URL(), r.stderr, u.Redacted())
					}
					if len(lines[0]) > 2048 {
						t.Errorf("fetch %s %s: an error line of %d bytes", mode, srv.URL(), len(lines[0]))
					}
				})
				if left, _ := os.ReadDir(out); len(left) != 0 {
					var names []string
					for _, e := range left {
						names = append(names, e.Name())
					}
					t.Errorf("fetch %s %s left %q behind", mode, srv.URL(), names)
				}
				switch {
				case c.Stall() && (r.elapsed < misbehavingIdle || r.elapsed > misbehavingIdle+stallMargin):
					t.Errorf("fetch %s %s: a stall ended after %v, want the idle timeout %v (+%v at most)", mode, srv.URL(), r.elapsed, misbehavingIdle, stallMargin)
				case !c.Stall() && r.elapsed > boundTime:
					t.Errorf("fetch %s %s: took %v, want at most %v", mode, srv.URL(), r.elapsed, boundTime)
				}
				if r.peakRSS <= 0 || r.peakRSS > maxPeakRSS {
					t.Errorf("fetch %s %s: peak RSS %d bytes, want more than 0 and at most %d MiB", mode, srv.URL(), r.peakRSS, maxPeakRSS>>20)
				}
			}
			if err := srv.Err(); err != nil {
				t.Errorf("the server did not reach its misbehaviour: %v", err)
			}
		})
	}
}

// misbehavingArgs are the flags the URL of srv needs: the SMTP server of
// mailto: URLs, the telnet login (the URL carries a user and password),
// the dialect the WAIS server speaks.
func misbehavingArgs(srv *misbehaving.Server) []string {
	switch srv.Case.Protocol {
	case misbehaving.SMTP:
		return []string{"--smtp-server", srv.Addr()}
	case misbehaving.Telnet:
		return []string{"--login"}
	case misbehaving.WAIS:
		return []string{"--wais-dialect", "wais"}
	case misbehaving.Z3950:
		return []string{"--wais-dialect", "z3950"}
	}
	return nil
}

// misbehavingRun is how one run of the binary ended.
type misbehavingRun struct {
	code    int
	stderr  string
	elapsed time.Duration
	peakRSS int64 // bytes, from URLFETCH_PEAK_RSS_FILE
}

// runMisbehaving runs the binary in dir with args and an empty standard
// input, and reads the peak RSS it writes at exit.
func runMisbehaving(t *testing.T, dir string, args []string) misbehavingRun {
	t.Helper()
	peak := filepath.Join(t.TempDir(), "peak")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, fetchBin, args...)
	cmd.Dir = dir
	cmd.Stdin = strings.NewReader("")
	cmd.Env = append(os.Environ(), "NETRC=/nonexistent-netrc-for-tests", peakRSSEnv+"="+peak)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err := cmd.Run()
	r := misbehavingRun{stderr: stderr.String(), elapsed: time.Since(start)}
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		r.code = ee.ExitCode()
	case err != nil:
		t.Fatalf("running fetch %v: %v", args, err)
	}
	if b, err := os.ReadFile(peak); err == nil {
		kb, _, _ := strings.Cut(strings.TrimSpace(string(b)), " ")
		if n, err := strconv.ParseInt(kb, 10, 64); err == nil {
			r.peakRSS = n << 10
		}
	}
	return r
}
