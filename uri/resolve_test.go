package uri

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
)

// resolveCase is one example: Resolve(base, ref) must give want.
type resolveCase struct {
	base, ref, want string
}

// rfc3986Rows is the number of examples in RFC 3986 sections 5.4.1 (23)
// and 5.4.2 (19), all of which testdata/resolve.txt must hold.
const rfc3986Rows = 23 + 19

// readResolveCases reads testdata/resolve.txt: "base ref result" a line,
// "" for the empty string, "#" comment lines.
func readResolveCases(tb testing.TB) []resolveCase {
	tb.Helper()
	f, err := os.Open("testdata/resolve.txt")
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	var cases []resolveCase
	sc := bufio.NewScanner(f)
	for line := 1; sc.Scan(); line++ {
		text := strings.TrimSpace(sc.Text())
		if text == "" || text[0] == '#' {
			continue
		}
		fields := strings.Fields(text)
		if len(fields) != 3 {
			tb.Fatalf("testdata/resolve.txt:%d: %d fields, want 3: %q", line, len(fields), text)
		}
		for i, s := range fields {
			if s == `""` {
				fields[i] = ""
			}
		}
		cases = append(cases, resolveCase{fields[0], fields[1], fields[2]})
	}
	if err := sc.Err(); err != nil {
		tb.Fatal(err)
	}
	if len(cases) != rfc3986Rows {
		tb.Fatalf("testdata/resolve.txt holds %d examples, want %d", len(cases), rfc3986Rows)
	}
	return cases
}

func checkResolve(t *testing.T, cases []resolveCase) {
	t.Helper()
	for _, c := range cases {
		got, err := Resolve(c.base, c.ref)
		if err != nil {
			t.Errorf("Resolve(%q, %q) error: %v", c.base, c.ref, err)
			continue
		}
		if got != c.want {
			t.Errorf("Resolve(%q, %q) = %q, want %q", c.base, c.ref, got, c.want)
		}
	}
}

// TestResolveRFC3986 checks every example of RFC 3986 section 5.4.
func TestResolveRFC3986(t *testing.T) {
	checkResolve(t, readResolveCases(t))
}

// TestResolveRFC1630 checks the examples of RFC 1630 ("Partial form"),
// verbatim, in both of its contexts.
func TestResolveRFC1630(t *testing.T) {
	checkResolve(t, []resolveCase{
		// In the context of URI magic://a/b/c//d/e/f
		{"magic://a/b/c//d/e/f", "g", "magic://a/b/c//d/e/g"},
		{"magic://a/b/c//d/e/f", "/g", "magic://a/g"},
		{"magic://a/b/c//d/e/f", "//g", "magic://g"},
		{"magic://a/b/c//d/e/f", "../g", "magic://a/b/c//d/g"},
		{"magic://a/b/c//d/e/f", "g:h", "g:h"},
		// and in the context of the URI magic://a/b/c//d/e/
		{"magic://a/b/c//d/e/", "g", "magic://a/b/c//d/e/g"},
		{"magic://a/b/c//d/e/", "/g", "magic://a/g"},
		{"magic://a/b/c//d/e/", "//g", "magic://g"},
		{"magic://a/b/c//d/e/", "../g", "magic://a/b/c//d/g"},
		{"magic://a/b/c//d/e/", "g:h", "g:h"},
	})
}

func TestResolveFragments(t *testing.T) {
	checkResolve(t, []resolveCase{
		// The ref's fragment is kept, the base's never.
		{"http://a/b/c/d;p?q", "#s", "http://a/b/c/d;p?q#s"},
		{"http://a/b/c/d;p?q#f", "#s", "http://a/b/c/d;p?q#s"},
		{"http://a/b/c/d;p?q#f", "g", "http://a/b/c/g"},
		{"http://a/b/c/d;p?q#f", "?y", "http://a/b/c/d;p?y"},
		{"http://a/b/c/d;p?q#f", "#", "http://a/b/c/d;p?q#"},
		// A ref with another scheme is returned unchanged.
		{"http://a/b/c/d;p?q#f", "mailto:x@y", "mailto:x@y"},
		{"http://a/b/c/d;p?q", "ftp://h/p#s", "ftp://h/p#s"},
		// An empty ref gives the base without its fragment.
		{"http://a/b/c/d;p?q#f", "", "http://a/b/c/d;p?q"},
		{"http://a/b/c/d;p?q#", "", "http://a/b/c/d;p?q"},
		{"http://a/b/c/d;p?q", "", "http://a/b/c/d;p?q"},
	})
}

