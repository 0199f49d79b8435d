package ftp

import (
	"errors"
	"io"
	"slices"
	"testing"
	"time"

	"github.com/urlfetch/urlfetch/fetch"
)

// head asks c for rawURL's metadata (fetch.Request.Head).
func head(t *testing.T, c *fetch.Client, rawURL string) (*fetch.Response, error) {
	t.Helper()
	req, err := c.NewRequest(rawURL)
	if err != nil {
		t.Fatal(err)
	}
	req.Head = true
	resp, err := c.Do(t.Context(), req)
	if err != nil {
		return nil, err
	}
	b, err := io.ReadAll(resp.Body)
	if err != nil || len(b) > 0 {
		t.Errorf("Head(%q) Body = %q, %v; want nothing", rawURL, b, err)
	}
	if err := resp.Body.Close(); err != nil {
		t.Errorf("Head(%q) Body.Close() = %v", rawURL, err)
	}
	return resp, nil
}

// Issue 22, point 2: a Head request is the CWDs, then SIZE and MDTM; a
// name SIZE refuses is tried with CWD. No EPSV, no RETR, no LIST.
func TestHeadCommandSequence(t *testing.T) {
	srv := newFakeServer(t)
	mdtm := time.Date(2024, 1, 2, 3, 4, 5, 0, time.UTC)
	tests := []struct {
		path     string
		want     []string
		kind     fetch.Kind
		length   int64
		modified time.Time
		missing  bool
	}{
		{"/readme.txt", []string{"TYPE I", "SIZE readme.txt", "MDTM readme.txt"}, fetch.Document, 11, mdtm, false},
		{"/empty.txt", []string{"TYPE I", "SIZE empty.txt", "MDTM empty.txt"}, fetch.Document, 0, mdtm, false},
		{"/%2Fetc/motd", []string{"CWD /etc", "TYPE I", "SIZE motd", "MDTM motd"}, fetch.Document, 19, mdtm, false},
		// ASCII mode: the conversion changes the size, as for a fetch.
		{"/pub/lines.txt;type=a", []string{"CWD pub", "TYPE A", "SIZE lines.txt", "MDTM lines.txt"}, fetch.Document, -1, mdtm, false},
		{"/pub/", []string{"CWD pub"}, fetch.Listing, -1, time.Time{}, false},
		{"/", nil, fetch.Listing, -1, time.Time{}, false},
		{"/pub/;type=d", []string{"CWD pub"}, fetch.Listing, -1, time.Time{}, false},
		// A directory named without its "/": SIZE and MDTM refuse it, CWD
		// takes it.
		{"/pub/a", []string{"CWD pub", "TYPE I", "SIZE a", "MDTM a", "CWD a"}, fetch.Listing, -1, time.Time{}, false},
		{"/pub/a;type=d", []string{"CWD pub", "TYPE I", "SIZE a", "MDTM a", "CWD a"}, fetch.Listing, -1, time.Time{}, false},
		{"/readme.txt;type=d", []string{"TYPE I", "SIZE readme.txt", "MDTM readme.txt"}, fetch.Listing, -1, mdtm, false},
		{"/nothing.txt", []string{"TYPE I", "SIZE nothing.txt", "MDTM nothing.txt", "CWD nothing.txt"}, 0, 0, time.Time{}, true},
		{"/nodir/x.txt", []string{"CWD nodir"}, 0, 0, time.Time{}, true},
	}
	for _, tt := range tests {
		c := newClient(t, nil)
		resp, err := head(t, c, srv.URL(tt.path))
		c.Close()
		waitFor(t, func() bool { return slices.Contains(srv.peek(), "QUIT") })
		got := afterLogin(srv.commands())
		got = got[:len(got)-1] // QUIT
		if !slices.Equal(got, tt.want) {
			t.Errorf("Head(%q) sent %q, want %q", tt.path, got, tt.want)
		}
		if tt.missing {
			if !errors.Is(err, fetch.ErrNotFound) {
				t.Errorf("Head(%q) error = %v, want ErrNotFound", tt.path, err)
			}
			continue
		}
		if err != nil {
			t.Errorf("Head(%q) error = %v", tt.path, err)
			continue
		}
		if resp.Kind != tt.kind || resp.Length != tt.length || !resp.Modified.Equal(tt.modified) {
			t.Errorf("Head(%q) = %v, Length %d, Modified %v; want %v, %d, %v", tt.path, resp.Kind, resp.Length, resp.Modified, tt.kind, tt.length, tt.modified)
		}
	}
}

