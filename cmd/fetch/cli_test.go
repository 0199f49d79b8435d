package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// The command line as curl's and wget's users type it (issue 21).

func TestNormalizeArgs(t *testing.T) {
	app := newApp(nil, nil, nil, new(int))
	global, commands := optionsOf(app.Flags), commandOptions(app)
	tests := []struct {
		in   string
		want string // "" with err
		err  string
	}{
		{"URL -o out", "-o=out -- URL", ""},
		{"-ofoo URL", "-o=foo -- URL", ""},
		{"-o foo URL", "-o=foo -- URL", ""},
		{"-o -dash URL", "-o=-dash -- URL", ""},
		{"-P8 A B", "-P=8 -- A B", ""},
		{"-vkP8 A", "-v -k -P=8 -- A", ""},
		{"-vofile A", "-v -o=file -- A", ""},
		{"A --output out B", "--output=out -- A B", ""},
		{"A --output=out", "--output=out -- A", ""},
		{"--timeout 5 A", "--timeout=5s -- A", ""},
		{"--timeout 2.5 A", "--timeout=2.5s -- A", ""},
		{"--timeout 1m30s A", "--timeout=1m30s -- A", ""},
		{"-m 0.25 A", "-m=0.25s -- A", ""},
		{"--connect-timeout=7 A", "--connect-timeout=7s -- A", ""},
		{"-- -o A", "-- -o A", ""},
		{"A -- --json", "-- A --json", ""},
		{"- -O", "-O -- -", ""},
		{"--json=true A", "--json=true -- A", ""},
		{"--max-redirs -1 A", "--max-redirs=-1 -- A", ""},
		{"parse URL --json", "parse --json -- URL", ""},
		{"-v parse --json URL", "-v parse --json -- URL", ""},
		{"URL parse", "-- URL parse", ""},
		{"help ftp", "help -- ftp", ""},
		{"-k --connect-to a:1:b:2 --json serve --listen x", "--json serve -k --connect-to=a:1:b:2 --listen=x", ""},
		{"resolve B ../g -q", "", "unknown option -q for fetch resolve"},
		{"--bad URL", "", "unknown option --bad"},
		{"--jsn URL", "", "unknown option --jsn (did you mean --json?)"},
		{"-json URL", "", `unknown option -j in "-json" (did you mean --json?)`},
		{"-x URL", "", "unknown option -x"},
		{"URL -o", "", "option -o needs a value"},
		{"URL --output", "", "option --output needs a value"},
		{"-P x URL", "", `option -P takes a whole number, not "x"`},
		{"--timeout soon URL", "", `option --timeout takes seconds (5, 2.5) or a duration (1m30s), not "soon"`},
		{"--timeout -5 URL", "", `option --timeout: "-5" seconds is out of range`},
		{"--json=maybe URL", "", `option --json takes no value (got "maybe")`},
		{"--o file URL", "", "unknown option --o"},
		// A repeatable option, in its two forms at once.
		{"-H a:1 A --header b:2 -Hc:3", "--header=a:1 --header=b:2 --header=c:3 -- A", ""},
		{"-ujoe:pw A", "-u=joe:pw -- A", ""},
		{"--allow-port 25 --allow-port=119", "--allow-port=25 --allow-port=119", ""},
	}
	for _, tt := range tests {
		got, err := normalizeArgs(append([]string{"fetch"}, strings.Fields(tt.in)...), global, commands)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) || !strings.HasSuffix(err.Error(), "see fetch --help") {
				t.Errorf("normalizeArgs(%q) = %q, %v; want error %q ...; see fetch --help", tt.in, got, err, tt.err)
			}
			continue
		}
		want := append([]string{"fetch"}, strings.Fields(tt.want)...)
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("normalizeArgs(%q) = %q, %v; want %q", tt.in, got, err, want)
		}
	}
}

