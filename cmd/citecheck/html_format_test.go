package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/citecheck/citecheck/internal/testkit"
)

// dataOutcomes reads a page's items as a script does: the data-outcome of
// every element that has one, in document order, and their ids.
func dataOutcomes(t *testing.T, page string) (outcomes, ids []string) {
	t.Helper()
	items, err := testkit.PageItems(page)
	if err != nil {
		t.Fatal(err)
	}
	for _, it := range items {
		outcomes, ids = append(outcomes, it.Outcome), append(ids, it.ID)
	}
	return outcomes, ids
}

// lineOutcomes is the outcome of each JSON line of `annotations`.
func lineOutcomes(t *testing.T, out string) []string {
	t.Helper()
	var got []string
	for l := range strings.Lines(out) {
		var line struct{ Outcome string }
		if err := json.Unmarshal([]byte(l), &line); err != nil {
			t.Fatalf("%v: %s", err, l)
		}
		got = append(got, line.Outcome)
	}
	return got
}

// answerOutcomes is the outcome of each citation of `run --explain`'s
// answers, one a line: "valid" or its reason; "error" for a refused
// request.
func answerOutcomes(t *testing.T, out string) []string {
	t.Helper()
	var got []string
	for l := range strings.Lines(out) {
		var a struct {
			All *struct {
				Citations []struct{ Reason *string }
			}
			Error *struct{ Code string }
		}
		if err := json.Unmarshal([]byte(l), &a); err != nil {
			t.Fatalf("%v: %s", err, l)
		}
		if a.Error != nil {
			got = append(got, "error")
			continue
		}
		for _, c := range a.All.Citations {
			if c.Reason == nil {
				got = append(got, "valid")
			} else {
				got = append(got, *c.Reason)
			}
		}
	}
	return got
}

// The worked example of docs/annotations.md, as a page: its items'
// data-outcome, in document order, are the JSON lines' outcomes; the exit
// status and standard error are those of the JSON run.
func TestAnnotationsHTMLShowsTheJSONLinesOutcomes(t *testing.T) {
	for _, v := range []string{"v1", "v2"} {
		t.Run(v, func(t *testing.T) {
			args := []string{"annotations", "--source", estuaryIRI + "=" + fixtures + "estuary-" + v + ".txt", fixtures + "hypothesis-search.json"}
			j := runCLI(t, nil, args...)
			h := runCLI(t, nil, append(slices.Clone(args), "--format", "html")...)
			want := lineOutcomes(t, j.stdout)
			got, ids := dataOutcomes(t, h.stdout)
			if !slices.Equal(got, want) {
				t.Errorf("page outcomes %q\nJSON lines   %q", got, want)
			}
			for i, id := range ids {
				if id != "a"+itoa(i) {
					t.Errorf("item %d has id %q", i, id)
				}
			}
			if h.code != j.code || h.stderr != j.stderr {
				t.Errorf("html: exit %d, stderr %q; json: exit %d, stderr %q", h.code, h.stderr, j.code, j.stderr)
			}
		})
	}
}

// Error items are items of the page too, in their place; --output writes
// the page.
func TestAnnotationsHTMLShowsErrorItems(t *testing.T) {
	input := writeInput(t, `[{"id":"a","target":{"source":"`+estuaryIRI+`","selector":{"type":"TextQuoteSelector","exact":"the tide turns"}}},{"id":"b","target":9},"x"]`)
	args := []string{"annotations", "--source", estuaryIRI + "=" + fixtures + "estuary-v1.txt", input}
	j := runCLI(t, nil, args...)
	page := filepath.Join(t.TempDir(), "report.html")
	h := runCLI(t, nil, append(slices.Clone(args), "--format", "html", "--output", page)...)
	b, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := dataOutcomes(t, string(b))
	if want := lineOutcomes(t, j.stdout); !slices.Equal(got, want) || !slices.Contains(got, "error") {
		t.Errorf("page outcomes %q, JSON lines %q", got, want)
	}
	if h.code != exitError || h.stdout != "" {
		t.Errorf("exit %d, stdout %q", h.code, h.stdout)
	}
}

