//go:build integration

package integration

import (
	"encoding/base64"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/urlfetch/urlfetch/uri"
)

// Issue 12, point 5: no password shows in -v traces, --json output, error
// messages or progress lines, for any scheme. Every scheme is fetched by
// the command from its real server with a password in the URL (or in
// netrc, or in a gateway's URL): accepted where the server takes it (the
// FTP and telnet accounts), refused where it does not, with listings and
// failures, and every byte of standard output and standard error, and of
// the files -O writes, is searched for the password in every form it
// could leak in.

// progressArgSets run every case once more with standard error on a
// terminal, where the progress bars show ({PTY}), and the document to a
// file so that a bar is drawn: the terminal's raw bytes, bars and summary
// lines included, are searched like the rest.
var progressArgSets = [][]string{{"{PTY}", "-O", "--dir", "{DIR}"}}

// secretArgSets are the ways each case is run: plain, with the protocol
// trace, with JSON, both with listing URLs, and to a file. {DIR} is a
// directory of the run's own.
var secretArgSets = [][]string{
	{},
	{"-v"},
	{"--json"},
	{"-v", "--json", "--urls"},
	{"-v", "-O", "--dir", "{DIR}"},
}

// plantedPassword is the password planted in URLs: distinctive, and with
// bytes a URL must encode (/ : % @ # ? and a non-ASCII letter), so that
// its encoded forms differ from it.
const (
	plantedUser     = "planted-user"
	plantedPassword = "Pl4nted/Secr3t:%@#?ü"
)

// secretForms are the forms a password can leak in: as itself, URL
// encoded (as this package writes it, with lower-case hex, every byte
// encoded), in base64 beside its user (HTTP Basic, SASL PLAIN) and alone
// (AUTH LOGIN), and its distinctive inner words, which survive any
// escaping.
func secretForms(user, password string, words ...string) []string {
	forms := []string{password, uri.Escape(password, uri.ComponentPassword), lowerEscapes(uri.Escape(password, uri.ComponentPassword)), escapeAll(password), strings.ToLower(escapeAll(password))}
	for _, s := range []string{user + ":" + password, "\x00" + user + "\x00" + password, password} {
		forms = append(forms, base64.StdEncoding.EncodeToString([]byte(s)), base64.URLEncoding.EncodeToString([]byte(s)))
	}
	return append(forms, words...)
}

// escapeAll encodes every byte of s as %XX.
func escapeAll(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		fmt.Fprintf(&b, "%%%02X", s[i])
	}
	return b.String()
}

// lowerEscapes writes the hex digits of s's escapes in lower case.
func lowerEscapes(s string) string {
	b := []byte(s)
	for i := 0; i+2 < len(b); i++ {
		if b[i] == '%' {
			b[i+1], b[i+2] = lower(b[i+1]), lower(b[i+2])
		}
	}
	return string(b)
}

