package uri

// Scheme describes what the uri package knows of a URL scheme: its default
// port and how its scheme-specific part is split.
type Scheme struct {
	Name string
	// DefaultPort is the port used when the URL names none; 0 when the
	// scheme has no network port (mailto, news, file).
	DefaultPort int
	// Internet reports whether the scheme uses the common Internet scheme
	// syntax of RFC 1738 section 3.1: //user:password@host:port/url-path.
	Internet bool
	// Login reports whether RFC 1738 gives the scheme's URLs a user and
	// password. HTTP and Prospero have none (RFC 1738 sections 3.3 and
	// 3.11), and a file URL names only a host (section 3.10). Parse
	// refuses a login where Login is false, except in http and https
	// URLs, where every client takes one (RFC 3986's userinfo) and
	// sends it as Basic authorization: the HTTP view has it.
	Login bool
	// Query reports whether "?" separates a search part from the path.
	// In ftp, gopher, file and prospero URLs "?" is ordinary data.
	Query bool
}

// schemes is the one table of the schemes RFC 1738 and RFC 1630 define,
// plus the TLS schemes of today's protocols: https, ftps (RFC 4217's implicit
// TLS), nntps and snews (RFC 4642, RFC 5538).
var schemes = [...]Scheme{
	{Name: "ftp", DefaultPort: 21, Internet: true, Login: true},
	{Name: "http", DefaultPort: 80, Internet: true, Query: true},
	{Name: "https", DefaultPort: 443, Internet: true, Query: true},
	{Name: "gopher", DefaultPort: 70, Internet: true, Login: true},
	{Name: "mailto"},
	{Name: "news"},
	{Name: "nntp", DefaultPort: 119, Internet: true, Login: true},
	{Name: "telnet", DefaultPort: 23, Internet: true, Login: true},
	{Name: "wais", DefaultPort: 210, Internet: true, Login: true, Query: true},
	{Name: "file", Internet: true},
	{Name: "prospero", DefaultPort: 1525, Internet: true},
	{Name: "rlogin", DefaultPort: 513, Internet: true, Login: true},
	{Name: "tn3270", DefaultPort: 23, Internet: true, Login: true},
	{Name: "ftps", DefaultPort: 990, Internet: true, Login: true},
	{Name: "nntps", DefaultPort: 563, Internet: true, Login: true},
	{Name: "snews", DefaultPort: 563},
}

// LookupScheme returns what the package knows of the scheme name, which
// must be lower case. ok is false for a scheme not in the table; such a
// URL is still parsed, with the generic syntax.
func LookupScheme(name string) (s Scheme, ok bool) {
	if i := schemeIndex(name); i >= 0 {
		return schemes[i], true
	}
	s = unknownScheme
	s.Name = name
	return s, false
}

// unknownScheme is how a scheme not in the table is parsed: the generic
// syntax, where "?" starts a query and a login is allowed.
var unknownScheme = Scheme{Login: true, Query: true}

// schemeIndex finds name in schemes without a loop of string compares:
// Parse calls it for every URL.
func schemeIndex(name string) int {
	i := -1
	switch name {
	case "ftp":
		i = 0
	case "http":
		i = 1
	case "https":
		i = 2
	case "gopher":
		i = 3
	case "mailto":
		i = 4
	case "news":
		i = 5
	case "nntp":
		i = 6
	case "telnet":
		i = 7
	case "wais":
		i = 8
	case "file":
		i = 9
	case "prospero":
		i = 10
	case "rlogin":
		i = 11
	case "tn3270":
		i = 12
	case "ftps":
		i = 13
	case "nntps":
		i = 14
	case "snews":
		i = 15
	}
	return i
}

// Schemes returns the table of known schemes, in the order of RFC 1738.
func Schemes() []Scheme {
	return append([]Scheme(nil), schemes[:]...)
}

// DefaultPort returns the default port of a scheme, or 0 when it has none.
func DefaultPort(scheme string) int {
	s, _ := LookupScheme(scheme)
	return s.DefaultPort
}

// isKnownScheme reports whether name is in the table.
func isKnownScheme(name string) bool {
	_, ok := LookupScheme(name)
	return ok
}