// TestResolveEdges checks corners of RFC 3986 §5.2 the examples miss.
func TestResolveEdges(t *testing.T) {
	checkResolve(t, []resolveCase{
		// §5.2.3: a base with an authority and an empty path merges as "/".
		{"http://a", "g", "http://a/g"},
		{"http://a", "../g", "http://a/g"},
		{"http://a?q", "", "http://a?q"},
		{"file:///x/y", "z", "file:///x/z"},
		// §5.3: a defined but empty query or authority is kept.
		{"http://a/b/c/d;p?q", "?", "http://a/b/c/d;p?"},
		{"http://a/b/c/d;p?q", "g?", "http://a/b/c/g?"},
		{"http://a/b/c/d;p?q", "///g", "http:///g"},
		// A base path without "/" (no authority) merges as nothing.
		{"mailto:x@y", "z", "mailto:z"},
		{"news:comp.lang", "g/./h", "news:g/h"},
		// §5.2.2: the base path is not cleaned for an empty ref path ...
		{"http://a/b/../c", "?y", "http://a/b/../c?y"},
		{"http://a/b/../c", "", "http://a/b/../c"},
		// ... but the path of a ref with a scheme or authority is.
		{"http://a/b", "http://x/p/../q/./r", "http://x/q/r"},
		{"http://a/b", "//x/./p/..", "http://x/"},
		{"http://a/b", "g:.", "g:"},
		// §5.2.4: more ".." than segments; empty segments are segments.
		{"http://a/b/c/d", "../../../../../g/..", "http://a/"},
		{"http://a/b//c/d", "../../g", "http://a/b/g"},
		{"http://a/b/c/d", "g//./..//h", "http://a/b/c/g//h"},
		// Strict mode: the base's own scheme does not make ref relative.
		{"http://a/b/c/d;p?q", "http:g/./h", "http:g/h"},
		// §5.2.4 C on a path without a leading "/": removing "g" leaves
		// the "/" of "/h", so "g/../h" becomes "/h", not "h". Resolve
		// follows the RFC to the letter.
		{"http://a/b/c/d;p?q", "http:g/../h", "http:/h"},
		{"mailto:x@y", "g/../h", "mailto:/h"},
		// A path that begins with "//" once cleaned recomposes as an
		// authority. RFC 3986 §5.2.4 and §5.3 say no more; Resolve
		// follows them to the letter.
		{"foo:/a", "..//g", "foo://g"},
		// A long result, past the stack buffer of recompose.
		{"http://a/" + strings.Repeat("b/", 100) + "c", "../d", "http://a/" + strings.Repeat("b/", 99) + "d"},
	})
}

func TestResolveErrors(t *testing.T) {
	for _, base := range []string{"", "/b/c", "//a/b", "b/c", ":b", "?q:r", "#f:g"} {
		got, err := Resolve(base, "g")
		var e *Error
		if !errors.As(err, &e) {
			t.Errorf("Resolve(%q, %q) = %q, %v, want *Error", base, "g", got, err)
			continue
		}
		if got != "" || e.Input != base || e.Offset != -1 || !strings.Contains(e.Reason, "scheme") {
			t.Errorf("Resolve(%q, %q) = %q, %#v, want \"\", &Error{Input: %q, Offset: -1, Reason: about the scheme}",
				base, "g", got, e, base)
		}
	}
}

// TestResolveAllocs checks that Resolve makes at most the one allocation
// of the result string, and none when it returns ref or base itself.
func TestResolveAllocs(t *testing.T) {
	if testing.Short() || raceEnabled {
		t.Skip("allocation counts differ under -race")
	}
	for _, c := range readResolveCases(t) {
		want := 1.0
		if c.want == c.ref || c.want == c.base {
			want = 0
		}
		n := testing.AllocsPerRun(100, func() { resolveSink, _ = Resolve(c.base, c.ref) })
		if n > want {
			t.Errorf("Resolve(%q, %q) allocates %v times, want at most %v", c.base, c.ref, n, want)
		}
	}
}

// resolveSink keeps the benchmark's results alive.
var resolveSink string

// BenchmarkResolve resolves all the RFC 3986 section 5.4 examples in one
// op, so that allocs/op is exact (39: one result string each, none for
// the three results that are ref or base itself); ns/resolve is the time
// of one Resolve.
func BenchmarkResolve(b *testing.B) {
	cases := readResolveCases(b)
	b.ReportAllocs()
	ops := 0
	for b.Loop() {
		for _, c := range cases {
			got, err := Resolve(c.base, c.ref)
			if err != nil {
				b.Fatal(err)
			}
			resolveSink = got
		}
		ops++
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(ops*len(cases)), "ns/resolve")
}

func ExampleResolve() {
	base := "http://a/b/c/d;p?q#f"
	for _, ref := range []string{"g", "../g", "//g", "?y", "#s", "", "g:h"} {
		target, err := Resolve(base, ref)
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("%-5q %s\n", ref, target)
	}

	_, err := Resolve("/b/c", "g")
	fmt.Println(err)
	// Output:
	// "g"   http://a/b/c/g
	// "../g" http://a/b/g
	// "//g" http://g
	// "?y"  http://a/b/c/d;p?y
	// "#s"  http://a/b/c/d;p?q#s
	// ""    http://a/b/c/d;p?q
	// "g:h" g:h
	// uri: "/b/c": base is not an absolute URL: missing scheme (a URL begins with a name such as "http:")
}