func lower(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// withPassword writes user:password@ for a URL, the password encoded as
// enc says: "canonical" (uri.Escape, and "?" too, which RFC 1738
// section 2.2 reserves and uri.Escape leaves alone), "lower" (lower-case
// hex), "all" (every byte) or "raw-?" (canonical, but "?" as typed, as
// a user pastes a password).
func withPassword(user, password, enc string) string {
	p := uri.Escape(password, uri.ComponentPassword)
	if enc == "raw-?" {
		p = strings.ReplaceAll(p, "%3F", "?") // as someone types it
	}
	switch enc {
	case "lower":
		p = lowerEscapes(p)
	case "all":
		p = escapeAll(password)
	}
	return uri.Escape(user, uri.ComponentUser) + ":" + p + "@"
}

// netrcFile writes a netrc file with one machine and returns its path.
func netrcFile(t *testing.T, host, login, password string) string {
	p := filepath.Join(t.TempDir(), "netrc")
	if err := os.WriteFile(p, []byte(fmt.Sprintf("machine %s login %s password %s\n", host, login, password)), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// A secretCase is one command: its arguments (the URL last), its input,
// the exit code it must end with, and the passwords it must not show.
type secretCase struct {
	name    string
	args    []string
	stdin   string
	code    int
	secrets [][]string // forms of each password involved
	// argSets, if set, replaces secretArgSets (a telnet session has no
	// listing and no file to write).
	argSets [][]string
}

func TestSecretsNeverShown(t *testing.T) {
	host := "127.0.0.1"
	ftpAddr, ftpUser, ftpPassword := addr(t, "FTP"), env(t, "FTP_USER"), env(t, "FTP_PASSWORD")
	telnetAddr, telnetUser, telnetPassword := addr(t, "TELNET"), env(t, "TELNET_USER"), env(t, "TELNET_PASSWORD")
	httpAddr, httpsAddr, squid := addr(t, "HTTP"), addr(t, "HTTPS"), addr(t, "SQUID")
	py := addr(t, "GOPHER_PYGOPHERD")
	nntpAddr, smtpAddr := addr(t, "NNTP"), addr(t, "SMTP")
	ztest, zebra := addr(t, "ZTEST"), addr(t, "ZEBRA")
	for _, a := range []string{ftpAddr, telnetAddr, httpAddr, py, nntpAddr, smtpAddr, ztest, zebra, httpsAddr} {
		if !strings.HasPrefix(a, host+":") {
			t.Fatalf("server at %s, not on %s: the netrc files below name %s", a, host, host)
		}
	}

	planted := secretForms(plantedUser, plantedPassword, "Pl4nted", "Secr3t")
	realFTP := secretForms(ftpUser, ftpPassword, "1738-secret")
	realTelnet := secretForms(telnetUser, telnetPassword)
	httpUser, httpPassword := env(t, "HTTP_AUTH_USER"), env(t, "HTTP_AUTH_PASSWORD")
	realHTTP := secretForms(httpUser, httpPassword, "1738@secret")
	realHTTPNetrc := netrcFile(t, host, httpUser, `"`+httpPassword+`"`)
	plantedNetrc := netrcFile(t, host, plantedUser, plantedPassword)
	realFTPNetrc := netrcFile(t, host, ftpUser, ftpPassword)
	realFTPURL := "ftp://" + withPassword(ftpUser, ftpPassword, "canonical") + ftpAddr
	sessionArgs := [][]string{{}, {"-v"}}

	cases := []secretCase{
		// ftp: the real account, accepted; a planted password, refused.
		{name: "ftp real document", args: []string{realFTPURL + "/welcome.txt"}, secrets: [][]string{realFTP}},
		{name: "ftp real listing", args: []string{realFTPURL + "/"}, secrets: [][]string{realFTP}},
		{name: "ftp real missing", args: []string{realFTPURL + "/no-such-file.txt"}, code: exitCodeNotFound, secrets: [][]string{realFTP}},
		{name: "ftp real from netrc", args: []string{"--netrc-file", realFTPNetrc, "ftp://" + ftpUser + "@" + ftpAddr + "/welcome.txt"}, secrets: [][]string{realFTP}},
		{name: "ftp planted refused", args: []string{"ftp://" + withPassword(ftpUser, plantedPassword, "canonical") + ftpAddr + "/welcome.txt"}, code: exitCodeAuth, secrets: [][]string{planted}},
		{name: "ftp planted lower-case escapes", args: []string{"ftp://" + withPassword(ftpUser, plantedPassword, "lower") + ftpAddr + "/"}, code: exitCodeAuth, secrets: [][]string{planted}},
		{name: "ftp planted every byte escaped", args: []string{"ftp://" + withPassword(ftpUser, plantedPassword, "all") + ftpAddr + "/welcome.txt"}, code: exitCodeAuth, secrets: [][]string{planted}},
		{name: "ftp planted from netrc", args: []string{"--netrc-file", plantedNetrc, "ftp://" + plantedUser + "@" + ftpAddr + "/welcome.txt"}, code: exitCodeAuth, secrets: [][]string{planted}},
		{name: "ftp real through a gateway with a planted password",
			args:    []string{"--gateway", "ftp=http://" + withPassword(plantedUser, plantedPassword, "canonical") + squid, realFTPURL + "/welcome.txt"},
			secrets: [][]string{realFTP, planted}},

		// http: a password in the URL (issue 21, point 4: taken, with a
		// warning), in -u, in netrc; the real account, accepted, and a
		// planted password, refused (401); a gateway's.
		{name: "http planted in the URL", args: []string{"http://" + withPassword(plantedUser, plantedPassword, "canonical") + httpAddr + "/hello.txt"}, secrets: [][]string{planted}},
		{name: "http planted in the URL refused", args: []string{"http://" + withPassword(plantedUser, plantedPassword, "all") + httpAddr + "/auth/secret.txt"}, code: exitCodeAuth, secrets: [][]string{planted}},
		{name: "http planted in -u refused", args: []string{"-u", plantedUser + ":" + plantedPassword, "http://" + httpAddr + "/auth/secret.txt"}, code: exitCodeAuth, secrets: [][]string{planted}},
		{name: "http planted from netrc refused", args: []string{"--netrc-file", plantedNetrc, "http://" + httpAddr + "/auth/secret.txt"}, code: exitCodeAuth, secrets: [][]string{planted}},
		{name: "http real in the URL", args: []string{"http://" + withPassword(httpUser, httpPassword, "canonical") + httpAddr + "/auth/secret.txt"}, secrets: [][]string{realHTTP}},
		{name: "http real in -u", args: []string{"-u", httpUser + ":" + httpPassword, "http://" + httpAddr + "/auth/secret.txt"}, secrets: [][]string{realHTTP}},
		{name: "https real in -u", args: []string{"--cacert", env(t, "TLS_CA"), "-u", httpUser + ":" + httpPassword, "https://" + httpsAddr + "/auth/secret.txt"}, secrets: [][]string{realHTTP}},
		{name: "http real from netrc", args: []string{"--netrc-file", realHTTPNetrc, "http://" + httpAddr + "/auth/secret.txt"}, secrets: [][]string{realHTTP}},
		{name: "http real in -u, missing", args: []string{"-u", httpUser + ":" + httpPassword, "http://" + httpAddr + "/auth/no-such-file"}, code: exitCodeNotFound, secrets: [][]string{realHTTP}},
		{name: "http through a gateway with a planted password",
			args:    []string{"--gateway", "http=http://" + withPassword(plantedUser, plantedPassword, "all") + squid, "http://" + httpAddr + "/hello.txt"},
			secrets: [][]string{planted}},

		// gopher: a user and password are ignored, never shown.
		{name: "gopher document", args: []string{"gopher://" + withPassword(plantedUser, plantedPassword, "canonical") + py + "/0/hello.txt"}, secrets: [][]string{planted}},
		{name: "gopher menu", args: []string{"gopher://" + withPassword(plantedUser, plantedPassword, "lower") + py + "/1/"}, secrets: [][]string{planted}},
		{name: "gopher missing", args: []string{"gopher://" + withPassword(plantedUser, plantedPassword, "all") + py + "/0/nothing"}, code: exitCodeNotFound, secrets: [][]string{planted}},

		// news: the password can only come from netrc.
		{name: "news article", args: []string{"--netrc-file", plantedNetrc, "--news-server", nntpAddr, "news:hello@urlfetch.test"}, secrets: [][]string{planted}},
		{name: "news group", args: []string{"--netrc-file", plantedNetrc, "--news-server", nntpAddr, "news:urlfetch.test"}, secrets: [][]string{planted}},
		{name: "news missing", args: []string{"--netrc-file", plantedNetrc, "--news-server", nntpAddr, "news:no-such-article@urlfetch.test"}, code: exitCodeNotFound, secrets: [][]string{planted}},

		// nntp: in the URL; the entries' URLs keep the user only.
		{name: "nntp article", args: []string{"nntp://" + withPassword(plantedUser, plantedPassword, "canonical") + nntpAddr + "/urlfetch.test/1"}, secrets: [][]string{planted}},
		{name: "nntp group", args: []string{"nntp://" + withPassword(plantedUser, plantedPassword, "all") + nntpAddr + "/urlfetch.test"}, secrets: [][]string{planted}},
		{name: "nntp groups", args: []string{"nntp://" + withPassword(plantedUser, plantedPassword, "lower") + nntpAddr + "/"}, secrets: [][]string{planted}},
		{name: "nntp missing", args: []string{"nntp://" + withPassword(plantedUser, plantedPassword, "canonical") + nntpAddr + "/urlfetch.no-such-group"}, code: exitCodeNotFound, secrets: [][]string{planted}},

		// mailto: the SMTP login's password comes from netrc; this
		// postfix offers no AUTH, so the login fails.
		{name: "mailto login refused", args: []string{"--netrc-file", plantedNetrc, "--smtp-server", smtpAddr, "--smtp-user", plantedUser, "mailto:urlfetch@localhost"},
			stdin: "x\n", code: exitCodeAuth, secrets: [][]string{planted}},

		// telnet: the real account, logged in and refused; without
		// --login the user and password are never used.
		{name: "telnet real login", args: []string{"--login", "telnet://" + withPassword(telnetUser, telnetPassword, "canonical") + telnetAddr + "/"},
			stdin: "whoami\n", secrets: [][]string{realTelnet}, argSets: sessionArgs},
		{name: "telnet planted login", args: []string{"--login", "telnet://" + withPassword(telnetUser, plantedPassword, "canonical") + telnetAddr + "/"},
			secrets: [][]string{planted}, argSets: sessionArgs},
		{name: "telnet planted without login", args: []string{"telnet://" + withPassword(plantedUser, plantedPassword, "all") + telnetAddr + "/"},
			secrets: [][]string{planted}, argSets: sessionArgs},

		// wais: a user and password are ignored, never shown.
		{name: "wais search (ztest)", args: []string{"--wais-dialect", "z3950", "wais://" + withPassword(plantedUser, plantedPassword, "canonical") + ztest + "/" + env(t, "ZTEST_DATABASE") + "?flamingo"}, secrets: [][]string{planted}},
		{name: "wais search (zebra, dialect probed)", args: []string{"wais://" + withPassword(plantedUser, plantedPassword, "all") + zebra + "/" + env(t, "ZEBRA_DATABASE") + "?flamingo"}, secrets: [][]string{planted}},
		{name: "wais missing database", args: []string{"--wais-dialect", "z3950", "wais://" + withPassword(plantedUser, plantedPassword, "lower") + zebra + "/nosuchdb?flamingo"}, code: exitCodeNotFound, secrets: [][]string{planted}},

		// A "?" typed in the password of a scheme whose "?" starts a
		// search ends the authority early: the URL is invalid, and
		// neither its masked copy nor the reason may show the password.
		{name: "http password with a raw ?", args: []string{"http://" + withPassword(plantedUser, plantedPassword, "raw-?") + httpAddr + "/hello.txt"}, code: exitCodeURL, secrets: [][]string{planted}, argSets: [][]string{{"-v"}}},
		{name: "wais password with a raw ?", args: []string{"wais://" + withPassword(plantedUser, plantedPassword, "raw-?") + zebra + "/db?flamingo"}, code: exitCodeURL, secrets: [][]string{planted}, argSets: [][]string{{"-v"}}},
		{name: "file password with a raw ?", args: []string{"file://" + withPassword(plantedUser, plantedPassword, "raw-?") + "localhost/etc/hostname"}, code: exitCodeURL, secrets: [][]string{planted}, argSets: [][]string{{"-v"}}},
		{name: "gateway password with a raw ?", args: []string{"--gateway", "ftp=http://" + withPassword(plantedUser, plantedPassword, "raw-?") + squid, realFTPURL + "/welcome.txt"},
			code: exitCodeUsage, secrets: [][]string{planted, realFTP}, argSets: [][]string{{"-v"}}},

		// file: a URL with a password is not valid.
		{name: "file planted in the URL", args: []string{"file://" + withPassword(plantedUser, plantedPassword, "canonical") + "localhost/etc/hostname"}, code: exitCodeURL, secrets: [][]string{planted}},
	}

	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			sets := tc.argSets
			if sets == nil {
				sets = secretArgSets
			}
			for _, extra := range append(sets, progressArgSets...) {
				runSecretCase(t, tc, extra)
			}
		})
	}
}

