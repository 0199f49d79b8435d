package fetch

import (
	"strings"
	"testing"
)

// Issue 23, point 3: a secret is masked where it stands as a value, not
// in every word that holds its bytes: a one-character password must not
// show itself (every "e" starred) nor turn the trace into noise.
func TestMaskLine(t *testing.T) {
	tests := []struct {
		line    string
		secrets []string
		want    string
	}{
		{"connecting to 127.0.0.1:21", []string{"e"}, "connecting to 127.0.0.1:21"},
		{"fetch ftp://u:e@host/f: refused", []string{"e"}, "fetch ftp://u:***@host/f: refused"},
		{"PASS e", []string{"e"}, "PASS ***"},
		{"530 login as u with e failed", []string{"e"}, "530 login as u with *** failed"},
		{"'e'", []string{"e"}, "'***'"},
		{"e", []string{"e"}, "***"},
		{"be here, e.", []string{"e"}, "be here, ***."},
		{"2e2 1e 9", []string{"e"}, "2e2 1e 9"},
		{"user=pw1&x=pw12", []string{"pw1"}, "user=***&x=pw12"},
		// A long secret is masked wherever it is.
		{"xyzhunter2hunter2xyz", []string{"hunter2hunter2"}, "xyz***xyz"},
		// A secret whose own ends are no word bytes bounds itself.
		{"a%ZZ/b", []string{"%ZZ"}, "a***/b"},
		{"a%ZZb", []string{"%ZZ"}, "a%ZZb"},
		{"230 logged in, hunter2", []string{"hunter2"}, "230 logged in, ***"},
		{"Grüße", []string{"ü"}, "Grüße"},
		{"AUTH PLAIN dXNlcjpwdw==", nil, "AUTH PLAIN ***"},
		// Issue 26: IMAP's LOGIN and AUTHENTICATE come after a tag.
		{`a2 LOGIN "urlfetch" "imap pass"`, nil, "a2 LOGIN ***"},
		{"a2 login urlfetch {9}", nil, "a2 login ***"},
		{"A9 AUTHENTICATE PLAIN dXNlcjpwdw==", nil, "A9 AUTHENTICATE ***"},
		{"* OK LOGIN completed", nil, "* OK LOGIN completed"},
		{"a3 EXAMINE INBOX", nil, "a3 EXAMINE INBOX"},
	}
	for _, tt := range tests {
		if got := MaskLine(tt.line, tt.secrets); got != tt.want {
			t.Errorf("MaskLine(%q, %q) = %q, want %q", tt.line, tt.secrets, got, tt.want)
		}
	}
}

// FuzzMaskLine: masking never panics, leaves a line without the secret
// as it is, hides every occurrence of a long secret and every one of a
// short secret that stands alone, and keeps the text around them.
func FuzzMaskLine(f *testing.F) {
	f.Add("connecting to 127.0.0.1:21", "e")
	f.Add("ftp://u:e@host/", "e")
	f.Add("xyzhunter2hunter2xyz", "hunter2hunter2")
	f.Add("ee e ee", "e")
	f.Add("a%ZZb%ZZ", "%ZZ")
	f.Fuzz(func(t *testing.T, line, secret string) {
		if secret == "" || strings.Contains(secret, "*") || strings.Contains(line, "*") {
			return // "***" is the mask: the property below could not tell it from the text
		}
		out := maskSecrets(line, []string{secret})
		if !strings.Contains(line, secret) {
			if out != line {
				t.Fatalf("maskSecrets(%q, %q) = %q; want the line as it is", line, secret, out)
			}
			return
		}
		// Unmasking gives the line back: every "***" stands for one
		// occurrence of the secret, nothing else changed.
		if back := strings.ReplaceAll(out, "***", secret); back != line {
			t.Fatalf("maskSecrets(%q, %q) = %q, which does not give the line back (%q)", line, secret, out, back)
		}
		// A long secret shows nowhere; a short one nowhere it stands
		// alone in the line as masked.
		if len(secret) >= maskAnywhereLen && strings.Contains(out, secret) {
			t.Fatalf("maskSecrets(%q, %q) = %q shows a long secret", line, secret, out)
		}
		for i := 0; i+len(secret) <= len(out); i++ {
			if out[i:i+len(secret)] == secret && standsAlone(out, i, i+len(secret), secret) && len(secret) < maskAnywhereLen {
				t.Fatalf("maskSecrets(%q, %q) = %q shows the secret alone at %d", line, secret, out, i)
			}
		}
	})
}
