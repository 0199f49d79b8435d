package fetch

import (
	"context"
	"errors"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/urlfetch/urlfetch/uri"
)

// Issue 21, point 4: the credentials an http request presents
// (Request.Credentials) and where they may go (Request.UserOrigin).

func writeNetrc(t *testing.T, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "netrc")
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestUserOrigin(t *testing.T) {
	tests := []struct {
		from, to string
		want     bool
	}{
		{"http://a.example/x", "http://a.example/y", true},
		{"http://a.example/x", "http://A.EXAMPLE:80/y", true},
		{"http://a.example/x", "http://b.example/y", false},
		{"http://127.0.0.1:18080/x", "http://localhost:18080/y", false},
		{"http://a.example/x", "http://a.example:8080/y", false},
		{"http://a.example:8080/x", "http://a.example/y", false},
		// To TLS on the same host, from the default port to the default
		// port: a server moving the user to https.
		{"http://a.example/x", "https://a.example/y", true},
		{"http://a.example:8080/x", "https://a.example/y", false},
		{"http://a.example/x", "https://a.example:8443/y", false},
		// Never from TLS to cleartext.
		{"https://a.example/x", "http://a.example/y", false},
		{"https://a.example/x", "https://a.example/y", true},
		{"http://a.example/x", "ftp://a.example/y", false},
		// A name in Unicode and its A-labels are one host.
		{"http://bücher.example/x", "http://xn--bcher-kva.example/y", true},
		{"http://XN--BCHER-KVA.example/x", "http://Bücher.example/y", true},
		{"http://bücher.example/x", "http://bucher.example/y", false},
	}
	for _, tt := range tests {
		r := NewRequest(nil, uri.MustParse(tt.from))
		if !r.UserOrigin() {
			t.Errorf("UserOrigin of the user's own URL %s = false", tt.from)
		}
		next := r.Follow(HopRedirect, uri.MustParse(tt.to))
		if got := next.UserOrigin(); got != tt.want {
			t.Errorf("redirect from %s to %s: UserOrigin() = %v, want %v", tt.from, tt.to, got, tt.want)
		}
		// The rule is the user's URL's, however many hops later.
		third := next.Follow(HopRedirect, uri.MustParse(tt.to))
		if got := third.UserOrigin(); got != tt.want {
			t.Errorf("second redirect to %s after %s: UserOrigin() = %v, want %v", tt.to, tt.from, got, tt.want)
		}
	}
}

// creds calls r.Credentials and fails the test on an error.
func creds(t *testing.T, r *Request) (string, string, bool) {
	t.Helper()
	user, pw, ok, err := r.Credentials(context.Background())
	if err != nil {
		t.Fatalf("Credentials of %s: %v", r.URL.Redacted(), err)
	}
	return user, pw, ok
}

func TestCredentialsSources(t *testing.T) {
	netrc := writeNetrc(t, "machine a.example login nora password netrc-pw\n"+
		"machine b.example login joe password joe-at-b\n"+
		"default login anonymous password guest@example\n")
	tests := []struct {
		name     string
		client   *Client
		url      string
		user, pw string
		ok       bool
	}{
		{"the URL's own", &Client{NetrcFile: "-"}, "http://u:p%40ss@a.example/", "u", "p@ss", true},
		{"the URL's user before -u", &Client{NetrcFile: "-", Login: url.UserPassword("joe", "j")}, "http://u:p@a.example/", "u", "p", true},
		{"-u", &Client{NetrcFile: "-", Login: url.UserPassword("joe", "j:w")}, "http://a.example/", "joe", "j:w", true},
		{"-u before netrc", &Client{NetrcFile: netrc, Login: url.UserPassword("joe", "j")}, "http://a.example/", "joe", "j", true},
		{"-u's password from netrc", &Client{NetrcFile: netrc, Login: url.User("joe")}, "http://b.example/", "joe", "joe-at-b", true},
		{"netrc's machine", &Client{NetrcFile: netrc}, "https://a.example/", "nora", "netrc-pw", true},
		{"the URL's user, its password from netrc", &Client{NetrcFile: netrc}, "http://joe@b.example/", "joe", "joe-at-b", true},
		{"not netrc's default entry", &Client{NetrcFile: netrc}, "http://c.example/", "", "", false},
		{"nothing", &Client{NetrcFile: "-"}, "http://a.example/", "", "", false},
		{"a netrc file named but missing", &Client{NetrcFile: filepath.Join(t.TempDir(), "none")}, "http://a.example/", "", "", false},
	}
	for _, tt := range tests {
		r := NewRequest(tt.client, uri.MustParse(tt.url))
		user, pw, ok := creds(t, r)
		if user != tt.user || pw != tt.pw || ok != tt.ok {
			t.Errorf("%s: Credentials(%s) = %q, %q, %v; want %q, %q, %v", tt.name, tt.url, user, pw, ok, tt.user, tt.pw, tt.ok)
		}
		if ok && pw != "" {
			if got := MaskLine("x "+pw+" y", r.secrets); strings.Contains(got, pw) {
				t.Errorf("%s: the password is not a secret of the request: %q", tt.name, got)
			}
		}
	}
}

