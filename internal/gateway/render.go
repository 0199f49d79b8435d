package gateway

import (
	"bufio"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"html/template"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/urlfetch/urlfetch/fetch"
	"github.com/urlfetch/urlfetch/fetch/gopher"
	"github.com/urlfetch/urlfetch/internal/records"
	"github.com/urlfetch/urlfetch/internal/termsafe"
	"github.com/urlfetch/urlfetch/uri"
)

// The HTML pages. Every string a server sent reaches a page through
// html/template, which escapes it for where it stands, after visible has
// made its control characters visible; a link is made only to a URL of a
// scheme the gateway fetches (link), so a server's "javascript:" URL is
// shown, never followed. The pages run no script: their policy allows
// the one style sheet below, by its hash, and nothing else.

// css is the pages' style sheet, inline: the policy names it by hash, so
// that it needs no URL of its own (which in gateway mode would be a URL
// of the server's).
const css = `body{font:15px/1.4 system-ui,sans-serif;margin:1em 2em;color:#111;background:#fff}
h1{font-size:1.2em;word-break:break-all}
form.go{margin:0 0 1em}form.go input{width:60%}
table{border-collapse:collapse}td,th{padding:.1em .6em;text-align:left;vertical-align:top}
td.size{text-align:right}td.type,td.time,td.size{color:#555;white-space:nowrap}
tr.info pre,pre{margin:0;white-space:pre-wrap}tr.error{color:#a00}
.note{color:#555}p.error{color:#a00;font-weight:bold}
form.search{display:inline;margin-left:1em}
dl.headers dt{font-weight:bold;float:left;clear:left;margin-right:.5em}
article pre{border-top:1px solid #ccc;padding-top:.5em}`

const layout = `{{define "head"}}<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{{.Title}}</title><style>` + css + `</style></head>
<body>
{{if .Portal}}<form class="go" method="get" action="/"><input name="url" type="text" value="{{.URL}}" aria-label="URL" placeholder="gopher://host/1/"> <button type="submit">Fetch</button></form>
{{end}}<h1>{{.Heading}}</h1>
{{with .Note}}<p class="note">{{.}}</p>
{{end}}{{end}}

{{define "foot"}}</body></html>
{{end}}

{{define "home"}}{{template "head" .}}<p>fetch serve is a gateway to every scheme fetch knows that is safe to
fetch for the web: {{.Schemes}}. Type a URL above, or open
<code>/gopher://host/1/</code> after this page's address.</p>
<p>As an HTTP proxy (RFC 1738 section 4) it takes the whole URL:
<code>curl -x {{.Self}} gopher://host/1/</code>, or
<code>fetch --gateway gopher={{.Self}} gopher://host/1/</code>.
A client that accepts application/json gets the records of <code>fetch --json</code>.</p>
{{template "foot" .}}{{end}}

{{define "listing-head"}}{{template "head" .}}<table class="listing">
<thead><tr><th>Type</th><th>Name</th><th>Size</th><th>Modified</th></tr></thead>
<tbody>
{{end}}

{{define "row"}}{{if .Info}}<tr class="{{.Class}}"><td class="type">{{.Type}}</td><td colspan="3"><pre>{{.Name}}</pre></td></tr>
{{else}}<tr class="{{.Class}}"><td class="type">{{.Type}}</td><td class="name">{{if .Href}}<a class="entry" href="{{.Href}}">{{.Name}}</a>{{else}}<span class="entry">{{.Name}}</span>{{end}}{{with .Note}} <span class="note">{{.}}</span>{{end}}{{if .Search}}<form class="search" method="post" action="{{.Href}}"><input name="search" type="search" aria-label="search words" required> <button type="submit">Search</button></form>{{end}}</td><td class="size">{{.Size}}</td><td class="time">{{.Time}}</td></tr>
{{end}}{{end}}

{{define "listing-foot"}}</tbody></table>
<p class="note">{{.Count}} entries.</p>
{{with .Error}}<p class="error">{{.}}</p>
{{end}}{{template "foot" .}}{{end}}

{{define "error"}}{{template "head" .}}<p class="error">{{.Message}}</p>
{{template "foot" .}}{{end}}

{{define "search"}}{{template "head" .}}<form class="ask" method="post" action="{{.Action}}">
<label>Search for <input name="search" type="search" required autofocus></label> <button type="submit">Search</button>
</form>
{{template "foot" .}}{{end}}

{{define "ask"}}{{template "head" .}}<form class="ask" method="post" action="{{.Action}}">
<input type="hidden" name="token" value="{{.Token}}">
{{range .Questions}}<p>{{if eq .Kind "Note"}}{{.Prompt}}{{else}}<label>{{.Prompt}}<br>
{{if eq .Kind "AskL"}}<textarea name="{{.Name}}" rows="5" cols="60">{{.Default}}</textarea>
{{else if .Choices}}<select name="{{.Name}}">{{range .Choices}}<option>{{.}}</option>{{end}}</select>
{{else if eq .Kind "AskP"}}<input name="{{.Name}}" type="password">
{{else}}<input name="{{.Name}}" type="text" value="{{.Default}}" size="60">
{{end}}</label>{{end}}</p>
{{end}}<button type="submit">Send</button>
</form>
{{template "foot" .}}{{end}}

{{define "article-head"}}{{template "head" .}}<article><dl class="headers">
{{range .Headers}}<dt>{{.Name}}:</dt><dd>{{.Value}}</dd>
{{end}}</dl>
<pre>{{end}}

{{define "article-foot"}}</pre></article>
{{with .Error}}<p class="error">{{.}}</p>
{{end}}{{template "foot" .}}{{end}}
`

