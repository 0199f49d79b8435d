package gopher

import (
	"context"
	"errors"
	"strconv"
	"strings"

	"github.com/urlfetch/urlfetch/fetch"
	"github.com/urlfetch/urlfetch/uri"
)

// head answers a Head request (fetch.Request.Head).
//
// RFC 1436 has no request for metadata: every request transfers the
// item. Gopher+ has one, "!" (the item's attribute blocks: +INFO, +ADMIN
// with its Mod-Date, +VIEWS with their sizes, +ABSTRACT), but a client
// learns that a server speaks Gopher+ only from the menu that named the
// item, whose "+" (or "?") in a fifth field the URL carries as a Gopher+
// string (RFC 1738 section 3.4: "%09%09+"); a server that is not Gopher+
// answers "sel TAB !" with the item itself. So:
//
//   - A URL with a Gopher+ string is asked with "!" (never its own view,
//     form or data block): the Response has the URL's type, the view it
//     names or the first +VIEWS entry as its media type, +ADMIN's
//     Mod-Date as its time and every block in Meta ("Gopher-Views",
//     "Gopher-Admin", ...); Length stays -1, since +VIEWS sizes are
//     rounded ("<12k>"). A server that answers with no attribute blocks
//     is not Gopher+ after all: the connection is closed at once and the
//     Response is what the URL says, with Meta "Gopher-Metadata" saying
//     why. A Gopher+ error ("--1") is the fetch's error (ErrNotFound).
//   - A URL without one is answered from the URL alone, without
//     connecting: its type gives Kind and media type, Length is -1, and
//     Meta "Gopher-Metadata" says so. A missing selector is not found
//     out: only a transfer would find it.
//   - A URL whose Gopher+ string is an attribute request ("!", "$") is
//     that request, its rendered blocks' length the Length, its Body
//     empty.
func (d *Driver) head(ctx context.Context, req *fetch.Request, g *uri.Gopher) (*fetch.Response, error) {
	if g.HasPlus && (strings.HasPrefix(g.Plus, "!") || strings.HasPrefix(g.Plus, "$")) {
		if err := fetch.CheckLine("gopher+ string", g.Plus); err != nil {
			return nil, err
		}
		resp, err := d.attributes(ctx, req, g)
		if err != nil {
			return nil, err
		}
		resp.Body.Close()
		resp.Body = fetch.EmptyBody(ctx, nil)
		return resp, nil
	}
	resp := urlMetadata(g)
	if !g.HasPlus {
		req.Tracef(fetch.Note, "RFC 1436 has no request for metadata, and the URL does not mark the item as Gopher+ (%%09%%09+): answering from the URL, without connecting")
		resp.Meta.Set("Gopher-Metadata", "from the URL only: RFC 1436 has no request for metadata, and the URL does not mark the item as Gopher+")
		resp.Body = fetch.EmptyBody(ctx, nil)
		return resp, nil
	}
	info := &uri.Gopher{Host: g.Host, Port: g.Port, Type: g.Type, Selector: g.Selector, Plus: "!", HasPlus: true}
	items, h, err := d.fetchAttributes(ctx, req, info, nil)
	switch {
	case errors.Is(err, errNoAttributes):
		req.Tracef(fetch.Note, "the server answered \"!\" with no attribute blocks (it does not speak Gopher+): the connection is closed, and the metadata is the URL's")
		resp.Meta.Set("Gopher-Metadata", "from the URL only: the server answered \"!\" with no attribute blocks (it does not speak Gopher+); its reply began "+strconv.Quote(began(err)))
		resp.Body = fetch.EmptyBody(ctx, nil)
		return resp, nil
	case err != nil:
		return nil, err
	}
	if h.ok {
		resp.Status = h.line
		resp.Meta.Set("Gopher-Plus", h.line)
	}
	if len(items) > 0 {
		it := items[0]
		for _, b := range it.Blocks {
			k := metaKey(b.Name)
			if b.Value != "" {
				resp.Meta.Add(k, b.Value)
			}
			for _, l := range b.Lines {
				resp.Meta.Add(k, l)
			}
		}
		if t, ok := it.Modified(); ok {
			resp.Modified = t
		}
		if resp.Kind == fetch.Document && resp.Type == "" {
			if v := it.Get("+VIEWS"); v != nil && len(v.Lines) > 0 {
				resp.Type = viewMedia(v.Lines[0])
			}
		}
	}
	resp.Body = fetch.EmptyBody(ctx, nil)
	return resp, nil
}

// urlMetadata is what g itself says of its item: the Kind and media type
// a fetch would give before it reads a byte (a type whose media type only
// the bytes tell has none), Length -1.
func urlMetadata(g *uri.Gopher) *fetch.Response {
	resp := &fetch.Response{Kind: fetch.Document, Length: -1, Meta: fetch.Meta{}}
	resp.Meta.Set("Gopher-Type", string(g.Type))
	typ := ItemType(g.Type)
	resp.Type = typ.MediaType()
	if typ == TypeMenu || typ == TypeSearch {
		resp.Kind, resp.Type = fetch.Listing, MenuType
	} else if v := viewType(g.Plus); v != "" {
		resp.Type = v
	}
	return resp
}

// viewMedia is the media type of a +VIEWS line, "Text/plain En_US:
// <12k>": the words before the language and the colon, lower case; ""
// when they name no type.
func viewMedia(line string) string {
	v, _, _ := strings.Cut(line, ":")
	v, _, _ = strings.Cut(strings.TrimSpace(v), " ")
	if !strings.Contains(v, "/") || strings.ContainsFunc(v, func(r rune) bool { return r < 0x21 || r == 0x7f }) {
		return ""
	}
	return strings.ToLower(v)
}
