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
	if err := app.RunContext(ctx, args); err != nil {
		fmt.Fprintf(stderr, "fetch: %v\n", err)
		if ec, ok := err.(cli.ExitCoder); ok {
			return ec.ExitCode()
		}
		return exitUsage
	}
	return code
}

func newApp(stdin io.Reader, stdout, stderr io.Writer, code *int) *cli.App {
	// -v is --verbose here, as in curl; --version has no short form.
	cli.VersionFlag = &cli.BoolFlag{Name: "version", Usage: "print the version"}
	app := &cli.App{
		Name:      "fetch",
		Usage:     "dereference URLs of every RFC 1738 scheme",
		UsageText: "fetch [options] URL...\n   fetch [options] -i FILE\n   fetch parse [--json] URL\n   fetch resolve BASE REF...\n   fetch extract [--json] [FILE]",
		Version:   version,
		Description: strings.TrimSpace(`
fetch runs the retrieval algorithm RFC 1738 gives for each URL's scheme over
the real protocol and writes what the URL designates. A document goes to
standard output, or to a file with -o or -O; a listing (a directory, a gopher
menu, a news group) prints as columns, or as one JSON object per entry with
--json. While documents transfer, and standard error is a terminal they are
not written to, each shows a progress bar there (a spinner when its length is
unknown) and leaves one line when done; -q and -v turn the bars off.

Examples, one per scheme:
   fetch file:///etc/motd
   fetch -O https://example.org/dist/big.tar.gz
   fetch 'ftp://ftp.example.org/pub/%2Fetc/motd;type=a'
   fetch gopher://gopher.example.org/1/
   fetch 'gopher://gopher.example.org/7/search%09words'
   fetch 'gopher://gopher.example.org/0about%09%09!'          (Gopher+ attributes)
   fetch --news-server news.example.org news:comp.lang.go
   NNTPSERVER=news.example.org fetch news:12345@example.org
   fetch nntp://news.example.org/comp.lang.go/42
   fetch 'wais://wais.example.org/db?words'
   echo hello | fetch --smtp-server mail.example.org:25 mailto:someone@example.org
   fetch telnet://bbs.example.org
   fetch --login telnet://guest:guest@bbs.example.org/
   fetch -P 8 -O --dir mirror -i urls.txt                  (8 at once, URLs from a file)
   fetch -C --retry 3 -o big.iso ftp://ftp.example.org/pub/big.iso
   fetch --gateway gopher=http://proxy.example.org:3128 gopher://gopher.example.org/1/
   fetch parse 'ftp://joe@host/%2Fetc/motd;type=a'
   fetch resolve http://a/b/c/d ../g
   fetch extract < message.txt
` + "\n" + exitCodesHelp()),
		Flags:                  append(fetchFlags(), driverFlags()...),
		HideHelpCommand:        true,
		UseShortOptionHandling: true,
		Reader:                 stdin,
		Writer:                 stdout,
		ErrWriter:              stderr,
		ExitErrHandler:         func(*cli.Context, error) {},
		Action: func(c *cli.Context) error {
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
				return cli.Exit("no URL given; see fetch --help", exitUsage)
			}
			if c.String("output") != "" && len(urls) > 1 {
				return cli.Exit("-o takes one URL; use -O (and --dir) for several", exitUsage)
			}
			opts, err := optionsFrom(c)
			if err != nil {
				return err
			}
			*code = worst(badCode, fetchAll(c.Context, opts, urls, input, stdout, stderr))
			return nil
		},
		Commands: []*cli.Command{parseCommand(stdout), resolveCommand(stdout), extractCommand(stdin, stdout)},
	}
	return app
}

func exitCodesHelp() string {
	var b strings.Builder
	b.WriteString("Exit codes:\n")
	for _, e := range exitTable {
		fmt.Fprintf(&b, "   %3d  %s\n", e.code, e.text)
	}
	b.WriteString("   With several URLs, the highest code of them all.")
	return b.String()
}

func fetchFlags() []cli.Flag {
	return []cli.Flag{
		&cli.StringFlag{Name: "output", Aliases: []string{"o"}, Usage: "write the document to `FILE`, which gets its name only when the document is complete"},
		&cli.BoolFlag{Name: "remote-name", Aliases: []string{"O"}, Usage: "write each document to a file named after its URL, in the current directory or --dir"},
		&cli.StringFlag{Name: "dir", Usage: "with -O, write the files into `DIR`"},
		&cli.BoolFlag{Name: "json", Usage: "print listings as one JSON object per entry, and a document's metadata instead of its bytes (unless -o/-O)"},
		&cli.BoolFlag{Name: "urls", Usage: "print each listing entry's URL as a last column"},
		&cli.BoolFlag{Name: "verbose", Aliases: []string{"v"}, Usage: "print the protocol conversation to standard error (passwords masked), without progress bars"},
		&cli.BoolFlag{Name: "quiet", Aliases: []string{"q"}, Usage: "print nothing but errors: no progress bars, no lines for finished transfers"},
		&cli.StringFlag{Name: "input-file", Aliases: []string{"i"}, Usage: "fetch the URLs listed in `FILE` too (\"-\": standard input): one a line; blank lines and lines starting with # are skipped, <URL:...> wrappers taken off"},
		&cli.IntFlag{Name: "parallel", Aliases: []string{"P"}, Value: 1, Usage: "fetch `N` URLs at once; documents written to standard output still come out whole and in order"},
		&cli.IntFlag{Name: "per-host", Value: 8, Usage: "fetch at most `N` URLs at once from one server (with -P)"},
		&cli.BoolFlag{Name: "continue", Aliases: []string{"C"}, Usage: "continue a partial output file (-o or -O) from its end: FTP REST, HTTP Range; a server that cannot resume starts again, and fetch says so"},
		&cli.IntFlag{Name: "retry", Usage: "try a URL again up to `N` times after a transient failure (a timeout, a refused or broken connection, FTP 4xx such as 421, HTTP 5xx), waiting 1s, 2s, 4s, ... and resuming where the last try stopped; never after not-found, auth or unsafe errors"},
		&cli.DurationFlag{Name: "timeout", Usage: "give up on a URL after `DURATION` in all (0: never)"},
		&cli.DurationFlag{Name: "connect-timeout", Value: 30e9, Usage: "give up connecting after `DURATION`"},
		&cli.DurationFlag{Name: "idle-timeout", Value: 60e9, Usage: "give up when the server sends nothing for `DURATION`"},
		&cli.StringFlag{Name: "netrc-file", Usage: "read passwords from `FILE` instead of $NETRC or ~/.netrc (\"-\" for none)"},
		&cli.IntSliceFlag{Name: "allow-port", Usage: "allow `PORT` even though it belongs to another protocol (RFC 1738 section 6); repeatable"},
	}
}
