package gopher

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/textproto"
	"slices"
	"strings"
	"time"

	"github.com/urlfetch/urlfetch/fetch"
	"github.com/urlfetch/urlfetch/uri"
)

// Block is one Gopher+ attribute block (Gopher+ section 2.5): a line that
// begins with "+NAME:", then lines that each begin with a space.
type Block struct {
	Name  string   // with its "+": "+INFO", "+ADMIN", "+VIEWS", "+ABSTRACT", "+ASK"
	Value string   // the rest of the name line: the +INFO item, a reference
	Lines []string // the lines of the block, without their leading space
}

// Attributes are the attribute blocks of one item, its +INFO block first.
type Attributes struct {
	Blocks []Block
}

// Get returns the block called name ("+ABSTRACT"), or nil.
func (a *Attributes) Get(name string) *Block {
	for i := range a.Blocks {
		if a.Blocks[i].Name == name {
			return &a.Blocks[i]
		}
	}
	return nil
}

// Item returns the item the +INFO block describes.
func (a *Attributes) Item() (Item, error) {
	b := a.Get("+INFO")
	if b == nil {
		return Item{}, errors.New("no +INFO block")
	}
	return ParseItem(b.Value)
}

// Modified returns the time of the +ADMIN block's Mod-Date line
// ("Mod-Date: ... <YYYYMMDDhhmmss>"), read as UTC, if it has one.
func (a *Attributes) Modified() (time.Time, bool) {
	b := a.Get("+ADMIN")
	if b == nil {
		return time.Time{}, false
	}
	for _, l := range b.Lines {
		v, ok := strings.CutPrefix(l, "Mod-Date:")
		if !ok {
			continue
		}
		i, j := strings.LastIndexByte(v, '<'), strings.LastIndexByte(v, '>')
		if i < 0 || j < i {
			continue
		}
		if t, err := time.Parse("20060102150405", v[i+1:j]); err == nil {
			return t, true
		}
	}
	return time.Time{}, false
}

// errNoAttributes is wrapped by ParseAttributes' error for a reply that
// holds no attribute blocks (the document, from a server that ignored the
// request).
var errNoAttributes = errors.New("gopher: no attribute blocks")

// noAttributesError is that error, with the reply's first line.
type noAttributesError struct{ first string }

func (e *noAttributesError) Error() string {
	return fmt.Sprintf("%v: the reply begins %q", errNoAttributes, e.first)
}

func (e *noAttributesError) Unwrap() error { return errNoAttributes }

// began returns the first line of a reply without attributes.
func began(err error) string {
	var e *noAttributesError
	if errors.As(err, &e) {
		return e.first
	}
	return ""
}

// ParseAttributes reads attribute blocks up to the end of r or a line
// holding only ".": the reply to "!" (one item) or "$" (every item of a
// directory, each starting with its +INFO block). Lines longer than
// MaxLine are an error. A reply whose first line does not begin with "+"
// holds no attributes: the error then says so and quotes that line.
func ParseAttributes(r io.Reader) ([]Attributes, error) {
	br := bufio.NewReaderSize(r, 4096)
	var items []Attributes
	var cur *Block
	for n := 1; ; n++ {
		line, long, err := readLine(br, MaxLine)
		if long {
			return nil, fetch.Errorf(fetch.ErrProtocol, "gopher: attribute line %d is longer than %d bytes", n, MaxLine)
		}
		if n > maxAttributeLines {
			// A bound on the lines, not only the bytes: a reply of
			// "+A" lines decodes into a hundred times its size.
			return nil, fetch.Errorf(fetch.ErrProtocol, "gopher: an attribute reply of more than %d lines", maxAttributeLines)
		}
		if line == "" && err != nil {
			if err != io.EOF {
				return nil, err
			}
			return items, nil
		}
		s := trimEOL(line)
		switch {
		case s == ".":
			return items, nil
		case s == "":
		case s[0] == '+':
			name, value, _ := strings.Cut(s, ":")
			if sp := strings.IndexByte(name, ' '); sp >= 0 { // "+ADMIN" without its colon
				// Issue 12: the value is the rest of the line, colons
				// and all ("+ADMIN a:b" lost ":b").
				name, value = name[:sp], s[sp:]
			}
			value = strings.TrimPrefix(value, " ")
			if name == "+INFO" || len(items) == 0 {
				items = append(items, Attributes{})
			}
			it := &items[len(items)-1]
			it.Blocks = append(it.Blocks, Block{Name: name, Value: value})
			cur = &it.Blocks[len(it.Blocks)-1]
		case cur == nil:
			return nil, &noAttributesError{first: short(s)}
		default:
			// A line of the block, which should begin with a space.
			cur.Lines = append(cur.Lines, strings.TrimPrefix(s, " "))
		}
		if err != nil {
			if err != io.EOF {
				return nil, err
			}
			return items, nil
		}
	}
}

