package main

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/urfave/cli/v2"
)

// The help, the man page and the shell completions are all written from
// one source: the command's flags, each with its Category, Usage and
// names, the topics of topics.go, the commands and the exit table. So a
// new option is documented everywhere by being defined.

// helpWidth is the longest line the help writes.
const helpWidth = 100

const (
	catGeneral = "General"
	catOutput  = "Output"
	catNetwork = "Network and transfers"
	catMany    = "Many URLs"
)

const synopsis = `fetch [options] URL...
fetch [options] -i FILE
fetch parse [--json] [--strict] URL
fetch resolve BASE REF...
fetch extract [--json] [FILE]
fetch serve [--listen HOST:PORT] [options]
fetch help [SCHEME|json]
fetch completion bash|zsh|fish`

const description = "fetch dereferences URLs: for each URL it runs the retrieval algorithm RFC 1738 gives for the " +
	"URL's scheme over the real protocol (ftp, http, gopher, news, nntp, wais, file, mailto, telnet, and ftps, " +
	"https, snews, nntps over TLS) and writes what the URL designates. A document goes to standard output, or " +
	"to a file with -o or -O; a listing (a directory, a gopher menu, a news group) prints as columns, or as one " +
	"JSON object per entry with --json. Options may come before or after the URLs. While documents transfer, " +
	"and standard error is a terminal they are not written to, each shows a progress bar there; -q and -v turn " +
	"the bars off. \"fetch help SCHEME\" says what one scheme's URLs mean."

// flagGroup is one titled group of options, in the order the help lists
// them.
type flagGroup struct {
	title string
	flags []cli.Flag
}

// groupFlags groups flags by Category, groups in the order of their first
// flag.
func groupFlags(flags []cli.Flag) []flagGroup {
	var groups []flagGroup
	for _, f := range flags {
		cat := categoryOf(f)
		i := slices.IndexFunc(groups, func(g flagGroup) bool { return g.title == cat })
		if i < 0 {
			groups = append(groups, flagGroup{title: cat})
			i = len(groups) - 1
		}
		groups[i].flags = append(groups[i].flags, f)
	}
	return groups
}

func categoryOf(f cli.Flag) string {
	if c, ok := f.(cli.CategorizableFlag); ok && c.GetCategory() != "" {
		return c.GetCategory()
	}
	return catGeneral
}

// inCategory sets the Category of each flag (of the types the command
// uses) and returns them.
func inCategory(cat string, flags ...cli.Flag) []cli.Flag {
	for _, f := range flags {
		switch f := f.(type) {
		case *cli.BoolFlag:
			f.Category = cat
		case *cli.StringFlag:
			f.Category = cat
		case *cli.IntFlag:
			f.Category = cat
		case *cli.DurationFlag:
			f.Category = cat
		case *cli.IntSliceFlag:
			f.Category = cat
		case *cli.StringSliceFlag:
			f.Category = cat
		default:
			panic(fmt.Sprintf("inCategory: flag type %T", f))
		}
	}
	return flags
}

// flagDoc is what the help says of one flag.
type flagDoc struct {
	short, long string // "o", "output"; either may be ""
	arg         string // "FILE", "" for a switch
	usage       string
	def         string // the default worth showing, or ""
	env         []string
}

func docOf(f cli.Flag) flagDoc {
	d := flagDoc{}
	for _, n := range f.Names() {
		if len(n) == 1 {
			d.short = n
		} else if d.long == "" {
			d.long = n
		}
	}
	g, ok := f.(cli.DocGenerationFlag)
	if !ok {
		return d
	}
	d.arg, d.usage = placeholder(g.GetUsage())
	if g.TakesValue() {
		if d.arg == "" {
			d.arg = "VALUE"
		}
		if v := g.GetValue(); v != "" && v != "0" && v != "0s" && v != "[]" && !strings.Contains(d.usage, "default") {
			d.def = v
			switch f := f.(type) {
			case *cli.StringFlag:
				d.def = `"` + v + `"`
			case *cli.DurationFlag:
				d.def = strconv.FormatFloat(f.Value.Seconds(), 'f', -1, 64)
			}
		}
	} else {
		d.arg = ""
	}
	d.env = g.GetEnvVars()
	return d
}