// Exit codes of the fetch command (cmd/fetch/exit.go).
const (
	exitCodeUsage    = 2
	exitCodeURL      = 3
	exitCodeNotFound = 4
	exitCodeAuth     = 5
)

// runSecretCase runs tc with extra before its arguments and searches
// everything the command wrote for its secrets.
func runSecretCase(t *testing.T, tc secretCase, extra []string) {
	t.Helper()
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	if err := os.Mkdir(out, 0o755); err != nil {
		t.Fatal(err)
	}
	var args []string
	onPTY := false
	for _, a := range extra {
		if a == "{PTY}" {
			onPTY = true
			continue
		}
		args = append(args, strings.ReplaceAll(a, "{DIR}", out))
	}
	args = append(args, tc.args...)
	var r cmdResult
	if onPTY {
		if tc.stdin != "" {
			return // the terminal run has no input to give
		}
		stdout, err := os.Create(filepath.Join(dir, "stdout"))
		if err != nil {
			t.Fatal(err)
		}
		p := startOnPty(t, dir, stdout, args...)
		r.code = p.wait(t)
		stdout.Close()
		b, _ := os.ReadFile(filepath.Join(dir, "stdout"))
		r.stdout, r.stderr = string(b), p.term.String()
	} else {
		r = runFetchInput(t, dir, tc.stdin, args...)
	}
	shown := masked(args)
	if r.code != tc.code {
		t.Errorf("fetch %q: exit %d, want %d; stderr %q", shown, r.code, tc.code, maskAll(r.stderr, tc.secrets))
	}
	where := map[string]string{"stdout": r.stdout, "stderr": r.stderr}
	files, _ := os.ReadDir(out)
	for _, f := range files {
		b, err := os.ReadFile(filepath.Join(out, f.Name()))
		if err != nil {
			t.Fatal(err)
		}
		where["file "+f.Name()] = string(b)
	}
	for name, text := range where {
		for _, forms := range tc.secrets {
			for _, form := range forms {
				if i := strings.Index(text, form); i >= 0 {
					t.Errorf("fetch %q: %s shows the password as %q: ...%q...", shown, name, form, maskAll(text[max(0, i-80):min(len(text), i+len(form)+80)], tc.secrets))
				}
			}
		}
	}
	if len(tc.args) > 0 && r.code == 0 && r.stdout == "" && len(files) == 0 && tc.argSets == nil {
		t.Errorf("fetch %q printed nothing and wrote no file", shown)
	}
}

// masked returns args with the passwords of URLs masked, for messages.
func masked(args []string) []string {
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = a
		if u, err := uri.Parse(a); err == nil && u.HasPassword {
			out[i] = u.Redacted()
		} else if _, rest, ok := strings.Cut(a, "="); ok {
			if u, err := uri.Parse(rest); err == nil && u.HasPassword {
				out[i] = strings.TrimSuffix(a, rest) + u.Redacted()
			}
		}
	}
	return out
}

// maskAll hides every form of the real passwords among secrets in s,
// for messages; the planted one stays, to show where it leaked.
func maskAll(s string, secrets [][]string) string {
	for _, forms := range secrets {
		if forms[0] == plantedPassword {
			continue
		}
		for _, f := range forms {
			s = strings.ReplaceAll(s, f, "[PASSWORD]")
		}
	}
	return s
}
