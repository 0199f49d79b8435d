package mirror

import (
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/urlfetch/urlfetch/fetch"
	"github.com/urlfetch/urlfetch/uri"
)

// Why an entry or a link is not followed, by the mirror's own scope
// rules (the Client's policy, CheckHop, comes on top of them).
type outOfScope int

const (
	inScope     outOfScope = iota
	otherScheme            // --schemes
	otherHost              // --span-hosts
	parentDir              // --parent (no-parent by default)
	rejected               // --accept, --reject
	tooDeep                // -l
	symlink                // a symbolic link of a directory listing
)

// place is a URL's server and path in the terms no-parent compares: the
// scheme, host and port, then the decoded path (an FTP URL's CWDs and
// name, a gopher selector, an HTTP path), always starting with "/".
func place(u *uri.URL) (server, p string) {
	server = u.Scheme + "://" + strings.ToLower(u.Host) + ":" + strconv.Itoa(u.PortNumber())
	switch u.Scheme {
	case "gopher":
		if g, err := u.Gopher(); err == nil {
			p = g.Selector
			if g.Type == '1' && p != "" && !strings.HasSuffix(p, "/") {
				p += "/" // a menu lists what is below it
			}
		}
	case "ftp", "ftps":
		if f, err := u.FTP(); err == nil {
			p = strings.Join(append(slices.Clone(f.Dirs), f.Name), "/")
		}
	case "file":
		if f, err := u.File(); err == nil {
			p = f.Path
		}
	case "news", "snews", "nntp", "nntps", "wais":
		// A group's articles, a database's documents: below it.
		dirs, name, err := segments(u, false)
		if err == nil {
			p = strings.Join(append(dirs, name), "/")
		}
	default:
		p, _ = uri.Unescape(u.URLPath())
	}
	if !strings.HasPrefix(p, "/") {
		p = "/" + p
	}
	return server, p
}

// baseOf is what no-parent keeps a walk from u under: u's server and the
// directory its path names (the path itself when it ends in "/").
func baseOf(u *uri.URL) string {
	server, p := place(u)
	if !strings.HasSuffix(p, "/") {
		p = path.Dir(p)
		if p != "/" {
			p += "/"
		}
	}
	return server + p
}

// under reports whether u lies under base (a baseOf value), and whether
// they are on one server at all.
func under(u *uri.URL, base string) (inside, sameServer bool) {
	server, p := place(u)
	if !strings.HasPrefix(base, server+"/") {
		return false, false
	}
	return strings.HasPrefix(server+p, base), true
}

// matchName reports whether name matches one of the globs (path.Match).
func matchName(globs []string, name string) bool {
	for _, g := range globs {
		if ok, _ := path.Match(g, name); ok {
			return true
		}
	}
	return false
}

// looksLikePage reports whether an HTTP URL's name is likely a page to
// read links from (a directory, .html, no extension) even when --accept
// or --reject leave it out: it is then fetched for its links, not kept,
// as wget does.
func looksLikePage(name string) bool {
	if name == "" {
		return true
	}
	ext := strings.ToLower(path.Ext(name))
	return ext == "" || ext == ".html" || ext == ".htm" || ext == ".xhtml"
}

// leaf reports whether an entry of this type is a document, which is
// fetched and saved, never listed.
func leaf(t fetch.EntryType) bool {
	return t == fetch.EntryFile || t == fetch.EntryArticle
}