// --fix writes the export itself: no page.
func TestAnnotationsHTMLIsRefusedWithFix(t *testing.T) {
	r := runCLI(t, nil, "annotations", "--fix", "--format", "html", fixtures+"hypothesis-search.json")
	if r.code != exitError || !strings.Contains(r.stderr, "--fix writes the annotations themselves") {
		t.Errorf("exit %d: %s", r.code, r.stderr)
	}
}

// cliAnswers is the two files docs/cli.md's examples use: answer.json (its
// heredoc) and answers.jsonl (built as the guide builds it).
func cliAnswers(t *testing.T) (answer, answers string) {
	t.Helper()
	m := regexp.MustCompile(`(?s)cat > answer.json <<'EOF'\n(.*?)\nEOF\n`).FindStringSubmatch(readFile(t, "../../docs/cli.md"))
	if m == nil {
		t.Fatal("docs/cli.md has no answer.json")
	}
	compact := func(s string) string {
		var v any
		if err := json.Unmarshal([]byte(s), &v); err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(v)
		return string(b)
	}
	answer = writeInput(t, m[1])
	lines := compact(readFile(t, "../../examples/valid.json")) + "\n" + compact(m[1]) + "\n" + `{"sources": [` + "\n" + compact(readFile(t, "../../examples/version-mismatch.json")) + "\n"
	answers = filepath.Join(t.TempDir(), "answers.jsonl")
	if err := os.WriteFile(answers, []byte(lines), 0o644); err != nil {
		t.Fatal(err)
	}
	return answer, answers
}

// The worked examples of docs/explain.md and docs/cli.md, as pages: the
// items' data-outcome, in document order, are the citations' outcomes in
// the --explain answer ("error" for a refused request), with or without
// --all and --explain (the page implies them); the exit status is the
// JSON run's.
func TestRunHTMLShowsTheAnswersOutcomes(t *testing.T) {
	answer, answers := cliAnswers(t)
	for _, c := range []struct {
		name  string
		args  []string
		lines bool
	}{
		{"docs/explain.md", []string{"--input", "../../examples/explain.json"}, false},
		{"answer.json", []string{"--input", answer}, false},
		{"valid", []string{"--input", "../../examples/valid.json"}, false},
		{"answers.jsonl", []string{"--jsonl", "--input", answers}, true},
	} {
		for _, flags := range [][]string{{"--all", "--explain"}, nil} {
			t.Run(c.name+strings.Join(flags, ""), func(t *testing.T) {
				base := append([]string{"run", "citation-batch-check", "1.0.0"}, c.args...)
				j := runCLI(t, nil, append(slices.Clone(base), "--explain")...)
				h := runCLI(t, nil, append(append(slices.Clone(base), flags...), "--format", "html")...)
				want := answerOutcomes(t, j.stdout)
				got, ids := dataOutcomes(t, h.stdout)
				if !slices.Equal(got, want) {
					t.Errorf("page outcomes %q\nanswer       %q", got, want)
				}
				if h.code != j.code {
					t.Errorf("exit %d, the JSON run's %d", h.code, j.code)
				}
				if c.lines && (len(ids) < 2 || ids[0] != "r1c0" || !slices.Contains(ids, "r3")) {
					t.Errorf("ids %q: want r{line}c{citation}, r{line} for a refused line", ids)
				}
				if !c.lines && len(ids) > 0 && ids[0] != "r0c0" {
					t.Errorf("ids %q", ids)
				}
			})
		}
	}
}

// A page is built in-process from a whole run: not with --base-url, nor
// with --fix.
func TestRunHTMLRefusesBaseURLAndFix(t *testing.T) {
	for _, args := range [][]string{
		{"--base-url", "http://127.0.0.1:1", "--format", "html"},
		{"--fix", "--format", "html"},
	} {
		r := runCLI(t, nil, append([]string{"run", "citation-batch-check", "1.0.0", "--input", "../../examples/valid.json"}, args...)...)
		if r.code != exitError || r.stdout != "" {
			t.Errorf("%q: exit %d, stdout %q", args, r.code, r.stdout)
		}
	}
}

func itoa(i int) string {
	b, _ := json.Marshal(i)
	return string(b)
}