// maxAttributeLines bounds the lines of one attribute reply: some 100
// items of a directory's "$" with their +INFO, +ADMIN, +VIEWS and
// +ABSTRACT blocks are a few hundred lines.
const maxAttributeLines = 1 << 16

func short(s string) string {
	if len(s) > 60 {
		return s[:60] + "..."
	}
	return s
}

// attributeNames returns the block names a "!" or "$" string asks for:
// "!+ABSTRACT +VIEWS" and "$+VIEWS+ABSTRACT" ask for +ABSTRACT and +VIEWS
// (RFC 1738 section 3.4.7, Gopher+ section 2.7); nil asks for all.
func attributeNames(plus string) []string {
	var names []string
	for _, f := range strings.Fields(plus[1:]) {
		for _, n := range strings.Split(f, "+") {
			if n != "" {
				names = append(names, "+"+n)
			}
		}
	}
	return names
}

// attributes fetches the attributes that a "!" or "$" Gopher+ string asks
// for. A server that answers a selection of blocks with something else (as
// pygopherd answers "!+ABSTRACT" with the document) is asked for all of
// them, and the client picks.
func (d *Driver) attributes(ctx context.Context, req *fetch.Request, g *uri.Gopher) (*fetch.Response, error) {
	names := attributeNames(g.Plus)
	var raw *bytes.Buffer // the reply as sent, for a Raw request
	if req.Raw {
		raw = new(bytes.Buffer)
	}
	items, h, err := d.fetchAttributes(ctx, req, g, raw)
	if errors.Is(err, errNoAttributes) && names != nil {
		all := *g
		all.Plus = g.Plus[:1]
		req.Tracef(fetch.Note, "the server sent no attribute blocks for %q; asking for all of them with %q and picking %s", g.Plus, all.Plus, strings.Join(names, " "))
		if raw != nil {
			raw.Reset()
		}
		items, h, err = d.fetchAttributes(ctx, req, &all, raw)
	}
	if errors.Is(err, errNoAttributes) {
		return nil, errorf(fetch.ErrUnsupported, g.Selector, "the server sent no Gopher+ attribute blocks for %q (it may not speak Gopher+); its reply begins %q", g.Plus, began(err))
	}
	if err != nil {
		return nil, err
	}
	if names != nil {
		for i := range items {
			items[i].Blocks = pick(items[i].Blocks, names)
		}
	}
	resp := &fetch.Response{Kind: fetch.Document, Type: "text/plain; charset=utf-8", Meta: fetch.Meta{}}
	resp.Meta.Set("Gopher-Type", string(g.Type))
	if h.ok {
		resp.Meta.Set("Gopher-Plus", h.line)
	}
	for _, it := range items {
		for _, b := range it.Blocks {
			k := metaKey(b.Name)
			if b.Value != "" {
				resp.Meta.Add(k, b.Value)
			}
			for _, l := range b.Lines {
				resp.Meta.Add(k, l)
			}
		}
	}
	if len(items) == 1 {
		if t, ok := items[0].Modified(); ok {
			resp.Modified = t
		}
	}
	text := renderAttributes(items)
	if raw != nil {
		text = raw.String() // every block the server sent, picked or not
	}
	resp.Length = int64(len(text))
	resp.Body = fetch.NewBody(ctx, strings.NewReader(text), fetch.BodyFuncs{})
	return resp, nil
}

