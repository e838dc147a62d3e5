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
	guide := readFile(t, "../../docs/explain.md")
	const cmd = "$ citecheck run citation-batch-check 1.0.0 --input examples/explain.json --explain\n"
	i := strings.Index(guide, cmd)
	if i < 0 {
		t.Fatal("docs/explain.md no longer shows the example's command")
	}
	shown := guide[i+len(cmd):]
	shown = shown[:strings.Index(shown, "```")]
	r := runCLI(t, nil, "run", "citation-batch-check", "1.0.0", "--input", "../../examples/explain.json", "--explain")
	if r.code != exitFailed {
		t.Errorf("exit %d, want %d", r.code, exitFailed)
	}
	if got := r.stdout + r.stderr; got != shown {
		t.Errorf("docs/explain.md shows\n%s\nthe command prints\n%s", shown, got)
	}
}
