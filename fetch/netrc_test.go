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