// A netrc file that does not parse is an error, not a silent nothing.
func TestCredentialsBadNetrc(t *testing.T) {
	netrc := writeNetrc(t, "machine a.example login\n")
	r := NewRequest(&Client{NetrcFile: netrc}, uri.MustParse("http://a.example/"))
	if _, _, _, err := r.Credentials(context.Background()); !errors.Is(err, ErrAuth) {
		t.Errorf("Credentials with a broken netrc: %v, want ErrAuth", err)
	}
}

// No credentials go to another server than the user's URL's, whichever
// way the user gave them; on the same server they go along, and a
// password asked for is not asked for again.
func TestCredentialsOnHops(t *testing.T) {
	netrc := writeNetrc(t, "machine a.example login nora password netrc-pw\nmachine b.example login bob password bob-pw\n")
	for _, tt := range []struct {
		name   string
		client *Client
		url    string
	}{
		{"-u", &Client{NetrcFile: "-", Login: url.UserPassword("joe", "j")}, "http://a.example/x"},
		{"netrc", &Client{NetrcFile: netrc}, "http://a.example/x"},
		{"the URL", &Client{NetrcFile: "-"}, "http://joe:j@a.example/x"},
	} {
		r := NewRequest(tt.client, uri.MustParse(tt.url))
		user, pw, ok := creds(t, r)
		if !ok {
			t.Fatalf("%s: no credentials for the user's URL", tt.name)
		}
		same := r.Follow(HopRedirect, uri.MustParse("http://a.example/y"))
		if u2, p2, ok := creds(t, same); !ok || u2 != user || p2 != pw {
			t.Errorf("%s: redirect on the same server: %q, %q, %v; want %q, %q", tt.name, u2, p2, ok, user, pw)
		}
		// b.example has an entry of its own in netrc: still, a server
		// chose it, so nothing goes there.
		for _, to := range []string{"http://b.example/y", "http://a.example:8080/y", "https://a.example:8443/"} {
			other := r.Follow(HopRedirect, uri.MustParse(to))
			if u2, p2, ok := creds(t, other); ok {
				t.Errorf("%s: redirect to %s: credentials %q, %q, want none", tt.name, to, u2, p2)
			}
			// And back to the user's server: theirs again.
			back := other.Follow(HopRedirect, uri.MustParse("http://a.example/z"))
			if u2, p2, ok := creds(t, back); !ok || u2 != user || p2 != pw {
				t.Errorf("%s: back on the user's server after %s: %q, %q, %v; want %q, %q", tt.name, to, u2, p2, ok, user, pw)
			}
		}
	}
	// A URL a server chose carries only its own user and password.
	r := NewRequest(&Client{NetrcFile: netrc}, uri.MustParse("http://a.example/x"))
	hop := r.Follow(HopRedirect, uri.MustParse("http://srv:chosen@b.example/"))
	if u, p, ok := creds(t, hop); !ok || u != "srv" || p != "chosen" {
		t.Errorf("server-chosen userinfo: %q, %q, %v", u, p, ok)
	}
	hop = r.Follow(HopRedirect, uri.MustParse("http://bob@b.example/"))
	if u, p, ok := creds(t, hop); !ok || u != "bob" || p != "" {
		t.Errorf("server-chosen user without a password: %q, %q, %v; want bob with no password (netrc's is not for a server to choose)", u, p, ok)
	}
}

// -u USER without a password asks once for all the Client's URLs, even
// when they ask at once; a URL a server chose never asks.
func TestCredentialsLoginAskedOnce(t *testing.T) {
	var asked atomic.Int32
	c := &Client{NetrcFile: "-", Login: url.User("joe"), Prompt: func(ctx context.Context, prompt string) (string, error) {
		asked.Add(1)
		if !strings.Contains(prompt, "joe") {
			t.Errorf("prompt %q does not name the user", prompt)
		}
		return "typed", nil
	}}
	var wg sync.WaitGroup
	for _, u := range []string{"http://a.example/", "http://b.example/", "https://c.example/", "http://a.example/2"} {
		wg.Go(func() {
			r := NewRequest(c, uri.MustParse(u))
			user, pw, ok, err := r.Credentials(context.Background())
			if err != nil || !ok || user != "joe" || pw != "typed" {
				t.Errorf("Credentials(%s) = %q, %q, %v, %v", u, user, pw, ok, err)
			}
			if got := MaskLine("typed", r.secrets); got != "***" {
				t.Errorf("the typed password is not a secret of %s: %q", u, got)
			}
		})
	}
	wg.Wait()
	if n := asked.Load(); n != 1 {
		t.Errorf("asked %d times, want once", n)
	}

	// Without a prompt (no terminal): ErrAuth, saying how to give it.
	c = &Client{NetrcFile: "-", Login: url.User("joe")}
	_, _, _, err := NewRequest(c, uri.MustParse("http://a.example/")).Credentials(context.Background())
	if !errors.Is(err, ErrAuth) || !strings.Contains(err.Error(), "-u joe:PASSWORD") || !strings.Contains(err.Error(), "netrc") {
		t.Errorf("-u without a password or a terminal: %v; want ErrAuth saying -u joe:PASSWORD and netrc", err)
	}
}
