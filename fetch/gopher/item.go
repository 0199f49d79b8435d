package gopher

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"iter"
	"strconv"
	"strings"

	"github.com/urlfetch/urlfetch/fetch"
	"github.com/urlfetch/urlfetch/uri"
)

// ItemType is a Gopher item type: the first character of a menu line and
// of a gopher URL's path (RFC 1436 section 3.8, Gopher+ section 2.9, and
// the types later servers agree on).
type ItemType byte

// The item types.
const (
	TypeText      ItemType = '0'
	TypeMenu      ItemType = '1'
	TypeCSO       ItemType = '2'
	TypeError     ItemType = '3'
	TypeBinHex    ItemType = '4'
	TypeDOS       ItemType = '5'
	TypeUUEncoded ItemType = '6'
	TypeSearch    ItemType = '7'
	TypeTelnet    ItemType = '8'
	TypeBinary    ItemType = '9'
	TypeRedundant ItemType = '+'
	TypeTN3270    ItemType = 'T'
	TypeGIF       ItemType = 'g'
	TypeImage     ItemType = 'I'
	TypeBitmap    ItemType = ':' // Gopher+
	TypeMovie     ItemType = ';' // Gopher+
	TypeSoundPlus ItemType = '<' // Gopher+
	TypeInfo      ItemType = 'i'
	TypeHTML      ItemType = 'h'
	TypeSound     ItemType = 's'
	TypeDocument  ItemType = 'd'
	TypePNG       ItemType = 'p'
	TypeMIME      ItemType = 'M'
	TypeCalendar  ItemType = 'c'
	TypeXML       ItemType = 'x'
)

// MenuType is the media type of a menu.
const MenuType = "application/gopher-menu"

var typeInfo = map[ItemType]struct{ name, media string }{
	TypeText:      {"text", "text/plain"},
	TypeMenu:      {"menu", MenuType},
	TypeCSO:       {"cso", ""},
	TypeError:     {"error", ""},
	TypeBinHex:    {"binhex", "application/mac-binhex40"},
	TypeDOS:       {"dos", "application/octet-stream"},
	TypeUUEncoded: {"uuencoded", "text/x-uuencode"},
	TypeSearch:    {"search", MenuType},
	TypeTelnet:    {"telnet", ""},
	TypeBinary:    {"binary", "application/octet-stream"},
	TypeRedundant: {"redundant", ""},
	TypeTN3270:    {"tn3270", ""},
	TypeGIF:       {"gif", "image/gif"},
	TypeImage:     {"image", ""},
	TypeBitmap:    {"bitmap", ""},
	TypeMovie:     {"movie", ""},
	TypeSoundPlus: {"sound", ""},
	TypeInfo:      {"info", ""},
	TypeHTML:      {"html", "text/html"},
	TypeSound:     {"sound", ""},
	TypeDocument:  {"document", ""},
	TypePNG:       {"png", "image/png"},
	TypeMIME:      {"mime", "message/rfc822"},
	TypeCalendar:  {"calendar", "text/calendar"},
	TypeXML:       {"xml", "text/xml"},
}

// String names the type: "text", "menu", "binary"; an unknown type is its
// character quoted.
func (t ItemType) String() string {
	if i, ok := typeInfo[t]; ok {
		return i.name
	}
	return strconv.QuoteRune(rune(t))
}

// MediaType returns the media type an item of type t has, or "" when the
// type does not say (an image of some format, an unknown type).
func (t ItemType) MediaType() string { return typeInfo[t].media }

// entryType is the kind of listing entry an item of type t is.
func (t ItemType) entryType() fetch.EntryType {
	switch t {
	case TypeMenu:
		return fetch.EntryDir
	case TypeSearch:
		return fetch.EntrySearch
	case TypeTelnet, TypeTN3270:
		return fetch.EntrySession
	case TypeInfo:
		return fetch.EntryInfo
	case TypeError:
		return fetch.EntryError
	case TypeCSO:
		return fetch.EntryOther
	}
	return fetch.EntryFile
}

// Item is one line of a menu (RFC 1436 section 3.8): the type, the
// display string, the selector, host and port, and the Gopher+ mark.
type Item struct {
	Type     ItemType
	Display  string
	Selector string
	Host     string
	Port     int
	// Plus is '+' for a Gopher+ item, '?' for one with a +ASK form, 0
	// for a plain one (Gopher+ section 2.2, RFC 1738 section 3.4.4).
	Plus byte
}

// ParseItem parses a menu line without its CR LF. Info ("i") and error
// ("3") lines need only their display string, as servers fill their
// other fields with anything.
func ParseItem(line string) (Item, error) {
	if line == "" {
		return Item{}, errors.New("empty line")
	}
	f := strings.Split(line[1:], "\t")
	it := Item{Type: ItemType(line[0]), Display: f[0]}
	if strings.ContainsAny(it.Display, "\r\n") {
		// Issue 12: a CR would let a menu overwrite what is shown.
		return Item{}, fmt.Errorf("%q: a CR or LF in the display string", line)
	}
	if it.Type == TypeInfo || it.Type == TypeError {
		return it, nil
	}
	if len(f) < 4 {
		return Item{}, fmt.Errorf("%q: %d fields, want type and display string, selector, host and port separated by TABs", line, len(f))
	}
	it.Selector, it.Host = f[1], f[2]
	if h := it.Host; len(h) > 2 && h[0] == '[' && h[len(h)-1] == ']' {
		it.Host = h[1 : len(h)-1] // an IPv6 address written as in a URL
	}
	port, err := strconv.Atoi(strings.TrimSpace(f[3]))
	if err != nil || port < 1 || port > 65535 {
		return Item{}, fmt.Errorf("%q: bad port %q", line, f[3])
	}
	it.Port = port
	if len(f) > 4 && (f[4] == "+" || f[4] == "?") {
		it.Plus = f[4][0]
	}
	return it, nil
}