// fetchAttributes sends g's attribute request and parses the reply,
// copying its bytes (after the Gopher+ header line) to raw if not nil.
func (d *Driver) fetchAttributes(ctx context.Context, req *fetch.Request, g *uri.Gopher, raw *bytes.Buffer) ([]Attributes, plusHeader, error) {
	conn, br, err := d.send(ctx, req, []string{g.Request() + "\r\n"}, nil)
	if err != nil {
		return nil, plusHeader{}, err
	}
	defer conn.Close()
	h, err := readPlusHeader(br)
	if err != nil {
		return nil, h, err
	}
	if h.ok {
		req.Trace(fetch.In, h.line)
		if h.fail {
			return nil, h, plusError(br, h, g.Selector)
		}
	}
	max := d.MaxAttributeSize
	if max == 0 {
		max = DefaultMaxAttributeSize
	}
	var r io.Reader = br
	if h.ok && h.size >= 0 {
		r = &exactReader{r: br, left: h.size, size: h.size}
	}
	lr := &limitReader{r: r, left: max}
	if max < 0 {
		lr.left = -1
	}
	var src io.Reader = lr
	if raw != nil {
		src = io.TeeReader(lr, raw) // bounded as lr is
	}
	items, err := ParseAttributes(src)
	if err != nil {
		if lr.over {
			err = errorf(fetch.ErrProtocol, g.Selector, "the attribute reply is longer than %d bytes", max)
		}
		return nil, h, err
	}
	if req.Tracing() {
		for _, it := range items {
			for _, b := range it.Blocks {
				if b.Value != "" {
					req.Tracef(fetch.In, "%s: %s", b.Name, b.Value)
				} else {
					req.Tracef(fetch.In, "%s:", b.Name)
				}
				for _, l := range b.Lines {
					req.Tracef(fetch.In, " %s", l)
				}
			}
		}
	}
	return items, h, nil
}

// limitReader fails a read past its bound (left < 0: no bound).
type limitReader struct {
	r    io.Reader
	left int64
	over bool
}

func (l *limitReader) Read(p []byte) (int, error) {
	if l.left < 0 {
		return l.r.Read(p)
	}
	if l.left == 0 {
		l.over = true
		return 0, errors.New("gopher: reply too long")
	}
	if int64(len(p)) > l.left {
		p = p[:l.left]
	}
	n, err := l.r.Read(p)
	l.left -= int64(n)
	return n, err
}

// pick keeps the +INFO block and the blocks called names.
func pick(bs []Block, names []string) []Block {
	var out []Block
	for _, b := range bs {
		if b.Name == "+INFO" || slices.Contains(names, b.Name) {
			out = append(out, b)
		}
	}
	return out
}

// metaKey is the Meta key of a block: "+INFO" is "Gopher-Info".
func metaKey(name string) string {
	return "Gopher-" + textproto.CanonicalMIMEHeaderKey(strings.TrimPrefix(name, "+"))
}

// renderAttributes prints attribute blocks for a person: per item its
// display string, type and URL, then each block titled by its name with
// its lines indented; a +ASK block shows its questions. TABs become
// spaces.
func renderAttributes(items []Attributes) string {
	var b strings.Builder
	for i, it := range items {
		if i > 0 {
			b.WriteByte('\n')
		}
		if item, err := it.Item(); err == nil {
			fmt.Fprintf(&b, "%s (%s)\n", item.Display, item.Type)
			if u, err := item.URL(); err == nil && u != "" {
				fmt.Fprintf(&b, "  URL: %s\n", u)
			}
		} else if info := it.Get("+INFO"); info != nil {
			fmt.Fprintf(&b, "%s\n", untab(info.Value))
		} else {
			b.WriteString("(an item without +INFO)\n")
		}
		for _, blk := range it.Blocks {
			if blk.Name == "+INFO" {
				continue
			}
			title := textproto.CanonicalMIMEHeaderKey(strings.TrimPrefix(blk.Name, "+"))
			lines := blk.Lines
			if blk.Name == "+ASK" {
				if qs, err := parseQuestions(blk.Lines); err == nil {
					lines = nil
					for _, q := range qs {
						lines = append(lines, q.Kind+": "+q.String())
					}
				}
			}
			value := untab(blk.Value)
			if ref, err := ParseItem(blk.Value); err == nil && blk.Value != "" {
				if u, err := ref.URL(); err == nil && u != "" {
					value = u
				}
			}
			if value != "" {
				fmt.Fprintf(&b, "  %s: %s\n", title, value)
			} else {
				fmt.Fprintf(&b, "  %s:\n", title)
			}
			for _, l := range lines {
				fmt.Fprintf(&b, "    %s\n", untab(l))
			}
		}
	}
	return b.String()
}