func TestOptionsAfterURL(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "src.txt")
	if err := os.WriteFile(src, []byte("hello\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	u := "file://" + src
	for _, tt := range []struct {
		args []string
		file string
	}{
		{[]string{u, "-o", "out1"}, "out1"},
		{[]string{"-oout2", u}, "out2"},
		{[]string{u, "--output=out3", "--timeout", "5", "-P2"}, "out3"},
		{[]string{u, "-qo", "out4", "--connect-timeout", "2.5"}, "out4"},
	} {
		r := fetchCmd(t, dir, "", tt.args...)
		b, err := os.ReadFile(filepath.Join(dir, tt.file))
		if r.code != 0 || r.stdout != "" || err != nil || string(b) != "hello\n" {
			t.Errorf("fetch %q = %d, stdout %q, stderr %q; %s: %q %v", tt.args, r.code, r.stdout, r.stderr, tt.file, b, err)
		}
	}
	// After "--", "-o" is an operand: a URL, and not a valid one.
	if r := fetchCmd(t, dir, "", "--", "-o"); r.code != exitURL || !strings.Contains(r.stderr, "fetch: -o: not a URL") {
		t.Errorf("fetch -- -o = %d %q", r.code, r.stderr)
	}
	r := fetchCmd(t, dir, "", "parse", u, "--json")
	if r.code != 0 || !strings.HasPrefix(r.stdout, "{") {
		t.Errorf("fetch parse URL --json = %d %q %q", r.code, r.stdout, r.stderr)
	}
}

// A usage error is one or two lines on standard error naming the problem
// and fetch --help, exit 2, nothing on standard output.
func TestUsageErrors(t *testing.T) {
	for _, args := range [][]string{
		{"--bad", "file:///etc/hostname"},
		{"file:///etc/hostname", "-o"},
		{"-P", "many", "file:///"},
		{"--timeout", "soon", "file:///"},
		{},
		{"-o", "x", "file:///a", "file:///b"},
		{"parse"},
		{"parse", "--bogus", "x"},
		{"resolve", "http://a/"},
		{"help", "nonesuch"},
		{"completion", "tcsh"},
		{"-O", "--dir"},
		{"--max-redirs", "-5", "file:///"},
	} {
		r := fetchCmd(t, "", "", args...)
		lines := strings.Split(strings.TrimSuffix(r.stderr, "\n"), "\n")
		if r.code != exitUsage || r.stdout != "" || len(lines) > 2 || !strings.HasPrefix(r.stderr, "fetch: ") ||
			!strings.Contains(r.stderr, "fetch --help") || strings.Contains(r.stderr, "Incorrect Usage") {
			t.Errorf("fetch %q = %d, stdout %q, stderr %q; want exit 2, one line naming fetch --help", args, r.code, r.stdout, r.stderr)
		}
	}
}

func TestHelp(t *testing.T) {
	help := fetchCmd(t, "", "", "--help")
	if help.code != 0 || help.stderr != "" {
		t.Fatalf("--help = %d %q", help.code, help.stderr)
	}
	if h := fetchCmd(t, "", "", "help"); h.stdout != help.stdout {
		t.Errorf("fetch help differs from fetch --help")
	}
	// Options anywhere: --help after a URL is the help too.
	if h := fetchCmd(t, "", "", "file:///nonesuch", "--help"); h.stdout != help.stdout || h.code != 0 {
		t.Errorf("fetch URL --help = %d, not the help", h.code)
	}
	for _, group := range []string{"\nOutput:\n", "\nNetwork and transfers:\n", "\nMany URLs:\n", "\nTLS:\n",
		"\nRedirects and safety:\n", "\nftp and ftps:\n", "\nhttp and https:\n", "\nnews and nntp:\n", "\nCommands:\n"} {
		if !strings.Contains(help.stdout, group) {
			t.Errorf("--help has no group %q", strings.TrimSpace(group))
		}
	}
	for _, f := range allFlags() {
		d := docOf(f)
		if !strings.Contains(help.stdout, d.names()) {
			t.Errorf("--help does not list %q", d.names())
		}
		if categoryOf(f) == catGeneral && f != helpFlag && f != versionFlag {
			t.Errorf("option %s has no group", d.names())
		}
	}
	if strings.Contains(help.stdout, "(default: false)") || strings.Contains(help.stdout, "(default 0s)") {
		t.Errorf("--help shows a default of nothing")
	}
	checkWidth(t, "--help", help.stdout)
	for _, tp := range topics {
		for _, name := range tp.names {
			r := fetchCmd(t, "", "", "help", name)
			if r.code != 0 || !strings.Contains(r.stdout, tp.syntax[0]) || !strings.Contains(r.stdout, tp.examples[0]) {
				t.Errorf("fetch help %s = %d %q", name, r.code, r.stdout)
			}
			checkWidth(t, "help "+name, r.stdout)
		}
	}
	if r := fetchCmd(t, "", "", "help", "ftp"); !strings.Contains(r.stdout, "--ftp-method METHOD") || !strings.Contains(r.stdout, "--ssl-reqd") {
		t.Errorf("fetch help ftp lacks ftp's options:\n%s", r.stdout)
	}
	if r := fetchCmd(t, "", "", "parse", "--help"); r.code != 0 || !strings.Contains(r.stdout, "Usage: fetch parse") {
		t.Errorf("fetch parse --help = %d %q", r.code, r.stdout)
	}
}

func checkWidth(t *testing.T, what, text string) {
	t.Helper()
	for i, l := range strings.Split(text, "\n") {
		if len(l) > helpWidth {
			t.Errorf("%s line %d is %d characters long: %q", what, i+1, len(l), l)
		}
	}
}

// The man page is written from the same source as --help; the file in
// the repository must be what the command writes now, and render.
func TestManPage(t *testing.T) {
	r := fetchCmd(t, "", "", "help", "--man")
	if r.code != 0 {
		t.Fatalf("fetch help --man = %d %q", r.code, r.stderr)
	}
	file := filepath.Join("..", "..", "man", "fetch.1")
	if os.Getenv("UPDATE_MAN") != "" {
		if err := os.WriteFile(file, []byte(r.stdout), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if b, err := os.ReadFile(file); err != nil || string(b) != r.stdout {
		t.Errorf("man/fetch.1 is not what fetch help --man writes (%v): run UPDATE_MAN=1 go test ./cmd/fetch -run TestManPage", err)
	}
	for _, f := range allFlags() {
		if d := docOf(f); d.long != "" && !strings.Contains(r.stdout, `\-\-`+roff(d.long)) {
			t.Errorf("the man page lacks --%s", d.long)
		}
	}
	if _, err := exec.LookPath("man"); err != nil {
		t.Skip("no man(1) to render the page with")
	}
	man := exec.Command("man", "--warnings", "-l", file)
	man.Env = append(os.Environ(), "MANWIDTH=100", "MANPAGER=cat", "PAGER=cat")
	var out, errb bytes.Buffer
	man.Stdout, man.Stderr = &out, &errb
	if err := man.Run(); err != nil || errb.Len() > 0 {
		t.Fatalf("man -l man/fetch.1: %v: %s", err, errb.String())
	}
	for _, want := range []string{"NAME", "SYNOPSIS", "OPTIONS", "--output FILE", "SCHEMES", "EXIT STATUS", "ftp://[user[:password]@]host"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("the rendered man page lacks %q", want)
		}
	}
}

// complete runs the bash completion script in a scripted bash as the
// shell does on TAB, and returns the candidates.
func complete(t *testing.T, words ...string) []string {
	t.Helper()
	var script bytes.Buffer
	if code := run(context.Background(), []string{"fetch", "completion", "bash"}, nil, &script, os.Stderr); code != 0 {
		t.Fatalf("fetch completion bash = %d", code)
	}
	quoted := make([]string, len(words))
	for i, w := range words {
		quoted[i] = "'" + w + "'"
	}
	cmd := exec.Command("bash", "--norc", "--noprofile", "-c", script.String()+`
COMP_WORDS=(`+strings.Join(quoted, " ")+`); COMP_CWORD=$((${#COMP_WORDS[@]}-1))
_fetch; printf '%s\n' "${COMPREPLY[@]}"`)
	cmd.Dir = t.TempDir()
	os.WriteFile(filepath.Join(cmd.Dir, "certs.pem"), nil, 0o644)
	os.Mkdir(filepath.Join(cmd.Dir, "certdir"), 0o755)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("bash: %v: %s", err, out)
	}
	return strings.Fields(string(out))
}

func TestBashCompletion(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash")
	}
	for _, tt := range []struct {
		words []string
		want  []string
	}{
		{[]string{"fetch", "--insec"}, []string{"--insecure"}},
		{[]string{"fetch", "--ftp-p"}, []string{"--ftp-pasv"}},
		{[]string{"fetch", "ftp://h/", "--max-red"}, []string{"--max-redirs"}},
		{[]string{"fetch", "--cacert", "cert"}, []string{"certdir", "certs.pem"}},
		{[]string{"fetch", "--capath", "cert"}, []string{"certdir"}},
		{[]string{"fetch", "help", "nn"}, []string{"nntp", "nntps"}},
		{[]string{"fetch", "completion", "b"}, []string{"bash"}},
		{[]string{"fetch", "ext"}, []string{"extract"}},
	} {
		got := complete(t, tt.words...)
		slices.Sort(got)
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("completing %q = %q, want %q", tt.words, got, tt.want)
		}
	}
}

func TestZshAndFishCompletion(t *testing.T) {
	for _, shell := range []string{"zsh", "fish"} {
		var script bytes.Buffer
		if code := run(context.Background(), []string{"fetch", "completion", shell}, nil, &script, os.Stderr); code != 0 {
			t.Fatalf("fetch completion %s = %d", shell, code)
		}
		for _, f := range allFlags() {
			if d := docOf(f); d.long != "" && !strings.Contains(script.String(), d.long) {
				t.Errorf("the %s completion lacks --%s", shell, d.long)
			}
		}
		if _, err := exec.LookPath(shell); err != nil {
			continue // checked for syntax where the shell is installed
		}
		check := exec.Command(shell, "-n")
		check.Stdin = &script
		if out, err := check.CombinedOutput(); err != nil {
			t.Errorf("%s -n: %v: %s", shell, err, out)
		}
	}
}
