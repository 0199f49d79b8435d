package uri

import (
	"slices"
	"strconv"
	"strings"
)

// A Departure is one place where a URL departs from RFC 1738: Parse
// takes what real URLs hold, and Strict says where that is more than the
// specification allows.
type Departure struct {
	Offset  int    // byte offset in the URL's String
	Section string // the section of RFC 1738 that states the rule: "2.2", "3.3", "5"
	Rule    string // the rule, as it applies here
	Fix     string // what to write instead
}

// String is the departure on one line, for a person.
func (d Departure) String() string {
	return "offset " + strconv.Itoa(d.Offset) + ": RFC 1738 section " + d.Section + ": " + d.Rule + "; fix: " + d.Fix
}

// Strict returns every departure of u from RFC 1738, in order of offset:
// none means u conforms strictly to the grammar of section 5 and the
// rules of section 2.2 and of its scheme's section. Offsets are into
// u.String(), which for a URL from Parse is its input, the scheme in lower
// case (section 2.1 asks programs to take an upper-case scheme so).
//
// It reports characters left unencoded that section 2.2 calls unsafe
// (the national characters, "~" among them) or that are not ASCII (an
// IRI's, RFC 3987), reserved characters where their component's grammar
// has none, a host name outside section 3.1's (a label in Unicode, a
// character other than a letter, digit or "-", a label beginning or
// ending with "-", a last label beginning with a digit, a final ".", an
// IPv6 address), an empty port, a user or password where the scheme has
// none (http, gopher, nntp, wais, prospero, file), a search where it has
// none or not after a "/", a news group name or message-id outside
// section 3.6, an nntp article that is not a number, a wais path of the
// wrong number of parts, a file URL with a port or without "//", a
// prospero URL without its path or a field without "=", a mailto URL with
// more than one address or header fields (RFC 6068's), a telnet URL with
// a path.
//
// https, ftps, nntps and snews, and RFC 1630's rlogin and tn3270, are
// held to the rules of http, ftp, nntp, news and telnet, whose syntax
// they share; any other scheme to the generic ones (section 2.2, and
// section 3.1 after "//"). The fragment is not part of the URL (RFC
// 1630) and is not checked.
func (u *URL) Strict() []Departure {
	c := newStrictCheck(u)
	c.login()
	c.unsafe()
	switch u.Scheme {
	case "ftp", "ftps":
		c.ftp()
	case "http", "https":
		c.http()
	case "gopher":
		c.noLogin("3.4", "a gopher URL")
		c.needHost("3.4")
	case "mailto":
		c.mailto()
	case "news", "snews":
		c.news()
	case "nntp", "nntps":
		c.nntp()
	case "telnet", "rlogin", "tn3270":
		c.telnet()
	case "wais":
		c.wais()
	case "file":
		c.file()
	case "prospero":
		c.prospero()
	}
	slices.SortStableFunc(c.out, func(a, b Departure) int { return a.Offset - b.Offset })
	return c.out
}

// strictCheck is one run of Strict: u, where its parts begin in u.String()
// (-1 for a part it lacks), and the departures found.
type strictCheck struct {
	u                                *URL
	user, password, host, port, path int
	query                            int
	out                              []Departure
}

func newStrictCheck(u *URL) *strictCheck {
	c := &strictCheck{u: u, user: -1, password: -1, host: -1, port: -1, query: -1}
	off := len(u.Scheme) + 1
	if u.Authority {
		off += 2
		if u.HasUser {
			c.user = off
			off += len(u.User)
			if u.HasPassword {
				c.password = off + 1
				off += 1 + len(u.Password)
			}
			off++ // "@"
		}
		if strings.IndexByte(u.Host, ':') >= 0 {
			c.host = off + 1
			off += len(u.Host) + 2
		} else {
			c.host = off
			off += len(u.Host)
		}
		if u.Port != 0 || u.emptyPort {
			c.port = off
			off++
			if u.Port != 0 {
				off += max(len(strconv.Itoa(u.Port)), int(u.portWidth))
			}
		}
	}
	c.path = off
	if u.Authority && (u.RawQuery != "" || u.ForceQuery) {
		c.query = off + len(u.Path) + 1
	}
	return c
}

