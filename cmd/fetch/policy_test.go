package main

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestParseProtoList(t *testing.T) {
	all := []string{"file", "ftp", "gopher", "http", "https", "mailto"}
	def := []string{"ftp", "gopher", "http", "https"}
	tests := []struct {
		spec string
		want string // "" for an error
	}{
		{"=http,https", "http,https"},
		{"http", "ftp,gopher,http,https"},
		{"+file", "file,ftp,gopher,http,https"},
		{"-ftp", "gopher,http,https"},
		{"-all,https", "https"},
		{"-all", "-"},
		{"all", "file,ftp,gopher,http,https,mailto"},
		{"=all,-mailto,-file", "ftp,gopher,http,https"},
		{"=https,+x-prospero", "https,x-prospero"},
		{"=HTTP", "http"},
		{"", ""},
		{"=ht tp", ""},
		{"=1http", ""},
		{"-", ""},
	}
	for _, tt := range tests {
		got, err := parseProtoList(tt.spec, def, all)
		switch {
		case tt.want == "" && err == nil:
			t.Errorf("parseProtoList(%q) = %q; want an error", tt.spec, got)
		case tt.want != "" && err != nil:
			t.Errorf("parseProtoList(%q) error %v; want %s", tt.spec, err, tt.want)
		case tt.want != "" && strings.Join(got, ",") != strings.TrimPrefix(tt.want, "-"):
			t.Errorf("parseProtoList(%q) = %q; want %s", tt.spec, got, tt.want)
		}
		if tt.want == "-" && (got == nil || len(got) != 0) {
			t.Errorf("parseProtoList(%q) = %#v; want an empty, non-nil set", tt.spec, got)
		}
	}
	if !slices.Equal(def, []string{"ftp", "gopher", "http", "https"}) {
		t.Errorf("parseProtoList changed its start: %q", def)
	}
}

