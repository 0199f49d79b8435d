package mirror

import (
	"io"
	"strings"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// linkAttrs are the attributes of HTML elements that name a resource a
// page links to or needs, as wget follows them: hyperlinks (a, area),
// the page's requisites (img, script, link, frames, media) and <base>.
var linkAttrs = map[atom.Atom]string{
	atom.A:      "href",
	atom.Area:   "href",
	atom.Link:   "href",
	atom.Base:   "href",
	atom.Img:    "src",
	atom.Script: "src",
	atom.Frame:  "src",
	atom.Iframe: "src",
	atom.Embed:  "src",
	atom.Source: "src",
	atom.Audio:  "src",
	atom.Video:  "src",
	atom.Track:  "src",
	atom.Input:  "src",
	atom.Object: "data",
	atom.Body:   "background",
}

// maxLinkBytes bounds one attribute value taken as a link: a longer one
// is no URL worth following, and the tokenizer's buffer stays bounded.
const maxLinkBytes = 8 << 10

// htmlLinks reads an HTML document from r as it streams and calls link
// for each link in it, in order: the value as written (trimmed), and
// whether it is a <base href>, which changes what later links are
// relative to. It stops at the first error link returns.
func htmlLinks(r io.Reader, link func(ref string, base bool) error) error {
	z := html.NewTokenizer(r)
	z.SetMaxBuf(1 << 20) // a token longer than 1 MiB ends the parse
	for {
		switch z.Next() {
		case html.ErrorToken:
			if err := z.Err(); err != io.EOF {
				return err
			}
			return nil
		case html.StartTagToken, html.SelfClosingTagToken:
			name, hasAttr := z.TagName()
			want, ok := linkAttrs[atom.Lookup(name)]
			if !ok {
				continue
			}
			for hasAttr {
				var key, val []byte
				key, val, hasAttr = z.TagAttr()
				if string(key) != want || len(val) > maxLinkBytes {
					continue
				}
				ref := strings.TrimSpace(string(val))
				if ref == "" || strings.HasPrefix(ref, "#") {
					continue
				}
				if err := link(ref, atom.Lookup(name) == atom.Base); err != nil {
					return err
				}
			}
		}
	}
}
