package uri

import "testing"

// Issue 25, point 2: equivalence per scheme. Each row is a pair Equal
// must find equal, or, with want false, must keep apart: a character a
// scheme reserves means something else encoded.
func TestEqualPerScheme(t *testing.T) {
	tests := []struct {
		a, b string
		want bool
	}{
		// Every scheme: host case, default and empty port, escape case,
		// an IRI and its URI (RFC 3987 section 5.3), unsafe characters.
		{"http://bücher.example/straße", "http://xn--bcher-kva.example/stra%c3%9fe", true},
		{"http://b%C3%BCcher.example/", "http://BÜCHER.example:80/", true},
		{"http://[::1]:8080/", "http://[0:0:0:0:0:0:0:1]:8080/", true},
		{"http://h:0080/", "http://h/", true},
		{"http://h/{a}", "http://h/%7Ba%7D", true},
		{"http://h/~a", "http://h/%7Ea", true},
		{"http://h/a#%7Eb", "http://h/a#~b", true},
		{"http://h/a#b", "http://h/a", false},
		{"http://h/a#%2F", "http://h/a#/", false},
		{"http://h.example./", "http://h.example/", false},

		// ftp (section 3.2.2): "/" and ";" are reserved in the path.
		{"ftp://h/a%2Fb", "ftp://h/a/b", false},
		{"ftp://h/a%3Bb", "ftp://h/a;b", true}, // ";" is data in a directory
		{"ftp://h/a%3Btype=a", "ftp://h/a;type=a", false},
		{"ftp://h/%7Euser/f%3F%40%3D", "ftp://h/~user/f?@=", true},
		{"ftp://h/f;type=A", "ftp://h/f;type=a", true},
		{"ftp://h", "ftp://h/", true},
		{"ftp://h:21/a", "ftp://h/a", true},
		{"ftp://u%3Ax@h/", "ftp://u:x@h/", false},
		{"ftp://@h/", "ftp://h/", false}, // section 3.1: an empty user is not none
		{"ftp://foo:@h/", "ftp://foo@h/", false},
		{"ftps://h:990/a", "ftps://h/a", true},
		{"ftp://h/a", "ftps://h/a", false},

		// http (section 3.3): "/", ";" and "?" reserved; in the search
		// "+", "&" and "=" too.
		{"http://h", "http://h/", true},
		{"http://h/a%3Fb", "http://h/a?b", false},
		{"http://h/a%3Bb", "http://h/a;b", false},
		{"http://h/a%2Fb", "http://h/a/b", false},
		{"http://h/a%3Ab%40c%26d%3De", "http://h/a:b@c&d=e", true},
		{"http://h/?q=a%2Bb", "http://h/?q=a+b", false},
		{"http://h/?q=a%26b", "http://h/?q=a&b", false},
		{"http://h/?q=a%3Db", "http://h/?q=a=b", false},
		{"http://h/?q=%3A%40%24%21", "http://h/?q=:@$!", true},
		{"http://h/?", "http://h/", false},
		{"https://h:443/", "https://h/", true},
		{"https://h/", "http://h/", false},

		// gopher (section 3.4): nothing reserved but the %09 separators.
		{"gopher://host", "gopher://host/", true},
		{"gopher://host/", "gopher://host/1", true},
		{"gopher://host:70/%31", "gopher://host", true},
		{"gopher://host/1x", "gopher://host/", false},
		{"gopher://host/0", "gopher://host/", false},
		{"gopher://h/1a%2Fb", "gopher://h/1a/b", true},
		{"gopher://h/0a%3Fb%3Bc%40d%3De%26f%3Ag", "gopher://h/0a?b;c@d=e&f:g", true},
		{"gopher://h/%30a", "gopher://h/0a", true},
		{"gopher://h/7s%09a%20b", "gopher://h/7s%09a%20b", true},
		{"gopher://h/7s%09a", "gopher://h/7s%2509a", false},
		{"gopher://h/7s%09a", "gopher://h/7s", false},

		// mailto (section 3.5): nothing reserved in the address.
		{"mailto:joe%40example.org", "mailto:joe@example.org", true},
		{"mailto:j%6Fe@example.org", "mailto:joe@example.org", true},
		{"mailto:joe@example.org?to=ann@example.org", "mailto:joe@example.org,ann@example.org", true},
		{"mailto:a%2Cb@example.org", "mailto:a,b@example.org", false}, // RFC 6068: "," separates
		{"mailto:a%3Fb@example.org", "mailto:a?b@example.org", false},
		{"mailto:Joe@example.org", "mailto:joe@example.org", false},
		{"mailto:jöran@bücher.example", "mailto:j%C3%B6ran@b%C3%BCcher.example", true},

		// news (section 3.6): nothing reserved.
		{"news:a%40b.example", "news:a@b.example", true},
		{"news:%3Ca@b.example%3E", "news:a@b.example", true},
		{"news:comp.lang%2Ego", "news:comp.lang.go", true},
		{"news:comp.lang.go", "news:comp.lang.Go", false},
		{"news:*", "news:%2A", true},
		{"news:x", "snews:x", false},

		// nntp (section 3.7): "/" between group and article.
		{"nntp://h/comp.lang.go/007", "nntp://h/comp.lang.go/7", true},
		{"nntp://h:119/comp.lang.go/", "nntp://h/comp.lang.go", true},
		{"nntp://h/comp%2Flang/7", "nntp://h/comp/lang/7", false},
		{"nntps://h:563/g/1", "nntps://h/g/1", true},

		// telnet (section 3.8).
		{"telnet://host", "telnet://host/", true},
		{"telnet://u:p@host:23", "telnet://u:p@host/", true},
		{"telnet://host:2323", "telnet://host/", false},
		{"rlogin://u@h", "rlogin://u@h/", true},

		// wais (section 3.9).
		{"wais://h/db?two%20words", "wais://h/db?two+words", true},
		{"wais://h/db?a%2Bb", "wais://h/db?a+b", false},
		{"wais://h/db/TEXT/a%2Fb", "wais://h/db/TEXT/a/b", true}, // a wpath is opaque
		{"wais://h/d%2Fb", "wais://h/d/b", false},
		{"wais://h:210/db", "wais://h/db", true},

		// file (section 3.10).
		{"file:///etc/motd", "file://localhost/etc/motd", true},
		{"file:/etc/motd", "file:///etc/motd", true},
		{"file://LocalHost/etc/motd", "file:///etc/motd", true},
		{"file:///a%2Fb", "file:///a/b", false},
		{"file:///a%3Bb", "file:///a;b", false},
		{"file:///a%3Fb%40c", "file:///a?b@c", true},
		{"file://host/etc/motd", "file:///etc/motd", false},

		// prospero (section 3.11).
		{"prospero://h//pros/name;OBJECT-VERSION=3", "prospero://h:1525//pros/name;OBJECT-VERSION=3", true},
		{"prospero://h/a%2Fb", "prospero://h/a/b", true}, // "/" may appear unquoted
		{"prospero://h/a%3Bb", "prospero://h/a;b=c", false},
		{"prospero://h/n;f=a%3Db", "prospero://h/n;f=a=b", true}, // the first "=" splits
		{"prospero://h/n;f%3Dx=1", "prospero://h/n;f=x=1", false},

		// Other schemes: RFC 3986's unreserved only.
		{"x-new://h/%41%2D", "x-new://h/A-", true},
		{"x-new://h/a%3Ab", "x-new://h/a:b", false},
		{"x-new://h/a%2Bb", "x-new://h/a+b", false},
		{"urn:isbn:0451450523", "URN:isbn:0451450523", true},

		// Views that refuse the URL: compared as another scheme's.
		{"nntp://h/", "nntp://h/", true},
		{"telnet://h/x%41", "telnet://h/xA", true},
		{"http://h/a%zz", "http://h/a%zz", false},
	}
	for _, tt := range tests {
		if got := Equal(tt.a, tt.b); got != tt.want {
			t.Errorf("Equal(%q, %q) = %v, want %v (Normalize: %v, %v)", tt.a, tt.b, got, tt.want, normal(tt.a), normal(tt.b))
		}
		if got := Equal(tt.b, tt.a); got != tt.want {
			t.Errorf("Equal(%q, %q) = %v, want %v", tt.b, tt.a, got, tt.want)
		}
		for _, s := range []string{tt.a, tt.b} {
			checkNormal(t, s)
		}
	}
}

