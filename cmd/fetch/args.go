package main

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/urfave/cli/v2"
)

// The command line is read as GNU getopt reads it, the way curl's and
// wget's users type it, and then handed to urfave/cli in the one form Go's
// flag package reads without surprises. Go's flag package stops at the
// first argument that is not an option and knows neither attached short
// values nor clusters, so "fetch URL -o out" would fetch three URLs and
// "-ofoo" would be an unknown flag named "ofoo". normalizeArgs does what
// getopt does instead:
//
//   - options may come anywhere among the operands (permutation), and "--"
//     ends the options: what follows is an operand even if it starts with
//     "-";
//   - a short option's value may be attached ("-ofoo", "-P8") and short
//     switches may be clustered ("-vk", "-vofoo");
//   - a long option's value may follow it or be attached with "="
//     ("--output out", "--output=out"), and "-" alone is an operand;
//   - a duration may be a bare number of seconds ("--timeout 5", "2.5"),
//     as curl and wget take it; "1m30s" still works.
//
// The result is every option as one "--name=value" or "-x=value" argument
// (so a value that starts with "-" is never taken for an option), then
// "--", then the operands. The first operand that names a subcommand
// (parse, resolve, help, ...) starts that command's own arguments, which
// are normalized with its own options. Every error is a usage error
// naming the argument and pointing at --help.

// optKind says how an option takes its value.
type optKind uint8

const (
	optSwitch   optKind = iota // no value: -v, --json
	optValue                   // a string: -o FILE
	optInt                     // a whole number: -P 8
	optDuration                // seconds or a Go duration: --timeout 5
)

// options is what normalizeArgs knows of one command's options: every
// name (without dashes) and how it takes a value.
type optionTable map[string]optSpec

// optSpec is one option name's entry in an optionTable.
type optSpec struct {
	kind optKind
	// repeat is the option's first name when it may be given many
	// times (-H, --allow-port): each is written under that one name,
	// for urfave/cli refuses "two forms of the same flag", which
	// "-H a --header b" would be.
	repeat string
}

func optionsOf(flags []cli.Flag) optionTable {
	t := optionTable{}
	for _, f := range flags {
		names := f.Names() // a namedFlag's, worked out once
		f = unwrapFlag(f)
		k := optValue
		repeat := ""
		switch f := f.(type) {
		case *cli.BoolFlag:
			k = optSwitch
		case *cli.IntFlag, *cli.Int64Flag, *cli.UintFlag:
			k = optInt
		case *cli.IntSliceFlag:
			k, repeat = optInt, f.Name
		case *cli.StringSliceFlag:
			repeat = f.Name
		case *cli.DurationFlag:
			k = optDuration
		case cli.DocGenerationFlag:
			if !f.TakesValue() {
				k = optSwitch
			}
		}
		for _, n := range names {
			t[n] = optSpec{k, repeat}
		}
	}
	return t
}

// written is how normalizeArgs writes an option with a value: under the
// name typed (dash as typed), or a repeatable one under its first name.
func (s optSpec) written(dash, name, value string) string {
	if s.repeat != "" {
		return "--" + s.repeat + "=" + value
	}
	return dash + name + "=" + value
}

// usageError is a mistake on the command line: exit code 2, one line.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg + "; see fetch --help" }

func usagef(format string, args ...any) error {
	return &usageError{fmt.Sprintf(format, args...)}
}

// normalizeArgs rewrites args (args[0] is the program) as described above.
// commands maps each subcommand's name to its option table.
func normalizeArgs(args []string, global optionTable, commands map[string]optionTable) ([]string, error) {
	if len(args) == 0 {
		return args, nil
	}
	out := []string{args[0]}
	rest := args[1:]
	table, command := global, ""
	var operands []string
	for len(rest) > 0 {
		a := rest[0]
		rest = rest[1:]
		switch {
		case a == "--":
			operands = append(operands, rest...)
			rest = nil
		case strings.HasPrefix(a, "--"):
			opt, err := longOption(a, &rest, table, command)
			if err != nil {
				return nil, err
			}
			out = append(out, opt)
		case len(a) > 1 && a[0] == '-':
			opts, err := shortOptions(a, &rest, table, command)
			if err != nil {
				return nil, err
			}
			out = append(out, opts...)
		case command == "" && len(operands) == 0 && commands[a] != nil:
			// A subcommand: what follows is its own, and so are the
			// options before it that it has too (fetch -k serve): its
			// own definition of an option hides the command's.
			var before, own []string
			for _, o := range out[1:] {
				if _, ok := commands[a][optionName(o)]; ok {
					own = append(own, o)
				} else {
					before = append(before, o)
				}
			}
			out = append(append(append(out[:1], before...), a), own...)
			table, command = commands[a], a
		default:
			operands = append(operands, a)
		}
	}
	if len(operands) > 0 {
		out = append(out, "--")
		out = append(out, operands...)
	}
	return out, nil
}

