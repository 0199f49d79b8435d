package uri

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
)

func TestClean(t *testing.T) {
	tests := []struct {
		in      string
		want    string
		changes []Change
	}{
		// Surroundings.
		{"  http://x/\t\n", "http://x/", []Change{
			{0, "trimmed leading whitespace"},
			{11, "trimmed trailing whitespace"}}},
		{"<URL:http://x/>", "http://x/", []Change{{0, `removed "<URL:" wrapper`}}},
		{"<url:http://x/>", "http://x/", []Change{{0, `removed "<url:" wrapper`}}},
		{"<http://x/>", "http://x/", []Change{{0, `removed "<" ">" wrapper`}}},
		{`"http://x/"`, "http://x/", []Change{{0, "removed surrounding quotes"}}},
		{"URL:http://x/", "http://x/", []Change{{0, `removed "URL:" prefix`}}},
		{` "<URL: http://x/ >" `, "http://x/", []Change{
			{0, "trimmed leading whitespace"},
			{1, "removed surrounding quotes"},
			{2, `removed "<URL:" wrapper`},
			{7, "trimmed leading whitespace"},
			{17, "trimmed trailing whitespace"},
			{20, "trimmed trailing whitespace"}}},
		{"<>", "", []Change{{0, `removed "<" ">" wrapper`}}},
		{"   ", "", []Change{{0, "trimmed leading whitespace"}}},

		// Line breaks inside a wrapper, as in RFC 1738's appendix.
		{"<URL:ftp://info.cern.ch/pub/www/doc\n   ;type=d>", "ftp://info.cern.ch/pub/www/doc;type=d", []Change{
			{0, `removed "<URL:" wrapper`},
			{35, "removed line break inside wrapper"}}},
		{"<URL:http://ds.internic.net/\r\n   instructions/overview.html#WARNING>", "http://ds.internic.net/instructions/overview.html#WARNING", []Change{
			{0, `removed "<URL:" wrapper`},
			{28, "removed line break inside wrapper"}}},
		{"<URL:http://x/%4\n  1>", "http://x/%41", []Change{
			{0, `removed "<URL:" wrapper`},
			{16, "removed line break inside wrapper"}}},
		{"<http://x/a b>", "http://x/a%20b", []Change{
			{0, `removed "<" ">" wrapper`},
			{11, "encoded space as %20"}}},

		// Bytes that may not stand unencoded.
		{"http://x/my file.txt", "http://x/my%20file.txt", []Change{{11, "encoded space as %20"}}},
		{"http://x/a   b c", "http://x/a%20%20%20b%20c", []Change{
			{10, "encoded 3 spaces as %20"},
			{14, "encoded space as %20"}}},
		{"http://x/caf\u00e9", "http://x/caf%C3%A9", []Change{{12, `encoded 2 non-ASCII bytes "é" as %C3%A9`}}},
		{"http://x/\xff/", "http://x/%FF/", []Change{{9, "encoded non-ASCII byte 0xFF as %FF"}}},
		{"http://x/a\tb\x7f", "http://x/a%09b%7F", []Change{
			{10, "encoded control byte 0x09 as %09"},
			{12, "encoded control byte 0x7F as %7F"}}},
		{"http://x/a\nb", "http://x/a%0Ab", []Change{{10, "encoded control byte 0x0A as %0A"}}},
		{"http://x/\"q\"<a>`", "http://x/%22q%22%3Ca%3E%60", []Change{
			{9, `encoded unsafe character '"' as %22`},
			{11, `encoded unsafe character '"' as %22`},
			{12, `encoded unsafe character '<' as %3C`},
			{14, `encoded unsafe character '>' as %3E`},
			{15, "encoded unsafe character '`' as %60"}}},
		{"<http://x/", "%3Chttp://x/", []Change{{0, `encoded unsafe character '<' as %3C`}}},

		// "%" and "#".
		{"http://x/100%", "http://x/100%25", []Change{{12, `encoded "%" not followed by two hex digits as %25`}}},
		{"http://x/%zz%4%4g%41%e9", "http://x/%25zz%254%254g%41%e9", []Change{
			{9, `encoded "%" not followed by two hex digits as %25`},
			{12, `encoded "%" not followed by two hex digits as %25`},
			{14, `encoded "%" not followed by two hex digits as %25`}}},
		{"<URL:http://x/%4\n  >", "http://x/%254", []Change{
			{0, `removed "<URL:" wrapper`},
			{14, `encoded "%" not followed by two hex digits as %25`},
			{16, "trimmed trailing whitespace"}}},
		{"http://x/a#b#c#", "http://x/a#b%23c%23", []Change{
			{12, `encoded "#" after the fragment's "#" as %23`},
			{14, `encoded "#" after the fragment's "#" as %23`}}},
	}
	for _, tt := range tests {
		got, changes := Clean(tt.in)
		if got != tt.want || !reflect.DeepEqual(changes, tt.changes) {
			t.Errorf("Clean(%q) = %q, %v, want %q, %v", tt.in, got, changes, tt.want, tt.changes)
		}
		checkClean(t, tt.in, got, changes)
	}
}

