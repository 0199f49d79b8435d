package uri

import (
	"strconv"
	"strings"
)

// This file holds the scheme-specific views of RFC 1738 section 3. Each
// view decodes what its section says and nothing more, and its String
// method builds a correctly encoded URL again: for a URL in canonical form
// (the form String writes), String(view(Parse(x))) == x.

// Login is the common Internet scheme syntax of RFC 1738 section 3.1,
// decoded: //user:password@host:port.
type Login struct {
	User        string
	HasUser     bool // an empty user differs from none
	Password    string
	HasPassword bool // an empty password differs from none
	Host        string
	Port        int // 0 for the scheme's default
}

func (u *URL) login() Login {
	return Login{
		User: mustUnescape(u.User), HasUser: u.HasUser,
		Password: mustUnescape(u.Password), HasPassword: u.HasPassword,
		Host: u.Host, Port: u.Port,
	}
}

// write appends "//user:password@host:port" to b.
func (l *Login) write(b *strings.Builder) {
	b.WriteString("//")
	if l.HasUser {
		b.WriteString(Escape(l.User, ComponentUser))
		if l.HasPassword {
			b.WriteByte(':')
			b.WriteString(Escape(l.Password, ComponentPassword))
		}
		b.WriteByte('@')
	}
	if strings.IndexByte(l.Host, ':') >= 0 {
		b.WriteString("[" + l.Host + "]")
	} else {
		b.WriteString(l.Host)
	}
	if l.Port != 0 {
		b.WriteByte(':')
		b.WriteString(strconv.Itoa(l.Port))
	}
}

// view returns a new V that fill describes, or fill's error: each
// exported view is one of its fillers (u.ftp for u.FTP), which checkView
// also runs, on a V of its own.
func view[V any](fill func(*V) error) (*V, error) {
	v := new(V)
	if err := fill(v); err != nil {
		return nil, err
	}
	return v, nil
}

// checkView returns the error of the view of u's scheme, nil when there
// is none or the package has no view of the scheme: whether a driver can
// take u as it is. Extract keeps only URLs that pass. The views are
// filled on the stack: an http URL passes without an allocation.
func (u *URL) checkView() error {
	switch u.Scheme {
	case "ftp", "ftps":
		var v FTP
		return u.ftp(&v)
	case "http", "https":
		var v HTTP
		return u.http(&v)
	case "gopher":
		var v Gopher
		return u.gopher(&v)
	case "mailto":
		var v Mailto
		return u.mailto(&v)
	case "news", "snews":
		var v News
		return u.news(&v)
	case "nntp", "nntps":
		var v NNTP
		return u.nntp(&v)
	case "telnet", "rlogin", "tn3270":
		var v Telnet
		return u.telnet(&v)
	case "wais":
		var v WAIS
		return u.wais(&v)
	case "file":
		var v File
		return u.file(&v)
	case "prospero":
		var v Prospero
		return u.prospero(&v)
	}
	return nil
}

// viewError is the error of a view asked of a URL it cannot describe.
func (u *URL) viewError(view, reason string) error {
	return &Error{Input: u.String(), Offset: -1, Reason: view + ": " + reason}
}

func (u *URL) needScheme(view string, schemes ...string) error {
	for _, s := range schemes {
		if u.Scheme == s {
			if !u.Authority && s != "news" && s != "snews" && s != "mailto" && s != "file" {
				return u.viewError(view, u.Scheme+` URL without "//host"`)
			}
			return nil
		}
	}
	return u.viewError(view, "not a "+strings.Join(schemes, " or ")+" URL")
}

// FTP is an ftp URL decoded as RFC 1738 section 3.2 says:
// ftp://user:password@host:port/cwd1/cwd2/.../cwdN/name;type=typecode.
type FTP struct {
	// Secure is true for ftps, FTP over implicit TLS (RFC 4217).
	Secure bool
	Login
	// Dirs are the decoded CWD arguments, in order. "%2F" yields an
	// argument containing "/" and an empty segment an empty argument.
	Dirs []string
	// Name is the decoded last segment; "" for a directory.
	Name string
	// Type is the typecode, 'a', 'i' or 'd' (lower case), or 0 if none.
	Type byte
}