// placeholder finds the value's name in a usage, written between back
// quotes ("write to `FILE`"), and returns it and the usage without them.
func placeholder(usage string) (name, text string) {
	i := strings.IndexByte(usage, '`')
	if i < 0 {
		return "", usage
	}
	j := strings.IndexByte(usage[i+1:], '`')
	if j < 0 {
		return "", usage
	}
	name = usage[i+1 : i+1+j]
	return name, usage[:i] + name + usage[i+2+j:]
}

// names is "-o, --output FILE" or "    --dir DIR".
func (d flagDoc) names() string {
	var b strings.Builder
	if d.short != "" {
		b.WriteString("-" + d.short)
		if d.long != "" {
			b.WriteString(", ")
		}
	} else {
		b.WriteString("    ")
	}
	if d.long != "" {
		b.WriteString("--" + d.long)
	}
	if d.arg != "" {
		b.WriteString(" " + d.arg)
	}
	return b.String()
}

// text is the usage with its default and environment variables.
func (d flagDoc) text() string {
	s := d.usage
	if d.def != "" {
		s += " (default " + d.def + ")"
	}
	if len(d.env) > 0 {
		s += " [$" + strings.Join(d.env, ", $") + "]"
	}
	return s
}

// wrap breaks text into lines of at most width bytes after indent
// (first is the first line's prefix), at spaces.
func wrap(w io.Writer, first, indent, text string, width int) {
	line := first
	empty := true
	for _, word := range strings.Fields(text) {
		if !empty && len(line)+1+len(word) > width {
			fmt.Fprintln(w, line)
			line, empty = indent, true
		}
		if empty {
			line += word
			empty = false
		} else {
			line += " " + word
		}
	}
	fmt.Fprintln(w, line)
}

// optionColumn is where option descriptions start.
const optionColumn = 30

func writeFlag(w io.Writer, f cli.Flag) {
	d := docOf(f)
	names := "  " + d.names()
	pad := strings.Repeat(" ", optionColumn)
	if len(names) > optionColumn-2 {
		fmt.Fprintln(w, names)
		wrap(w, pad, pad, d.text(), helpWidth)
		return
	}
	wrap(w, names+strings.Repeat(" ", optionColumn-len(names)), pad, d.text(), helpWidth)
}

// writeHelp writes fetch --help.
func writeHelp(w io.Writer, flags []cli.Flag) {
	fmt.Fprintln(w, "Usage:")
	for _, l := range strings.Split(synopsis, "\n") {
		fmt.Fprintln(w, "  "+l)
	}
	fmt.Fprintln(w)
	wrap(w, "", "", description, helpWidth)
	for _, g := range groupFlags(flags) {
		fmt.Fprintf(w, "\n%s:\n", g.title)
		for _, f := range g.flags {
			writeFlag(w, f)
		}
	}
	fmt.Fprintln(w, "\nCommands:")
	for _, c := range commandDocs {
		first := fmt.Sprintf("  %-28s", c.usage)
		if len(first) > optionColumn {
			// A long usage has a line of its own, as a long option has.
			fmt.Fprintln(w, "  "+c.usage)
			first = strings.Repeat(" ", optionColumn)
		}
		wrap(w, first, strings.Repeat(" ", optionColumn), c.text, helpWidth)
	}
	fmt.Fprintln(w, "\nSchemes (fetch help SCHEME for each):")
	var names []string
	for _, t := range topics {
		names = append(names, strings.Join(t.names, "/"))
	}
	wrap(w, "  ", "  ", strings.Join(names, ", "), helpWidth)
	fmt.Fprintln(w, "\nExamples:")
	for _, e := range examples {
		fmt.Fprintln(w, "  "+e)
	}
	fmt.Fprintln(w, "\nExit codes:")
	for _, e := range exitTable {
		wrap(w, fmt.Sprintf("  %3d  ", e.code), "       ", e.text, helpWidth)
	}
	fmt.Fprintln(w, "  With several URLs, the highest code of them all.")
}

