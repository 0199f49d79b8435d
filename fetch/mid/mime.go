package mid

import (
	"bufio"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"mime/quotedprintable"
	"net/textproto"
	"strconv"
	"strings"

	"github.com/urlfetch/urlfetch/fetch"
)

// Limits of the MIME walk, against a hostile message: how deep multiparts
// nest, and how many parts a listing names.
const (
	maxDepth = 32
	maxParts = 10000
)

// An entity is a MIME entity (RFC 2045): the message itself or one of its
// body parts, its body still in its transfer encoding.
type entity struct {
	header textproto.MIMEHeader
	body   io.Reader
	// path is the part's number as IMAP writes it (RFC 3501 section
	// 6.4.5): "1.2" is the second part of the first; "" is the message.
	path string
	// digest says the entity is a part of a multipart/digest, whose
	// parts are message/rfc822 by default (RFC 2046 section 5.1.5).
	digest bool
}

// mediaType returns the entity's media type and its parameters: its
// Content-Type, or the default of RFC 2045 section 5.2 when it has none
// or one that does not parse.
func (e *entity) mediaType() (string, map[string]string) {
	if v := e.header.Get("Content-Type"); v != "" {
		if mt, params, err := mime.ParseMediaType(v); err == nil {
			return mt, params
		}
	}
	if e.digest {
		return "message/rfc822", nil
	}
	return "text/plain", map[string]string{"charset": "us-ascii"}
}

// contentType is the entity's media type with its parameters, as a
// Response's Type gives it.
func (e *entity) contentType() string {
	mt, params := e.mediaType()
	if s := mime.FormatMediaType(mt, params); s != "" {
		return s
	}
	return mt
}

// contentID is the addr-spec of the entity's Content-ID, or "".
func (e *entity) contentID() string { return msgID(e.header.Get("Content-Id")) }

// name is how a listing names the entity: "part 1.2", or "message".
func (e *entity) name() string {
	if e.path == "" {
		return "message"
	}
	return "part " + e.path
}

// decoded returns the entity's body decoded from its transfer encoding
// (RFC 2045 section 6): quoted-printable and base64 decoded, 7bit, 8bit
// and binary as they are. Its charset is left as it is: the bytes come
// with their own media type.
func (e *entity) decoded() (io.Reader, error) {
	switch enc := strings.ToLower(strings.TrimSpace(e.header.Get("Content-Transfer-Encoding"))); enc {
	case "", "7bit", "8bit", "binary":
		return e.body, nil
	case "quoted-printable":
		return quotedprintable.NewReader(e.body), nil
	case "base64":
		return base64.NewDecoder(base64.StdEncoding, &spaceless{r: e.body}), nil
	default:
		return nil, fetch.Errorf(fetch.ErrUnsupported, "mid: %s has a Content-Transfer-Encoding this client does not know: %q", e.name(), enc)
	}
}

// spaceless drops the white space of a base64 body: its line ends, and
// the spaces and tabs some software leaves at the ends of lines.
type spaceless struct{ r io.Reader }

func (s *spaceless) Read(p []byte) (int, error) {
	for {
		n, err := s.r.Read(p)
		j := 0
		for _, c := range p[:n] {
			if c != ' ' && c != '\t' && c != '\r' && c != '\n' {
				p[j] = c
				j++
			}
		}
		if j > 0 || err != nil {
			return j, err
		}
	}
}

// readMessage reads a message's header from r and returns the message
// as an entity whose body reads the rest of r.
func readMessage(r io.Reader) (*entity, error) {
	br := bufio.NewReaderSize(r, 32<<10)
	h, _, err := readHeader(br)
	if err != nil {
		return nil, fetch.Errorf(fetch.ErrProtocol, "mid: reading the message's header: %w", err)
	}
	return &entity{header: h, body: br}, nil
}

// errStop ends a walk early.
var errStop = errors.New("stop")