func (c *strictCheck) add(off int, section, rule, fix string) {
	c.out = append(c.out, Departure{Offset: off, Section: section, Rule: rule, Fix: fix})
}

// unsafe reports, in every part but the host, the characters section 2.2
// wants encoded: the national ones ("{", "}", "|", "\", "^", "~", "[",
// "]"), which gateways change, and what is not printable ASCII (section
// 2.2: "only printable ASCII characters are allowed"), an IRI's
// characters beyond ASCII, a run of which is one departure.
func (c *strictCheck) unsafe() {
	u := c.u
	if c.password >= 0 {
		// Not shown: a departure names no character of a password.
		for i := 0; i < len(u.Password); i++ {
			if b := u.Password[i]; b >= 0x80 || is(b, cNational) {
				c.add(c.password+i, "2.2", "the password holds a character to encode (unsafe, or not printable ASCII)", "encode the password's unsafe and non-ASCII characters")
				break
			}
		}
	}
	for _, part := range []struct {
		off  int
		text string
	}{{c.user, u.User}, {c.path, u.Path}, {c.query, u.RawQuery}} {
		if part.off < 0 {
			continue
		}
		s := part.text
		for i := 0; i < len(s); i++ {
			switch b := s[i]; {
			case b == '%':
				i += 2
			case b >= 0x80:
				j := i
				for j < len(s) && s[j] >= 0x80 {
					j++
				}
				c.add(part.off+i, "2.2", "only printable ASCII characters are allowed: "+strconv.Quote(s[i:j])+" is an IRI's (RFC 3987)", "encode it as "+percent(s[i:j]))
				i = j - 1
			case is(b, cNational):
				c.add(part.off+i, "2.2", "unsafe character "+quoteByte(b)+" (gateways may change it)", "encode it as "+percent(s[i:i+1]))
			}
		}
	}
}

// reserved reports, in text at off, the characters other than unreserved
// ones (section 5's uchar) and escapes that allowed does not accept: the
// reserved characters that text's part of the grammar has no place for.
// The unsafe ones are unsafe's to report.
func (c *strictCheck) reserved(off int, text, section, part, allowed string) {
	for i := 0; i < len(text); i++ {
		b := text[i]
		switch {
		case b == '%':
			i += 2
		case b >= 0x80 || is(b, cAlnum|cSafe|cExtra|cNational):
		case strings.IndexByte(allowed, b) < 0:
			c.add(off+i, section, quoteByte(b)+" is reserved and has no place in "+part, "encode it as "+percent(text[i:i+1]))
		}
	}
}

// login checks the common Internet scheme syntax (section 3.1) of a URL
// with "//": the host name, the port, the user and password's characters.
func (c *strictCheck) login() {
	u := c.u
	if !u.Authority {
		return
	}
	if c.user >= 0 {
		// Section 5: user and password = *[ uchar | ";" | "?" | "&" | "=" ].
		c.reserved(c.user, u.User, "3.1", "a user name", ";?&=")
	}

	c.hostName(c.host, u.Host)
	if u.emptyPort {
		c.add(c.port, "5", `a ":" without a port (port = digits)`, `remove the ":"`)
	}
}

