package records

import (
	"bytes"
	"encoding/json"
	"errors"
	"testing"

	"github.com/urlfetch/urlfetch/fetch"
)

func TestEscapeJSONControls(t *testing.T) {
	var b bytes.Buffer
	Write(&b, map[string]string{"n": "a\x1b\u009b\u202e\x7fb"})
	want := `{"n":"a\u001b\u009b\u202e\u007fb"}` + "\n"
	if b.String() != want {
		t.Errorf("Write = %q, want %q", b.String(), want)
	}
	var m map[string]string
	if err := json.Unmarshal(b.Bytes(), &m); err != nil || m["n"] != "a\x1b\u009b\u202e\x7fb" {
		t.Errorf("read back: %q, %v", m["n"], err)
	}
}

// Each class of error has its exit code and its name, as the schema
// lists them; an error of no class is "other", exit 1.
func TestClass(t *testing.T) {
	tests := []struct {
		err  error
		code int
		name string
	}{
		{fetch.Errorf(fetch.ErrNotFound, "gone"), ExitNotFound, "not_found"},
		{&fetch.Error{Op: "fetch", URL: "ftp://h/", Err: fetch.Errorf(fetch.ErrUnsafe, "no")}, ExitUnsafe, "unsafe"},
		{errors.New("disk full"), ExitFailure, "other"},
	}
	for _, tt := range tests {
		if got := ExitCode(tt.err); got != tt.code {
			t.Errorf("ExitCode(%v) = %d, want %d", tt.err, got, tt.code)
		}
		if got := Class(tt.err); got != tt.name {
			t.Errorf("Class(%v) = %q, want %q", tt.err, got, tt.name)
		}
	}
}

// ErrorParts names the URL once and drops the driver's name, which the
// URL's scheme says already.
func TestErrorParts(t *testing.T) {
	err := &fetch.Error{Op: "fetch", URL: "gopher://h/0x", Err: fetch.Errorf(fetch.ErrNotFound, "gopher: \"x\": not\r\n  found")}
	url, msg := ErrorParts(err)
	if url != "gopher://h/0x" || msg != `"x": not found` {
		t.Errorf("ErrorParts = %q, %q", url, msg)
	}
}