func TestCleanUnchanged(t *testing.T) {
	for _, s := range []string{
		"",
		"http://x/",
		"ftp://info.cern.ch/pub/www/doc;type=d",
		"http://ds.internic.net/instructions/overview.html#WARNING",
		"mailto:timbl@info.cern.ch",
		"news:comp.infosystems.www",
		"gopher://boombox.micro.umn.edu/11/gopher/gopher_protocol",
		"http://x/a%20b%C3%A9?q=$-_.+!*'(),{}|\\^~[];/?:@&=#frag",
	} {
		got, changes := Clean(s)
		if got != s || changes != nil {
			t.Errorf("Clean(%q) = %q, %v, want %q, nil", s, got, changes, s)
		}
		if n := testing.AllocsPerRun(100, func() { Clean(s) }); n != 0 {
			t.Errorf("Clean(%q) allocates %v times, want 0", s, n)
		}
	}
}

// TestCleanProperty checks the output invariant on random strings made of
// the bytes that need care.
func TestCleanProperty(t *testing.T) {
	pieces := []string{
		"a", "Z", "0", "f", "F", "/", ":", "?", ";", "=", "&", "@", ".", "~",
		" ", "  ", "%", "%4", "%41", "#", "<", ">", `"`, "`", "\\", "'",
		"\t", "\n", "\r\n", "\x00", "\x7f", "\x1b",
		"é", "日本", "\xff", "\xc3",
		"http:", "<URL:", "URL:", "url:",
	}
	r := rand.New(rand.NewPCG(1, 2))
	for n := 0; n < 20000; n++ {
		var b strings.Builder
		for k := r.IntN(12); k >= 0; k-- {
			b.WriteString(pieces[r.IntN(len(pieces))])
		}
		s := b.String()
		got, changes := Clean(s)
		checkClean(t, s, got, changes)
		// What Clean made needs no more encoding.
		if _, again := Clean(got); again != nil {
			for _, c := range again {
				if strings.HasPrefix(c.What, "encoded") {
					t.Errorf("Clean(%q) = %q, which Clean changes again: %v", s, got, again)
					break
				}
			}
		}
	}
}

// checkClean checks what holds for every result of Clean.
func checkClean(t *testing.T, in, out string, changes []Change) {
	t.Helper()
	if (changes == nil) != (out == in) {
		t.Errorf("Clean(%q) = %q, %v: changes must be nil exactly when the output is the input", in, out, changes)
	}
	for i, c := range changes {
		if c.Offset < 0 || c.Offset >= len(in) || i > 0 && c.Offset < changes[i-1].Offset || c.What == "" {
			t.Errorf("Clean(%q) = %q, %v: change %d is out of order or out of range", in, out, changes, i)
			break
		}
	}
	if i, why := cleanViolation(out); i >= 0 {
		t.Errorf("Clean(%q) = %q: at %d: %s", in, out, i, why)
	}
}

// cleanViolation returns the offset of the first byte of s that RFC 1738
// does not allow unencoded, or -1.
func cleanViolation(s string) (int, string) {
	const allowed = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789" +
		"$-_.+!*'(),{}|\\^~[];/?:@&="
	hashes := 0
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '#':
			if hashes++; hashes > 1 {
				return i, `second "#"`
			}
		case c == '%':
			if i+2 >= len(s) || !cleanIsHex(s[i+1]) || !cleanIsHex(s[i+2]) {
				return i, `"%" not followed by two hex digits`
			}
		case strings.IndexByte(allowed, c) < 0:
			return i, fmt.Sprintf("byte %#02x not allowed", c)
		}
	}
	return -1, ""
}

func FuzzClean(f *testing.F) {
	for _, s := range []string{
		" <URL:http://x/a b\n  c%4\n 1#f#g> ",
		`"http://x/caf` + "\u00e9\x00\x7f" + `%zz"`,
		"URL:<http://x/%>",
		"<\"\">",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		out, changes := Clean(s)
		checkClean(t, s, out, changes)
	})
}

func ExampleClean() {
	out, changes := Clean(" <URL:http://www.example.com/caf\u00e9 menu.html\n    #top> ")
	fmt.Println(out)
	for _, c := range changes {
		fmt.Println(c.Offset, c.What)
	}
	// Output:
	// http://www.example.com/caf%C3%A9%20menu.html#top
	// 0 trimmed leading whitespace
	// 1 removed "<URL:" wrapper
	// 32 encoded 2 non-ASCII bytes "é" as %C3%A9
	// 34 encoded space as %20
	// 44 removed line break inside wrapper
	// 54 trimmed trailing whitespace
}
