package main

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"time"

	jsonrec "github.com/urlfetch/urlfetch/internal/records"

	"github.com/urfave/cli/v2"
	"github.com/urlfetch/urlfetch/fetch"
	"github.com/urlfetch/urlfetch/internal/mirror"
	"github.com/urlfetch/urlfetch/uri"
)

// Recursive retrieval (-r) is internal/mirror's; the command reads its
// options, hands it the run's Client, and shows what it does: a bar per
// transfer and one for the whole run on a terminal, a record per file
// with --json, an error line per failure, and a summary line.

// mirrorOptions reads the options of -r into the walk's.
func mirrorOptions(c *cli.Context, o *options, urls []string) (mirror.Options, error) {
	mo := mirror.Options{
		Client:       o.client,
		Dir:          o.dir,
		SpanHosts:    c.Bool("span-hosts"),
		Parent:       c.Bool("parent"),
		Timestamping: c.Bool("timestamping") || c.Bool("mirror"),
		Parallel:     o.parallel,
		PerHost:      o.perHost,
		Timeout:      o.timeout,
		Layout: mirror.Layout{
			NoHost:  c.Bool("no-host-directories"),
			CutDirs: c.Int("cut-dirs"),
		},
	}
	var err error
	if mo.Level, err = parseLevel(c.String("level")); err != nil {
		return mo, cli.Exit(err.Error(), exitUsage)
	}
	if c.Bool("mirror") && !c.IsSet("level") {
		mo.Level = mirror.Unlimited
	}
	if mo.Layout.CutDirs < 0 {
		return mo, cli.Exit("--cut-dirs needs a number of 0 or more", exitUsage)
	}
	if mo.Accept, err = splitGlobs("accept", c.StringSlice("accept")); err != nil {
		return mo, cli.Exit(err.Error(), exitUsage)
	}
	if mo.Reject, err = splitGlobs("reject", c.StringSlice("reject")); err != nil {
		return mo, cli.Exit(err.Error(), exitUsage)
	}
	if c.IsSet("schemes") {
		if c.IsSet("proto-redir") {
			return mo, cli.Exit("--schemes sets what --proto-redir sets, the schemes a server may lead to: use one of them", exitUsage)
		}
		var own []string
		for _, raw := range urls {
			if u, err := uri.Parse(raw); err == nil && !slices.Contains(own, u.Scheme) {
				own = append(own, u.Scheme)
			}
		}
		set, err := parseProtoList(c.String("schemes"), own, o.client.Schemes())
		if err != nil {
			return mo, cli.Exit("--schemes: "+err.Error(), exitUsage)
		}
		// One set for both: the walk follows these schemes, and the
		// Client's policy lets a server lead to them and no others.
		mo.Schemes = set
		o.client.FollowSchemes = set
	}
	return mo, nil
}

// checkMirrorOptions refuses the options -r has no use for.
func checkMirrorOptions(c *cli.Context) error {
	recursive := c.Bool("recursive") || c.Bool("mirror")
	for _, name := range []string{"level", "span-hosts", "parent", "accept", "reject", "schemes", "cut-dirs", "no-host-directories", "timestamping"} {
		if c.IsSet(name) && !recursive {
			return cli.Exit("--"+name+" goes with -r", exitUsage)
		}
	}
	if !recursive {
		return nil
	}
	for _, name := range []string{"output", "remote-name", "head", "raw", "input-file", "no-clobber"} {
		if c.IsSet(name) {
			return cli.Exit("-r saves every file under --dir as its URL says; --"+name+" does not go with it", exitUsage)
		}
	}
	return nil
}

