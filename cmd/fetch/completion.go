package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/urfave/cli/v2"
	"github.com/urlfetch/urlfetch/internal/outfile"
)

// The shell completions are written from the flags as the help is: every
// option, whether it takes a value and whether that value is a file
// (FILE) or a directory (DIR); the commands; the schemes for fetch help.

func completionCommand(stdout io.Writer, flags []cli.Flag) *cli.Command {
	return &cli.Command{
		Name:      "completion",
		Usage:     "write a shell completion script",
		ArgsUsage: "bash|zsh|fish",
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return usagef("completion takes one shell: bash, zsh or fish")
			}
			switch c.Args().First() {
			case "bash":
				writeBashCompletion(stdout, flags)
			case "zsh":
				writeZshCompletion(stdout, flags)
			case "fish":
				writeFishCompletion(stdout, flags)
			default:
				return usagef("no completion for shell %q: bash, zsh or fish", c.Args().First())
			}
			return nil
		},
	}
}

func commandNames() []string {
	var names []string
	for _, c := range commandDocs {
		names = append(names, c.name)
	}
	return names
}

func topicNames() []string {
	var names []string
	for _, t := range topics {
		names = append(names, t.names...)
	}
	return names
}

// argKind says how a value is completed: "file", "dir" or "" (nothing).
func argKind(d flagDoc) string {
	switch {
	case d.arg == "FILE":
		return "file"
	case d.arg == "DIR":
		return "dir"
	}
	return ""
}

// short describes a flag in a few words for the completion menus: its
// usage up to the first clause break.
func (d flagDoc) brief() string {
	s := d.usage
	if i := strings.IndexAny(s, ";:(["); i > 0 {
		s = s[:i]
	}
	s = strings.TrimRight(strings.TrimSpace(s), ",")
	if len(s) > 70 {
		s = outfile.CutName(s, 67) + "..."
	}
	return s
}

func writeBashCompletion(w io.Writer, flags []cli.Flag) {
	var longs, shorts, files, dirs, values []string
	for _, f := range flags {
		d := docOf(f)
		names := []string{}
		if d.long != "" {
			longs = append(longs, "--"+d.long)
			names = append(names, "--"+d.long)
		}
		if d.short != "" {
			shorts = append(shorts, "-"+d.short)
			names = append(names, "-"+d.short)
		}
		switch {
		case d.arg == "":
		case argKind(d) == "file":
			files = append(files, names...)
		case argKind(d) == "dir":
			dirs = append(dirs, names...)
		default:
			values = append(values, names...)
		}
	}
	fmt.Fprintf(w, `# bash completion for fetch. Load it with:  source <(fetch completion bash)
_fetch() {
    local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}
    local IFS=$'\n'
    case $prev in
        %s) COMPREPLY=($(compgen -f -- "$cur")); return ;;
        %s) COMPREPLY=($(compgen -d -- "$cur")); return ;;
        %s) COMPREPLY=(); return ;;
    esac
    if [[ ${COMP_WORDS[1]} == help && $COMP_CWORD == 2 ]]; then
        COMPREPLY=($(compgen -W '%s' -- "$cur")); return
    fi
    if [[ ${COMP_WORDS[1]} == completion && $COMP_CWORD == 2 ]]; then
        COMPREPLY=($(compgen -W 'bash
zsh
fish' -- "$cur")); return
    fi
    case $cur in
        --*) COMPREPLY=($(compgen -W '%s' -- "$cur")) ;;
        -*) COMPREPLY=($(compgen -W '%s' -- "$cur")) ;;
        *) if [[ $COMP_CWORD == 1 ]]; then COMPREPLY=($(compgen -W '%s' -- "$cur")); fi ;;
    esac
}
complete -o default -F _fetch fetch
`, strings.Join(files, "|"), strings.Join(dirs, "|"), strings.Join(values, "|"),
		strings.Join(topicNames(), "\n"), strings.Join(longs, "\n"), strings.Join(append(shorts, longs...), "\n"),
		strings.Join(commandNames(), "\n"))
}

// zshQuote escapes what _arguments gives meaning to in a description.
var zshQuote = strings.NewReplacer("[", "(", "]", ")", ":", " ", "'", "", `\`, "")

func writeZshCompletion(w io.Writer, flags []cli.Flag) {
	fmt.Fprintln(w, "#compdef fetch")
	fmt.Fprintln(w, "# zsh completion for fetch. Load it with:  source <(fetch completion zsh)")
	fmt.Fprintln(w, "_fetch() {")
	fmt.Fprintln(w, "  local -a specs")
	fmt.Fprintln(w, "  specs=(")
	for _, f := range flags {
		d := docOf(f)
		action := ""
		if d.arg != "" {
			switch argKind(d) {
			case "file":
				action = ":" + strings.ToLower(d.arg) + ":_files"
			case "dir":
				action = ":" + strings.ToLower(d.arg) + ":_files -/"
			default:
				action = ":" + zshQuote.Replace(strings.ToLower(d.arg)) + ": "
			}
		}
		desc := "[" + zshQuote.Replace(d.brief()) + "]"
		var names []string
		if d.short != "" {
			names = append(names, "-"+d.short)
		}
		if d.long != "" {
			names = append(names, "--"+d.long)
		}
		excl := ""
		if len(names) > 1 {
			excl = "(" + strings.Join(names, " ") + ")"
		}
		for _, n := range names {
			fmt.Fprintf(w, "    '%s%s%s%s'\n", excl, n, desc, action)
		}
	}
	fmt.Fprintln(w, "    '1:command or URL:->first'")
	fmt.Fprintln(w, "    '*:URL:_urls'")
	fmt.Fprintln(w, "  )")
	fmt.Fprintln(w, "  _arguments -s $specs && return")
	fmt.Fprintln(w, "  case $state in")
	fmt.Fprintf(w, "    first) _alternative 'commands:command:(%s)' 'urls:URL:_urls' ;;\n", strings.Join(commandNames(), " "))
	fmt.Fprintln(w, "  esac")
	fmt.Fprintln(w, "}")
	fmt.Fprintln(w, `if [[ $zsh_eval_context[-1] == loadautofunc ]]; then _fetch "$@"; else compdef _fetch fetch; fi`)
}

func writeFishCompletion(w io.Writer, flags []cli.Flag) {
	fmt.Fprintln(w, "# fish completion for fetch. Load it with:  fetch completion fish | source")
	fmt.Fprintln(w, "complete -c fetch -e")
	fmt.Fprintf(w, "complete -c fetch -n __fish_use_subcommand -f -a '%s'\n", strings.Join(commandNames(), " "))
	fmt.Fprintf(w, "complete -c fetch -n '__fish_seen_subcommand_from help' -f -a '%s'\n", strings.Join(topicNames(), " "))
	fmt.Fprintln(w, "complete -c fetch -n '__fish_seen_subcommand_from completion' -f -a 'bash zsh fish'")
	for _, f := range flags {
		d := docOf(f)
		line := "complete -c fetch"
		if d.short != "" {
			line += " -s " + d.short
		}
		if d.long != "" {
			line += " -l " + d.long
		}
		switch {
		case d.arg == "":
		case argKind(d) == "file":
			line += " -r -F"
		case argKind(d) == "dir":
			line += " -r -a '(__fish_complete_directories)'"
		default:
			line += " -x"
		}
		line += " -d '" + strings.ReplaceAll(d.brief(), "'", `\'`) + "'"
		fmt.Fprintln(w, line)
	}
}
