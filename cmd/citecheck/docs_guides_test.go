package main

import (
	"strings"
	"testing"
)

// The answer shown in docs/explain.md is what `run --explain` prints for
// examples/explain.json, to the byte: the guide cannot drift from the
// command.
func TestExplainGuideShowsTheRealOutput(t *testing.T) {
	t.Parallel()
	shown := guideExample(t, "explain.md", "$ citecheck run citation-batch-check 1.0.0 --input examples/explain.json --explain\n")
	r := runCLI(t, nil, "run", "citation-batch-check", "1.0.0", "--input", "../../examples/explain.json", "--explain")
	if r.code != exitFailed {
		t.Errorf("exit %d, want %d", r.code, exitFailed)
	}
	if got := r.stdout + r.stderr; got != shown {
		t.Errorf("docs/explain.md shows\n%s\nthe command prints\n%s", shown, got)
	}
}

// guideExample returns what docs/guide shows after the line cmd, to the
// end of its code block: what the command must print, for a test that
// holds the guide to the command's real output.
func guideExample(t *testing.T, guide, cmd string) string {
	t.Helper()
	text := readFile(t, "../../docs/"+guide)
	i := strings.Index(text, cmd)
	if i < 0 {
		t.Fatalf("docs/%s no longer shows %q", guide, cmd)
	}
	shown := text[i+len(cmd):]
	return shown[:strings.Index(shown, "```")]
}