// optionName is the name of an option as normalizeArgs writes it:
// "--name=value", "--name", "-x=value" or "-x".
func optionName(o string) string {
	name := strings.TrimLeft(o, "-")
	name, _, _ = strings.Cut(name, "=")
	return name
}

// longOption reads "--name", "--name=value" or "--name value".
func longOption(a string, rest *[]string, t optionTable, command string) (string, error) {
	name, value, hasValue := strings.Cut(a[2:], "=")
	spec, ok := t[name]
	kind := spec.kind
	if !ok || len(name) == 1 {
		return "", unknownOption(a[:2+len(name)], t, command)
	}
	if kind == optSwitch {
		if hasValue {
			if _, err := strconv.ParseBool(value); err != nil {
				return "", usagef("option --%s takes no value (got %q)", name, value)
			}
		}
		return a, nil
	}
	if !hasValue {
		if len(*rest) == 0 {
			return "", usagef("option --%s needs a value", name)
		}
		value, *rest = (*rest)[0], (*rest)[1:]
	}
	value, err := checkValue("--"+name, kind, value)
	if err != nil {
		return "", err
	}
	return spec.written("--", name, value), nil
}

// shortOptions reads a cluster of short options: "-v", "-vk", "-ofoo",
// "-o foo", "-vP8".
func shortOptions(a string, rest *[]string, t optionTable, command string) ([]string, error) {
	if spec, ok := t[a[1:]]; ok && len(a) == 3 && spec.kind == optSwitch {
		// A two-letter switch typed with one dash, as wget's -nH: no
		// cluster of one-letter options is one.
		return []string{"--" + a[1:]}, nil
	}
	var out []string
	for i := 1; i < len(a); i++ {
		name := a[i : i+1]
		spec, ok := t[name]
		kind := spec.kind
		if !ok {
			if i == 1 {
				// "-json": a long option typed with one dash.
				if long, _, _ := strings.Cut(a[1:], "="); len(long) > 1 {
					if _, isLong := t[long]; isLong {
						return nil, usagef("unknown option -%s in %q (did you mean --%s?)", name, a, long)
					}
				}
			}
			if a[i] == '=' || a[i] > 0x7e || a[i] < 0x21 {
				return nil, usagef("unknown option %q", a)
			}
			return nil, unknownOption("-"+name, t, command)
		}
		if kind == optSwitch {
			out = append(out, "-"+name)
			continue
		}
		value := a[i+1:]
		if value == "" {
			if len(*rest) == 0 {
				return nil, usagef("option -%s needs a value", name)
			}
			value, *rest = (*rest)[0], (*rest)[1:]
		}
		value, err := checkValue("-"+name, kind, value)
		if err != nil {
			return nil, err
		}
		return append(out, spec.written("-", name, value)), nil
	}
	return out, nil
}

// checkValue checks a number's syntax here, so the message names the
// option as the user typed it, and turns a bare number of seconds into a
// duration.
func checkValue(opt string, kind optKind, value string) (string, error) {
	switch kind {
	case optInt:
		if _, err := strconv.Atoi(value); err != nil {
			return "", usagef("option %s takes a whole number, not %q", opt, value)
		}
	case optDuration:
		if secs, err := strconv.ParseFloat(value, 64); err == nil {
			if secs < 0 || secs > 1e9 {
				return "", usagef("option %s: %q seconds is out of range", opt, value)
			}
			return strconv.FormatFloat(secs, 'f', -1, 64) + "s", nil
		}
		if _, err := time.ParseDuration(value); err != nil {
			return "", usagef("option %s takes seconds (5, 2.5) or a duration (1m30s), not %q", opt, value)
		}
	}
	return value, nil
}

// unknownOption names an option no table knows, with the closest known
// long option when one is close enough to be a typo.
func unknownOption(opt string, t optionTable, command string) error {
	where := ""
	if command != "" {
		where = " for fetch " + command
	}
	if s := closest(strings.TrimLeft(opt, "-"), t); s != "" {
		return usagef("unknown option %s%s (did you mean --%s?)", opt, where, s)
	}
	return usagef("unknown option %s%s", opt, where)
}

// closest returns the long option nearest to name by edit distance, if it
// is within a third of name's length.
func closest(name string, t optionTable) string {
	best, bestD := "", len(name)/3+1
	for n := range t {
		if len(n) < 2 {
			continue
		}
		if d := editDistance(name, n); d < bestD || d == bestD && best != "" && n < best {
			best, bestD = n, d
		}
	}
	return best
}

func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
