package main

import (
	"fmt"
	"io"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/urlfetch/urlfetch/fetch/all"
)

// writeVersion writes fetch -V: the module's version and the commit it was
// built from, as the Go toolchain recorded them in the binary, the Go
// version, and the schemes compiled in.
func writeVersion(w io.Writer) {
	v, commit := buildVersion()
	fmt.Fprintf(w, "fetch %s", v)
	if commit != "" {
		fmt.Fprintf(w, " (%s)", commit)
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "%s %s/%s\n", runtime.Version(), runtime.GOOS, runtime.GOARCH)
	fmt.Fprintf(w, "schemes: %s\n", strings.Join(all.NewClient().Schemes(), " "))
}

// buildVersion returns the version ("v1.2.3", or "devel" for a build from
// a work tree, unless -ldflags "-X main.version=..." set one) and the
// commit, with its date and "modified" when the tree had changes.
func buildVersion() (v, commit string) {
	v = version
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return v, ""
	}
	if m := info.Main.Version; v == "devel" && m != "" && m != "(devel)" {
		v = m
	}
	var rev, when string
	modified := false
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.time":
			when = s.Value
		case "vcs.modified":
			modified = s.Value == "true"
		}
	}
	if rev == "" {
		return v, ""
	}
	commit = "commit " + rev[:min(12, len(rev))]
	if when != "" {
		commit += " " + when
	}
	if modified {
		commit += ", modified"
	}
	return v, commit
}