// FTP returns the ftp view of u.
func (u *URL) FTP() (*FTP, error) { return view(u.ftp) }

func (u *URL) ftp(f *FTP) error {
	if err := u.needScheme("ftp", "ftp", "ftps"); err != nil {
		return err
	}
	*f = FTP{Secure: u.Scheme == "ftps", Login: u.login()}
	p := u.URLPath()
	if i := strings.LastIndex(p, ";type="); i >= 0 && strings.IndexByte(p[i:], '/') < 0 {
		f.Type = p[i+len(";type=")] | 0x20 // Parse checked it is a letter
		p = p[:i]
	}
	segs := strings.Split(p, "/")
	for _, s := range segs[:len(segs)-1] {
		f.Dirs = append(f.Dirs, mustUnescape(s))
	}
	f.Name = mustUnescape(segs[len(segs)-1])
	return nil
}

// String builds the ftp URL.
func (f *FTP) String() string {
	var b strings.Builder
	if f.Secure {
		b.WriteString("ftps:")
	} else {
		b.WriteString("ftp:")
	}
	f.Login.write(&b)
	b.WriteByte('/')
	for _, d := range f.Dirs {
		b.WriteString(Escape(d, ComponentFTPSegment))
		b.WriteByte('/')
	}
	b.WriteString(Escape(f.Name, ComponentFTPSegment))
	if f.Type != 0 {
		b.WriteString(";type=")
		b.WriteByte(f.Type)
	}
	return b.String()
}

// HTTP is an http or https URL (RFC 1738 section 3.3). The path and search
// go to the server as written, so they stay encoded here.
//
// RFC 1738 gives http URLs no user or password, but every client takes
// them (http://user:password@host/, RFC 3986's userinfo) and sends them
// as Basic authorization (RFC 7617): the Login holds them, decoded, and
// its Host and Port are the server's.
type HTTP struct {
	Secure bool // https
	Login
	Path      string // raw, with its leading "/"; "" when the URL has none
	Search    string // raw
	HasSearch bool
}

// HTTP returns the http view of u.
func (u *URL) HTTP() (*HTTP, error) { return view(u.http) }

func (u *URL) http(out *HTTP) error {
	if err := u.needScheme("http", "http", "https"); err != nil {
		return err
	}
	*out = HTTP{
		Secure: u.Scheme == "https", Login: u.login(),
		Path: u.Path, Search: u.RawQuery, HasSearch: u.RawQuery != "" || u.ForceQuery,
	}
	return nil
}

// RequestURI returns the path and search as sent in a request line: "/"
// when the URL has no path.
func (h *HTTP) RequestURI() string {
	p := h.Path
	if p == "" {
		p = "/"
	}
	if h.HasSearch {
		p += "?" + h.Search
	}
	return p
}

// String builds the http URL.
func (h *HTTP) String() string {
	var b strings.Builder
	if h.Secure {
		b.WriteString("https:")
	} else {
		b.WriteString("http:")
	}
	h.Login.write(&b)
	b.WriteString(h.Path)
	if h.HasSearch {
		b.WriteByte('?')
		b.WriteString(h.Search)
	}
	return b.String()
}

// Gopher is a gopher URL decoded as RFC 1738 section 3.4 says:
// gopher://host:port/<type><selector>%09<search>%09<gopher+_string>.
type Gopher struct {
	Host string
	Port int
	// Type is the gopher item type; '1' when the gopher-path is empty.
	Type byte
	// Selector is the decoded selector, sent to the server as it is. It
	// may begin with a copy of Type ("00about" is type '0', selector
	// "0about").
	Selector string
	// Search is the decoded search string after the first %09.
	Search    string
	HasSearch bool
	// Plus is the decoded Gopher+ string: "+", "!", "$", "!+ABSTRACT",
	// "+application/postscript Es_ES", or a filled-in form (3.4.4-3.4.9).
	Plus    string
	HasPlus bool
}