// pages are the parsed templates and the policies of the pages.
type pages struct {
	t *template.Template
	// portalCSP and proxyCSP are the Content-Security-Policy of a page
	// in portal mode and in gateway mode: nothing but the style sheet,
	// by its hash, and forms sent to the gateway. In gateway mode a
	// page's own origin is its URL's server, and a form's action may be
	// a URL of any scheme served: the client sends it to the gateway.
	portalCSP, proxyCSP string
}

// newPages parses the templates; schemes are those the gateway serves.
func newPages(schemes []string) (*pages, error) {
	t, err := template.New("gateway").Parse(layout)
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256([]byte(css))
	style := "'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'"
	policy := func(formAction string) string {
		return "default-src 'none'; style-src " + style + "; form-action " + formAction + "; base-uri 'none'; frame-ancestors 'none'"
	}
	proxyAction := "'self'"
	for _, s := range schemes {
		proxyAction += " " + s + ":"
	}
	return &pages{t: t, portalCSP: policy("'self'"), proxyCSP: policy(proxyAction)}, nil
}

// pageHead is what the head of every page shows.
type pageHead struct {
	Title, Heading string
	Portal         bool   // show the URL box
	URL            string // the URL box's value
	Note           string
}

// head is the head of a page about the exchange's URL.
func (x *exchange) head(heading string) pageHead {
	return pageHead{Title: termsafe.Escape(x.input) + " - fetch serve", Heading: heading, Portal: !x.proxy, URL: x.input}
}

// startPage writes the header of an HTML reply with status code; it
// returns false for a HEAD request, which gets no body.
func (x *exchange) startPage(code int) bool {
	h := x.w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Cache-Control", "no-store")
	csp := x.s.pages.portalCSP
	if x.proxy {
		csp = x.s.pages.proxyCSP
	}
	h.Set("Content-Security-Policy", csp)
	x.w.WriteHeader(code)
	return x.r.Method != http.MethodHead
}

// execute writes template name with data to the reply; an error writing
// it ends the exchange.
func (x *exchange) execute(name string, data any) {
	if err := x.s.pages.t.ExecuteTemplate(x.w, name, data); err != nil {
		x.abort(err)
	}
}

// home is the portal's home page.
func (x *exchange) home() {
	x.input = ""
	data := struct {
		pageHead
		Schemes, Self string
	}{pageHead{Title: "fetch serve", Heading: "fetch serve", Portal: true}, strings.Join(x.s.client.AllowSchemes, ", "), x.s.self}
	x.format = formatHTML
	if x.startPage(http.StatusOK) {
		x.execute("home", data)
	}
}

