package main

import "github.com/urfave/cli/v2"

// namedFlag is a flag whose names are worked out once. urfave/cli asks a
// flag for its names over and over at each run (runFlagActions asks
// IsSet of every name of every flag, and IsSet looks each name that is
// not set up among all the flags), and each Names call runs a regular
// expression over each name: with the command's 60-odd options that is
// thousands of regexp replacements a run, two thirds of the instructions
// fetch --version executes (callgrind: 10.2 of 15.5 million), some 3 ms
// of CPU time before any URL is fetched (issue 24). The other methods
// urfave/cli looks for are passed on to the flag, but for GetCategory:
// without it the flags are not sorted into help categories at each run,
// which renders every flag's help line (900,000 instructions more), for
// urfave/cli's own help, which the command does not use (writeHelp
// renders it from the flags unwrapped).
type namedFlag struct {
	cli.Flag
	names []string
}

// namedFlags wraps each of flags in a namedFlag. The command's own help,
// completion and argument tables read the flags unwrapped (unwrapFlag).
func namedFlags(flags []cli.Flag) []cli.Flag {
	out := make([]cli.Flag, len(flags))
	for i, f := range flags {
		out[i] = namedFlag{Flag: f, names: f.Names()}
	}
	return out
}

// unwrapFlag returns the flag a namedFlag holds, or f.
func unwrapFlag(f cli.Flag) cli.Flag {
	if n, ok := f.(namedFlag); ok {
		return n.Flag
	}
	return f
}

func (f namedFlag) Names() []string { return f.names }

func (f namedFlag) RunAction(c *cli.Context) error {
	if a, ok := f.Flag.(cli.ActionableFlag); ok {
		return a.RunAction(c)
	}
	return nil
}

func (f namedFlag) IsRequired() bool {
	r, ok := f.Flag.(cli.RequiredFlag)
	return ok && r.IsRequired()
}

func (f namedFlag) IsVisible() bool {
	v, ok := f.Flag.(cli.VisibleFlag)
	return !ok || v.IsVisible()
}

func (f namedFlag) TakesValue() bool {
	d, ok := f.Flag.(cli.DocGenerationFlag)
	return ok && d.TakesValue()
}

func (f namedFlag) GetUsage() string {
	if d, ok := f.Flag.(cli.DocGenerationFlag); ok {
		return d.GetUsage()
	}
	return ""
}

func (f namedFlag) GetValue() string {
	if d, ok := f.Flag.(cli.DocGenerationFlag); ok {
		return d.GetValue()
	}
	return ""
}

func (f namedFlag) GetDefaultText() string {
	if d, ok := f.Flag.(cli.DocGenerationFlag); ok {
		return d.GetDefaultText()
	}
	return ""
}

func (f namedFlag) GetEnvVars() []string {
	if d, ok := f.Flag.(cli.DocGenerationFlag); ok {
		return d.GetEnvVars()
	}
	return nil
}
