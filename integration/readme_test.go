//go:build integration

package integration

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Issue 21, point 7: every example of README.md is copy-pasteable, and
// runs. Each command of its sh code blocks, and each command of its
// table of schemes, is run as a user pastes it — by bash, in a directory
// of its own — with the fetch this tree builds first on PATH and the
// README's example hosts (example.org, ftp.example.org, ...) sent to the
// test bed's servers by --connect-to, curl's option, so that the
// command line itself is the README's to the byte. An example passes when
// the shell and fetch take it (no syntax or usage error, no invalid URL,
// no unsupported scheme, no refusal) and the server answers: the
// README's paths and accounts are illustrations, so "not found" (4) and
// "not authorized" (5) from the real server count as answers.

// readmeHosts are the README's example hosts and the servers that play
// them: host:port as the URLs name them -> the test bed's address key.
var readmeHosts = [][2]string{
	{"example.org:80", "HTTP"},
	{"example.org:443", "HTTPS"},
	{"intranet.example:443", "HTTPS"},
	{"ftp.example.org:21", "FTP"},
	{"ftp.example.org:990", "FTPS"},
	{"gopher.example.org:70", "GOPHER_PYGOPHERD"},
	{"news.example.org:119", "NNTP"},
	{"news.example.org:563", "NNTPS"},
	{"wais.example.org:210", "ZEBRA"},
	{"mail.example.org:25", "SMTP"},
	{"mail.example.org:993", "IMAPS"},
	{"bbs.example.org:23", "TELNET"},
	{"proxy.example.org:3128", "SQUID"},
}

// readmeAnswers are the exit codes of a command the README's example
// reached a server with.
var readmeAnswers = map[int]bool{0: true, 4: true, 5: true}

// readmeSkips are README commands this test does not run, and why.
var readmeSkips = map[string]string{
	"make test": "it is the test suite itself",
	"go get github.com/urlfetch/urlfetch@latest": "it needs the published module; the Go example is built from this tree instead",
}

// A readmeCommand is one command of the README, and the server it
// needs running, if the README's block starts one in the background
// before it (fetch serve &).
type readmeCommand struct {
	line   string
	server string
}

// readmeCommands returns the README's commands: each line of its sh code
// blocks (but comments, and a line that starts a server in the
// background, which goes with the lines after it), and each `fetch ...`
// or `echo ... | fetch ...` code span of its table, as GitHub shows it (a
// table's \| is |).
func readmeCommands(t *testing.T) []readmeCommand {
	t.Helper()
	f, err := os.Open("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	span := regexp.MustCompile("`([^`]+)`")
	var cmds []readmeCommand
	inSh, server := false, ""
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		switch {
		case strings.HasPrefix(line, "```"):
			inSh = !inSh && strings.TrimPrefix(line, "```") == "sh"
			server = ""
		case inSh && strings.HasSuffix(line, "&"):
			server = line
		case inSh && line != "" && !strings.HasPrefix(line, "#"):
			cmds = append(cmds, readmeCommand{line, server})
		case !inSh && strings.HasPrefix(line, "|"):
			for _, m := range span.FindAllStringSubmatch(line, -1) {
				c := strings.ReplaceAll(m[1], `\|`, "|")
				if strings.HasPrefix(c, "fetch ") || strings.HasPrefix(c, "echo ") {
					cmds = append(cmds, readmeCommand{line: c})
				}
			}
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return cmds
}

