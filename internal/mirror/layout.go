package mirror

import (
	"errors"
	"path"
	"strconv"
	"strings"

	"github.com/urlfetch/urlfetch/internal/outfile"
	"github.com/urlfetch/urlfetch/uri"
)

// Listing file names: a listing is saved as the server's raw bytes beside
// what it lists, as wget keeps an FTP directory's LIST in ".listing", so
// that the mirror can be read offline and served again. A remote name
// never starts with a dot once made safe (outfile.SanitizeName), so these
// names cannot be taken by a file of the tree.
const (
	ListingName   = ".listing"   // an FTP, file:, news or WAIS listing
	GophermapName = ".gophermap" // a gopher menu
	// IndexName is the file of an HTTP URL whose path ends in "/".
	IndexName = "index.html"
)

// A Layout maps URLs to paths in the mirror, as wget's -x does:
// HOST[:PORT]/path, the port only when it is not the scheme's default.
// A URL of another scheme than Primary (the first URL's) goes under a
// directory named after its scheme ("gopher/HOST/..."), so two schemes
// served by one host never share a tree. A URL without a host (file:,
// news:) goes under its scheme's name alone.
type Layout struct {
	Primary string
	// NoHost leaves the HOST[:PORT] directory out (-nH).
	NoHost bool
	// CutDirs drops this many directories from the front of the path
	// (--cut-dirs).
	CutDirs int
}

// errNoPath is the error of a URL that names nothing a file can hold.
var errNoPath = errors.New("no file name can be made from it")

// Path returns the slash-separated path, relative to the mirror's root,
// where u is saved: a document under its name, a listing (listing true)
// as ListingName or GophermapName in the directory that its URL names.
// Every element is made safe by outfile.SanitizeName: no element is "."
// or "..", holds a "/" or a control character, or is too long for a
// file system.
func (l Layout) Path(u *uri.URL, listing bool) (string, error) {
	dirs, name, err := segments(u, listing)
	if err != nil {
		return "", err
	}
	dirs = dirs[min(l.CutDirs, len(dirs)):]
	var out []string
	if u.Scheme != l.Primary || u.Host == "" {
		out = append(out, u.Scheme)
	}
	if !l.NoHost && u.Host != "" {
		host := strings.ToLower(u.Host)
		if u.Port != 0 && u.Port != uri.DefaultPort(u.Scheme) {
			host += ":" + strconv.Itoa(u.Port)
		}
		out = append(out, host)
	}
	for _, d := range dirs {
		if d != "" {
			out = append(out, outfile.SanitizeName(d))
		}
	}
	if listing {
		out = append(out, name)
	} else {
		out = append(out, outfile.SanitizeName(name))
	}
	return path.Join(out...), nil
}

// segments splits u into its decoded directories and its name, in its
// scheme's terms: an FTP URL's CWD arguments and file name, a gopher
// selector split at "/", an HTTP path and search, a news group and
// article.
func segments(u *uri.URL, listing bool) (dirs []string, name string, err error) {
	var p string
	split := true // p is the path to split at "/"
	switch u.Scheme {
	case "ftp", "ftps":
		f, err := u.FTP()
		if err != nil {
			return nil, "", err
		}
		dirs, name, split = f.Dirs, f.Name, false
	case "gopher":
		g, err := u.Gopher()
		if err != nil {
			return nil, "", err
		}
		p = g.Selector
		if g.HasSearch && g.Search != "" {
			p += "?" + g.Search
		}
	case "http", "https":
		p, err = uri.Unescape(u.URLPath())
		if err != nil {
			return nil, "", err
		}
		if p == "" || strings.HasSuffix(p, "/") {
			p += IndexName
		}
		if u.RawQuery != "" || u.ForceQuery {
			p += "?" + u.RawQuery // as wget names it
		}
	case "news", "snews":
		n, err := u.News()
		if err != nil {
			return nil, "", err
		}
		p = n.Group + "/"
		if n.MessageID != "" {
			p = n.MessageID
		}
	case "nntp", "nntps":
		n, err := u.NNTP()
		if err != nil {
			return nil, "", err
		}
		p = n.Group + "/"
		if n.Article != 0 {
			p += strconv.FormatInt(n.Article, 10)
		}
	case "wais":
		w, err := u.WAIS()
		if err != nil {
			return nil, "", err
		}
		p = w.Database + "/"
		if w.IsDocument() {
			p += w.WPath
		}
	case "file":
		f, err := u.File()
		if err != nil {
			return nil, "", err
		}
		p = f.Path
	default:
		p, err = uri.Unescape(u.URLPath())
		if err != nil {
			return nil, "", err
		}
	}
	if split {
		parts := strings.Split(strings.TrimPrefix(p, "/"), "/")
		dirs, name = parts[:len(parts)-1], parts[len(parts)-1]
	}
	if listing {
		if name != "" {
			dirs = append(dirs, name) // a directory named without its "/"
		}
		if u.Scheme == "gopher" {
			return dirs, GophermapName, nil
		}
		return dirs, ListingName, nil
	}
	if name == "" {
		if len(dirs) == 0 {
			return nil, "", errNoPath
		}
		dirs, name = dirs[:len(dirs)-1], dirs[len(dirs)-1]
	}
	return dirs, name, nil
}