// errorPage is an HTML page saying why the URL failed.
func (x *exchange) errorPage(code int, err error) {
	_, msg := records.ErrorParts(err)
	heading := strconv.Itoa(code) + " " + http.StatusText(code)
	data := struct {
		pageHead
		Message string
	}{x.head(heading), termsafe.Escape(msg)}
	if x.input == "" {
		data.Title = heading + " - fetch serve"
	}
	if x.startPage(code) {
		x.execute("error", data)
	}
}

// row is one entry of a listing as the page shows it.
type row struct {
	Class, Type, Name, Note, Size, Time string
	Href                                template.URL
	Info                                bool // a line of text (gopher i), no resource
	Search                              bool // a search: a form to submit words
}

// listing is a listing's page: a table of its entries as they stream in,
// each linked through the gateway.
func (x *exchange) listing(resp *fetch.Response) {
	if !x.startPage(http.StatusOK) {
		return
	}
	head := x.head(termsafe.Escape(resp.URL.Redacted()))
	if resp.URL.String() != x.input && resp.URL.Redacted() != x.input {
		head.Note = "Redirected from " + termsafe.Escape(x.input) + "."
	}
	x.execute("listing-head", head)
	body := &readError{r: resp.Body}
	resp.Body = struct {
		io.Reader
		io.Closer
	}{body, resp.Body}
	gopherMenu := resp.URL.Scheme == "gopher"
	n := 0
	var broke error
	for e, err := range resp.Entries() {
		if err != nil {
			if body.err != nil {
				broke = err
				break
			}
			x.execute("row", row{Class: "error", Type: "error", Name: termsafe.Escape(err.Error()), Info: true})
			continue
		}
		n++
		x.execute("row", x.row(e, gopherMenu))
		if n%64 == 0 {
			x.w.Flush()
		}
	}
	foot := struct {
		pageHead
		Count int
		Error string
	}{head, n, ""}
	if broke != nil {
		_, msg := records.ErrorParts(broke)
		foot.Error = "The listing broke off: " + termsafe.Escape(msg)
	}
	x.execute("listing-foot", foot)
}

// row is the row of e: its type in the listing's own terms (a gopher
// item's type), its name linked through the gateway where the gateway
// fetches its URL, a search's form, a session's URL shown, not linked.
func (x *exchange) row(e fetch.Entry, gopherMenu bool) row {
	r := row{Class: e.Type.String(), Type: e.Type.String(), Name: termsafe.Escape(e.Name), Size: "", Time: ""}
	if gopherMenu && len(e.Item) == 1 {
		r.Type = gopher.ItemType(e.Item[0]).String()
	}
	r.Type = termsafe.Escape(r.Type)
	if e.Size >= 0 && e.Type != fetch.EntryDir {
		r.Size = strconv.FormatInt(e.Size, 10)
	}
	if !e.Time.IsZero() {
		r.Time = e.Time.UTC().Format("2006-01-02 15:04")
	}
	var notes []string
	if e.Title != "" && e.Title != e.Name {
		notes = append(notes, termsafe.Escape(e.Title))
	}
	if e.Target != "" {
		notes = append(notes, "-> "+termsafe.Escape(e.Target))
	}
	switch e.Type {
	case fetch.EntryInfo, fetch.EntryError:
		r.Info = true
		return r
	case fetch.EntrySession:
		// No session over HTTP: the item's URL, for a client of its own.
		notes = append(notes, termsafe.Escape(e.URL))
	default:
		if href, ok := x.link(e.URL); ok {
			r.Href = href
			r.Search = e.Type == fetch.EntrySearch
		} else if e.URL != "" {
			notes = append(notes, termsafe.Escape(e.URL))
		}
	}
	r.Note = strings.Join(notes, "  ")
	return r
}

