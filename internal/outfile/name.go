package outfile

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// maxTempPrefix bounds the part of the output's name that a temporary
// file's name repeats, so that ".NAME.part-123456789" fits in a file name
// however long NAME is.
const maxTempPrefix = 200

// tempNames calls try with temporary names for the output file base, in
// its directory, until try reports the name was free (or fails).
func tempNames(base string, try func(name string) (free bool, err error)) error {
	prefix := "." + CutName(base, maxTempPrefix) + ".part-"
	for range 100 {
		free, err := try(prefix + strconv.FormatUint(uint64(rand.Uint32()), 10))
		if free || err != nil {
			return err
		}
	}
	return fmt.Errorf("no free temporary name %s*", prefix)
}

// MaxNameBytes is the longest file name written: most file systems take
// 255 bytes.
const MaxNameBytes = 255

// maxExtBytes is the longest extension a shortened name keeps.
const maxExtBytes = 16

// SanitizeName makes s safe as a file name in the current directory: C0
// and C1 control characters, the bidirectional overrides and isolates
// that make a terminal show a name other than it is, bytes that are not
// UTF-8 and path separators become "_"; leading dots go (no ".", ".." or
// hidden file); nothing left is "index"; and a name over MaxNameBytes is
// shortened by ShortenName.
func SanitizeName(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == utf8.RuneError, unicode.IsControl(r), unicode.Is(unicode.Bidi_Control, r), r == '/', r == '\\':
			b.WriteByte('_')
		default:
			b.WriteRune(r)
		}
	}
	name := strings.TrimLeft(b.String(), ".")
	if name == "" {
		name = "index"
	}
	return ShortenName(name, MaxNameBytes)
}

// ShortenName fits name into max bytes: it keeps the extension (from the
// first "." of the last maxExtBytes bytes, so ".tar.gz" stays whole) and
// as much of the start as fits, joined by "~" and 12 hex digits of the
// SHA-256 of the whole name, so that long names that differ only past the
// cut do not overwrite each other.
func ShortenName(name string, max int) string {
	if len(name) <= max {
		return name
	}
	ext := ""
	for i := len(name) - 1; i > 0 && len(name)-i <= maxExtBytes; i-- {
		if name[i] == '.' {
			ext = name[i:]
		}
	}
	sum := sha256.Sum256([]byte(name))
	tag := "~" + hex.EncodeToString(sum[:6])
	return CutName(name[:len(name)-len(ext)], max-len(tag)-len(ext)) + tag + ext
}

// CutName cuts s to at most n bytes at a rune boundary.
func CutName(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// SafeJoin joins dir and name, refusing a result outside dir.
func SafeJoin(dir, name string) (string, error) {
	if name != filepath.Base(name) || name == "." || name == ".." {
		return "", fmt.Errorf("refusing output name %q: not a plain file name", name)
	}
	return filepath.Join(dir, name), nil
}
