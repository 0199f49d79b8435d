package main

import (
	"context"
	"io"
	"slices"
	"testing"

	"github.com/urfave/cli/v2"
)

// A namedFlag is its flag to urfave/cli and to the command: the same
// names, and what help, completion and the argument table read of it.
func TestNamedFlags(t *testing.T) {
	flags := allFlags()
	named := namedFlags(flags)
	for i, f := range flags {
		n := named[i]
		if !slices.Equal(n.Names(), f.Names()) || n.String() != f.String() || n.IsSet() != f.IsSet() {
			t.Errorf("%s: Names %q String %q, want %q %q", f.Names()[0], n.Names(), n.String(), f.Names(), f.String())
		}
		if unwrapFlag(n) != f {
			t.Errorf("%s: unwrapFlag does not give the flag back", f.Names()[0])
		}
		d, ok := f.(cli.DocGenerationFlag)
		nd, nok := n.(cli.DocGenerationFlag)
		if ok != nok || ok && (d.TakesValue() != nd.TakesValue() || d.GetUsage() != nd.GetUsage() || d.GetValue() != nd.GetValue() ||
			d.GetDefaultText() != nd.GetDefaultText() || !slices.Equal(d.GetEnvVars(), nd.GetEnvVars())) {
			t.Errorf("%s: the wrapper reads otherwise than the flag", f.Names()[0])
		}
	}
	if got, want := optionsOf(named), optionsOf(flags); len(got) != len(want) {
		t.Errorf("optionsOf: %d options through the wrappers, %d without", len(got), len(want))
	} else {
		for k, v := range want {
			if got[k] != v {
				t.Errorf("optionsOf: %s is %+v through the wrappers, %+v without", k, got[k], v)
			}
		}
	}
}

// BenchmarkStart is the command's own cost before a fetch: the options
// table, urfave/cli's setup and parse of a command line of several
// options, and the action's options (fetch --version stops there).
// Issue 24: urfave/cli's quadratic search of flag names made this some
// 10 million instructions a run before namedFlags.
func BenchmarkStart(b *testing.B) {
	args := []string{"fetch", "-q", "--connect-timeout", "5s", "-o", "/dev/null", "--version"}
	for b.Loop() {
		if code := run(context.Background(), args, nil, io.Discard, io.Discard); code != 0 {
			b.Fatalf("exit %d", code)
		}
	}
}