// hostName checks h, a host at offset off, against section 3.1 (a fully
// qualified domain name as RFC 1034 section 3.5 writes it, or a dotted
// IPv4 address) and the grammar of RFC 1738: hostname = *[ domainlabel
// "." ] toplabel, domainlabel = alphadigit | alphadigit *[ alphadigit |
// "-" ] alphadigit, toplabel = alpha | alpha *[ alphadigit | "-" ]
// alphadigit.
func (c *strictCheck) hostName(off int, h string) {
	switch {
	case h == "" || strings.Trim(h, "0123456789.") == "" && validIPv4(h):
		return // hostnumber = digits "." digits "." digits "." digits
	case strings.IndexByte(h, ':') >= 0:
		c.add(off-1, "3.1", "an IPv6 address is RFC 3986's; a host is a domain name or a dotted IPv4 address", "use the host's domain name")
		return
	case !plainHost(h):
		fix := "write the host's A-labels (IDNA)"
		if a, err := ASCIIHost(h); err == nil {
			fix = "write its A-labels: " + strings.ToLower(a)
		}
		c.add(off, "3.1", "a host name in Unicode or escapes is an IRI's (RFC 3987); a host name is ASCII (RFC 1034)", fix)
		return
	}
	name := h
	if strings.HasSuffix(name, ".") {
		name = name[:len(name)-1]
		c.add(off+len(name), "3.1", `a host name ends with its top label, not "."`, `remove the final "."`)
	}
	start := 0
	for start <= len(name) {
		end := strings.IndexByte(name[start:], '.')
		if end < 0 {
			end = len(name)
		} else {
			end += start
		}
		label := name[start:end]
		top := end == len(name)
		for i := 0; i < len(label); i++ {
			if b := label[i]; !is(b, cAlnum) && b != '-' {
				c.add(off+start+i, "3.1", quoteByte(b)+" in a host name, whose labels hold letters, digits and \"-\" (RFC 1034 section 3.5)", "use the host's name in those characters")
			}
		}
		switch {
		case label == "":
		case label[0] == '-':
			c.add(off+start, "3.1", `a host name label begins with "-"`, `a label begins with a letter or digit`)
		case top && label[0] >= '0' && label[0] <= '9':
			c.add(off+start, "3.1", "the last label of a host name begins with a digit (toplabel = alpha *[ alphadigit | \"-\" ] alphadigit)", "write a domain name, or an IPv4 address as four decimal numbers")
		}
		if len(label) > 1 && label[len(label)-1] == '-' {
			c.add(off+end-1, "3.1", `a host name label ends with "-"`, `a label ends with a letter or digit`)
		}
		start = end + 1
	}
}

// needHost reports a URL of an Internet scheme (section 3.1) without
// "//" and the host, and returns whether it has them.
func (c *strictCheck) needHost(section string) bool {
	if c.u.Authority {
		return true
	}
	s := c.u.Scheme
	c.add(c.path, section, "a "+s+" URL begins \""+s+"://\" and the host (section 3.1)", "write "+s+"://host/...")
	return false
}

// noLogin reports a user or password in a URL of a scheme whose section
// gives it none.
func (c *strictCheck) noLogin(section, what string) {
	if c.u.HasUser {
		c.add(c.user, section, what+" has no user or password", `remove them and the "@"`)
	}
}

// ftp: section 3.2.2, <cwd1>/.../<cwdN>/<name>;type=<typecode>; "/" and
// ";" are reserved in a cwd or name.
func (c *strictCheck) ftp() {
	if !c.needHost("3.2") {
		return
	}
	p, off := c.u.URLPath(), c.path+1
	if i := strings.LastIndex(p, ";type="); i >= 0 && strings.IndexByte(p[i:], '/') < 0 {
		p = p[:i]
	}
	// fsegment = *[ uchar | "?" | ":" | "@" | "&" | "=" ]; the "/"s
	// between them are the path's.
	c.reserved(off, p, "3.2.2", "an ftp path segment", "/?:@&=")
}

// http: section 3.3, http://<host>:<port>/<path>?<searchpart>.
func (c *strictCheck) http() {
	u := c.u
	c.noLogin("3.3", "an http URL")
	if !c.needHost("3.3") {
		return
	}
	c.reserved(c.path, u.Path, "3.3", "an http path", "/;:@&=")
	if c.query >= 0 {
		if u.Path == "" {
			c.add(c.query-1, "3.3", `the search follows a "/" (httpurl = "http://" hostport [ "/" hpath [ "?" search ]])`, `write "/?" for "?"`)
		}
		// search = *[ uchar | ";" | ":" | "@" | "&" | "=" ]
		c.reserved(c.query, u.RawQuery, "3.3", "an http search", ";:@&=")
	}
}

// mailto: section 3.5, mailto:<rfc822-addr-spec>, one address.
func (c *strictCheck) mailto() {
	u := c.u
	if u.Authority {
		c.add(len(u.Scheme)+1, "3.5", `a mailto URL is mailto:<address>, without "//"`, `remove the "//"`)
		return
	}
	addrs, _, hasFields := strings.Cut(u.Path, "?")
	if addrs == "" {
		c.add(c.path, "3.5", "a mailto URL names an address (encoded822addr = 1*xchar)", "write the address after mailto:")
	}
	if i := strings.IndexByte(addrs, ','); i >= 0 {
		c.add(c.path+i, "3.5", "a mailto URL names one address; lists are RFC 6068's", "one mailto URL for each address")
	}
	if hasFields {
		c.add(c.path+len(addrs), "3.5", "a mailto URL is an address alone; header fields after \"?\" are RFC 6068's", `remove them from the "?"`)
	}
}