// Gopher returns the gopher view of u.
//
// With one %09 the part after it is a search for type 7 and for any
// string that does not look like a Gopher+ one; a Gopher+ string begins
// with "+", "!", "$" or "?". With two, the second part is the Gopher+
// string (section 3.4.3, which requires the search, perhaps empty).
func (u *URL) Gopher() (*Gopher, error) { return view(u.gopher) }

func (u *URL) gopher(g *Gopher) error {
	if err := u.needScheme("gopher", "gopher"); err != nil {
		return err
	}
	*g = Gopher{Host: u.Host, Port: u.Port, Type: '1'}
	p := u.URLPath()
	if p == "" {
		return nil
	}
	if p[0] == '%' {
		g.Type = unhex(p[1])<<4 | unhex(p[2])
		p = p[3:]
	} else {
		g.Type = p[0]
		p = p[1:]
	}
	sel, rest, tab := cutTab(p)
	g.Selector = mustUnescape(sel)
	if !tab {
		return nil
	}
	if g.Type != '7' && rest != "" && strings.IndexByte("+!$?", rest[0]) >= 0 {
		g.Plus, g.HasPlus = mustUnescape(rest), true
		return nil
	}
	search, plus, tab := cutTab(rest)
	g.Search, g.HasSearch = mustUnescape(search), true
	if tab {
		g.Plus, g.HasPlus = mustUnescape(plus), true
	}
	return nil
}

// cutTab cuts s around its first encoded TAB.
func cutTab(s string) (before, after string, found bool) {
	for i := 0; i+2 < len(s); i++ {
		if s[i] == '%' && s[i+1] == '0' && s[i+2] == '9' {
			return s[:i], s[i+3:], true
		}
	}
	return s, "", false
}

// Request returns the line a Gopher client sends for this URL, without the
// final CRLF: the selector, then TAB and the search, then TAB and the
// Gopher+ string (section 3.4.3: for a type other than 7 with an empty
// search, the selector is followed directly by the Gopher+ string).
func (g *Gopher) Request() string {
	switch {
	case g.HasPlus && g.Type == '7':
		return g.Selector + "\t" + g.Search + "\t" + g.Plus
	case g.HasPlus && g.Search == "":
		return g.Selector + "\t" + g.Plus
	case g.HasPlus:
		return g.Selector + "\t" + g.Search + "\t" + g.Plus
	case g.HasSearch:
		return g.Selector + "\t" + g.Search
	}
	return g.Selector
}

// String builds the gopher URL.
func (g *Gopher) String() string {
	var b strings.Builder
	b.WriteString("gopher:")
	l := Login{Host: g.Host, Port: g.Port}
	l.write(&b)
	b.WriteByte('/')
	if g.Type == '1' && g.Selector == "" && !g.HasSearch && !g.HasPlus {
		return b.String()
	}
	if keep(g.Type, ComponentGopher) {
		b.WriteByte(g.Type)
	} else {
		b.WriteString(Escape(string([]byte{g.Type}), ComponentGopher))
	}
	b.WriteString(Escape(g.Selector, ComponentGopher))
	if g.HasSearch {
		b.WriteString("%09")
		b.WriteString(Escape(g.Search, ComponentGopher))
	}
	if g.HasPlus {
		b.WriteString("%09")
		b.WriteString(Escape(g.Plus, ComponentGopher))
	}
	return b.String()
}

// Mailto is a mailto URL: RFC 1738 section 3.5's single addr-spec and,
// beyond it, RFC 6068's list of addresses and header fields
// (mailto:a@x,b@y?subject=...&cc=...&body=...).
type Mailto struct {
	To     []string // decoded addr-specs, from the path and any "to" fields
	Fields []Field  // the other header fields, decoded, in order
}

// Field is a name=value pair: a mailto header field, a Prospero field.
type Field struct {
	Name  string
	Value string
}

// Mailto returns the mailto view of u.
func (u *URL) Mailto() (*Mailto, error) { return view(u.mailto) }