// URL returns the URL the item designates: its gopher URL; for an "h" item
// whose selector is "URL:..." the URL after it; for types 8 and T a telnet
// or tn3270 URL with the selector as the user to log in as; "" for info
// and error lines.
func (it Item) URL() (string, error) {
	var s string
	switch it.Type {
	case TypeInfo, TypeError:
		return "", nil
	case TypeTelnet, TypeTN3270:
		t := &uri.Telnet{Scheme: "telnet", Login: uri.Login{Host: it.Host, Port: it.Port}}
		if it.Type == TypeTN3270 {
			t.Scheme = "tn3270"
		}
		if t.Port == uri.DefaultPort("telnet") {
			t.Port = 0
		}
		t.User, t.HasUser = it.Selector, it.Selector != ""
		s = t.String()
	case TypeHTML:
		if u, ok := embeddedURL(it.Selector); ok {
			return u, nil
		}
		fallthrough
	default:
		g := &uri.Gopher{Host: it.Host, Port: it.Port, Type: byte(it.Type), Selector: it.Selector}
		if g.Port == uri.DefaultPort("gopher") {
			g.Port = 0
		}
		if it.Plus != 0 && it.Type != TypeSearch {
			// Section 3.4.3: a Gopher+ string needs the search before
			// it, here empty. A search item gets its words first.
			g.HasSearch, g.HasPlus, g.Plus = true, true, string(it.Plus)
		}
		s = g.String()
	}
	u, err := uri.Parse(s)
	if err != nil {
		return "", fmt.Errorf("no valid URL for host %q: %v", it.Host, err)
	}
	if u.Host != it.Host {
		// Issue 12: "h.example/x" would make a URL to h.example.
		return "", fmt.Errorf("no valid URL for host %q: it reads as host %q", it.Host, u.Host)
	}
	return s, nil
}

// embeddedURL returns the URL of an "h" item's "URL:..." selector (a
// convention of later servers), or false.
func embeddedURL(sel string) (string, bool) {
	rest, ok := strings.CutPrefix(strings.TrimPrefix(sel, "/"), "URL:")
	if !ok {
		return "", false
	}
	if u, err := uri.Parse(rest); err == nil {
		return u.String(), true
	}
	if u, _, err := uri.ParseLenient(rest); err == nil {
		return u.String(), true
	}
	return "", false
}

// Entry returns the listing entry of the item.
func (it Item) Entry() (fetch.Entry, error) {
	u, err := it.URL()
	if err != nil {
		return fetch.Entry{}, err
	}
	e := fetch.Entry{Name: it.Display, URL: u, Type: it.Type.entryType(), Size: -1, Media: it.Type.MediaType(), Item: string(it.Type)}
	if it.Type == TypeHTML && u != "" && !strings.HasPrefix(u, "gopher:") {
		e.Type, e.Media = fetch.EntryLink, ""
	}
	return e, nil
}

// parseMenu parses the lines of a menu into entries. A line that does not
// parse yields an ErrProtocol error naming its number, and the menu goes
// on; an error reading r ends it.
func parseMenu(r io.Reader) iter.Seq2[fetch.Entry, error] {
	return func(yield func(fetch.Entry, error) bool) {
		br := bufio.NewReaderSize(r, 4096)
		var prev ItemType
		for n := 1; ; n++ {
			line, long, err := readLine(br, MaxLine)
			if line == "" && !long {
				if err != nil && err != io.EOF {
					yield(fetch.Entry{}, err)
				}
				return
			}
			if long {
				if err != nil && err != io.EOF {
					yield(fetch.Entry{}, err) // the read failed before the line ended
					return
				}
				if !yield(fetch.Entry{}, fetch.Errorf(fetch.ErrProtocol, "gopher: menu line %d is longer than %d bytes", n, MaxLine)) {
					return
				}
				continue
			}
			if err != nil && err != io.EOF {
				yield(fetch.Entry{}, err) // a partial line is no line
				return
			}
			text := trimEOL(line)
			if text == "." {
				return
			}
			e, perr := menuEntry(text, &prev)
			if perr != nil {
				if !yield(fetch.Entry{}, fetch.Errorf(fetch.ErrProtocol, "gopher: menu line %d: %v", n, perr)) {
					return
				}
			} else if !yield(e, nil) {
				return
			}
			if err != nil {
				if err != io.EOF {
					yield(fetch.Entry{}, err)
				}
				return
			}
		}
	}
}

// menuEntry parses one menu line; prev is the type of the last item, which
// a redundant-server item ("+") repeats.
func menuEntry(text string, prev *ItemType) (fetch.Entry, error) {
	it, err := ParseItem(text)
	if err != nil {
		return fetch.Entry{}, err
	}
	if it.Type == TypeRedundant {
		if *prev == 0 {
			return fetch.Entry{}, fmt.Errorf("%q: a redundant server (+) with no item before it", text)
		}
		it.Type = *prev
	}
	*prev = it.Type
	return it.Entry()
}

// readLine reads one line with its end. A line longer than max is read to
// its end and dropped: long reports it, and line is "".
func readLine(br *bufio.Reader, max int) (line string, long bool, err error) {
	var b []byte
	for {
		frag, err := br.ReadSlice('\n')
		if !long {
			if len(b)+len(frag) > max {
				long, b = true, nil
			} else {
				b = append(b, frag...)
			}
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		return string(b), long, err
	}
}

// trimEOL removes a final LF or CR LF.
func trimEOL(s string) string {
	s = strings.TrimSuffix(s, "\n")
	return strings.TrimSuffix(s, "\r")
}
