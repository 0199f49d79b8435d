// Command fetch dereferences URLs of every scheme of RFC 1738 and RFC 1630
// and writes what they designate: a document to standard output or a
// file, a listing as columns or JSON.
//
//	fetch ftp://ftp.example.org/pub/README
//	fetch -O gopher://gopher.example.org/9/files/big.tar
//	fetch --json news:comp.lang.go
//	fetch parse 'ftp://joe@host/%2Fetc/motd;type=a'
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime"
	"strings"
	"syscall"

	"github.com/urfave/cli/v2"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "devel"

func main() {
	fitProcs = os.Getenv("GOMAXPROCS") == ""
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args, os.Stdin, os.Stdout, os.Stderr)
	stop()
	writePeakRSS()
	os.Exit(code)
}

// fitProcs says the command sets the number of threads running Go code
// (GOMAXPROCS) to the number of URLs it fetches at once; main sets it
// unless the GOMAXPROCS environment variable says otherwise, and tests,
// which run the command in-process, leave it false.
var fitProcs bool

// useProcs runs Go code on at most parallel threads. A fetch is one
// goroutine waiting on the network: with more threads than transfers the
// scheduler hands that goroutine from thread to thread at each wait, which
// on 100 small files over one FTP connection cost a third of fetch's CPU
// time and a third more context switches, for nothing.
func useProcs(parallel int) {
	if fitProcs {
		runtime.GOMAXPROCS(max(1, min(parallel, runtime.NumCPU())))
	}
}

// run is the whole command, with its streams as arguments so tests can
// drive it in-process. It returns the exit code.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	code := exitOK
	app := newApp(stdin, stdout, stderr, &code)
	args, err := normalizeArgs(args, optionsOf(app.Flags), commandOptions(app))
	if err == nil {
		err = app.RunContext(ctx, args)
	}
	if err != nil {
		var ue *usageError
		ec, ok := err.(cli.ExitCoder)
		if ok && ec.ExitCode() == exitUsage && !errors.As(err, &ue) {
			err = &usageError{err.Error()}
		}
		fmt.Fprintf(stderr, "fetch: %v\n", err)
		if ok {
			return ec.ExitCode()
		}
		return exitUsage
	}
	return code
}

// commandOptions is each subcommand's option table, for normalizeArgs.
func commandOptions(app *cli.App) map[string]optionTable {
	m := map[string]optionTable{}
	for _, c := range app.Commands {
		m[c.Name] = optionsOf(c.Flags)
	}
	return m
}

// helpFlag and versionFlag are the command's own: urfave/cli's help
// prints its template on standard output for a usage error too, and takes
// -h, which is --human-readable here as in ls and du.
var (
	helpFlag    = &cli.BoolFlag{Name: "help", Usage: "print this help and exit (fetch help SCHEME: one scheme's)"}
	versionFlag = &cli.BoolFlag{Name: "version", Aliases: []string{"V"}, Usage: "print the version, the Go version and the schemes compiled in, and exit"}
)

// allFlags is every option of the fetch command, each in its help group.
func allFlags() []cli.Flag {
	fs := inCategory(catGeneral, helpFlag, versionFlag)
	fs = append(fs, fetchFlags()...)
	fs = append(fs, mirrorFlags()...)
	fs = append(fs, warcFlags()...)
	return append(fs, driverFlags()...)
}

func newApp(stdin io.Reader, stdout, stderr io.Writer, code *int) *cli.App {
	cli.HelpFlag = nil
	flags := allFlags()
	app := &cli.App{
		Name:                      "fetch",
		Usage:                     "dereference URLs of every RFC 1738 scheme",
		Flags:                     namedFlags(flags),
		HideHelp:                  true,
		HideHelpCommand:           true,
		HideVersion:               true,
		DisableSliceFlagSeparator: true, // -H 'Accept: a, b' is one header
		Reader:                    stdin,
		Writer:                    stdout,
		ErrWriter:                 stderr,
		ExitErrHandler:            func(*cli.Context, error) {},
		OnUsageError:              usageErrorHandler,
		Action: func(c *cli.Context) error {
			switch {
			case c.Bool("help"):
				writeHelp(stdout, flags)
				return nil
			case c.Bool("version"):
				writeVersion(stdout)
				return nil
			}
			urls := c.Args().Slice()
			input := stdin
			badCode := exitOK
			if name := c.String("input-file"); name != "" {
				more, bad, err := readURLs(name, stdin)
				if err != nil {
					return cli.Exit("-i: "+err.Error(), exitUsage)
				}
				// A line that is no URL is that line's failure; the other
				// URLs are fetched all the same.
				for _, err := range bad {
					fmt.Fprintln(stderr, errorLine(err))
					badCode = worst(badCode, exitCode(err))
				}
				urls = append(urls, more...)
				if name == "-" {
					input = nil // standard input held the URLs
				}
			}
			if len(urls) == 0 && badCode != exitOK {
				*code = badCode
				return nil
			}
			if len(urls) == 0 {
				return usagef("no URL given")
			}
			if c.String("output") != "" && len(urls) > 1 {
				return usagef("-o takes one URL; use -O (and --dir) for several")
			}
			if err := checkMirrorOptions(c); err != nil {
				return err
			}
			opts, err := optionsFrom(c)
			if err != nil {
				return err
			}
			if name := c.String("warc-file"); name != "" {
				if opts.warc, err = openWARC(name); err != nil {
					return err
				}
				defer opts.warc.close()
			}
			if c.Bool("recursive") || c.Bool("mirror") {
				mc, err := runMirror(c.Context, c, opts, urls, stdout, stderr)
				*code = worst(badCode, mc)
				return err
			}
			*code = worst(badCode, fetchAll(c.Context, opts, urls, input, stdout, stderr))
			return nil
		},
		Commands: []*cli.Command{
			parseCommand(stdout), resolveCommand(stdout), extractCommand(stdin, stdout),
			helpCommand(stdout, flags), completionCommand(stdout, flags), serveCommand(stderr),
		},
	}
	for _, cmd := range app.Commands {
		cmd.HideHelp = true
		cmd.OnUsageError = usageErrorHandler
		cmd.Flags = append(cmd.Flags, helpFlag)
		action := cmd.Action
		cmd.Action = func(c *cli.Context) error {
			if c.Bool("help") {
				writeCommandHelp(stdout, c.Command)
				return nil
			}
			return action(c)
		}
	}
	return app
}