func (u *URL) mailto(m *Mailto) error {
	if err := u.needScheme("mailto", "mailto"); err != nil {
		return err
	}
	addrs, query, _ := strings.Cut(u.Path, "?")
	*m = Mailto{}
	for _, a := range strings.Split(addrs, ",") {
		if a != "" {
			m.To = append(m.To, mustUnescape(a))
		}
	}
	if query != "" {
		for _, kv := range strings.Split(query, "&") {
			if kv == "" {
				continue
			}
			k, v, _ := strings.Cut(kv, "=")
			k, v = mustUnescape(k), mustUnescape(v)
			if strings.EqualFold(k, "to") {
				for _, a := range strings.Split(v, ",") {
					if a = strings.TrimSpace(a); a != "" {
						m.To = append(m.To, a)
					}
				}
				continue
			}
			m.Fields = append(m.Fields, Field{Name: k, Value: v})
		}
	}
	if len(m.To) == 0 {
		return u.viewError("mailto", "no address")
	}
	return nil
}

// Get returns the value of the first field named name (case-insensitive).
func (m *Mailto) Get(name string) string {
	for _, f := range m.Fields {
		if strings.EqualFold(f.Name, name) {
			return f.Value
		}
	}
	return ""
}

// String builds the mailto URL.
func (m *Mailto) String() string {
	var b strings.Builder
	b.WriteString("mailto:")
	for i, a := range m.To {
		if i > 0 {
			b.WriteByte(',')
		}
		a = Escape(a, ComponentMailto)
		if i == 0 && strings.HasPrefix(a, "//") {
			// Issue 12: "mailto://x" would have an authority.
			a = "%2F" + a[1:]
		}
		b.WriteString(a)
	}
	for i, f := range m.Fields {
		if i == 0 {
			b.WriteByte('?')
		} else {
			b.WriteByte('&')
		}
		b.WriteString(Escape(f.Name, ComponentMailto))
		b.WriteByte('=')
		b.WriteString(Escape(f.Value, ComponentMailto))
	}
	return b.String()
}

// News is a news URL (RFC 1738 section 3.6): a group, "*" for all groups,
// or an article by message-id. The news server is not part of the URL.
type News struct {
	Secure    bool   // snews: the news server over TLS (RFC 5538)
	Group     string // decoded group name, or "*"; "" for an article
	MessageID string // decoded, without "<" and ">"; "" for a group
}

// News returns the news view of u.
func (u *URL) News() (*News, error) { return view(u.news) }

func (u *URL) news(out *News) error {
	if err := u.needScheme("news", "news", "snews"); err != nil {
		return err
	}
	part := u.Path
	if u.Authority {
		return u.viewError("news", "news URLs name no host (RFC 1738 section 3.6); use nntp://host/group")
	}
	if part == "" {
		return u.viewError("news", "no group or message-id")
	}
	v := mustUnescape(part)
	if strings.IndexByte(v, '@') >= 0 {
		if len(v) > 2 && v[0] == '<' && v[len(v)-1] == '>' {
			v = v[1 : len(v)-1] // a pasted Message-ID header value
		}
		*out = News{Secure: u.Scheme == "snews", MessageID: v}
		return nil
	}
	*out = News{Secure: u.Scheme == "snews", Group: v}
	return nil
}

// All reports whether the URL is news:*, all available groups.
func (n *News) All() bool { return n.Group == "*" }

// String builds the news URL.
func (n *News) String() string {
	scheme := "news:"
	if n.Secure {
		scheme = "snews:"
	}
	if n.MessageID != "" {
		at := strings.LastIndexByte(n.MessageID, '@')
		if at < 0 {
			return scheme + Escape(n.MessageID, ComponentMessageID)
		}
		id := Escape(n.MessageID[:at], ComponentMessageID) + "@" + Escape(n.MessageID[at+1:], ComponentMessageID)
		if strings.HasPrefix(id, "//") {
			// Issue 12: "news://x@y" would have an authority.
			id = "%2F" + id[1:]
		}
		return scheme + id
	}
	if n.Group == "*" {
		return scheme + "*"
	}
	return scheme + Escape(n.Group, ComponentNewsGroup)
}