// runMirror walks urls and returns the exit code: the worst of the
// failures (a URL the policy refused to follow is none).
func runMirror(ctx context.Context, c *cli.Context, o *options, urls []string, stdout, stderr io.Writer) (int, error) {
	defer o.client.Close()
	mo, err := mirrorOptions(c, o, urls)
	if err != nil {
		return 0, err
	}
	keepIdle(o.client, min(o.parallel, o.perHost))
	useProcs(o.parallel)
	o.progress = newProgress(stderr, progressOn(o, stdout, stderr))
	msgs := o.progress.writer()
	masked := make([]string, len(urls))
	for i, raw := range urls {
		masked[i] = maskURL(raw)
	}
	var mu sync.Mutex
	code := exitOK
	mo.Report = func(e mirror.Event) {
		rec := &jsonrec.Done{Input: masked[e.Root], URL: e.URL, Status: e.Status, Media: e.Media, Offset: e.Offset,
			Bytes: e.Bytes, Modified: e.Modified, Output: e.Path, Duration: e.Duration.Seconds(), Attempts: 1}
		if e.Length >= 0 || e.Kind == mirror.Saved || e.Kind == mirror.Listed {
			length := e.Length
			rec.Length = &length
		}
		switch e.Kind {
		case mirror.Saved:
			rec.Kind = jsonrec.KindDocument
		case mirror.Listed:
			rec.Kind = jsonrec.KindListing
			n := e.Entries
			rec.Entries = &n
		case mirror.Unchanged:
			rec.Kind, rec.Message = jsonrec.KindSkipped, "unchanged since the file was saved (-N)"
		case mirror.Refused:
			rec.Kind, rec.Message, rec.Output = jsonrec.KindSkipped, "not followed: "+errorMessage(e.Err), ""
		case mirror.Failed:
			rec.Kind, rec.Class, rec.Message = jsonrec.KindError, jsonrec.Class(e.Err), errorMessage(e.Err)
			rec.ExitCode = exitCode(e.Err)
			rec.Output = ""
			mu.Lock()
			code = worst(code, rec.ExitCode)
			mu.Unlock()
			fmt.Fprintln(msgs, errorLine(e.Err))
		}
		if e.Kind == mirror.Refused && o.verbose {
			fmt.Fprintln(msgs, errorLine(e.Err))
		}
		if o.json {
			mu.Lock()
			jsonrec.Write(stdout, rec)
			mu.Unlock()
		}
	}
	mo.Transfer = func(resp *fetch.Response, path string) (io.ReadCloser, func(error)) {
		b := startBar(o, resp, path)
		return b.body(resp.Body), b.done
	}
	if o.warc != nil {
		mo.Archive = func(resp *fetch.Response, path string) error {
			return o.warc.archiveFile(resp, time.Now(), path)
		}
	}
	walk, err := mirror.New(mo)
	if err != nil {
		return exitUsage, cli.Exit("--dir: "+err.Error(), exitUsage)
	}
	stopTotal := o.progress.total(walk.Progress)
	begin := time.Now()
	sum, err := walk.Run(ctx, urls)
	took := time.Since(begin)
	stopTotal()
	o.progress.wait()
	if err != nil {
		fmt.Fprintln(stderr, errorLine(err))
		code = worst(code, exitCode(err))
	}
	if ctx.Err() != nil {
		code = worst(code, exitInterrupted)
	}
	if !o.quiet {
		fmt.Fprintln(stderr, "fetch: "+mirrorSummary(sum, took))
	}
	if o.json {
		jsonrec.Write(stdout, mirrorRecordOf(masked, sum, took, code))
	}
	return code, nil
}

// mirrorSummary is the line a walk ends with: what it saved, what it
// found unchanged or resumed, what it did not follow and why.
func mirrorSummary(s mirror.Summary, took time.Duration) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%d %s and %d %s saved, %s in %v", s.Files, plural(s.Files, "file", "files"),
		s.Listings, plural(s.Listings, "listing", "listings"), byteSize(float64(s.Bytes)), took.Round(time.Millisecond))
	if s.Unchanged > 0 {
		fmt.Fprintf(&b, "; %d unchanged, not fetched (-N)", s.Unchanged)
	}
	if s.Resumed > 0 {
		fmt.Fprintf(&b, "; %d partial %s continued", s.Resumed, plural(s.Resumed, "file", "files"))
	}
	var not []string
	add := func(n int64, what string) {
		if n > 0 {
			not = append(not, fmt.Sprintf("%d %s", n, what))
		}
	}
	level := "-l " + fmt.Sprint(s.Level)
	add(s.TooDeep, "deeper than "+level)
	add(s.OtherHost, "on other hosts (--span-hosts)")
	add(s.OtherScheme, "of other schemes (--schemes)")
	add(s.Parent, "above the start (--parent)")
	add(s.Rejected, "left out by --accept or --reject")
	add(s.Symlinks, "symbolic links")
	add(s.Refused, "refused by the policy (-v says why)")
	if len(not) > 0 {
		b.WriteString("; not followed: " + strings.Join(not, ", "))
	}
	if s.Failed > 0 {
		fmt.Fprintf(&b, "; %d failed", s.Failed)
	}
	return b.String()
}

func plural(n int64, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// mirrorRecordOf is the record that ends a recursive run.
func mirrorRecordOf(inputs []string, s mirror.Summary, took time.Duration, code int) jsonrec.Mirror {
	return jsonrec.Mirror{
		Kind: jsonrec.KindMirror, Input: inputs[0], Inputs: inputs,
		Files: s.Files, Listings: s.Listings, Bytes: s.Bytes, Unchanged: s.Unchanged, Resumed: s.Resumed,
		Failed: s.Failed, Level: max(s.Level, 0),
		NotFollowed: map[string]int64{
			"level": s.TooDeep, "host": s.OtherHost, "scheme": s.OtherScheme, "parent": s.Parent,
			"rejected": s.Rejected, "symlink": s.Symlinks, "policy": s.Refused,
		},
		Duration: took.Seconds(), ExitCode: code,
	}
}
