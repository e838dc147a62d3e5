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

// The answer shown in docs/explain.md is what `run --explain` prints for
// examples/explain.json, to the byte, with its exit status: the guide
// cannot drift from the command.
func TestExplainGuideShowsTheRealOutput(t *testing.T) {
	t.Parallel()
	if n := runGuideExamples(t, "../../docs/explain.md"); n != 1 {
		t.Fatalf("%d examples in docs/explain.md, want its one worked example", n)
	}
}
