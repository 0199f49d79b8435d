package ftp

import (
	"strconv"
	"strings"
	"time"

	"github.com/urlfetch/urlfetch/fetch"
)

// The parsers of listing lines. A listing streams line by line, and each
// line is parsed as it comes.

// listLine is what one line of a listing says: a name, and whatever the
// format gives of type, size, time and a link's target. ok is false for a
// line of no format known here (kept as a name-only entry) and skip is
// true for a line that names no entry (ls's "total", MLSD's cdir/pdir).
type listLine struct {
	name   string
	typ    fetch.EntryType
	size   int64
	time   time.Time
	target string
	ok     bool
	skip   bool
}

// parseLIST parses a line of a LIST reply: Unix ls -l, DOS/IIS or EPLF.
func parseLIST(line string, now time.Time) listLine {
	if strings.HasPrefix(line, "total ") && isDigits(line[len("total "):]) {
		return listLine{skip: true}
	}
	if l, ok := parseUnix(line, now); ok {
		return l
	}
	if l, ok := parseDOS(line); ok {
		return l
	}
	if l, ok := parseEPLF(line); ok {
		return l
	}
	return listLine{name: line, typ: fetch.EntryOther, size: -1}
}

// parseUnix parses ls -l: mode, links, owner, [group,] size, the date in
// three fields (month, day, and a time or a year), then the name, which
// runs to the end of the line and may hold spaces; a link's name is
// followed by " -> " and its target.
func parseUnix(line string, now time.Time) (listLine, bool) {
	f := fieldsIndex(line, 10)
	if len(f) < 6 || !isMode(line[f[0][0]:f[0][1]]) {
		return listLine{}, false
	}
	// Find the date: a month name followed by a day and a time or year,
	// after at least mode, links, owner and size.
	for i := 3; i+2 < len(f); i++ {
		month := monthOf(line[f[i][0]:f[i][1]])
		if month == 0 {
			continue
		}
		size, err := strconv.ParseInt(line[f[i-1][0]:f[i-1][1]], 10, 64)
		if err != nil || size < 0 {
			continue
		}
		day, err := strconv.Atoi(line[f[i+1][0]:f[i+1][1]])
		if err != nil || day < 1 || day > 31 {
			continue
		}
		t, ok := unixTime(line[f[i+2][0]:f[i+2][1]], month, day, now)
		if !ok {
			continue
		}
		end := f[i+2][1]
		if end+1 >= len(line) {
			return listLine{}, false // no name
		}
		l := listLine{name: line[end+1:], size: size, time: t, ok: true}
		switch line[f[0][0]] {
		case 'd':
			l.typ, l.size = fetch.EntryDir, -1
		case 'l':
			l.typ = fetch.EntryLink
			if name, target, found := strings.Cut(l.name, " -> "); found {
				l.name, l.target = name, target
			}
		case '-':
			l.typ = fetch.EntryFile
		default: // devices, pipes, sockets
			l.typ, l.size = fetch.EntryOther, -1
		}
		return l, true
	}
	return listLine{}, false
}

// fieldsIndex returns the start and end of the first n space-separated
// fields of s.
func fieldsIndex(s string, n int) [][2]int {
	var f [][2]int
	i := 0
	for len(f) < n {
		for i < len(s) && s[i] == ' ' {
			i++
		}
		if i == len(s) {
			break
		}
		j := i
		for j < len(s) && s[j] != ' ' {
			j++
		}
		f = append(f, [2]int{i, j})
		i = j
	}
	return f
}

// isMode reports whether s looks like ls's mode field: a type letter and
// nine permission letters, perhaps followed by a marker (+, @, .).
func isMode(s string) bool {
	if len(s) < 10 || len(s) > 11 || !strings.ContainsRune("-dlbcpsD", rune(s[0])) {
		return false
	}
	for _, c := range s[1:10] {
		if !strings.ContainsRune("-rwxsStTlL", c) {
			return false
		}
	}
	return true
}

func monthOf(s string) time.Month {
	if len(s) != 3 {
		return 0
	}
	for m := time.January; m <= time.December; m++ {
		if strings.EqualFold(s, m.String()[:3]) {
			return m
		}
	}
	return 0
}

// unixTime reads ls's third date field: "15:04" for a date within the
// last six months (in the year that puts it not after now), else a year.
func unixTime(s string, month time.Month, day int, now time.Time) (time.Time, bool) {
	if h, m, found := strings.Cut(s, ":"); found {
		hour, err1 := strconv.Atoi(h)
		min, err2 := strconv.Atoi(m)
		if err1 != nil || err2 != nil || hour > 23 || min > 59 || hour < 0 || min < 0 {
			return time.Time{}, false
		}
		t := time.Date(now.Year(), month, day, hour, min, 0, 0, time.UTC)
		if t.After(now.AddDate(0, 0, 1)) {
			t = t.AddDate(-1, 0, 0)
		}
		return t, true
	}
	if len(s) != 4 || !isDigits(s) {
		return time.Time{}, false
	}
	year, _ := strconv.Atoi(s)
	return time.Date(year, month, day, 0, 0, 0, 0, time.UTC), true
}