// NNTP is an nntp URL (RFC 1738 section 3.7):
// nntp://host:port/newsgroup-name/article-number.
type NNTP struct {
	Secure bool // nntps: NNTP over implicit TLS (RFC 4642)
	Login
	Group   string // decoded
	Article int64  // 0 when the URL names the group only
}

// NNTP returns the nntp view of u.
func (u *URL) NNTP() (*NNTP, error) { return view(u.nntp) }

func (u *URL) nntp(n *NNTP) error {
	if err := u.needScheme("nntp", "nntp", "nntps"); err != nil {
		return err
	}
	*n = NNTP{Secure: u.Scheme == "nntps", Login: u.login()}
	group, num, hasNum := strings.Cut(u.URLPath(), "/")
	if group == "" {
		return u.viewError("nntp", "no newsgroup")
	}
	n.Group = mustUnescape(group)
	if hasNum && num != "" {
		a, err := strconv.ParseInt(num, 10, 64)
		if err != nil || a <= 0 || num[0] == '+' {
			return u.viewError("nntp", "article number "+strconv.Quote(num)+" is not a positive decimal number")
		}
		n.Article = a
	}
	return nil
}

// String builds the nntp URL.
func (n *NNTP) String() string {
	var b strings.Builder
	if n.Secure {
		b.WriteString("nntps:")
	} else {
		b.WriteString("nntp:")
	}
	n.Login.write(&b)
	b.WriteByte('/')
	b.WriteString(Escape(n.Group, ComponentNewsGroup))
	if n.Article > 0 {
		b.WriteByte('/')
		b.WriteString(strconv.FormatInt(n.Article, 10))
	}
	return b.String()
}

// Telnet is a telnet URL (RFC 1738 section 3.8), and also the rlogin and
// tn3270 URLs of RFC 1630: an interactive session. The user and password
// are advisory.
type Telnet struct {
	Scheme string // "telnet", "rlogin" or "tn3270"
	Login
}

// Telnet returns the telnet view of u (also for rlogin and tn3270 URLs).
func (u *URL) Telnet() (*Telnet, error) { return view(u.telnet) }