// link returns the href of a link to raw: in portal mode the portal's
// page of raw, "/gopher://host/1/" (or "/?url=..." for a URL a browser
// would rewrite as a path: dot segments, a backslash); in gateway mode
// raw itself, which the client sends back to the gateway. ok is false,
// and raw is to be shown rather than linked, for what does not parse and
// for a scheme the gateway does not fetch.
func (x *exchange) link(raw string) (template.URL, bool) {
	if raw == "" {
		return "", false
	}
	u, err := uri.Parse(raw)
	if err != nil || !slices.Contains(x.s.client.AllowSchemes, u.Scheme) {
		return "", false
	}
	s := u.WithoutFragment().String()
	if x.proxy {
		// A URL of a scheme the gateway fetches, checked just above:
		// never javascript: or data:, which html/template's own filter
		// would stop, along with gopher: and ftp:.
		return template.URL(s), true
	}
	if pathSafe(s) {
		return template.URL("/" + s), true
	}
	return template.URL("/?url=" + url.QueryEscape(s)), true
}

// pathSafe reports whether a browser keeps s as it is when s follows "/"
// in a URL's path: it holds no dot segment ("/../", encoded or not) and
// no backslash, which browsers rewrite.
func pathSafe(s string) bool {
	if strings.Contains(strings.ToLower(s), "%2e") || strings.ContainsAny(s, "\\#") {
		return false
	}
	for _, seg := range strings.Split(s, "/") {
		if seg == "." || seg == ".." {
			return false
		}
	}
	return true
}

// isArticle reports whether typ is a message: a news article, shown as
// its header fields and its text.
func isArticle(typ string) bool {
	t, _, _ := strings.Cut(typ, ";")
	return strings.EqualFold(strings.TrimSpace(t), "message/rfc822")
}

// header is one header field of an article.
type header struct{ Name, Value string }

// Limits of an article's header that the page shows.
const (
	maxHeaderBytes  = 256 << 10
	maxHeaderFields = 1000
)

// article is a news article's page: its header fields, then its text,
// streamed, escaped.
func (x *exchange) article(resp *fetch.Response) {
	br := bufio.NewReaderSize(resp.Body, 64<<10)
	fields, err := readHeader(br)
	if err != nil {
		x.failErr(&fetch.Error{Op: "read", URL: resp.URL.Redacted(), Err: err})
		return
	}
	if !x.startPage(http.StatusOK) {
		return
	}
	data := struct {
		pageHead
		Headers []header
		Error   string
	}{pageHead: x.head(termsafe.Escape(resp.URL.Redacted())), Headers: fields}
	x.execute("article-head", data)
	buf := make([]byte, 32<<10)
	for {
		n, err := br.Read(buf)
		if n > 0 {
			template.HTMLEscape(x.w, buf[:n])
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			_, msg := records.ErrorParts(err)
			data.Error = "The article broke off: " + termsafe.Escape(msg)
			break
		}
	}
	x.execute("article-foot", data)
}

// readHeader reads an article's header fields, up to the empty line,
// unfolding continued lines; the values are shown visible.
func readHeader(br *bufio.Reader) ([]header, error) {
	var fields []header
	total := 0
	for {
		line, err := br.ReadString('\n')
		total += len(line)
		if total > maxHeaderBytes || len(fields) > maxHeaderFields {
			return nil, fetch.Errorf(fetch.ErrProtocol, "an article header of more than %d bytes or %d fields", maxHeaderBytes, maxHeaderFields)
		}
		line = strings.TrimRight(line, "\r\n")
		if line == "" {
			if err != nil && err != io.EOF {
				return nil, err
			}
			return fields, nil
		}
		if (line[0] == ' ' || line[0] == '\t') && len(fields) > 0 {
			fields[len(fields)-1].Value += " " + termsafe.Escape(strings.TrimSpace(line))
		} else if name, value, ok := strings.Cut(line, ":"); ok {
			fields = append(fields, header{termsafe.Escape(name), termsafe.Escape(strings.TrimSpace(value))})
		} else {
			fields = append(fields, header{"", termsafe.Escape(line)})
		}
		if err != nil {
			if err == io.EOF {
				return fields, nil
			}
			return nil, err
		}
	}
}

// readError is a Body that keeps the error that broke its read: an entry
// error after it is the end of the listing, not one more line that could
// not be parsed.
type readError struct {
	r   io.Reader
	err error
}

func (r *readError) Read(p []byte) (int, error) {
	n, err := r.r.Read(p)
	if err != nil && !errors.Is(err, io.EOF) && r.err == nil {
		r.err = err
	}
	return n, err
}