func TestNormalize(t *testing.T) {
	tests := []struct{ in, want string }{
		{"HTTP://B%C3%BCcher.Example:80/a%7e%2f{x}?q=%41%2b#%7E", "http://xn--bcher-kva.example/a~%2F%7Bx%7D?q=A%2B#~"},
		{"gopher://Host:70", "gopher://host/"},
		{"gopher://h/1", "gopher://h/"},
		{"gopher://h/0a%2Fb%3F{", "gopher://h/0a/b?%7B"},
		{"telnet://h", "telnet://h/"},
		{"file://localhost/etc/motd", "file:///etc/motd"},
		{"file:/etc/motd", "file:///etc/motd"},
		{"mailto:joe%40example.org?Subject=hi", "mailto:joe@example.org?Subject=hi"},
		{"news:%3C1234@h.example%3E", "news:1234@h.example"},
		{"nntp://h/g/0042", "nntp://h/g/42"},
		{"ftp://h", "ftp://h/"},
		{"ftp://h/a;type=I", "ftp://h/a;type=i"},
		{"wais://h/db?a%20b", "wais://h/db?a+b"},
		{"http://[2001:DB8::0:1]/", "http://[2001:db8::1]/"},
	}
	for _, tt := range tests {
		if got := normal(tt.in); got != tt.want {
			t.Errorf("Parse(%q).Normalize() = %q, want %q", tt.in, got, tt.want)
		}
		checkNormal(t, tt.in)
	}
}

func normal(s string) string {
	u, err := Parse(s)
	if err != nil {
		return "invalid: " + err.Error()
	}
	return u.Normalize().String()
}

// checkNormal checks what holds for every URL Parse accepts (issue 25,
// point 4; FuzzNormalize): its Normalize form parses, normalizing it
// again changes nothing, and it is Equal to the URL.
func checkNormal(t *testing.T, s string) {
	t.Helper()
	u, err := Parse(s)
	if err != nil {
		return
	}
	n := u.Normalize().String()
	v, err := Parse(n)
	if err != nil {
		t.Fatalf("Parse(%q).Normalize() = %q, which does not parse: %v", s, n, err)
	}
	if nn := v.Normalize().String(); nn != n {
		t.Fatalf("Parse(%q).Normalize() = %q, normalized again %q", s, n, nn)
	}
	if !Equal(s, n) {
		t.Fatalf("Parse(%q).Normalize() = %q, not Equal to it", s, n)
	}
}
