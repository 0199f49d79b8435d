package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// Issue 25, point 1: fetch parse --strict prints every departure from
// RFC 1738 and exits 3 if there is one.
func TestParseStrict(t *testing.T) {
	const raw = "http://a_b.example:/~x?a/b#frag"
	r := fetchCmd(t, "", "", "parse", "--strict", raw)
	wantOut := "offset 8: RFC 1738 section 3.1: '_' in a host name, whose labels hold letters, digits and \"-\" (RFC 1034 section 3.5); fix: use the host's name in those characters\n" +
		"offset 18: RFC 1738 section 5: a \":\" without a port (port = digits); fix: remove the \":\"\n" +
		"offset 20: RFC 1738 section 2.2: unsafe character '~' (gateways may change it); fix: encode it as %7E\n" +
		"offset 24: RFC 1738 section 3.3: '/' is reserved and has no place in an http search; fix: encode it as %2F\n"
	if r.code != exitURL || r.stdout != wantOut || r.stderr != "fetch: "+raw+": 4 departures from RFC 1738\n" {
		t.Errorf("fetch parse --strict %s = %d\n%s%s\nwant %d\n%s", raw, r.code, r.stdout, r.stderr, exitURL, wantOut)
	}

	// Clean: nothing, exit 0; the option after the URL too.
	for _, args := range [][]string{{"parse", "--strict", "ftp://ftp.example.org/pub/%7Euser/;type=d"}, {"parse", "news:comp.lang.go", "--strict"}} {
		if r := fetchCmd(t, "", "", args...); r.code != 0 || r.stdout != "" || r.stderr != "" {
			t.Errorf("fetch %q = %d %q %q, want 0 and nothing", args, r.code, r.stdout, r.stderr)
		}
	}

	// --json: one object; the password is shown nowhere.
	r = fetchCmd(t, "", "", "parse", "--strict", "--json", "ftp://joe:s3cr~t-pw@h/~x")
	var got struct {
		URL        string
		Departures []struct {
			Offset             int
			Section, Rule, Fix string
		}
	}
	if err := json.Unmarshal([]byte(r.stdout), &got); err != nil || r.code != exitURL {
		t.Fatalf("fetch parse --strict --json = %d %q %q: %v", r.code, r.stdout, r.stderr, err)
	}
	if got.URL != "ftp://joe:***@h/~x" || len(got.Departures) != 2 || got.Departures[0].Offset != 14 || got.Departures[1].Offset != 22 || got.Departures[1].Fix != "encode it as %7E" {
		t.Errorf("fetch parse --strict --json = %+v", got)
	}
	if strings.Contains(r.stdout+r.stderr, "s3cr") {
		t.Errorf("the password shows: %q %q", r.stdout, r.stderr)
	}
	if r = fetchCmd(t, "", "", "parse", "--strict", "--json", "http://h/"); r.code != 0 || r.stdout != "{\"url\":\"http://h/\",\"departures\":[]}\n" {
		t.Errorf("fetch parse --strict --json of a clean URL = %d %q %q", r.code, r.stdout, r.stderr)
	}
}