// A Head asks for the time whatever SkipModTime says: it is what a Head
// is for. The connection goes back to the pool clean: the fetch after it
// reuses it.
func TestHeadModTimeAndReuse(t *testing.T) {
	srv := newFakeServer(t)
	c := newClient(t, &Driver{SkipModTime: true})
	resp, err := head(t, c, srv.URL("/readme.txt"))
	if err != nil || resp.Modified.IsZero() || resp.Length != 11 || resp.Type != "text/plain" {
		t.Fatalf("Head = %+v, %v; want Length 11, a time and text/plain", resp, err)
	}
	if cmds := srv.commands(); !slices.Contains(cmds, "MDTM readme.txt") {
		t.Errorf("SkipModTime and Head: sent %q, want an MDTM", cmds)
	}
	if _, body := get(t, c, srv.URL("/pub/lines.txt")); body != "one\ntwo\r\nthree\rfour\n" {
		t.Errorf("the fetch after a Head = %q", body)
	}
	if _, err := head(t, c, srv.URL("/nothing.txt")); !errors.Is(err, fetch.ErrNotFound) {
		t.Errorf("Head of a missing file: %v, want ErrNotFound", err)
	}
	if _, body := get(t, c, srv.URL("/readme.txt")); body != "hello, ftp\n" {
		t.Errorf("the fetch after a missing Head = %q", body)
	}
	if n := srv.connections(); n != 1 {
		t.Errorf("%d control connections for two Heads and two fetches, want 1", n)
	}
}

// What a hostile or broken server answers to SIZE and MDTM: a number no
// file has, a time no calendar has, refusals of every kind. The Head
// still ends with what can be known, and an error only for a name that
// is not there.
func TestHeadReplies_FakeServer(t *testing.T) {
	tests := []struct {
		name       string
		size, mdtm string // whole replies; "" for the fake's own
		noMDTM     bool
		kind       fetch.Kind
		length     int64
		modified   bool
		err        error
	}{
		{"negative size", "213 -5", "", false, fetch.Document, -1, true, nil},
		{"size not a number", "213 xyz", "", false, fetch.Document, -1, true, nil},
		{"size too big", "213 99999999999999999999", "", false, fetch.Document, -1, true, nil},
		{"size with a space", "213  5", "", false, fetch.Document, -1, true, nil},
		{"time no calendar has", "", "213 20241399999999", false, fetch.Document, 11, false, nil},
		{"time not a number", "", "213 yesterday", false, fetch.Document, 11, false, nil},
		{"time with a fraction", "", "213 20240102030405.123", false, fetch.Document, 11, true, nil},
		{"no SIZE, a time", "502 SIZE not implemented.", "", false, fetch.Document, -1, true, nil},
		{"neither SIZE nor MDTM", "502 SIZE not implemented.", "", true, fetch.Document, -1, false, nil},
		{"SIZE 550, no MDTM: not there", "550 No such file.", "", true, 0, 0, false, fetch.ErrNotFound},
		{"SIZE with no code", "hello", "", false, 0, 0, false, fetch.ErrProtocol},
		{"SIZE 213 to a name, MDTM 421", "", "421 Timeout.", false, 0, 0, false, fetch.ErrConnect},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := newFakeServer(t)
			srv.set(func() { srv.sizeReply, srv.mdtmReply, srv.noMDTM = tt.size, tt.mdtm, tt.noMDTM })
			c := newClient(t, nil)
			resp, err := head(t, c, srv.URL("/readme.txt"))
			if tt.err != nil {
				if !errors.Is(err, tt.err) {
					t.Errorf("Head = %v, want %v", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatalf("Head = %v", err)
			}
			if resp.Kind != tt.kind || resp.Length != tt.length || resp.Modified.IsZero() == tt.modified {
				t.Errorf("Head = %v, Length %d, Modified %v; want %v, Length %d, a time: %v", resp.Kind, resp.Length, resp.Modified, tt.kind, tt.length, tt.modified)
			}
			for _, cmd := range srv.commands() {
				if transfers(cmd) {
					t.Errorf("Head sent %q", cmd)
				}
			}
		})
	}
}
