package fetch

import (
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"
)

// The one format of the listings drivers build: what AppendEntry writes,
// ParseEntries reads back, whatever the name, URL or title hold.
func TestEntriesRoundTrip(t *testing.T) {
	want := []Entry{
		{Name: "a b\nc\t\"d\" <e> 100%", URL: "file:///a%20b%0Ac", Type: EntryFile, Size: 3, Time: time.Date(2024, 5, 1, 12, 0, 0, 250, time.UTC), Media: "text/plain"},
		{Name: "d", URL: "ftp://h/d/", Type: EntryDir, Size: -1},
		{Name: "l", Type: EntryLink, Size: -1, Title: "l -> ../x", Target: "../x"},
		{Name: "g", URL: "gopher://h/Ig", Type: EntryFile, Size: -1, Item: "I"},
		{Name: "hit", URL: "wais://h/db/TEXT/x", Type: EntryFile, Size: -1, Attrs: map[string]string{"score": "614", "source": "db"}},
		{Name: "", Type: EntryInfo, Size: 0},
	}
	var b []byte
	for _, e := range want {
		b = AppendEntry(b, e)
	}
	if n := strings.Count(string(b), "\n"); n != len(want) || !strings.Contains(string(b), `"title":"l -> ../x","target":"../x"`) || !strings.Contains(string(b), `"item":"I"`) {
		t.Errorf("AppendEntry wrote %d lines: %s", n, b)
	}
	var got []Entry
	for e, err := range ParseEntries(strings.NewReader(string(b))) {
		if err != nil {
			t.Fatalf("ParseEntries: %v", err)
		}
		got = append(got, e)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("ParseEntries(AppendEntry(...)) =\n%+v\nwant\n%+v", got, want)
	}
	// A bad line is an ErrProtocol error naming it; the listing goes on.
	var errs []error
	n := 0
	for _, err := range ParseEntries(strings.NewReader("not json\n" + string(AppendEntry(nil, want[1])) + `{"type":"blob"}` + "\n")) {
		if err != nil {
			errs = append(errs, err)
			continue
		}
		n++
	}
	if n != 1 || len(errs) != 2 || !errors.Is(errs[0], ErrProtocol) || !strings.Contains(errs[1].Error(), "line 3") {
		t.Errorf("ParseEntries of bad lines: %d entries, errors %v; want 1 and two ErrProtocol errors naming lines 1 and 3", n, errs)
	}
}
