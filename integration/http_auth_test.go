//go:build integration

package integration

import (
	"encoding/base64"
	"errors"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/urlfetch/urlfetch/uri"
)

// Issue 21, point 4: HTTP credentials, by the command, against nginx's
// Basic authentication (RFC 7617) of /auth/ (HTTP_AUTH_USER,
// HTTP_AUTH_PASSWORD in servers.env): -u, netrc, a user and password in
// the URL, -H, and no credentials on a redirect to another host. The
// test password has a ":" and an "@": a URL must encode them, Basic
// carries them as they are.

// authCreds returns the test user and password of nginx's /auth/.
func authCreds(t testing.TB) (user, password string) {
	return env(t, "HTTP_AUTH_USER"), env(t, "HTTP_AUTH_PASSWORD")
}

// authFile is the body of /auth/secret.txt, from the server's tree.
func authFile(t testing.TB) string {
	b, err := os.ReadFile(filepath.Join(env(t, "HTTP_ROOT"), "auth", "secret.txt"))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// otherHost is the HTTP server's address under another name: localhost
// for 127.0.0.1, the same nginx, which a client must take for another
// host.
func otherHost(t testing.TB, hostport string) string {
	host, port, err := net.SplitHostPort(hostport)
	if err != nil || host != "127.0.0.1" {
		t.Fatalf("the HTTP server is at %s, not on 127.0.0.1: this test reaches it as localhost too", hostport)
	}
	return net.JoinHostPort("localhost", port)
}

// writeNetrc writes a netrc file and returns its path.
func writeNetrc(t *testing.T, content string) string {
	p := filepath.Join(t.TempDir(), "netrc")
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// checkNoPassword fails when s shows password, as itself or in the
// base64 of Basic credentials.
func checkNoPassword(t *testing.T, where, s, user, password string) {
	t.Helper()
	for _, form := range []string{password, base64.StdEncoding.EncodeToString([]byte(user + ":" + password)), uri.Escape(password, uri.ComponentPassword)} {
		if strings.Contains(s, form) {
			t.Errorf("%s shows the password as %q:\n%s", where, form, s)
		}
	}
}

func TestHTTPAuthWithoutCredentials(t *testing.T) {
	r := runFetch(t, t.TempDir(), httpBase(t)+"/auth/secret.txt")
	if r.code != exitCodeAuth || r.stdout != "" {
		t.Fatalf("no credentials: exit %d, stdout %q, stderr %q; want exit 5 and nothing on stdout", r.code, r.stdout, r.stderr)
	}
	// The message says what came back and how to give credentials.
	for _, want := range []string{"401", "-u USER", "netrc"} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("no credentials: stderr %q does not say %q", r.stderr, want)
		}
	}
	if n := strings.Count(strings.TrimSpace(r.stderr), "\n"); n != 0 {
		t.Errorf("no credentials: %d lines on stderr, want one: %q", n+1, r.stderr)
	}
}

func TestHTTPAuthUserOption(t *testing.T) {
	user, password := authCreds(t)
	want := authFile(t)
	for _, args := range [][]string{
		{"-u", user + ":" + password},
		{"-u" + user + ":" + password}, // attached, as getopt takes it
		{"--user=" + user + ":" + password},
	} {
		for _, base := range []string{httpBase(t), "https://" + addr(t, "HTTPS")} {
			r := runFetch(t, t.TempDir(), append(args, base+"/auth/secret.txt")...)
			if r.code != 0 || r.stdout != want {
				t.Errorf("fetch -u %s/auth/secret.txt: exit %d, stdout %q, stderr %q; want %q", base, r.code, r.stdout, r.stderr, want)
			}
			if r.stderr != "" {
				t.Errorf("fetch -u %s/auth/secret.txt: stderr %q, want nothing", base, r.stderr)
			}
			checkNoPassword(t, "stderr", r.stderr, user, password)
		}
	}
}

func TestHTTPAuthWrongPassword(t *testing.T) {
	user, _ := authCreds(t)
	r := runFetch(t, t.TempDir(), "-u", user+":not-the-password", httpBase(t)+"/auth/secret.txt")
	if r.code != exitCodeAuth || r.stdout != "" {
		t.Fatalf("wrong password: exit %d, stdout %q, stderr %q; want exit 5", r.code, r.stdout, r.stderr)
	}
	if !strings.Contains(r.stderr, "401") || !strings.Contains(r.stderr, user) {
		t.Errorf("wrong password: stderr %q, want the 401 and the user refused", r.stderr)
	}
	checkNoPassword(t, "stderr", r.stderr, user, "not-the-password")
}

