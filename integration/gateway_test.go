//go:build integration

package integration

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/urlfetch/urlfetch/fetch"
	"github.com/urlfetch/urlfetch/fetch/fetchtest"
	fetchhttp "github.com/urlfetch/urlfetch/fetch/http"
)

// Gateways (RFC 1738 section 4): ftp: URLs sent whole to the harness's
// squid, which fetches them from the harness's vsftpd. The gopher:, wais:
// and news: cases are in fetch/http/gateway_test.go against a recording
// server: Debian's squid no longer speaks gopher.

// squidURL is the gateway URL of the harness's squid, checked to answer.
func squidURL(t testing.TB) string { return "http://" + addr(t, "SQUID") }

// squidClient is traceClient(t) sending ftp: URLs through squid.
func squidClient(t testing.TB) (*fetch.Client, *fetchtest.TraceLog) {
	c, trace := traceClient(t)
	c.Gateway = (&fetch.Gateways{ByScheme: map[string]string{"ftp": squidURL(t)}}).Gateway
	return c, trace
}

// curlThroughSquid is what squid serves for rawURL, as curl -x fetches it.
func curlThroughSquid(t testing.TB, rawURL string) []byte {
	t.Helper()
	out := filepath.Join(t.TempDir(), "curl.out")
	cmd := exec.Command("curl", "-sS", "--fail", "--max-time", "60", "-x", "http://"+env(t, "SQUID"), "-o", out, rawURL)
	if msg, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("curl -x squid %s: %v: %s", maskFTPPassword(t, rawURL), err, msg)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// maskFTPPassword hides the local account's password in a message.
func maskFTPPassword(t testing.TB, s string) string {
	return strings.ReplaceAll(s, env(t, "FTP_PASSWORD"), "***")
}

// squidLogged counts the lines of squid's access log that show a GET of
// rawURL.
func squidLogged(t testing.TB, rawURL string) int {
	log, err := os.ReadFile(env(t, "SQUID_ACCESS_LOG"))
	if err != nil {
		t.Fatal(err)
	}
	return bytes.Count(log, []byte(" GET "+rawURL+" "))
}

// waitSquidLogged waits until squid's access log shows more GETs of
// rawURL than before.
func waitSquidLogged(t testing.TB, rawURL string, before int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for squidLogged(t, rawURL) <= before {
		if time.Now().After(deadline) {
			t.Errorf("squid's access log does not show GET %s", maskFTPPassword(t, rawURL))
			return
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// asTypeA is text as an FTP TYPE A transfer carries it: CRLF line ends.
func asTypeA(b []byte) []byte { return bytes.ReplaceAll(b, []byte("\n"), []byte("\r\n")) }

// squidFooter is the one line of squid's pages that changes between two
// fetches: "Generated <date> by <host> (squid/5.7)".
var squidFooter = regexp.MustCompile(`Generated [^<]* by [^<]*`)

// Each ftp: URL through squid: the bytes are those curl -x gets from the
// same squid, and those the ftp driver gets directly as a TYPE A transfer
// would carry them. Squid fetches a file whose name says text (.txt) in
// TYPE A, with or without ";type=a", so its text comes with vsftpd's
// CRLF line ends where the ftp driver's TYPE I (or its TYPE A, which
// restores the local newline) gives LF; a binary file is identical.
func TestGatewayFTPThroughSquid(t *testing.T) {
	ftpAddr := addr(t, "FTP")
	base := ftpBase(t)
	local := ftpLocal(t, env(t, "FTP_PASSWORD"))
	// The local account is not chrooted: %2F and the full path of the
	// anonymous tree reach it (RFC 1738 section 3.2.2).
	segs := strings.Split(strings.TrimPrefix(env(t, "FTP_ANON_ROOT"), "/"), "/")
	for i := range segs {
		segs[i] = url.PathEscape(segs[i])
	}
	absolute := local + "/%2F" + strings.Join(segs, "/") + "/a/b/c/file.txt"
	tests := []struct {
		name, url string
		direct    string // the URL for the ftp driver, if it differs
		text      bool   // squid transfers it in TYPE A
		typ       string
	}{
		{"plain", base + "/readme.txt", "", true, "text/plain"},
		{";type=a", base + "/readme.txt;type=a", base + "/readme.txt", true, "text/plain"},
		{";type=i", base + "/binary.bin;type=i", "", false, "application/octet-stream"},
		{"%2F", base + "/%2Fa/b/c/file.txt", "", true, "text/plain"},
		{"user:password", local + "/welcome.txt", "", true, "text/plain"},
		{"user:password %2F", absolute, "", true, "text/plain"},
	}
	c, trace := squidClient(t)
	gateway := "http://" + env(t, "SQUID")
	direct := client(t)
	for _, tt := range tests {
		before := squidLogged(t, tt.url)
		trace.Reset()
		resp, body := get(t, c, tt.url)
		if resp.Kind != fetch.Document || resp.Type != tt.typ || resp.Meta.Get("Via") == "" || resp.URL.String() != tt.url {
			t.Errorf("%s: Kind %v Type %q Via %q URL %s; want a %s document from squid", tt.name, resp.Kind, resp.Type, resp.Meta.Get("Via"), resp.URL.Redacted(), tt.typ)
		}
		if resp.Length != -1 && resp.Length != int64(len(body)) {
			t.Errorf("%s: Length %d, body %d bytes", tt.name, resp.Length, len(body))
		}
		if want := curlThroughSquid(t, tt.url); !bytes.Equal(body, want) {
			t.Errorf("%s: through the gateway %q, curl -x squid %q", tt.name, body, want)
		}
		d := tt.direct
		if d == "" {
			d = tt.url
		}
		_, want := get(t, direct, d)
		if tt.text {
			want = asTypeA(want)
		}
		if !bytes.Equal(body, want) {
			t.Errorf("%s: through the gateway %q, directly (TYPE A's CRLF: %v) %q", tt.name, body, tt.text, want)
		}
		for _, line := range []string{
			"* via gateway " + gateway,
			"> GET " + strings.Replace(tt.url, ":"+env(t, "FTP_PASSWORD")+"@", ":***@", 1) + " HTTP/1.1",
			"> Host: " + ftpAddr,
		} {
			if !strings.Contains(trace.String(), line+"\n") {
				t.Errorf("%s: trace lacks %q:\n%s", tt.name, line, trace)
			}
		}
		if strings.Contains(trace.String(), env(t, "FTP_PASSWORD")) {
			t.Errorf("%s: the trace shows the password:\n%s", tt.name, trace)
		}
		// Squid's log names the URL, password and all: it was sent.
		waitSquidLogged(t, tt.url, before)
	}
	if sum := sha256.Sum256(curlThroughSquid(t, base+"/binary.bin;type=i")); hex.EncodeToString(sum[:]) != env(t, "BINARY_SHA256") {
		t.Errorf("binary.bin;type=i through squid: sha256 %x", sum)
	}
}

// ;type=d: squid answers with a directory listing of its own, in HTML; it
// is returned as squid serves it, a document.
func TestGatewayFTPListingThroughSquid(t *testing.T) {
	c, _ := squidClient(t)
	for _, path := range []string{"/a/b/;type=d", "/a/b/"} {
		raw := ftpBase(t) + path
		before := squidLogged(t, raw)
		resp, body := get(t, c, raw)
		want := curlThroughSquid(t, raw)
		if !bytes.Equal(squidFooter.ReplaceAll(body, nil), squidFooter.ReplaceAll(want, nil)) {
			t.Errorf("%s: through the gateway\n%s\ncurl -x squid\n%s", path, body, want)
		}
		if resp.Kind != fetch.Document || !strings.HasPrefix(resp.Type, "text/html") || !bytes.Contains(body, []byte(`<a href="c`)) || !bytes.Contains(body, []byte("Directory: ")) {
			t.Errorf("%s: %v %q, want squid's HTML listing naming c:\n%s", path, resp.Kind, resp.Type, body)
		}
		waitSquidLogged(t, raw, before)
	}
}

func TestGatewayFTPMissingThroughSquid(t *testing.T) {
	c, _ := squidClient(t)
	raw := ftpLocal(t, env(t, "FTP_PASSWORD")) + "/no-such-file.txt"
	_, err := c.Fetch(context.Background(), raw)
	var se *fetchhttp.StatusError
	if !errors.Is(err, fetch.ErrNotFound) || !errors.As(err, &se) || se.Code != 404 {
		t.Errorf("missing file through squid: %v; want ErrNotFound wrapping squid's 404", err)
	}
	if err != nil && strings.Contains(err.Error(), env(t, "FTP_PASSWORD")) {
		t.Errorf("error %q shows the password", err)
	}
	// The command: exit 4, by --gateway and by ftp_proxy.
	gateway := "http://" + env(t, "SQUID")
	r := runFetch(t, t.TempDir(), "--gateway", "ftp="+gateway, raw)
	if r.code != 4 || !strings.Contains(r.stderr, "404 Not Found") || strings.Contains(r.stderr, env(t, "FTP_PASSWORD")) {
		t.Errorf("fetch --gateway ftp=squid of a missing file: exit %d, stderr %q; want 4 and squid's 404, no password", r.code, r.stderr)
	}
	t.Setenv("ftp_proxy", env(t, "SQUID"))
	r = runFetch(t, t.TempDir(), raw)
	if r.code != 4 || !strings.Contains(r.stderr, "gateway "+gateway) {
		t.Errorf("ftp_proxy=squid fetch of a missing file: exit %d, stderr %q; want 4 from the gateway", r.code, r.stderr)
	}
}

// The command with ftp_proxy: the document on standard output as squid
// serves it, the trace with the gateway and no password; --gateway ftp=
// turns ftp_proxy off.
func TestGatewayFTPCommand(t *testing.T) {
	raw := ftpLocal(t, env(t, "FTP_PASSWORD")) + "/welcome.txt"
	want := curlThroughSquid(t, raw)
	t.Setenv("ftp_proxy", addr(t, "SQUID"))
	before := squidLogged(t, raw)
	r := runFetch(t, t.TempDir(), "-v", raw)
	if r.code != 0 || r.stdout != string(want) {
		t.Errorf("ftp_proxy=squid fetch -v: exit %d stdout %q; want %q; stderr %s", r.code, r.stdout, want, maskFTPPassword(t, r.stderr))
	}
	if !strings.Contains(r.stderr, "* via gateway http://"+env(t, "SQUID")+"\n") || strings.Contains(r.stderr+r.stdout, env(t, "FTP_PASSWORD")) {
		t.Errorf("fetch -v: want the gateway in the trace and no password:\n%s", maskFTPPassword(t, r.stderr))
	}
	waitSquidLogged(t, raw, before)

	r = runFetch(t, t.TempDir(), "-v", "--gateway", "ftp=", raw)
	direct, _ := os.ReadFile(filepath.Join(env(t, "FTP_HOME"), "welcome.txt"))
	if r.code != 0 || r.stdout != string(direct) || strings.Contains(r.stderr, "via gateway") || !strings.Contains(r.stderr, "> RETR welcome.txt") {
		t.Errorf("--gateway ftp= with ftp_proxy set: exit %d stdout %q; want the ftp driver's %q; stderr %s", r.code, r.stdout, direct, maskFTPPassword(t, r.stderr))
	}
}

// The 64 MiB file through squid by the command: the bytes by SHA-256, and
// a peak RSS that shows the gateway's reply is streamed.
func TestGatewayFTPBigFileStreams(t *testing.T) {
	dir := t.TempDir()
	raw := ftpBase(t) + "/big.bin"
	r := runFetch(t, dir, "--gateway", "ftp="+squidURL(t), "-o", "big.bin", raw)
	if r.code != 0 {
		t.Fatalf("fetch --gateway ftp=squid -o big.bin %s: exit %d: %s", raw, r.code, r.stderr)
	}
	f, err := os.Open(filepath.Join(dir, "big.bin"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sum, n, err := sha256Of(f)
	if err != nil || sum != env(t, "BIG_SHA256") || n != 64<<20 {
		t.Errorf("big.bin through squid: %d bytes, sha256 %s, %v; want %s", n, sum, err, env(t, "BIG_SHA256"))
	}
	t.Logf("peak RSS of fetch for 64 MiB through squid: %.1f MiB", float64(r.maxRSS)/(1<<20))
	if r.maxRSS <= 0 || r.maxRSS >= maxTransferRSS {
		t.Errorf("peak RSS = %d bytes, want under %d MiB", r.maxRSS, maxTransferRSS>>20)
	}
}

// http_proxy and the http driver's Proxy keep working as before: see
// TestHTTPThroughProxy. With a Client Gateway, http URLs go through it.
func TestGatewayHTTPThroughSquid(t *testing.T) {
	c, trace := traceClient(t)
	c.Gateway = (&fetch.Gateways{ByScheme: map[string]string{"http": squidURL(t)}}).Gateway
	want, err := os.ReadFile(filepath.Join(env(t, "HTTP_ROOT"), "hello.txt"))
	if err != nil {
		t.Fatal(err)
	}
	resp, body := get(t, c, httpBase(t)+"/hello.txt")
	if !bytes.Equal(body, want) || resp.Meta.Get("Via") == "" {
		t.Errorf("http through the squid gateway: %q, Via %q", body, resp.Meta.Get("Via"))
	}
	if !strings.Contains(trace.String(), "> GET "+httpBase(t)+"/hello.txt HTTP/1.1\n") {
		t.Errorf("trace lacks the absolute form:\n%s", trace)
	}
}
