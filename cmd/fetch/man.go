package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/urfave/cli/v2"
)

// helpCommand is "fetch help [SCHEME|COMMAND]", and "fetch help --man",
// which writes the manual page (man/fetch.1 is its output, kept up to
// date by a test).
func helpCommand(stdout io.Writer, flags []cli.Flag) *cli.Command {
	return &cli.Command{
		Name:      "help",
		Usage:     "print the help, one scheme's or one command's",
		ArgsUsage: "[SCHEME|COMMAND]",
		Flags:     []cli.Flag{&cli.BoolFlag{Name: "man", Usage: "write the manual page, in roff (man -l to read it)"}},
		Action: func(c *cli.Context) error {
			if c.Bool("man") {
				writeMan(stdout, flags)
				return nil
			}
			switch c.NArg() {
			case 0:
				writeHelp(stdout, flags)
				return nil
			case 1:
			default:
				return usagef("help takes one scheme or command")
			}
			name := strings.ToLower(strings.TrimSuffix(c.Args().First(), ":"))
			if name == "json" {
				writeJSONHelp(stdout)
				return nil
			}
			if t := findTopic(name); t != nil {
				writeTopic(stdout, t, flags)
				return nil
			}
			if cmd := c.App.Command(name); cmd != nil {
				writeCommandHelp(stdout, cmd)
				return nil
			}
			return usagef("no help for %q: name a scheme (%s), a command (%s) or json", c.Args().First(),
				strings.Join(topicNames(), ", "), strings.Join(commandNames(), ", "))
		},
	}
}

// writeJSONHelp writes fetch help json.
func writeJSONHelp(w io.Writer) {
	fmt.Fprintln(w, "fetch --json: the records")
	for _, p := range jsonHelp.paragraphs {
		fmt.Fprintln(w)
		wrap(w, "", "", p, helpWidth)
	}
	fmt.Fprintln(w, "\nExamples:")
	for _, e := range jsonHelp.examples {
		fmt.Fprintln(w, "  "+e)
	}
}

// writeCommandHelp writes fetch COMMAND --help.
func writeCommandHelp(w io.Writer, cmd *cli.Command) {
	fmt.Fprintf(w, "Usage: fetch %s [options] %s\n\n", cmd.Name, cmd.ArgsUsage)
	wrap(w, "", "", cmd.Usage, helpWidth)
	if len(cmd.Flags) > 0 {
		fmt.Fprintln(w, "\nOptions:")
		for _, f := range cmd.Flags {
			writeFlag(w, f)
		}
	}
}

// roff escapes text for a man page: backslashes, hyphens that are minus
// signs in option names, and a leading dot or quote.
func roff(s string) string {
	s = strings.NewReplacer(`\`, `\e`, "-", `\-`).Replace(s)
	if strings.HasPrefix(s, ".") || strings.HasPrefix(s, "'") {
		s = `\&` + s
	}
	return s
}

// writeMan writes the manual page fetch.1.
func writeMan(w io.Writer, flags []cli.Flag) {
	p := func(format string, args ...any) { fmt.Fprintf(w, format+"\n", args...) }
	p(`.TH FETCH 1 "" "urlfetch" "User Commands"`)
	p(".SH NAME")
	p(`fetch \- dereference URLs of every RFC 1738 scheme`)
	p(".SH SYNOPSIS")
	for i, l := range strings.Split(synopsis, "\n") {
		if i > 0 {
			p(".br")
		}
		p("%s", roff(l))
	}
	p(".SH DESCRIPTION")
	p("%s", roff(description))
	p(".SH OPTIONS")
	for _, g := range groupFlags(flags) {
		p(".SS %s", roff(g.title))
		for _, f := range g.flags {
			d := docOf(f)
			p(".TP")
			var names []string
			if d.short != "" {
				names = append(names, `\fB\-`+roff(d.short)+`\fR`)
			}
			if d.long != "" {
				names = append(names, `\fB\-\-`+roff(d.long)+`\fR`)
			}
			line := strings.Join(names, ", ")
			if d.arg != "" {
				line += ` \fI` + roff(d.arg) + `\fR`
			}
			p("%s", line)
			p("%s", roff(d.text()))
		}
	}
	p(".SH COMMANDS")
	for _, c := range commandDocs {
		p(".TP")
		p(`\fBfetch %s\fR`, roff(c.usage))
		p("%s", roff(c.text))
	}
	p(".SH SCHEMES")
	for _, t := range topics {
		p(".SS %s", roff(strings.Join(t.names, ", ")))
		p(".nf")
		for _, s := range t.syntax {
			p("%s", roff(s))
		}
		p(".fi")
		p(".PP")
		p("%s", roff(t.text))
		p(".PP")
		p(".nf")
		for _, e := range t.examples {
			p("%s", roff(e))
		}
		p(".fi")
	}
	p(".SH JSON OUTPUT")
	for _, para := range jsonHelp.paragraphs {
		p(".PP")
		p("%s", roff(para))
	}
	p(".PP")
	p(".nf")
	for _, e := range jsonHelp.examples {
		p("%s", roff(e))
	}
	p(".fi")
	p(".SH EXAMPLES")
	p(".nf")
	for _, e := range examples {
		p("%s", roff(e))
	}
	p(".fi")
	p(".SH EXIT STATUS")
	p("With several URLs, the highest code of them all.")
	for _, e := range exitTable {
		p(".TP")
		p("%d", e.code)
		p("%s", roff(e.text))
	}
	p(".SH ENVIRONMENT")
	for _, e := range environment {
		p(".TP")
		p(`\fB%s\fR`, roff(e[0]))
		p("%s", roff(e[1]))
	}
	p(".SH FILES")
	p(".TP")
	p(`\fI~/.netrc\fR`)
	p("%s", roff("user names and passwords by host, for ftp, http, https, nntp, news and SMTP (--netrc-file, $NETRC)"))
	p(".SH SEE ALSO")
	p(`\fBcurl\fR(1), \fBwget\fR(1), \fBlynx\fR(1), \fBnetrc\fR(5)`)
	p(".PP")
	p("RFC 1738 (Uniform Resource Locators), RFC 1630 (Universal Resource Identifiers in WWW).")
}

// environment is the man page's ENVIRONMENT section.
var environment = [][2]string{
	{"NETRC", "the netrc file to read passwords from, in place of ~/.netrc"},
	{"NNTPSERVER", "the news server of news: URLs (--news-server)"},
	{"SCHEME_proxy", "the HTTP gateway of SCHEME's URLs (http_proxy, ftp_proxy, gopher_proxy, ...): see --gateway"},
	{"no_proxy", "hosts fetched directly whatever the gateways: see --gateway"},
	{"GOMAXPROCS", "when set, the threads running Go code; by default fetch uses as many as URLs it fetches at once"},
}