// news: section 3.6, news:<newsgroup-name> or news:<message-id>, no host.
func (c *strictCheck) news() {
	u := c.u
	if u.Authority {
		c.add(len(u.Scheme)+1, "3.6", "a news URL names no host (news servers are the reader's)", "news:group, or nntp://host/group")
		return
	}
	p := u.Path
	switch at := strings.LastIndexByte(p, '@'); {
	case p == "":
		c.add(c.path, "3.6", "a news URL names a group, \"*\" or a message-id", "write one after news:")
	case p == "*":
	case at >= 0:
		// article = 1*[ uchar | ";" | "/" | "?" | ":" | "&" | "=" ] "@" host
		if strings.HasPrefix(p, "%3C") && strings.HasSuffix(p, "%3E") || strings.HasPrefix(p, "%3c") && strings.HasSuffix(p, "%3e") {
			c.add(c.path, "3.6", `a message-id is written without its enclosing "<" and ">"`, "remove the %3C and the %3E")
			p, at = p[3:len(p)-3], at-3
			c.reserved(c.path+3, p[:at], "3.6", "a message-id's unique part", ";/?:&=")
			c.hostName(c.path+3+at+1, p[at+1:])
			return
		}
		if at == 0 {
			c.add(c.path, "3.6", `a message-id has a unique part before the "@"`, "write <unique>@<host>")
		}
		c.reserved(c.path, p[:at], "3.6", "a message-id's unique part", ";/?:&=")
		c.hostName(c.path+at+1, p[at+1:])
	default:
		c.group(c.path, p, "3.6")
	}
}

// group checks a newsgroup name of section 3.6: group = alpha *[ alpha |
// digit | "-" | "." ]. Characters unsafe reports are left to it.
func (c *strictCheck) group(off int, g, section string) {
	const grammar = `(group = alpha *[ alpha | digit | "-" | "." ])`
	const noFix = "RFC 1738 has no way to name this group (RFC 5536's group names allow more)"
	for i := 0; i < len(g); {
		b, n := g[i], 1
		if b == '%' {
			b, n = unhex(g[i+1])<<4|unhex(g[i+2]), 3
		}
		switch {
		case n == 1 && (b >= 0x80 || is(b, cNational)):
		case i == 0 && !(is(b, cAlnum) && b > '9'):
			c.add(off, section, "a news group name begins with a letter "+grammar, noFix)
		case !is(b, cAlnum) && b != '-' && b != '.':
			c.add(off+i, section, quoteByte(b)+" in a news group name "+grammar, noFix)
		case n == 3:
			c.add(off+i, section, "an escape in a news group name, whose characters stand as themselves", "write "+quoteByte(b)+" for "+g[i:i+3])
		}
		i += n
	}
}

// nntp: section 3.7, nntp://<host>:<port>/<newsgroup-name>/<article-number>.
func (c *strictCheck) nntp() {
	u := c.u
	c.noLogin("3.7", "an nntp URL")
	if !c.needHost("3.7") {
		return
	}
	group, article, hasArticle := strings.Cut(u.URLPath(), "/")
	if group == "" {
		c.add(c.path, "3.7", "an nntp URL names a group (nntpurl = \"nntp://\" hostport \"/\" group [ \"/\" digits ])", "add /group")
		return
	}
	c.group(c.path+1, group, "3.7")
	off := c.path + 1 + len(group) + 1
	switch {
	case !hasArticle:
	case article == "":
		c.add(off-1, "3.7", `a "/" without an article number`, `remove the final "/"`)
	default:
		for i := 0; i < len(article); i++ {
			if b := article[i]; b < '0' || b > '9' {
				c.add(off+i, "3.7", "an article number is decimal digits", "write the article's number, or name the group alone")
				break
			}
		}
	}
}