// parseDOS parses the listings of DOS and IIS servers:
//
//	01-16-02  11:14AM       <DIR>          epsgroup
//	06-05-2002  03:47PM                370 readme.txt
func parseDOS(line string) (listLine, bool) {
	f := fieldsIndex(line, 3)
	if len(f) < 3 {
		return listLine{}, false
	}
	date := strings.Split(line[f[0][0]:f[0][1]], "-")
	if len(date) != 3 || len(date[0]) != 2 || len(date[1]) != 2 || (len(date[2]) != 2 && len(date[2]) != 4) {
		return listLine{}, false
	}
	var n [3]int
	for i, s := range date {
		v, err := strconv.Atoi(s)
		if err != nil || v < 0 {
			return listLine{}, false
		}
		n[i] = v
	}
	month, day, year := n[0], n[1], n[2]
	if len(date[2]) == 2 {
		year += 1900
		if year < 1970 {
			year += 100
		}
	}
	if month < 1 || month > 12 || day < 1 || day > 31 {
		return listLine{}, false
	}
	clock := line[f[1][0]:f[1][1]]
	pm := false
	switch {
	case strings.HasSuffix(strings.ToUpper(clock), "AM"):
		clock = clock[:len(clock)-2]
	case strings.HasSuffix(strings.ToUpper(clock), "PM"):
		clock, pm = clock[:len(clock)-2], true
	}
	h, m, found := strings.Cut(clock, ":")
	hour, err1 := strconv.Atoi(h)
	min, err2 := strconv.Atoi(m)
	if !found || err1 != nil || err2 != nil || hour < 0 || hour > 23 || min < 0 || min > 59 {
		return listLine{}, false
	}
	if pm && hour < 12 {
		hour += 12
	} else if !pm && hour == 12 && len(clock) < len(line[f[1][0]:f[1][1]]) {
		hour = 0 // 12:xxAM
	}
	l := listLine{time: time.Date(year, time.Month(month), day, hour, min, 0, 0, time.UTC), ok: true}
	what := line[f[2][0]:f[2][1]]
	if what == "<DIR>" {
		l.typ, l.size = fetch.EntryDir, -1
	} else {
		size, err := strconv.ParseInt(what, 10, 64)
		if err != nil || size < 0 {
			return listLine{}, false
		}
		l.typ, l.size = fetch.EntryFile, size
	}
	// The name follows the size after spaces: it may hold spaces of its
	// own but does not begin with one.
	rest := strings.TrimLeft(line[f[2][1]:], " ")
	if rest == "" {
		return listLine{}, false
	}
	l.name = rest
	return l, true
}

// parseEPLF parses Bernstein's Easily Parsed LIST Format: "+", facts
// separated by commas, a tab, the name.
//
//	+i8388621.48594,m825718503,r,s280,	djb.html
func parseEPLF(line string) (listLine, bool) {
	facts, name, found := strings.Cut(line, "\t")
	if !strings.HasPrefix(facts, "+") || !found || name == "" {
		return listLine{}, false
	}
	l := listLine{name: name, typ: fetch.EntryOther, size: -1, ok: true}
	for _, f := range strings.Split(facts[1:], ",") {
		switch {
		case f == "/":
			l.typ = fetch.EntryDir
		case f == "r":
			if l.typ != fetch.EntryDir {
				l.typ = fetch.EntryFile
			}
		case strings.HasPrefix(f, "s"):
			if n, err := strconv.ParseInt(f[1:], 10, 64); err == nil && n >= 0 {
				l.size = n
			}
		case strings.HasPrefix(f, "m"):
			// Seconds since 1970, up to the last of year 9999: a time
			// beyond it is no file's, and JSON cannot write it.
			if n, err := strconv.ParseInt(f[1:], 10, 64); err == nil && n >= 0 && n <= maxUnixTime {
				l.time = time.Unix(n, 0).UTC()
			}
		}
	}
	if l.typ == fetch.EntryDir {
		l.size = -1
	}
	return l, true
}

// parseMLSD parses a line of an MLSD reply (RFC 3659 section 7): facts,
// each "name=value;", a space, the name.
//
//	type=file;size=1024;modify=20240102030405; notes.txt
func parseMLSD(line string) listLine {
	facts, name, found := strings.Cut(line, " ")
	if !found || name == "" {
		return listLine{name: line, typ: fetch.EntryOther, size: -1}
	}
	l := listLine{name: name, typ: fetch.EntryOther, size: -1, ok: true}
	for _, f := range strings.Split(facts, ";") {
		if f == "" {
			continue
		}
		k, v, found := strings.Cut(f, "=")
		if !found || k == "" {
			// Issue 12: not a fact, so not a line of facts: an error
			// message, say, whose first word is no name's part.
			return listLine{name: line, typ: fetch.EntryOther, size: -1}
		}
		switch strings.ToLower(k) {
		case "type":
			switch t := strings.ToLower(v); {
			case t == "file":
				l.typ = fetch.EntryFile
			case t == "dir":
				l.typ = fetch.EntryDir
			case t == "cdir", t == "pdir":
				l.skip = true
			case strings.HasPrefix(t, "os.unix=slink"), strings.HasPrefix(t, "os.unix=symlink"):
				l.typ = fetch.EntryLink
				if _, target, ok := strings.Cut(v, ":"); ok {
					l.target = target
				}
			}
		case "size", "sizd":
			if n, err := strconv.ParseInt(v, 10, 64); err == nil && n >= 0 {
				l.size = n
			}
		case "modify":
			if t, err := time.Parse("20060102150405", v[:min(len(v), 14)]); err == nil {
				l.time = t
			}
		}
	}
	if l.typ == fetch.EntryDir {
		l.size = -1
	}
	return l
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range []byte(s) {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// maxUnixTime is the last second of year 9999: a time beyond it is no
// file's, and JSON cannot write it.
const maxUnixTime = 253402300799