func untab(s string) string { return strings.ReplaceAll(s, "\t", " ") }

// Question is one question of a Gopher+ +ASK form (Gopher+ section 2.8),
// or the words of a search (Kind "Search").
type Question struct {
	// Kind is "Ask" (one line, with a Default), "AskP" (a password: do
	// not echo it), "AskL" (several lines: the answer holds LFs), "AskF"
	// (a local file name), "Choose" (one of Choices), "Select" (one or
	// more of Choices), "Note" (text to show; the answer is ignored) or
	// "Search".
	Kind    string
	Prompt  string
	Default string
	Choices []string
}

// String is the question as a person reads it: "Your name? [nobody]",
// "Pick a colour (red, green, blue)".
func (q Question) String() string {
	s := q.Prompt
	if len(q.Choices) > 0 {
		s += " (" + strings.Join(q.Choices, ", ") + ")"
	}
	if q.Default != "" {
		s += " [" + q.Default + "]"
	}
	return s
}

// ParseAsk returns the questions of a +ASK block, one per line: "Kind:
// prompt" then, separated by TABs, a default answer or the choices.
func ParseAsk(b *Block) ([]Question, error) {
	if b == nil || b.Name != "+ASK" {
		return nil, errors.New("gopher: not a +ASK block")
	}
	return parseQuestions(b.Lines)
}

func parseQuestions(lines []string) ([]Question, error) {
	var qs []Question
	for _, l := range lines {
		if strings.TrimSpace(l) == "" {
			continue
		}
		kind, rest, ok := strings.Cut(l, ":")
		if !ok {
			return nil, fmt.Errorf("gopher: +ASK line %q has no \"Kind:\"", l)
		}
		f := strings.Split(strings.TrimPrefix(rest, " "), "\t")
		q := Question{Kind: kind, Prompt: f[0]}
		switch kind {
		case "Ask", "AskP", "AskL", "AskF":
			if len(f) > 1 {
				q.Default = f[1]
			}
		case "Choose", "Select", "ChooseF":
			q.Choices = f[1:]
		case "Note":
		default:
			return nil, fmt.Errorf("gopher: +ASK line %q: unknown kind %q", l, kind)
		}
		qs = append(qs, q)
	}
	return qs, nil
}