// telnet: section 3.8, telnet://<user>:<password>@<host>:<port>/.
func (c *strictCheck) telnet() {
	u := c.u
	if !c.needHost("3.8") {
		return
	}
	if u.Path != "" && u.Path != "/" {
		c.add(c.path+1, "3.8", "a telnet URL ends after the host and port and an optional \"/\"", "remove the path")
	}
}

// wais: section 3.9, wais://<host>:<port>/<database>[?<search>] or
// wais://<host>:<port>/<database>/<wtype>/<wpath>.
func (c *strictCheck) wais() {
	u := c.u
	c.noLogin("3.9", "a wais URL")
	if !c.needHost("3.9") {
		return
	}
	if u.Path == "" {
		c.add(c.path, "3.9", "a wais URL names a database after a \"/\"", "add /database")
		return
	}
	parts := strings.Split(u.URLPath(), "/")
	if parts[0] == "" {
		c.add(c.path+1, "3.9", "a wais URL names a database", "write the database's name after the \"/\"")
	}
	off := c.path + 1
	for i, part := range parts {
		if i >= 3 {
			c.add(off-1, "3.9", "a wais URL has a database, or a database, wtype and wpath: a \"/\" in the wpath is encoded", "encode it as %2F")
		}
		// database, wtype, wpath = *uchar
		c.reserved(off, part, "3.9", "a wais database, wtype or wpath", "")
		off += len(part) + 1
	}
	if len(parts) == 2 {
		c.add(c.path+1+len(parts[0]), "3.9", "a wais URL has a database, or a database, wtype and wpath, not two parts", "write /database/wtype/wpath, or /database alone")
	}
	if c.query >= 0 {
		if len(parts) >= 3 {
			c.add(c.query-1, "3.9", "a wais document URL has no search", `remove it from the "?"`)
		}
		// search = *[ uchar | ";" | ":" | "@" | "&" | "=" ]
		c.reserved(c.query, u.RawQuery, "3.9", "a wais search", ";:@&=")
	}
}

// file: section 3.10, file://<host>/<path>.
func (c *strictCheck) file() {
	u := c.u
	if !u.Authority {
		fix := "write file://host/path"
		if strings.HasPrefix(u.Path, "/") {
			fix = "write file://" + u.Path
		}
		c.add(c.path, "3.10", `a file URL begins "file://" and the host ("" or "localhost" for this machine)`, fix)
	} else if c.port >= 0 {
		c.add(c.port, "3.10", "a file URL names a host, not a port (fileurl = \"file://\" host [ \"/\" fpath ])", "remove the port")
	}
	c.noLogin("3.10", "a file URL")
	// fpath = fsegment *[ "/" fsegment ], fsegment = *[ uchar | "?" | ":" | "@" | "&" | "=" ]
	c.reserved(c.path, u.Path, "3.10", "a file path", "/?:@&=")
}

// prospero: section 3.11, prospero://<host>:<port>/<hsoname>;<field>=<value>.
func (c *strictCheck) prospero() {
	u := c.u
	c.noLogin("3.11", "a prospero URL")
	if !c.needHost("3.11") {
		return
	}
	if u.Path == "" {
		c.add(c.path, "3.11", `a prospero URL has a "/" and the hsoname after the host (prosperourl = "prospero://" hostport "/" ppath ...)`, "add /hsoname")
		return
	}
	parts := strings.Split(u.URLPath(), ";")
	off := c.path + 1
	// ppath = psegment *[ "/" psegment ], psegment = *[ uchar | "?" | ":" | "@" | "&" | "=" ]
	c.reserved(off, parts[0], "3.11", "a prospero hsoname", "/?:@&=")
	off += len(parts[0]) + 1
	for _, f := range parts[1:] {
		name, value, ok := strings.Cut(f, "=")
		if !ok {
			c.add(off, "3.11", `a prospero field is <field>=<value>`, `add "=" and the value, or encode ";" in the hsoname as %3B`)
		}
		// fieldname, fieldvalue = *[ uchar | "?" | ":" | "@" | "&" ]
		c.reserved(off, name, "3.11", "a prospero field name", "?:@&")
		if ok {
			c.reserved(off+len(name)+1, value, "3.11", "a prospero field value", "?:@&")
		}
		off += len(f) + 1
	}
}
