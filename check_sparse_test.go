package citecheck

import (
	"math/rand/v2"
	"reflect"
	"testing"
	"unicode/utf8"

	"github.com/citecheck/citecheck/internal/search"
	"github.com/citecheck/citecheck/internal/testkit"
	"github.com/citecheck/citecheck/internal/utext"
)

// The check builds a source's sparse index when the scans its plan
// measured by the first would cost more than building the index and
// querying it: many short anchors in a long text (CJK), many citations in
// text where q-grams recur (boilerplate, logs); not a few long anchors in
// prose (max_limits). (internal/search tests the plan itself.)
func TestCheckIndexesOnlyWhereScansCostMore(t *testing.T) {
	t.Parallel()
	indexed := map[string]bool{
		"max_limits": false, "prose_long_exact": false, "prose_common_word": false,
		"cjk": true, "astral": true, "binary": true, "boilerplate_common_word": true, "logs": true,
	}
	for _, w := range classWorkloads() {
		want, ok := indexed[w.name]
		if !ok {
			continue
		}
		c := NewChecker(w.req)
		if res := checkFrom(c); !res.Valid {
			t.Fatalf("%s does not pass", w.name)
		}
		if got := c.index[0].Indexed(); got != want {
			t.Errorf("%s: indexed %v, want %v", w.name, got, want)
		}
	}
	// Unmeasured, as CheckParallel decides: skips are taken at their
	// estimate, so boilerplate's anchors (long, but skipping little) do
	// not pay for the index there.
	unmeasured := map[string]bool{"max_limits": false, "prose_long_exact": false, "boilerplate_common_word": false, "cjk": true, "astral": true}
	for _, w := range classWorkloads() {
		want, ok := unmeasured[w.name]
		if !ok {
			continue
		}
		c := NewChecker(w.req)
		c.indexForScans(0)
		if got := c.index[0].Indexed(); got != want || c.index[0].Planned() {
			t.Errorf("%s, decided before the workers: indexed %v, want %v (plan left %v)", w.name, got, want, c.index[0].Planned())
		}
	}
}

// checkSparse is Check with every source indexed sparsely, whatever its
// length and citations: the index's answers in place of every scan they
// can replace.
func checkSparse(req *Request) *Result {
	c := NewChecker(req)
	for j := range req.Sources {
		c.index[j] = &indexedText{utext.New(req.Sources[j].Text), search.NewIndexedText(req.Sources[j].Text)}
	}
	return checkFrom(c)
}

// TestSparseIndexChangesNoCheck: on long texts of every class, each
// citation of a class workload and the same with its prefix, exact or
// suffix changed, or a wrong claimed start (every reason of the anchor
// check), and anchors cut from repeated boilerplate (ambiguous), is
// judged the same, detail for detail, with the index as by scans alone.
func TestSparseIndexChangesNoCheck(t *testing.T) {
	t.Parallel()
	rng := testkit.NewRand(91)
	for _, w := range classWorkloads() {
		if w.name == "max_limits" {
			continue // position citations and prose: the prose classes have both
		}
		req := *w.req
		var cits []Citation
		for k, c := range req.Citations {
			if k%3 != 0 {
				continue // a third of them, each in five forms
			}
			cits = append(cits, c)
			for f := range 3 {
				changed := c
				sel := &changed.Selector
				if field := []*string{&sel.Prefix, &sel.Exact, &sel.Suffix}[f]; *field != "" {
					*field = changeOneCodePoint(rng, *field)
					cits = append(cits, changed)
				}
			}
			wrong := c
			wrong.HasClaimedStart, wrong.ClaimedStart = true, c.ClaimedStart+1
			cits = append(cits, wrong)
		}
		// Exacts cut anywhere, without context: in boilerplate most occur
		// many times (ambiguous, and more than checkQuote keeps).
		text := req.Sources[0].Text
		for range 6 {
			i := rng.IntN(len(text) - 200)
			for !utf8.RuneStart(text[i]) {
				i++
			}
			e := testkit.TrimToBytes(text[i:], 40+rng.IntN(100))
			cits = append(cits, Citation{CitationID: "cut", SourceID: "src", Version: "v1", Selector: Selector{Type: QuoteSelector, Exact: e}})
		}
		req.Citations = cits
		scanned := make([]*Discrepancy, len(cits))
		c := NewChecker(&req)
		for k := range cits {
			c.index[0] = newIndexedText(req.Sources[0].Text, search.Plan{}) // no plan: every find a scan
			scanned[k] = c.Citation(k)
		}
		withIndex := &Checker{req: &req, index: []*indexedText{{utext.New(text), search.NewIndexedText(text)}}}
		reasons := map[Reason]int{}
		for k := range cits {
			got, want := withIndex.Citation(k), scanned[k]
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("%s, citation %d: with the index\n%s\nscanned\n%s", w.name, k, resultOf(got), resultOf(want))
			}
			if want != nil {
				reasons[want.Reason]++
			}
		}
		t.Logf("%s: %d citations, failures by reason %v", w.name, len(cits), reasons)
	}
}

// changeOneCodePoint returns s with one of its code points, at random,
// replaced by an ASCII letter it is not.
func changeOneCodePoint(rng *rand.Rand, s string) string {
	i := rng.IntN(len(s))
	for !utf8.RuneStart(s[i]) {
		i--
	}
	_, size := utf8.DecodeRuneInString(s[i:])
	letter := "x"
	if s[i] == 'x' {
		letter = "y"
	}
	return s[:i] + letter + s[i+size:]
}

// resultOf shows a discrepancy as the result reports it.
func resultOf(d *Discrepancy) []byte {
	if d == nil {
		return []byte("holds")
	}
	return (&Result{Reason: d.Reason, FirstDiscrepancy: d}).AppendJSON(nil)
}