// walk calls visit for e and then, when e is a multipart, for each of
// its parts, depth first, reading them as they come: a message of any
// size costs flat memory. visit may read the entity's body; once it
// returns errStop the walk ends, leaving the body where visit left it.
func walk(e *entity, depth int, visit func(*entity) error) error {
	if err := visit(e); err != nil {
		return err
	}
	mt, params := e.mediaType()
	if !strings.HasPrefix(mt, "multipart/") || params["boundary"] == "" {
		return nil
	}
	if depth >= maxDepth {
		return fetch.Errorf(fetch.ErrProtocol, "mid: %s: multiparts nested more than %d deep", e.name(), maxDepth)
	}
	mr := multipart.NewReader(e.body, params["boundary"])
	for i := 1; ; i++ {
		p, err := mr.NextRawPart()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fetch.Errorf(fetch.ErrProtocol, "mid: %s: a broken multipart: %w", e.name(), err)
		}
		path := strconv.Itoa(i)
		if e.path != "" {
			path = e.path + "." + path
		}
		child := &entity{header: p.Header, body: p, path: path, digest: mt == "multipart/digest"}
		if err := walk(child, depth+1, visit); err != nil {
			return err
		}
	}
}

// findPart walks the message read from r for the entity whose Content-ID
// is cid, and returns it with its body unread.
func findPart(r io.Reader, cid string) (*entity, error) {
	msg, err := readMessage(r)
	if err != nil {
		return nil, err
	}
	var found *entity
	err = walk(msg, 0, func(e *entity) error {
		if id := e.contentID(); id != "" && sameID(id, cid) {
			found = e
			return errStop
		}
		return nil
	})
	if found != nil {
		return found, nil
	}
	if err != nil && err != errStop {
		return nil, err
	}
	return nil, nil
}

// listParts walks the message read from r and returns its listing: one
// fetch.Entry a line (fetch.ListingType) for each body part, with its
// Content-ID, media type and decoded size. A part with a Content-ID has
// the URL partURL gives; one without has none (no mid: or cid: URL can
// name it) and is listed as information. Multiparts are listed as
// directories, their parts after them.
func listParts(r io.Reader, partURL func(cid string) string) ([]byte, int, error) {
	msg, err := readMessage(r)
	if err != nil {
		return nil, 0, err
	}
	var out []byte
	n := 0
	err = walk(msg, 0, func(e *entity) error {
		if n >= maxParts {
			out = fetch.AppendEntry(out, fetch.Entry{Name: fmt.Sprintf("more than %d parts: the rest are not listed", maxParts), Type: fetch.EntryError, Size: -1})
			return errStop
		}
		n++
		mt, _ := e.mediaType()
		ent := fetch.Entry{Name: e.name(), Type: fetch.EntryFile, Size: -1, Media: e.contentType(), Attrs: map[string]string{}}
		if e.path != "" {
			ent.Attrs["part"] = e.path
		}
		if t := partTitle(e); t != "" {
			ent.Title = t
		}
		if strings.HasPrefix(mt, "multipart/") {
			ent.Type = fetch.EntryDir
		} else {
			body, err := e.decoded()
			if err == nil {
				size, err := io.Copy(io.Discard, body)
				if err != nil {
					return fetch.Errorf(fetch.ErrProtocol, "mid: reading %s: %w", e.name(), err)
				}
				ent.Size = size
			}
		}
		if cid := e.contentID(); cid != "" {
			ent.Name = cid
			ent.URL = partURL(cid)
			ent.Attrs["content-id"] = cid
		} else if e.path != "" || ent.Type != fetch.EntryDir {
			// No URL can name it: shown, not followed.
			ent.Type = fetch.EntryInfo
		} else {
			return nil // the message itself, a multipart without an ID
		}
		out = fetch.AppendEntry(out, ent)
		return nil
	})
	if err != nil && err != errStop {
		return nil, n, err
	}
	return out, n, nil
}

// partTitle is what a listing says of a part beside its name: its file
// name, or its description.
func partTitle(e *entity) string {
	if v := e.header.Get("Content-Disposition"); v != "" {
		if _, params, err := mime.ParseMediaType(v); err == nil && params["filename"] != "" {
			return params["filename"]
		}
	}
	if _, params := e.mediaType(); params["name"] != "" {
		return params["name"]
	}
	return e.header.Get("Content-Description")
}
