package uri

import (
	"strings"
	"testing"
)

func TestParseLenient(t *testing.T) {
	tests := []struct {
		in, want string
		changes  int
	}{
		{"  <URL:ftp://info.cern.ch/pub/www/doc\n   ;type=d>  ", "ftp://info.cern.ch/pub/www/doc;type=d", 1},
		{"http://h/a b/caf\u00e9", "http://h/a%20b/caf%C3%A9", 1},
		{"http://h/100%", "http://h/100%25", 1},
		{"http://h/ok", "http://h/ok", 0},
	}
	for _, tt := range tests {
		u, changes, err := ParseLenient(tt.in)
		if err != nil {
			t.Errorf("ParseLenient(%q) error: %v", tt.in, err)
			continue
		}
		if u.String() != tt.want || (tt.changes == 0) != (len(changes) == 0) {
			t.Errorf("ParseLenient(%q) = %q, %v; want %q with changes: %v", tt.in, u, changes, tt.want, tt.changes > 0)
		}
	}
	if _, _, err := ParseLenient("no scheme here"); err == nil {
		t.Error("ParseLenient accepted text without a scheme")
	}
}

func TestURLResolve(t *testing.T) {
	u := MustParse("magic://a/b/c//d/e/f")
	for ref, want := range map[string]string{"g": "magic://a/b/c//d/e/g", "../g": "magic://a/b/c//d/g", "//g": "magic://g"} {
		got, err := u.Resolve(ref)
		if err != nil || got.String() != want {
			t.Errorf("Resolve(%q) = %v, %v; want %q", ref, got, err, want)
		}
	}
	if _, err := u.Resolve("g h"); err == nil {
		t.Error("Resolve with a space in the reference: no error")
	}
}

// FuzzParseLenient: never a panic; what it accepts is a valid URL whose
// String parses strictly to the same URL.
func FuzzParseLenient(f *testing.F) {
	for _, s := range specURLs {
		f.Add(s)
		f.Add(" <URL:" + strings.ReplaceAll(s, "/", "/\n ") + "> ")
	}
	f.Add("http://h/a b/caf\u00e9%")
	f.Fuzz(func(t *testing.T, s string) {
		u, _, err := ParseLenient(s)
		if err != nil {
			return
		}
		v, err := Parse(u.String())
		if err != nil {
			t.Fatalf("ParseLenient(%q) = %q, which Parse refuses: %v", s, u, err)
		}
		if *v != *u {
			t.Fatalf("ParseLenient(%q): strict reparse differs", s)
		}
	})
}