// redirectServer redirects /r?to=URL to URL, and /chain/N through N hops
// to /hello.
func redirectServer(t *testing.T) string {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch {
		case r.URL.Path == "/r":
			http.Redirect(w, r, r.URL.Query().Get("to"), http.StatusFound)
		case strings.HasPrefix(r.URL.Path, "/chain/"):
			n := strings.TrimPrefix(r.URL.Path, "/chain/")
			if n == "0" {
				http.Redirect(w, r, "/hello", http.StatusMovedPermanently)
				return
			}
			http.Redirect(w, r, "/chain/"+string(rune(n[0]-1)), http.StatusMovedPermanently)
		case r.URL.Path == "/hello":
			w.Write([]byte("hello\n"))
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// Issue 18: a redirect to rlogin: is refused before the telnet driver
// hands it to a program: with a fake rlogin first in PATH, nothing runs.
// The same redirect allowed by --proto-redir runs it, which shows the
// witness would see it.
func TestRedirectToRloginRunsNothing(t *testing.T) {
	bin := t.TempDir()
	marker := filepath.Join(t.TempDir(), "rlogin-ran")
	script := "#!/bin/sh\necho \"$@\" > " + marker + "\n"
	if err := os.WriteFile(filepath.Join(bin, "rlogin"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	base := redirectServer(t)
	start := base + "/r?to=" + url.QueryEscape("rlogin://victim@127.0.0.1/")

	r := fetchCmd(t, t.TempDir(), "", start)
	if r.code != exitUnsafe || !strings.Contains(r.stderr, "rlogin://victim@127.0.0.1/") || !strings.Contains(r.stderr, "from "+start) {
		t.Errorf("fetch %s = exit %d, %q; want exit %d naming both URLs", start, r.code, r.stderr, exitUnsafe)
	}
	if _, err := os.Stat(marker); err == nil {
		t.Errorf("the redirect to rlogin: ran the rlogin program")
	}

	r = fetchCmd(t, t.TempDir(), "", "--proto-redir", "+rlogin", start)
	if b, err := os.ReadFile(marker); err != nil || strings.TrimSpace(string(b)) != "-l victim 127.0.0.1" {
		t.Errorf("with --proto-redir +rlogin: exit %d, %q; the program got %q, %v; want it run with -l victim 127.0.0.1", r.code, r.stderr, b, err)
	}
}

// A redirect to file: prints nothing of the file; --proto-redir +file
// lets it through.
func TestRedirectToFileRefused(t *testing.T) {
	dir := t.TempDir()
	secret := filepath.Join(dir, "id_ed25519")
	os.WriteFile(secret, []byte("PRIVATE KEY\n"), 0o600)
	start := redirectServer(t) + "/r?to=" + url.QueryEscape(fileURL(secret))
	r := fetchCmd(t, dir, "", start)
	if r.code != exitUnsafe || r.stdout != "" || !strings.Contains(r.stderr, "--proto-redir") {
		t.Errorf("fetch %s = exit %d, stdout %q, stderr %q; want exit %d, nothing printed, a hint of --proto-redir", start, r.code, r.stdout, r.stderr, exitUnsafe)
	}
	if r := fetchCmd(t, dir, "", "--proto-redir", "+file", start); r.code != 0 || r.stdout != "PRIVATE KEY\n" {
		t.Errorf("with --proto-redir +file: exit %d, %q, %q", r.code, r.stdout, r.stderr)
	}
}

func TestMaxRedirs(t *testing.T) {
	base := redirectServer(t)
	tests := []struct {
		args []string
		code int
		text string
	}{
		{[]string{base + "/chain/2"}, 0, "hello\n"},
		{[]string{"--max-redirs", "3", base + "/chain/2"}, 0, "hello\n"},
		{[]string{"--max-redirs", "2", base + "/chain/2"}, exitProtocol, "stopped after 2 redirects"},
		{[]string{"--max-redirs", "0", base + "/chain/0"}, exitProtocol, "follows no redirects (--max-redirs 0)"},
		{[]string{"--max-redirs", "-1", base + "/chain/9"}, 0, "hello\n"},
		{[]string{"--max-redirs", "-2", base + "/chain/0"}, exitUsage, "--max-redirs"},
	}
	for _, tt := range tests {
		r := fetchCmd(t, t.TempDir(), "", tt.args...)
		if r.code != tt.code || !strings.Contains(r.stdout+r.stderr, tt.text) {
			t.Errorf("fetch %q = exit %d, %q, %q; want exit %d and %q", tt.args, r.code, r.stdout, r.stderr, tt.code, tt.text)
		}
	}
}

// --proto limits every URL, the user's too; --proto-redir only what a
// server chose.
func TestProtoOptions(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "f.txt")
	os.WriteFile(p, []byte("local\n"), 0o644)
	base := redirectServer(t)
	tests := []struct {
		args []string
		code int
		text string
	}{
		{[]string{"--proto", "=http,https", fileURL(p)}, exitUnsafe, "may not use file: URLs"},
		{[]string{"--proto", "-file", fileURL(p)}, exitUnsafe, "may not use file: URLs"},
		{[]string{"--proto", "=file", fileURL(p)}, 0, "local\n"},
		{[]string{"--proto", "=http", base + "/r?to=" + url.QueryEscape(base+"/hello")}, 0, "hello\n"},
		{[]string{"--proto-redir", "=https", base + "/r?to=" + url.QueryEscape(base+"/hello")}, exitUnsafe, "it may to https"},
		{[]string{"--proto-redir", "=https", base + "/hello"}, 0, "hello\n"},
		{[]string{"--proto", "=htt p", base + "/hello"}, exitUsage, "--proto"},
		{[]string{"--proto-redir", "", base + "/hello"}, exitUsage, "--proto-redir"},
	}
	for _, tt := range tests {
		r := fetchCmd(t, dir, "", tt.args...)
		if r.code != tt.code || !strings.Contains(r.stdout+r.stderr, tt.text) {
			t.Errorf("fetch %q = exit %d, %q, %q; want exit %d and %q", tt.args, r.code, r.stdout, r.stderr, tt.code, tt.text)
		}
	}
}