// form fetches the +ASK form of a "?" item, asks its questions through
// d.Ask and sends the answers: selector TAB "+" TAB "1", then a "+-1" data
// block with one line per answer and the "." line (RFC 1738 section
// 3.4.9, Gopher+ section 2.8).
func (d *Driver) form(ctx context.Context, req *fetch.Request, g *uri.Gopher) (*fetch.Response, error) {
	if req.Hop != nil {
		return nil, errorf(fetch.ErrUnsafe, g.Selector, "a server chose this Gopher+ form (%s): its questions are not put to the user", req.Hop)
	}
	if d.Ask == nil {
		return nil, errorf(fetch.ErrUnsupported, g.Selector, "the item is a Gopher+ form (+ASK) and nothing can answer its questions: set Driver.Ask, or give the filled-in form in the URL (RFC 1738 section 3.4.9)")
	}
	all := *g
	all.Plus = "!"
	items, _, err := d.fetchAttributes(ctx, req, &all, nil)
	if errors.Is(err, errNoAttributes) {
		return nil, errorf(fetch.ErrUnsupported, g.Selector, "the server sent no Gopher+ attributes, so no +ASK form; its reply to %q begins %q", all.Plus, began(err))
	}
	if err != nil {
		return nil, err
	}
	var ask *Block
	if len(items) > 0 {
		ask = items[0].Get("+ASK")
	}
	if ask == nil {
		return nil, errorf(fetch.ErrProtocol, g.Selector, "the URL marks the item as a form (?), but its attributes have no +ASK block")
	}
	qs, err := ParseAsk(ask)
	if err != nil {
		return nil, fetch.Errorf(fetch.ErrProtocol, "%w", err)
	}
	for _, q := range qs {
		if q.Kind == "ChooseF" {
			return nil, errorf(fetch.ErrUnsupported, g.Selector, "the form asks for a local file to send (ChooseF: %s), which this client does not send", q.Prompt)
		}
	}
	answers := make([]string, len(qs))
	for i, q := range qs {
		a, err := d.Ask(ctx, q)
		if err != nil {
			return nil, err
		}
		answers[i] = a
	}
	block, secret, err := formBlock(qs, answers)
	if err != nil {
		return nil, err
	}
	submit := *g
	submit.Plus = "+\t1"
	lines := append([]string{submit.Request() + "\r\n"}, block...)
	sent := map[int]bool{}
	for i, q := range qs {
		if q.Kind == "AskP" {
			req.AddSecret(answers[i])
		}
	}
	for i := range secret {
		sent[i+1] = true
	}
	if req.Tracing() && len(secret) == 0 {
		filled := *g
		filled.Plus = "+\t1\r\n" + strings.Join(block, "")
		filled.HasSearch = true
		req.Tracef(fetch.Note, "the filled-in form as a URL: %s", filled.String())
	}
	return d.retrieve(ctx, req, g, lines, sent, true)
}

// formBlock is the data block that answers the questions qs of a +ASK
// form with answers, one per question (a Note's is ignored), as Gopher+
// section 2.8 sends it: "+-1", one line per answer (an AskL answer as its
// number of lines and then the lines), the "." line, each with its CR LF.
// A line that begins with "." is dot-stuffed. secret holds the indexes of
// the lines of AskP answers. An answer holding CR, LF or NUL (but an
// AskL's line breaks) is refused with ErrUnsafe.
func formBlock(qs []Question, answers []string) (block []string, secret map[int]bool, err error) {
	if len(answers) != len(qs) {
		return nil, nil, fetch.Errorf(fetch.ErrUnsafe, "gopher: %d answers to a form of %d questions", len(answers), len(qs))
	}
	block = []string{"+-1\r\n"}
	secret = map[int]bool{}
	for i, q := range qs {
		if q.Kind == "Note" {
			continue
		}
		a := answers[i]
		var lines []string
		if q.Kind == "AskL" {
			lines = strings.Split(strings.TrimSuffix(strings.ReplaceAll(a, "\r\n", "\n"), "\n"), "\n")
			lines = append([]string{fmt.Sprint(len(lines))}, lines...)
		} else {
			lines = []string{a}
		}
		for _, l := range lines {
			if err := fetch.CheckLine("gopher+ form answer", l); err != nil {
				return nil, nil, err
			}
			if strings.HasPrefix(l, ".") {
				l = "." + l // dot-stuffed, as the block ends at a "." line
			}
			if q.Kind == "AskP" {
				secret[len(block)] = true
			}
			block = append(block, l+"\r\n")
		}
	}
	return append(block, ".\r\n"), secret, nil
}

// FilledForm returns g, the URL of an item with a +ASK form, filled in
// with answers to its questions qs, one per question (a Note's is
// ignored): the Gopher+ string of RFC 1738 section 3.4.9, "+" TAB "1" CR
// LF, "+-1" CR LF, the answers each with its CR LF, "." CR LF, which the
// driver sends as it is. It is how a program that puts the questions to
// a person itself (an HTTP gateway's HTML form) sends the answers as the
// driver's own Ask would. An answer holding CR, LF or NUL (but an AskL's
// line breaks) is refused with ErrUnsafe.
func FilledForm(g *uri.Gopher, qs []Question, answers []string) (*uri.Gopher, error) {
	block, _, err := formBlock(qs, answers)
	if err != nil {
		return nil, err
	}
	filled := *g
	// Section 3.4.3: a Gopher+ string comes after a search, perhaps
	// empty.
	filled.HasSearch = true
	filled.Plus, filled.HasPlus = "+\t1\r\n"+strings.Join(block, ""), true
	return &filled, nil
}

