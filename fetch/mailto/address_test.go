package mailto

import (
	"errors"
	"strings"
	"testing"
)

func TestCheckAddrSpec(t *testing.T) {
	for _, addr := range []string{
		"a@b",
		"urlfetch@localhost",
		"a%b@host.dom", // RFC 1738 section 3.5: mailto:a%25b@host.dom
		"first.last@example.org",
		"!#$%&'*+-/=?^_`{|}~@example.org",
		`"a b"@example.org`,
		`"a\"b"@example.org`,
		`"a@b,c"@example.org`,
		`"a..b"@example.org`,
		"user@[127.0.0.1]",
		"user@[IPv6:2001:db8::1]",
		"jöran@bücher.example", // RFC 6532
		strings.Repeat("a", 64) + "@example.org",
	} {
		if err := CheckAddrSpec(addr); err != nil {
			t.Errorf("CheckAddrSpec(%q) = %v, want nil", addr, err)
		}
	}
	for _, tc := range []struct{ addr, reason string }{
		{"", `no "@"`},
		{"plain", `no "@"`},
		{"@example.org", `nothing before the "@"`},
		{"a@", `nothing after the "@"`},
		{".a@x", `local part starts with "."`},
		{"a.@x", `local part ends with "."`},
		{"a..b@x", `local part has ".."`},
		{"a b@x", `local part has ' '`},
		{"a@b@x", `local part has '@'`},
		{"<a@x>", `local part has '<'`},
		{"a@x>", `domain has '>'`},
		{"a@x..y", `domain has ".."`},
		{"a@x.", `domain ends with "."`},
		{"a@x y", `domain has ' '`},
		{"a,b@x", `local part has ','`},
		{`"a@x`, "unterminated quoted local part"},
		{`"a"b"@x`, `unescaped '"'`},
		{`"a` + "\x01" + `"@x`, "control character"},
		{`"a\`, `no "@"`},
		{`"a\"@x`, `bad "\" in the quoted local part`},
		{"a@[x", "bad domain literal"},
		{"a@[]", "bad domain literal"},
		{"a@[x y]", "domain literal has ' '"},
		{"a\xff@x", "not valid UTF-8"},
		{strings.Repeat("a", 65) + "@x", "local part longer than 64 bytes"},
		{"a@" + strings.Repeat("b.", 126) + "b", "longer than 254 bytes"},
	} {
		err := CheckAddrSpec(tc.addr)
		var ae *AddressError
		if !errors.As(err, &ae) || ae.Addr != tc.addr || !strings.Contains(ae.Reason, tc.reason) {
			t.Errorf("CheckAddrSpec(%q) = %v, want an *AddressError saying %q", tc.addr, err, tc.reason)
		}
	}
}

func TestParseFrom(t *testing.T) {
	for _, tc := range []struct{ in, name, addr string }{
		{"ann@example.org", "", "ann@example.org"},
		{"Ann <ann@example.org>", "Ann", "ann@example.org"},
		{`"Smith, Ann" <ann@example.org>`, "Smith, Ann", "ann@example.org"},
		{"=?utf-8?q?J=C3=B6ran?= <j@example.org>", "Jöran", "j@example.org"},
		{"a%b@example.org", "", "a%b@example.org"},
	} {
		a, err := ParseFrom(tc.in)
		if err != nil || a.Name != tc.name || a.Address != tc.addr {
			t.Errorf("ParseFrom(%q) = %v, %v; want name %q, address %q", tc.in, a, err, tc.name, tc.addr)
		}
	}
	for _, in := range []string{"", "not an address", "Ann <a..b@example.org>", "Ann <ann@example.org", "ann@@example.org"} {
		if a, err := ParseFrom(in); err == nil {
			t.Errorf("ParseFrom(%q) = %v, nil; want an error", in, a)
		}
	}
}
