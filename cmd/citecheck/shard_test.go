package main

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// The contract that lets Spark's RDD.pipe and Hadoop Streaming run a bulk
// job across machines (docs/deploy.md): `run --jsonl` answers line for
// line, in order, and each answer depends on its line alone. So an input
// split at any line boundaries into parts, each part run on its own, the
// outputs concatenated in part order, is the output of one run; and the
// worst exit status of the parts is the exit status of the one run.

// shardInput is a mixed input: every one-line conformance body (valid,
// failing and refused requests), a malformed line, an empty line, a CRLF
// line and a non-UTF-8 line.
func shardInput(t *testing.T) []string {
	lines := []string{}
	for _, b := range conformanceLines(t) {
		lines = append(lines, string(b))
	}
	lines = append(lines, validBody, "{not json", "", bulkFailed+"\r", "\xff\xfe", bulkInvalid, validBody)
	return lines
}

// runParts runs each part (lines[cuts[i]:cuts[i+1]], newline-terminated,
// as pipe() feeds a partition) through `run --jsonl` and returns the
// concatenated output and the worst exit status.
func runParts(t *testing.T, lines []string, cuts []int, args ...string) (string, int) {
	t.Helper()
	var out strings.Builder
	worst := exitValid
	for i := 0; i+1 < len(cuts); i++ {
		var in bytes.Buffer
		for _, l := range lines[cuts[i]:cuts[i+1]] {
			in.WriteString(l)
			in.WriteByte('\n')
		}
		code, stdout, _ := bulkCLI(t, &in, append([]string{"--jsonl", "--input", "-"}, args...)...)
		out.WriteString(stdout)
		worst = max(worst, code)
	}
	return out.String(), worst
}

func TestBulkShardsConcatenateToOneRun(t *testing.T) {
	lines := shardInput(t)
	n := len(lines)
	for _, args := range [][]string{nil, {"--all"}} {
		whole, wholeCode := runParts(t, lines, []int{0, n}, args...)
		if got := strings.Count(whole, "\n"); got != n {
			t.Fatalf("one run: %d answers for %d lines", got, n)
		}
		every := make([]int, n+1)
		for i := range every {
			every[i] = i
		}
		splits := map[string][]int{
			"one part":                  {0, n},
			"a part per line":           every,
			"first line alone":          {0, 1, n},
			"last line alone":           {0, n - 1, n},
			"halves":                    {0, n / 2, n},
			"empty parts at both ends":  {0, 0, n / 3, n, n},
			"empty parts in the middle": {0, n / 3, n / 3, n / 3, n},
		}
		rng := rand.New(rand.NewPCG(12, 2026))
		for r := range 40 {
			cuts := []int{0, n}
			for range rng.IntN(8) {
				cuts = append(cuts, rng.IntN(n+1))
			}
			slices.Sort(cuts)
			splits[fmt.Sprintf("random %d", r)] = cuts
		}
		for name, cuts := range splits {
			got, code := runParts(t, lines, cuts, args...)
			if got != whole {
				t.Errorf("%v %s (cuts %v): the concatenated parts differ from one run", args, name, cuts)
			}
			if code != wholeCode {
				t.Errorf("%v %s (cuts %v): worst exit status %d, one run %d", args, name, cuts, code, wholeCode)
			}
		}
	}
}
