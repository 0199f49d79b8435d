package netrc

import (
	"strings"
	"testing"
)

const sampleNetrc = `# comment
machine ftp.example.org login joe password "pa ss\"word"
machine other.example login ann
  password p2 account acct
macdef init
cd /pub
binary

machine bücher.example login bea password b1
machine xn--strae-oqa.example login sam password s1

default login anonymous password guest@example
`

func TestParse(t *testing.T) {
	n, err := Parse(strings.NewReader(sampleNetrc))
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
		// A machine in Unicode matches its A-labels, and the other way.
		{"xn--bcher-kva.example", "", "bea", "b1", true},
		{"straße.example", "", "sam", "s1", true},
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
		if _, err := Parse(strings.NewReader(bad)); err == nil {
			t.Errorf("Parse(%q) accepted it", bad)
		}
	}
}

// FuzzParse: a netrc file is read from the user's disk but may come
// from anywhere; parsing it never panics, and every entry it yields has
// the values the tokens gave.
func FuzzParse(f *testing.F) {
	f.Add(sampleNetrc)
	f.Add("machine h login u password p\n")
	f.Add("default\nmacdef x\nline\n\nmachine \"q\\\"x\" login a")
	f.Add("machine")
	f.Fuzz(func(t *testing.T, s string) {
		n, err := Parse(strings.NewReader(s))
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