func TestHTTPAuthNetrc(t *testing.T) {
	user, password := authCreds(t)
	want := authFile(t)
	host, _, _ := net.SplitHostPort(addr(t, "HTTP"))
	// A quoted password: netrc takes the ":" and "@" as they are.
	netrc := writeNetrc(t, "machine "+host+" login "+user+` password "`+password+`"`+"\n")
	for _, base := range []string{httpBase(t), "https://" + addr(t, "HTTPS")} {
		r := runFetch(t, t.TempDir(), "--netrc-file", netrc, "-v", base+"/auth/secret.txt")
		if r.code != 0 || r.stdout != want {
			t.Errorf("netrc for %s: exit %d, stdout %q, stderr %q", base, r.code, r.stdout, r.stderr)
		}
		checkNoPassword(t, "the trace", r.stderr, user, password)
	}
	// The default entry (the anonymous FTP login, usually) is not used
	// for http: no credentials go, and the server says 401.
	netrc = writeNetrc(t, "default login "+user+` password "`+password+`"`+"\n")
	r := runFetch(t, t.TempDir(), "--netrc-file", netrc, httpBase(t)+"/auth/secret.txt")
	if r.code != exitCodeAuth {
		t.Errorf("netrc's default entry: exit %d, stderr %q; want 5: the default entry is not for http", r.code, r.stderr)
	}
	// A user in the URL finds its password in netrc.
	netrc = writeNetrc(t, "machine "+host+" login "+user+` password "`+password+`"`+"\n")
	r = runFetch(t, t.TempDir(), "--netrc-file", netrc, "http://"+user+"@"+addr(t, "HTTP")+"/auth/secret.txt")
	if r.code != 0 || r.stdout != want {
		t.Errorf("URL user with its password in netrc: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
}

// A user and password in an http URL work, with one line of warning
// per such URL: RFC 1738 section 3.3 gives http URLs none.
func TestHTTPAuthInURL(t *testing.T) {
	user, password := authCreds(t)
	want := authFile(t)
	u := "http://" + uri.Escape(user, uri.ComponentUser) + ":" + uri.Escape(password, uri.ComponentPassword) + "@" + addr(t, "HTTP") + "/auth/secret.txt"
	r := runFetch(t, t.TempDir(), "-v", u)
	if r.code != 0 || r.stdout != want {
		t.Fatalf("user and password in the URL: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	warnings := regexp.MustCompile(`(?m)^fetch: warning: .*RFC 1738 section 3\.3.*$`).FindAllString(r.stderr, -1)
	if len(warnings) != 1 || !strings.Contains(warnings[0], user+":***@") {
		t.Errorf("warnings %q in stderr %q; want one, naming the URL with its password masked", warnings, r.stderr)
	}
	if !strings.Contains(r.stderr, "> Authorization: Basic ***") {
		t.Errorf("the trace does not show the masked Authorization:\n%s", r.stderr)
	}
	checkNoPassword(t, "stderr", r.stderr, user, password)

	// Two such URLs, two warnings; a URL without a user, none.
	r = runFetch(t, t.TempDir(), u, u, httpBase(t)+"/hello.txt")
	if n := strings.Count(r.stderr, "fetch: warning:"); r.code != 0 || n != 2 {
		t.Errorf("two URLs with a password and one without: exit %d, %d warnings, want 2: %q", r.code, n, r.stderr)
	}

	// A wrong password in the URL: 401, exit 5, the password masked.
	bad := "http://" + user + ":wrong-pw-1738@" + addr(t, "HTTP") + "/auth/secret.txt"
	r = runFetch(t, t.TempDir(), "-v", bad)
	if r.code != exitCodeAuth || strings.Contains(r.stderr, "wrong-pw-1738") {
		t.Errorf("wrong password in the URL: exit %d, stderr %q; want exit 5, the password masked", r.code, r.stderr)
	}
}

// The password of -u never shows: not in the trace (the Authorization
// header is masked), not in an error.
func TestHTTPAuthPasswordNeverShown(t *testing.T) {
	user, password := authCreds(t)
	for _, tc := range []struct {
		args []string
		code int
	}{
		{[]string{"-v", "-u", user + ":" + password, httpBase(t) + "/auth/secret.txt"}, 0},
		{[]string{"-v", "-u", user + ":" + password, "https://" + addr(t, "HTTPS") + "/auth/secret.txt"}, 0}, // HTTP/2: lower-case field names
		{[]string{"-v", "-u", user + ":" + password, httpBase(t) + "/status/401"}, exitCodeAuth},
		{[]string{"-v", "-u", user + ":" + password, httpBase(t) + "/no-such-file"}, exitCodeNotFound},
		{[]string{"-v", "-u", user + ":" + password, "--json", httpBase(t) + "/auth/secret.txt"}, 0},
	} {
		r := runFetch(t, t.TempDir(), tc.args...)
		if r.code != tc.code {
			t.Errorf("fetch %q: exit %d, want %d: %s", tc.args[len(tc.args)-1], r.code, tc.code, r.stderr)
		}
		if !regexp.MustCompile(`(?mi)^> authorization: Basic \*\*\*$`).MatchString(r.stderr) {
			t.Errorf("fetch -v %q: the trace shows no masked Authorization:\n%s", tc.args[len(tc.args)-1], r.stderr)
		}
		checkNoPassword(t, "stderr", r.stderr, user, password)
		checkNoPassword(t, "stdout", r.stdout, user, password)
	}
}

// -H adds header fields that nginx sees (/headers answers with them);
// -H 'Host: ...' replaces the Host.
func TestHTTPHeaderOption(t *testing.T) {
	r := runFetch(t, t.TempDir(), "-H", "X-Test: one two", "-HCookie: a=b", httpBase(t)+"/headers")
	if r.code != 0 || !strings.Contains(r.stdout, "X-Test: one two\n") || !strings.Contains(r.stdout, "Cookie: a=b\n") {
		t.Errorf("-H: exit %d, the server saw %q (stderr %q)", r.code, r.stdout, r.stderr)
	}
	r = runFetch(t, t.TempDir(), "--header", "Host: other.example", httpBase(t)+"/headers")
	if r.code != 0 || !strings.Contains(r.stdout, "Host: other.example\n") {
		t.Errorf("-H Host: exit %d, the server saw %q (stderr %q)", r.code, r.stdout, r.stderr)
	}
	// Over HTTP/2 too.
	r = runFetch(t, t.TempDir(), "-H", "X-Test: over h2", "https://"+addr(t, "HTTPS")+"/headers")
	if r.code != 0 || !strings.Contains(r.stdout, "X-Test: over h2\n") {
		t.Errorf("-H over https: exit %d, the server saw %q (stderr %q)", r.code, r.stdout, r.stderr)
	}
	// A line break in a value is refused before anything is sent.
	r = runFetch(t, t.TempDir(), "-H", "X-Test: a\r\nX-Evil: b", httpBase(t)+"/headers")
	if r.code != exitCodeUsage || r.stdout != "" || !strings.Contains(r.stderr, "X-Test") {
		t.Errorf("-H with CR LF: exit %d, stdout %q, stderr %q; want exit 2 naming the header", r.code, r.stdout, r.stderr)
	}
}

// Credentials never follow a redirect to another host: from 127.0.0.1
// to localhost (the same nginx, another host name), /auth/ answers 401,
// and /headers shows no Authorization, and no Cookie of -H; to the same
// host they go along. Every way to give credentials is tried: -u, netrc,
// the URL, and -H Authorization.
func TestHTTPAuthNotAcrossHosts(t *testing.T) {
	user, password := authCreds(t)
	want := authFile(t)
	same := addr(t, "HTTP")
	other := otherHost(t, same)
	host, _, _ := net.SplitHostPort(same)
	basic := "Basic " + base64.StdEncoding.EncodeToString([]byte(user+":"+password))
	netrc := writeNetrc(t, "machine "+host+" login "+user+` password "`+password+`"`+"\n")
	userinfo := uri.Escape(user, uri.ComponentUser) + ":" + uri.Escape(password, uri.ComponentPassword) + "@"
	redirect := func(target string) string {
		return "/redirect/to?to=" + uri.Escape(target, uri.ComponentHTTPSearch)
	}
	ways := []struct {
		name string
		args func(path string) []string
	}{
		{"-u", func(path string) []string { return []string{"-u", user + ":" + password, "http://" + same + path} }},
		{"netrc", func(path string) []string { return []string{"--netrc-file", netrc, "http://" + same + path} }},
		{"URL", func(path string) []string { return []string{"http://" + userinfo + same + path} }},
		{"-H Authorization", func(path string) []string { return []string{"-H", "Authorization: " + basic, "http://" + same + path} }},
	}
	for _, w := range ways {
		t.Run(w.name, func(t *testing.T) {
			// To the same host: the credentials go along.
			r := runFetch(t, t.TempDir(), w.args(redirect("http://"+same+"/auth/secret.txt"))...)
			if r.code != 0 || r.stdout != want {
				t.Errorf("redirect to the same host: exit %d, stdout %q, stderr %q; want the page", r.code, r.stdout, r.stderr)
			}
			// To another host: none; the server asks for them.
			r = runFetch(t, t.TempDir(), w.args(redirect("http://"+other+"/auth/secret.txt"))...)
			if r.code != exitCodeAuth || r.stdout != "" {
				t.Errorf("redirect to another host: exit %d, stdout %q, stderr %q; want 401 (exit 5): no credentials sent", r.code, r.stdout, r.stderr)
			}
			checkNoPassword(t, "stderr", r.stderr, user, password)
			// What the other host saw, and what the same host sees.
			args := append([]string{"-H", "Cookie: session=1738", "-H", "X-Test: kept"}, w.args(redirect("http://"+other+"/headers"))...)
			r = runFetch(t, t.TempDir(), args...)
			if r.code != 0 || !strings.Contains(r.stdout, "Authorization: \n") || !strings.Contains(r.stdout, "Cookie: \n") ||
				!strings.Contains(r.stdout, "X-Test: kept\n") || !strings.Contains(r.stdout, "Host: "+other+"\n") {
				t.Errorf("redirect to another host: exit %d; it saw %q (stderr %q); want no Authorization, no Cookie, X-Test", r.code, r.stdout, r.stderr)
			}
			args = append([]string{"-H", "Cookie: session=1738"}, w.args(redirect("http://"+same+"/headers"))...)
			r = runFetch(t, t.TempDir(), args...)
			if r.code != 0 || !strings.Contains(r.stdout, "Authorization: "+basic+"\n") || !strings.Contains(r.stdout, "Cookie: session=1738\n") {
				t.Errorf("redirect to the same host: exit %d; it saw %q (stderr %q); want the Authorization and the Cookie", r.code, r.stdout, r.stderr)
			}
		})
	}
}

// -u USER without a password asks on the terminal, without echo, once
// for all the URLs of the run.
func TestHTTPAuthPromptOnce(t *testing.T) {
	user, password := authCreds(t)
	want := authFile(t)
	dir := t.TempDir()
	ptmx, tty, _, cmd := ptySession(t, "-u", user, "-O", "--dir", dir, httpBase(t)+"/auth/secret.txt", httpBase(t)+"/auth/")
	tr := &transcript{t: t, r: ptmx}
	prompt := tr.expect(": ")
	if !strings.Contains(prompt, "Password for "+user) {
		t.Errorf("the prompt %q does not ask for the password of %s", prompt, user)
	}
	// Type once the terminal no longer echoes, as a person does after
	// the prompt: what is typed ahead of it, the terminal echoes itself.
	deadline := time.Now().Add(10 * time.Second)
	for termios(t, tty).Lflag&unix.ECHO != 0 {
		if time.Now().After(deadline) {
			t.Fatalf("the terminal still echoes 10s after the prompt %q", prompt)
		}
		time.Sleep(10 * time.Millisecond)
	}
	ptmx.WriteString(password + "\r")
	code := waitExit(t, cmd, 30*time.Second)
	tty.Close() // the command's end, then, is the end of the terminal's output
	rest, _ := tr.rest()
	if strings.Contains(string(tr.all), password) {
		t.Errorf("the terminal shows the password: %q", tr.all)
	}
	if n := strings.Count(string(tr.all), "Password for"); n != 1 {
		t.Errorf("asked %d times for two URLs, want once: %q", n, tr.all)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "secret.txt")); err != nil || string(b) != want {
		t.Errorf("the page after the prompt: %q, %v (the terminal: %q)", b, err, rest)
	}
	// /auth/ has no index: with the password nginx answers 403, not 401.
	if code != exitCodeAuth || !strings.Contains(rest, "403") || strings.Contains(rest, "401") {
		t.Errorf("the second URL: exit %d, the terminal shows %q; want 403 Forbidden: the password went there too", code, rest)
	}
}

// -u USER without a password and without a terminal: exit 5 and how to
// give the password.
func TestHTTPAuthNoTerminal(t *testing.T) {
	user, _ := authCreds(t)
	cmd := exec.Command(fetchBin, "-u", user, httpBase(t)+"/auth/secret.txt")
	cmd.Env = append(os.Environ(), "NETRC=/nonexistent")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true} // no controlling terminal
	var out, errb strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != exitCodeAuth {
		t.Fatalf("-u without a password, no terminal: %v, stderr %q; want exit 5", err, errb.String())
	}
	for _, want := range []string{user + ":PASSWORD", "netrc"} {
		if !strings.Contains(errb.String(), want) {
			t.Errorf("stderr %q does not say %q", errb.String(), want)
		}
	}
	if out.String() != "" {
		t.Errorf("stdout %q, want nothing", out.String())
	}
}

// Through a gateway (squid) the credentials are the origin's: they go in
// the request squid forwards, and nginx takes them.
func TestHTTPAuthThroughGateway(t *testing.T) {
	user, password := authCreds(t)
	gw := "http=" + squidURL(t)
	r := runFetch(t, t.TempDir(), "--gateway", gw, "-u", user+":"+password, httpBase(t)+"/auth/secret.txt")
	if r.code != 0 || r.stdout != authFile(t) {
		t.Errorf("-u through squid: exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
	}
	r = runFetch(t, t.TempDir(), "--gateway", gw, httpBase(t)+"/auth/secret.txt")
	if r.code != exitCodeAuth {
		t.Errorf("no credentials through squid: exit %d, stderr %q; want 5", r.code, r.stderr)
	}
}