// examples are the help's and the man page's.
var examples = []string{
	"fetch file:///etc/motd",
	"fetch -O https://example.org/dist/big.tar.gz",
	"fetch 'ftp://ftp.example.org/pub/%2Fetc/motd;type=a' -o motd.txt",
	"fetch gopher://gopher.example.org/1/",
	"fetch 'gopher://gopher.example.org/7/search%09words'",
	"fetch 'gopher://gopher.example.org/0about%09%09!'          (Gopher+ attributes)",
	"fetch --news-server news.example.org news:comp.lang.go",
	"NNTPSERVER=news.example.org fetch news:12345@example.org",
	"fetch nntp://news.example.org/comp.lang.go/42",
	"fetch 'wais://wais.example.org/db?words'",
	"echo hello | fetch --smtp-server mail.example.org:25 mailto:someone@example.org",
	"fetch telnet://bbs.example.org",
	"fetch --login telnet://guest:guest@bbs.example.org/",
	"fetch -P8 -O --dir mirror -i urls.txt                  (8 at once, URLs from a file)",
	"fetch -C --retry 3 --timeout 600 -o big.iso ftp://ftp.example.org/pub/big.iso",
	"fetch -u ann https://example.org/private/ -H 'Accept: text/plain'",
	"fetch parse 'ftp://joe@host/%2Fetc/motd;type=a'",
	"fetch resolve 'http://a/b/c/d;p?q' ../g",
	"fetch extract < message.txt",
}

// commandDoc is one command's line in the help.
type commandDoc struct{ name, usage, text string }

var commandDocs = []commandDoc{
	{"parse", "parse [--json] [--strict] URL", "show how fetch reads URL: its scheme's parts, decoded; with --strict, every departure from RFC 1738 (exit 3)"},
	{"resolve", "resolve BASE REF...", "expand relative references against BASE (RFC 1630, RFC 3986)"},
	{"extract", "extract [--json] [FILE]", "find the URLs in text (<URL:...>, bare http://...), one a line"},
	{"serve", "serve [--listen HOST:PORT]", "an HTTP gateway (proxy) and portal to every scheme safe for the web, on 127.0.0.1:7070: curl -x http://127.0.0.1:7070 gopher://host/1/, or http://127.0.0.1:7070/gopher://host/1/ in a browser (fetch serve --help)"},
	{"help", "help [SCHEME|json]", "this help, what one scheme's URLs mean and its options, or the records of --json"},
	{"completion", "completion bash|zsh|fish", "a shell completion script: source <(fetch completion bash)"},
}

// writeTopic writes fetch help SCHEME.
func writeTopic(w io.Writer, t *topic, flags []cli.Flag) {
	fmt.Fprintf(w, "%s URLs\n\n", strings.Join(t.names, " and "))
	fmt.Fprintln(w, "Syntax:")
	for _, s := range t.syntax {
		fmt.Fprintln(w, "  "+s)
	}
	fmt.Fprintln(w)
	wrap(w, "", "", t.text, helpWidth)
	groups := groupFlags(flags)
	for _, title := range t.groups {
		if i := slices.IndexFunc(groups, func(g flagGroup) bool { return g.title == title }); i >= 0 {
			fmt.Fprintf(w, "\n%s options:\n", title)
			for _, f := range groups[i].flags {
				writeFlag(w, f)
			}
		}
	}
	fmt.Fprintln(w, "\nExamples:")
	for _, e := range t.examples {
		fmt.Fprintln(w, "  "+e)
	}
	fmt.Fprintln(w, "\nThe general options (output, network, many URLs) apply too: see fetch --help.")
}