// usageErrorHandler turns the option errors urfave/cli still finds
// (normalizeArgs finds most first) into one line on standard error.
func usageErrorHandler(_ *cli.Context, err error, _ bool) error {
	return usagef("%s", strings.TrimPrefix(err.Error(), "flag provided but not defined: "))
}

func fetchFlags() []cli.Flag {
	fs := inCategory(catOutput,
		&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Usage: "write the document to `FILE` (\"-\": standard output, even binary to a terminal), which gets its name only when the document is complete; replacing a file keeps its permissions"},
		&cli.BoolFlag{Name: "remote-name", Aliases: []string{"O"}, Usage: "write each document to a file named after its URL, in the current directory or --dir; a name an earlier URL of the run took gets .1, .2, ..."},
		&cli.StringFlag{Name: "dir", Usage: "with -O, write the files into `DIR`, made if missing"},
		&cli.BoolFlag{Name: "create-dirs", Usage: "make the directories -o FILE needs"},
		&cli.BoolFlag{Name: "no-clobber", Usage: "never replace a file: a URL whose file exists (or that an earlier URL of the run writes) is not fetched"},
		&cli.BoolFlag{Name: "remote-time", Aliases: []string{"R"}, Usage: "give the output file the resource's time (FTP MDTM, HTTP Last-Modified, a file's mtime) when the server says it"},
		&cli.BoolFlag{Name: "json", Usage: "print JSON Lines on standard output, one record per event: each listing entry, then one record per URL (what came back, status, bytes, time, output file, or the error); documents go to -o/-O only (see fetch help json)"},
		&cli.BoolFlag{Name: "head", Aliases: []string{"I"}, Usage: "print each URL's metadata, asked without a transfer (FTP SIZE and MDTM, HTTP HEAD, Gopher+ !, NNTP HEAD or GROUP, a file's stat), as Name: value lines (with --json, a head record)"},
		&cli.BoolFlag{Name: "raw", Usage: "write a listing as the server sent it (the gopher menu, the FTP LIST or MLSD text, the NNTP overview lines) rather than as columns"},
		&cli.BoolFlag{Name: "urls", Usage: "print each listing entry's URL as a last column"},
		&cli.BoolFlag{Name: "human-readable", Aliases: []string{"h"}, Usage: "print listing sizes in K, M and G (powers of 1024), as ls -h"},
		&cli.BoolFlag{Name: "verbose", Aliases: []string{"v"}, Usage: "print the protocol conversation to standard error (passwords masked), without progress bars"},
		&cli.BoolFlag{Name: "quiet", Aliases: []string{"q"}, Usage: "print nothing but errors: no progress bars, no lines for finished transfers"},
	)
	fs = append(fs, inCategory(catNetwork,
		&cli.BoolFlag{Name: "continue", Aliases: []string{"C"}, Usage: "continue a partial output file (-o or -O) from its end: FTP REST, HTTP Range; a server that cannot resume starts again, and fetch says so"},
		&cli.IntFlag{Name: "retry", Usage: "try a URL again up to `N` times after a transient failure (a timeout, a refused or broken connection, FTP 4xx such as 421, HTTP 5xx), waiting 1s, 2s, 4s, ... and resuming where the last try stopped; never after not-found, auth or unsafe errors"},
		&cli.DurationFlag{Name: "timeout", Aliases: []string{"m"}, Usage: "give up on a URL after `SECONDS` in all (or a duration: 1m30s; 0: never)"},
		&cli.DurationFlag{Name: "connect-timeout", Value: 30e9, Usage: "give up connecting after `SECONDS` (or a duration: 1m30s)"},
		&cli.DurationFlag{Name: "idle-timeout", Value: 60e9, Usage: "give up when the server sends nothing for `SECONDS` (or a duration: 1m30s)"},
		&cli.StringFlag{Name: "netrc-file", Usage: "read passwords from `FILE` instead of $NETRC or ~/.netrc (\"-\" for none)"},
		connectToFlag(),
		&cli.IntSliceFlag{Name: "allow-port", Usage: "allow `PORT` even though it belongs to another protocol (RFC 1738 section 6); repeatable"},
	)...)
	return append(fs, inCategory(catMany,
		&cli.StringFlag{Name: "input-file", Aliases: []string{"i"}, Usage: "fetch the URLs listed in `FILE` too (\"-\": standard input): one a line; blank lines and lines starting with # are skipped, <URL:...> wrappers taken off"},
		&cli.IntFlag{Name: "parallel", Aliases: []string{"P"}, Value: 1, Usage: "fetch `N` URLs at once; documents written to standard output still come out whole and in order"},
		&cli.IntFlag{Name: "per-host", Value: 8, Usage: "fetch at most `N` URLs at once from one server (with -P)"},
	)...)
}
