package waiswire

import (
	"encoding/hex"
	"errors"
	"io"
	"strings"
	"testing"
)

func TestCompressedInt(t *testing.T) {
	// Notes §2.1, and the round trips §8 asks for.
	for _, tc := range []struct {
		v    int
		want string
	}{
		{0, "00"}, {5, "05"}, {127, "7f"}, {128, "8100"}, {150, "8116"}, {229, "8165"},
		{311, "8237"}, {344, "8258"}, {553, "8429"}, {16383, "ff7f"}, {16384, "818000"},
	} {
		got := AppendCInt(nil, tc.v)
		if hex.EncodeToString(got) != tc.want {
			t.Errorf("AppendCInt(%d) = %x, want %s", tc.v, got, tc.want)
		}
		v, n, err := ReadCInt(append(got, 0xee))
		if err != nil || v != tc.v || n != len(got) {
			t.Errorf("ReadCInt(%x) = %d, %d, %v; want %d, %d", got, v, n, err, tc.v, len(got))
		}
	}
	for _, bad := range []string{"", "81", "8181", "8181818101"} {
		b, _ := hex.DecodeString(bad)
		if _, _, err := ReadCInt(b); !errors.Is(err, ErrWAIS) {
			t.Errorf("ReadCInt(%s) error = %v, want a malformed-WAIS error", bad, err)
		}
	}
}

func TestWAISHeaderErrors(t *testing.T) {
	for _, tc := range []struct {
		msg  string
		want error
	}{
		{"", io.EOF},
		{"00000000", io.ErrUnexpectedEOF},
		{"00000000x5z2wais        0", ErrWAIS},
		{"0000000005a2wais        0", ErrWAIS},
		{"0000000005z2wais      u 0", ErrWAIS},
		{"9999999999z2wais        0", ErrWAIS}, // beyond the limit: refused before it is read
		{"0000000005z2wais        0abc", io.ErrUnexpectedEOF},
	} {
		_, err := ReadMessage(strings.NewReader(tc.msg), 1<<20)
		if !errors.Is(err, tc.want) {
			t.Errorf("ReadMessage(%q) error = %v, want %v", tc.msg, err, tc.want)
		}
	}
}