// checkForm accepts the one Gopher+ string that may hold CR LF: a filled-in
// form, "+[view]" TAB "1" CR LF, "+-1" CR LF, the answers each ending in
// CR LF, and "." CR LF (RFC 1738 section 3.4.9). Anything else holding CR
// or LF is refused with ErrUnsafe.
func checkForm(plus string) error {
	if err := formShape(plus); err != nil {
		return fetch.Errorf(fetch.ErrUnsafe, "gopher+ string contains a decoded CR or LF outside the filled-in form of RFC 1738 section 3.4.9 (%s); refusing to send it", err)
	}
	return nil
}

func formShape(plus string) error {
	if strings.IndexByte(plus, 0) >= 0 {
		return errors.New("a NUL")
	}
	if !strings.HasSuffix(plus, "\r\n") {
		return errors.New("it does not end with CR LF")
	}
	lines := strings.Split(strings.TrimSuffix(plus, "\r\n"), "\r\n")
	for _, l := range lines {
		if strings.ContainsAny(l, "\r\n") {
			return errors.New("a CR or LF that is not part of a CR LF")
		}
	}
	head := lines[0]
	if !strings.HasPrefix(head, "+") || !strings.HasSuffix(head, "\t1") {
		return fmt.Errorf("first line %q is not +[view] TAB 1", head)
	}
	if len(lines) < 3 || lines[1] != "+-1" || lines[len(lines)-1] != "." {
		return errors.New(`the data block is not "+-1", the answers and "."`)
	}
	for _, l := range lines[2 : len(lines)-1] {
		if l == "." {
			return errors.New(`an answer line holds only "."`)
		}
	}
	return nil
}

// LinePrompter returns an Ask function that puts each question on out and
// reads the answer as a line from in: an empty line takes the default; a
// Choose or Select question takes a choice or its number; an AskL answer
// ends at a line holding only ".". It does not hide AskP answers: give
// those to a terminal without echo.
func LinePrompter(in io.Reader, out io.Writer) func(context.Context, Question) (string, error) {
	br := bufio.NewReader(in)
	readLine := func() (string, error) {
		s, err := br.ReadString('\n')
		if err != nil && (err != io.EOF || s == "") {
			return "", err
		}
		return strings.TrimRight(s, "\r\n"), nil
	}
	return func(ctx context.Context, q Question) (string, error) {
		if err := ctx.Err(); err != nil {
			return "", err
		}
		switch q.Kind {
		case "Note":
			fmt.Fprintln(out, q.Prompt)
			return "", nil
		case "AskL":
			fmt.Fprintf(out, "%s (end with a line holding only \".\")\n", q.Prompt)
			var ls []string
			for {
				l, err := readLine()
				if err != nil || l == "." {
					return strings.Join(ls, "\n"), err
				}
				ls = append(ls, l)
			}
		case "Choose", "Select":
			fmt.Fprintln(out, q.Prompt)
			for i, c := range q.Choices {
				fmt.Fprintf(out, "  %d) %s\n", i+1, c)
			}
			fmt.Fprint(out, "? ")
			l, err := readLine()
			if err != nil {
				return "", err
			}
			var n int
			if _, err := fmt.Sscanf(l, "%d", &n); err == nil && n >= 1 && n <= len(q.Choices) && fmt.Sprint(n) == l {
				return q.Choices[n-1], nil
			}
			if l == "" && len(q.Choices) > 0 {
				return q.Choices[0], nil
			}
			return l, nil
		}
		fmt.Fprintf(out, "%s ", q)
		l, err := readLine()
		if err != nil {
			return "", err
		}
		if l == "" {
			l = q.Default
		}
		return l, nil
	}
}