func TestREADMEExamples(t *testing.T) {
	cmds := readmeCommands(t)
	if len(cmds) < 40 {
		t.Fatalf("found %d commands in README.md; the parser has lost them", len(cmds))
	}
	bin := t.TempDir()
	// The fetch a user gets from make install, first on PATH; the
	// example hosts go to the test bed, whose certificates are the
	// test CA's for localhost: -k, as the README says for a test
	// server's certificate.
	var wrapper strings.Builder
	fmt.Fprintf(&wrapper, "#!/bin/sh\nexec %s -k", fetchBin)
	for _, h := range readmeHosts {
		fmt.Fprintf(&wrapper, " --connect-to %s:%s", h[0], addr(t, h[1]))
	}
	wrapper.WriteString(" \"$@\"\n")
	if err := os.WriteFile(filepath.Join(bin, "fetch"), []byte(wrapper.String()), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, rc := range cmds {
		cmd := rc.line
		if why, ok := readmeSkips[cmd]; ok {
			t.Logf("not run: %s (%s)", cmd, why)
			continue
		}
		t.Run(cmd, func(t *testing.T) {
			dir := readmeFixtures(t)
			code, out := runShell(t, dir, bin, withServer(rc))
			if strings.HasPrefix(cmd, "make install") {
				// fetch, its page and completions under PREFIX, and
				// the fetch there runs.
				for _, f := range []string{"bin/fetch", "share/man/man1/fetch.1", "share/bash-completion/completions/fetch"} {
					if _, err := os.Stat(filepath.Join(dir, "prefix", f)); err != nil {
						t.Errorf("%s: %v", cmd, err)
					}
				}
				v, err := exec.Command(filepath.Join(dir, "prefix", "bin", "fetch"), "-V").Output()
				if code != 0 || err != nil || !strings.HasPrefix(string(v), "fetch ") {
					t.Fatalf("%s: exit %d, fetch -V %q %v:\n%s", cmd, code, v, err, out)
				}
				return
			}
			// squid, the gateway, cannot resolve the README's hosts
			// offline: its 502 is its answer.
			gatewayAnswer := strings.Contains(out, "gateway http://proxy.example.org:3128: 502 Bad Gateway")
			if !readmeAnswers[code] && !gatewayAnswer || strings.Contains(out, "unknown option") || strings.Contains(out, "see fetch --help") {
				t.Errorf("%s: exit %d:\n%s", cmd, code, out)
			}
		})
	}
}

// readmeFixtures is a directory with the files the README's examples
// name: urls.txt, mail.txt, ca.pem, me.pem and me.key, saved.eml.
func readmeFixtures(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{
		"urls.txt":  "# the README's -i example\nhttp://example.org/hello.txt\nftp://ftp.example.org/readme.txt\n<URL:gopher://gopher.example.org/0/hello.txt>\n",
		"mail.txt":  "See <URL:ftp://ftp.example.org/readme.txt> and http://example.org/hello.txt.\n",
		"saved.eml": "Message-ID: <1234@example.org>\nContent-Type: multipart/related; boundary=b\n\n--b\nContent-Type: text/plain\nContent-ID: <logo@example.org>\n\nhello\n--b--\n",
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for name, key := range map[string]string{"ca.pem": "TLS_CA", "me.pem": "TLS_CLIENT_CERT", "me.key": "TLS_CLIENT_KEY"} {
		b, err := os.ReadFile(env(t, key))
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(dir, name), b, 0o600)
	}
	return dir
}

// withServer is the script that runs rc: its line, after starting its
// server (waiting for fetch serve's port to take connections) and
// stopping it after.
func withServer(rc readmeCommand) string {
	if rc.server == "" {
		return rc.line
	}
	return rc.server + "\nserver=$!\n" +
		"for i in $(seq 100); do (exec 3<>/dev/tcp/127.0.0.1/7070) 2>/dev/null && break; sleep 0.1; done\n" +
		rc.line + "\nstatus=$?\nkill $server\nwait $server 2>/dev/null\nexit $status\n"
}

// runShell runs cmd in bash in dir, with bin first on PATH, HOME in dir
// (~/.netrc-work and ~/Maildir are the user's files there) and
// PREFIX for make install there too, and returns its exit code and what
// it printed.
func runShell(t *testing.T, dir, bin, cmd string) (int, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	sh := exec.CommandContext(ctx, "bash", "-c", cmd)
	// Its own process group, all of which goes when it ends or times
	// out: nothing it starts (a server in the background) outlives it
	// or holds its output open.
	sh.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	sh.Cancel = func() error { return syscall.Kill(-sh.Process.Pid, syscall.SIGKILL) }
	sh.WaitDelay = 5 * time.Second
	defer func() {
		if sh.Process != nil {
			syscall.Kill(-sh.Process.Pid, syscall.SIGKILL)
		}
	}()
	sh.Dir = dir
	if strings.HasPrefix(cmd, "make ") {
		sh.Dir = ".."
	}
	sh.Env = append(os.Environ(),
		"PATH="+bin+":"+os.Getenv("PATH"),
		"HOME="+dir,
		"PREFIX="+filepath.Join(dir, "prefix"),
		"NETRC="+filepath.Join(dir, "no-netrc"),
		"NNTPSERVER=news.example.org",
		"MAIL="+env(t, "MAILDIR"),
	)
	out, err := sh.CombinedOutput()
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		return ee.ExitCode(), string(out)
	case err != nil:
		t.Fatalf("%s: %v", cmd, err)
	}
	return 0, string(out)
}

// The README's library example builds and runs, in a program of its own
// that depends on this module as another program would (with a replace
// directive to this tree), and lists a directory.
func TestREADMEGoExample(t *testing.T) {
	b, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	var code string
	for _, block := range strings.Split(string(b), "```go\n")[1:] {
		if body, _, _ := strings.Cut(block, "```"); strings.Contains(body, "all.NewClient()") {
			code = body
		}
	}
	if code == "" {
		t.Fatal("README.md has no Go example with all.NewClient()")
	}
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	program := "package main\n\nimport (\n\t\"context\"\n\t\"fmt\"\n\t\"log\"\n\n\t\"github.com/urlfetch/urlfetch/fetch/all\"\n)\n\n" +
		"func main() {\n\tctx := context.Background()\n" + code + "}\n"
	gomod := "module readme.example\n\ngo 1.26\n\nrequire github.com/urlfetch/urlfetch v0.0.0\n\nreplace github.com/urlfetch/urlfetch => " + root + "\n"
	os.WriteFile(filepath.Join(dir, "main.go"), []byte(program), 0o644)
	os.WriteFile(filepath.Join(dir, "go.mod"), []byte(gomod), 0o644)
	for _, args := range [][]string{{"mod", "tidy"}, {"run", "."}} {
		cmd := exec.Command("go", args...)
		cmd.Dir = dir
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("go %s: %v\n%s\n%s", strings.Join(args, " "), err, out, program)
		}
		if args[0] == "run" && !strings.Contains(string(out), "file:///usr/share/doc/") {
			t.Errorf("the example printed no entry of /usr/share/doc/:\n%s", out)
		}
	}
}
