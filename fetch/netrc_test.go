package fetch

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/urlfetch/urlfetch/uri"
)

const sampleNetrc = `# comment
machine ftp.example.org login joe password "pa ss\"word"
machine other.example login ann
  password p2 account acct
macdef init
cd /pub
binary

default login anonymous password guest@example
`

func TestParseNetrc(t *testing.T) {
	n, err := ParseNetrc(strings.NewReader(sampleNetrc))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		host, user         string
		wantLogin, wantPwd string
		ok                 bool
	}{
		{"ftp.example.org", "", "joe", `pa ss"word`, true},
		{"FTP.Example.Org", "joe", "joe", `pa ss"word`, true},
		{"ftp.example.org", "bob", "", "", false},
		{"other.example", "", "ann", "p2", true},
		{"nowhere", "", "anonymous", "guest@example", true},
	}
	for _, tt := range tests {
		e, ok := n.Lookup(tt.host, tt.user)
		if ok != tt.ok || e.Login != tt.wantLogin || e.Password != tt.wantPwd {
			t.Errorf("Lookup(%q, %q) = %+v, %v; want %s/%s", tt.host, tt.user, e, ok, tt.wantLogin, tt.wantPwd)
		}
	}
	if n.Machines[1].Account != "acct" {
		t.Errorf("account = %q", n.Machines[1].Account)
	}
	for _, bad := range []string{"machine", "login joe", "machine h login", "machine h frobnicate x", `machine "h`} {
		if _, err := ParseNetrc(strings.NewReader(bad)); err == nil {
			t.Errorf("ParseNetrc(%q) accepted it", bad)
		}
	}
}

func TestRequestPassword(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "netrc")
	if err := os.WriteFile(path, []byte(sampleNetrc), 0o600); err != nil {
		t.Fatal(err)
	}
	u := uri.MustParse("ftp://joe@ftp.example.org/")
	req := NewRequest(&Client{NetrcFile: path}, u)
	pw, err := req.Password(context.Background(), "ftp.example.org", "joe")
	if err != nil || pw != `pa ss"word` {
		t.Errorf("Password from netrc = %q, %v", pw, err)
	}
	// No netrc entry, no prompt: ErrAuth that says what to do.
	req = NewRequest(&Client{NetrcFile: "-"}, u)
	_, err = req.Password(context.Background(), "ftp.example.org", "joe")
	if !errors.Is(err, ErrAuth) || !strings.Contains(err.Error(), "needs a password") {
		t.Errorf("Password without netrc or prompt = %v, want ErrAuth", err)
	}
	// A prompt answers, and its answer becomes a secret.
	var asked string
	c := &Client{NetrcFile: "-", Prompt: func(ctx context.Context, p string) (string, error) { asked = p; return "typed-pw", nil }}
	req = NewRequest(c, u)
	pw, err = req.Password(context.Background(), "ftp.example.org", "joe")
	if err != nil || pw != "typed-pw" || !strings.Contains(asked, "joe@ftp.example.org") {
		t.Errorf("Password by prompt = %q, %v (asked %q)", pw, err, asked)
	}
	if got := MaskLine("230 hello typed-pw", req.secrets); got != "230 hello ***" {
		t.Errorf("MaskLine = %q", got)
	}
	// An explicit netrc file that is missing is an error.
	req = NewRequest(&Client{NetrcFile: filepath.Join(dir, "missing")}, u)
	if _, err := req.Password(context.Background(), "h", "joe"); !errors.Is(err, ErrAuth) {
		t.Errorf("missing explicit netrc: %v", err)
	}
}

// FuzzParseNetrc: a netrc file is read from the user's disk but may come
// from anywhere; parsing it never panics, and every entry it yields has
// the values the tokens gave.
func FuzzParseNetrc(f *testing.F) {
	f.Add(sampleNetrc)
	f.Add("machine h login u password p\n")
	f.Add("default\nmacdef x\nline\n\nmachine \"q\\\"x\" login a")
	f.Add("machine")
	f.Fuzz(func(t *testing.T, s string) {
		n, err := ParseNetrc(strings.NewReader(s))
		if err != nil {
			return
		}
		for _, m := range n.Machines {
			if e, ok := n.Lookup(m.Machine, m.Login); !ok || !strings.EqualFold(e.Machine, m.Machine) {
				t.Fatalf("Lookup(%q, %q) = %+v, %v after parsing %q", m.Machine, m.Login, e, ok, s)
			}
		}
	})
}