func (u *URL) telnet(out *Telnet) error {
	if err := u.needScheme("telnet", "telnet", "rlogin", "tn3270"); err != nil {
		return err
	}
	if (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.ForceQuery {
		return u.viewError("telnet", "a telnet URL has no path (RFC 1738 section 3.8)")
	}
	*out = Telnet{Scheme: u.Scheme, Login: u.login()}
	return nil
}

// String builds the URL, with the optional final "/".
func (t *Telnet) String() string {
	var b strings.Builder
	b.WriteString(t.Scheme)
	b.WriteByte(':')
	t.Login.write(&b)
	b.WriteByte('/')
	return b.String()
}

// WAIS is a wais URL (RFC 1738 section 3.9) in one of its three forms:
// a database, a search of a database, or one document.
type WAIS struct {
	Login
	Database  string // decoded
	Search    string // decoded, "+" read as a space
	HasSearch bool
	WType     string // decoded; set, with WPath, for a document
	WPath     string // the decoded document-id bytes
}

// WAIS returns the wais view of u.
func (u *URL) WAIS() (*WAIS, error) { return view(u.wais) }

func (u *URL) wais(w *WAIS) error {
	if err := u.needScheme("wais", "wais"); err != nil {
		return err
	}
	*w = WAIS{Login: u.login()}
	parts := strings.SplitN(u.URLPath(), "/", 3)
	if parts[0] == "" {
		return u.viewError("wais", "no database")
	}
	w.Database = mustUnescape(parts[0])
	switch len(parts) {
	case 2:
		if parts[1] != "" {
			return u.viewError("wais", "a document URL needs both /wtype/wpath")
		}
	case 3:
		w.WType, w.WPath = mustUnescape(parts[1]), mustUnescape(parts[2])
	}
	if u.RawQuery != "" || u.ForceQuery {
		if len(parts) == 3 {
			return u.viewError("wais", "a document URL has no search")
		}
		w.Search, w.HasSearch = unescapePlus(u.RawQuery), true
	}
	return nil
}

// IsDocument reports whether the URL designates one document.
func (w *WAIS) IsDocument() bool { return w.WType != "" || w.WPath != "" }

// String builds the wais URL.
func (w *WAIS) String() string {
	var b strings.Builder
	b.WriteString("wais:")
	w.Login.write(&b)
	b.WriteByte('/')
	b.WriteString(Escape(w.Database, ComponentWAIS))
	if w.IsDocument() {
		b.WriteByte('/')
		b.WriteString(Escape(w.WType, ComponentWAIS))
		b.WriteByte('/')
		b.WriteString(Escape(w.WPath, ComponentWAIS))
	} else if w.HasSearch {
		b.WriteByte('?')
		b.WriteString(Escape(w.Search, ComponentWAISSearch))
	}
	return b.String()
}

// File is a file URL (RFC 1738 section 3.10): file://host/path.
type File struct {
	Host string // "" or "localhost" mean this machine
	Path string // decoded, beginning with "/"
}

// File returns the file view of u. It also accepts the common "file:/path"
// form without a host.
func (u *URL) File() (*File, error) { return view(u.file) }

func (u *URL) file(out *File) error {
	if err := u.needScheme("file", "file"); err != nil {
		return err
	}
	if !u.Authority {
		if !strings.HasPrefix(u.Path, "/") {
			return u.viewError("file", "a file URL needs an absolute path")
		}
		*out = File{Path: mustUnescape(u.Path)}
		return nil
	}
	p := u.Path
	if p == "" {
		p = "/"
	}
	*out = File{Host: u.Host, Path: mustUnescape(p)}
	return nil
}

// Local reports whether the file lives on this machine.
func (f *File) Local() bool {
	return f.Host == "" || strings.EqualFold(f.Host, "localhost")
}

// String builds the file URL.
func (f *File) String() string {
	var b strings.Builder
	b.WriteString("file://")
	b.WriteString(f.Host)
	for _, seg := range strings.Split(strings.TrimPrefix(f.Path, "/"), "/") {
		b.WriteByte('/')
		b.WriteString(Escape(seg, ComponentFileSegment))
	}
	return b.String()
}

// Prospero is a prospero URL (RFC 1738 section 3.11):
// prospero://host:port/hsoname;field=value.
type Prospero struct {
	Host    string
	Port    int
	HSOName string  // decoded; often begins with "/" (prospero://host//pros/name)
	Fields  []Field // decoded, in order
}

// Prospero returns the prospero view of u.
func (u *URL) Prospero() (*Prospero, error) { return view(u.prospero) }

func (u *URL) prospero(p *Prospero) error {
	if err := u.needScheme("prospero", "prospero"); err != nil {
		return err
	}
	parts := strings.Split(u.URLPath(), ";")
	*p = Prospero{Host: u.Host, Port: u.Port, HSOName: mustUnescape(parts[0])}
	for _, f := range parts[1:] {
		k, v, ok := strings.Cut(f, "=")
		if !ok {
			return u.viewError("prospero", "field "+strconv.Quote(f)+` has no "="`)
		}
		p.Fields = append(p.Fields, Field{Name: mustUnescape(k), Value: mustUnescape(v)})
	}
	return nil
}

// String builds the prospero URL.
func (p *Prospero) String() string {
	var b strings.Builder
	b.WriteString("prospero:")
	l := Login{Host: p.Host, Port: p.Port}
	l.write(&b)
	b.WriteByte('/')
	b.WriteString(Escape(p.HSOName, ComponentProsperoName))
	for _, f := range p.Fields {
		b.WriteByte(';')
		b.WriteString(Escape(f.Name, ComponentProsperoField))
		b.WriteByte('=')
		b.WriteString(Escape(f.Value, ComponentProsperoField))
	}
	return b.String()
}
