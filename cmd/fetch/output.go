package main

import (
	"strings"

	"github.com/urlfetch/urlfetch/internal/outfile"
	"github.com/urlfetch/urlfetch/uri"
)

// outputName derives the local file name -O uses from a URL: the last
// segment of its path, decoded, with every byte that could leave the
// target directory or confuse a terminal replaced. It is never empty,
// never "." or "..", and never holds a path separator.
func outputName(u *uri.URL) string {
	p := u.URLPath()
	switch u.Scheme {
	case "ftp", "ftps":
		if f, err := u.FTP(); err == nil {
			p = f.Name
		}
	case "gopher":
		if g, err := u.Gopher(); err == nil {
			p = g.Selector
		}
	case "news", "snews":
		if n, err := u.News(); err == nil {
			p = n.MessageID + n.Group
		}
	case "wais":
		if w, err := u.WAIS(); err == nil {
			p = w.Database
			if w.IsDocument() {
				p = w.WPath
			}
		}
	default:
		p, _ = uri.Unescape(p)
	}
	p = strings.TrimRight(p, "/")
	if i := strings.LastIndexAny(p, `/\`); i >= 0 {
		p = p[i+1:]
	}
	return outfile.SanitizeName(p)
}
