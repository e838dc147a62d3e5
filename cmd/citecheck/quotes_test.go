package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// repoPath turns a command-line argument that names a file of the
// repository (relative to its root, as the guides write them) into one
// relative to this package, so a guide's example runs here as written.
func repoPath(arg string) string {
	prefix, path := "", arg
	if i := strings.LastIndex(arg, "="); i > 0 && !strings.HasPrefix(arg, "-") {
		prefix, path = arg[:i+1], arg[i+1:]
	}
	if _, err := os.Stat(filepath.Join("../..", path)); err == nil && strings.Contains(path, "/") && !strings.HasPrefix(path, "-") {
		return prefix + filepath.Join("../..", path)
	}
	return arg
}

var guideCommand = regexp.MustCompile("(?m)^\\$ citecheck (.*)\n((?:[^$`].*\n|\n)*?)\\$ echo \\$\\?\n([0-9]+)\n")

// runGuideExamples runs every `$ citecheck …` example of a guide (a
// command, what it prints on standard output then standard error, then
// `$ echo $?` and the exit status) and reports where the guide and the
// command differ: the guide cannot drift from the command.
func runGuideExamples(t *testing.T, guide string) int {
	t.Helper()
	text := readFile(t, guide)
	n := 0
	for _, m := range guideCommand.FindAllStringSubmatch(text, -1) {
		n++
		args := strings.Fields(m[1])
		for i := range args {
			args[i] = repoPath(args[i])
		}
		r := runCLI(t, nil, args...)
		if got := r.stdout + r.stderr; got != m[2] || strconv.Itoa(r.code) != m[3] {
			t.Errorf("%s: $ citecheck %s\nthe guide shows (exit %s)\n%s\nthe command prints (exit %d)\n%s", guide, m[1], m[3], m[2], r.code, got)
		}
	}
	return n
}

// The worked examples of docs/quotes.md, one for each shape, are the
// command's real output (spec §5.13).
func TestQuotesGuideShowsTheRealOutput(t *testing.T) {
	t.Parallel()
	if n := runGuideExamples(t, "../../docs/quotes.md"); n < 4 {
		t.Fatalf("%d examples in docs/quotes.md, want one for each shape", n)
	}
}

const quotesFixtures = "../../examples/quotes/"

// Exit statuses (spec §5.13): 0 every quotation verbatim, 1 some are not,
// 2 for bad input, with one line on standard error and nothing on
// standard output.
func TestQuotesExitStatuses(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	kafka := "--source=3=" + quotesFixtures + "kafka.txt"
	for _, c := range []struct {
		name   string
		args   []string
		code   int
		stderr string // a part of the one line on stderr, for exit 2
	}{
		{"every quotation verbatim", []string{kafka, write("ok.md", "„Als Gregor Samsa eines Morgens aus unruhigen Träumen erwachte“ [3]")}, exitValid, ""},
		{"no quotation at all", []string{kafka, write("none.md", "Nothing quoted here.")}, exitValid, ""},
		{"one not verbatim", []string{kafka, write("bad.md", "„Als Gregor Samsa eines Abends erwachte“ [3]")}, exitFailed, ""},
		{"bad JSON", []string{kafka, write("bad.json", `{"citations": [`)}, exitError, "not JSON"},
		{"JSON of no shape", []string{kafka, write("other.json", `{"answer": "x"}`)}, exitError, "neither an Anthropic response"},
		{"a wrong structured answer", []string{kafka, write("wrong.json", `{"citations": [{"source_id": 3}]}`)}, exitError, `has no "quote"`},
		{"a report that is not UTF-8", []string{kafka, write("latin1.md", "caf\xe9 «x» [3]")}, exitError, "not UTF-8"},
		{"an input that cannot be read", []string{kafka, filepath.Join(dir, "missing.md")}, exitError, "no such file"},
		{"a source that cannot be read", []string{"--source", "3=" + filepath.Join(dir, "missing.txt"), write("a.md", "x")}, exitError, `source "3"`},
		{"a source that is not UTF-8", []string{"--source", "3=" + write("latin1.txt", "caf\xe9"), write("b.md", "x")}, exitError, "not UTF-8"},
		{"a source id twice", []string{kafka, kafka, write("c.md", "x")}, exitError, "supplied twice"},
		{"a bad manifest line", []string{"--sources", write("m.tsv", "3\n"), write("d.md", "x")}, exitError, "line 1"},
		{"a request that is not JSON", []string{"--request", write("req.json", "{"), quotesFixtures + "anthropic-response.json"}, exitError, "--request"},
		{"--request with a report", []string{"--request", quotesFixtures + "anthropic-request.json", write("e.md", "x")}, exitError, "--request is the request an Anthropic response answered"},
		{"no sources", []string{write("f.md", "x")}, exitError, "quotes needs sources"},
		{"two inputs", []string{kafka, "a.md", "b.md"}, exitError, "one input file"},
		{"a bad format", []string{kafka, "--format", "xml", "-"}, exitError, "--format is json or text"},
		{"an unknown flag", []string{"--nope"}, exitError, "flag provided but not defined"},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := runCLI(t, nil, append([]string{"quotes"}, c.args...)...)
			if r.code != c.code {
				t.Fatalf("exit %d, want %d; stdout %q stderr %q", r.code, c.code, r.stdout, r.stderr)
			}
			if c.code == exitError {
				first, _, _ := strings.Cut(r.stderr, "\n")
				if r.stdout != "" || !strings.Contains(first, c.stderr) || !strings.HasPrefix(first, "citecheck: ") {
					t.Errorf("stdout %q, stderr %q; want one line with %q", r.stdout, r.stderr, c.stderr)
				}
			}
		})
	}
}

// Standard input is read with - or with no input argument; --help prints
// the usage with every flag.
func TestQuotesReadsStandardInputAndHelps(t *testing.T) {
	t.Parallel()
	in := "«La liberté consiste à pouvoir faire tout ce qui ne nuit pas à autrui» [2]"
	for _, args := range [][]string{{"-"}, {}} {
		r := runCLI(t, strings.NewReader(in), append([]string{"quotes", "--sources", quotesFixtures + "sources.tsv"}, args...)...)
		if r.code != exitValid || !strings.Contains(r.stdout, `"outcome":"verbatim"`) {
			t.Errorf("%v: exit %d, %q %q", args, r.code, r.stdout, r.stderr)
		}
	}
	r := runCLI(t, nil, "quotes", "--help")
	for _, flag := range []string{"-source", "-sources", "-request", "-format", "-explain", "-html", "-max-source-size", "-color"} {
		if r.code != exitValid || !strings.Contains(r.stdout, flag) {
			t.Errorf("--help lacks %s: %s", flag, r.stdout)
		}
	}
}
