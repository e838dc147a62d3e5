package quotes

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/citecheck/citecheck"
	"github.com/citecheck/citecheck/internal/testkit"
)

// upperCasedReport is n quotations of src, each a passage of about 80
// bytes upper-cased and marked "s": near under the case fold alone.
func upperCasedReport(src string, n int) string {
	var b strings.Builder
	step := len(src) / (n + 1)
	for i := range n {
		at := (i + 1) * step
		at += strings.IndexByte(src[at:], ' ') + 1
		end := at + 80
		end += strings.IndexByte(src[end:], ' ')
		if nl := strings.IndexByte(src[at:end], '\n'); nl >= 0 {
			end = at + nl // within one paragraph of the report
		}
		fmt.Fprintf(&b, "Para %d says “%s” [s].\n\n", i, strings.ToUpper(src[at:end]))
	}
	return b.String()
}

// A verdict never depends on the other quotations (spec §5.13): 60
// upper-cased passages of a 500 KB source in one report are each near,
// as each is alone, not near once and not_found for the rest.
func TestVerdictIsTheQuotationsOwn(t *testing.T) {
	t.Parallel()
	c := testkit.NewCorpus(34)
	c.ASCII = true // no curly quotes in the source, so each passage is one quotation
	src := c.Prose(500 << 10)
	srcs := []Source{{ID: "s", Text: src}}
	lim := citecheck.DefaultLimits()
	lim.ScanUnits = citecheck.NoLimit // as the command checks
	a, err := Check(context.Background(), []byte(upperCasedReport(src, 60)), srcs, Options{Limits: lim})
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Results) != 60 {
		t.Fatalf("%d results, want 60", len(a.Results))
	}
	for i := range a.Results {
		if o := a.Results[i].Outcome; o != Near {
			t.Errorf("quotation %d: %s, want near; %s", i, o, a.AppendJSON(nil, i))
		}
	}
}

// A verdict never depends on the other quotations, as a property: each
// result of a batch (outcome, source, span, findings, fix) is the one the
// quotation gets checked alone, over quotations of every outcome,
// marked and not, against sources of several scripts and sizes.
func TestVerdictIsTheQuotationsOwnInAnyBatch(t *testing.T) {
	t.Parallel()
	c := testkit.NewCorpus(3401)
	c.ASCII = true
	long := c.Prose(120 << 10)
	srcs := append(library(), Source{ID: "long", Text: long})
	ids := []string{"en", "fr", "ru", "long", "zz"}
	rng := c.Rand
	lim := citecheck.DefaultLimits()
	lim.ScanUnits = citecheck.NoLimit
	opts := Options{Limits: lim, Explain: true}
	for round := range 3 {
		var qs []Quotation
		for range 40 + rng.IntN(30) {
			s := srcs[rng.IntN(len(srcs))].Text
			r := []rune(s)
			at := rng.IntN(len(r) - 30)
			text := string(r[at : at+20+rng.IntN(min(60, len(r)-at-20))])
			switch rng.IntN(5) {
			case 1:
				text = strings.ToUpper(text)
			case 2:
				text = c.Sentence()
			case 3:
				if i := strings.IndexByte(text, ' '); i > 0 {
					text = text[:i] + " … " + text[i+1:]
				}
			}
			q := Quotation{Text: text}
			if rng.IntN(3) > 0 {
				q.Marked, q.Marker = true, ids[rng.IntN(len(ids))]
			}
			qs = append(qs, q)
		}
		batch, err := CheckQuotations(context.Background(), qs, srcs, opts)
		if err != nil {
			t.Fatal(err)
		}
		a := &Answer{Shape: Structured, Sources: srcs, Results: batch}
		for i, q := range qs {
			alone, err := CheckQuotations(context.Background(), []Quotation{q}, srcs, opts)
			if err != nil {
				t.Fatal(err)
			}
			alone[0].Index = i
			b := &Answer{Shape: Structured, Sources: srcs, Results: alone}
			if got, want := string(a.AppendJSON(nil, i)), string(b.AppendJSON(nil, 0)); got != want {
				t.Errorf("round %d, quotation %d in the batch:\n %s\nalone:\n %s", round, i, got, want)
			}
		}
	}
}

// A diagnosis cut by its work budget never yields not_found (spec
// §5.13): when the search under folds or elisions did not go to the end
// in a source the quotation was looked for in, and nothing near was
// found, the outcome is not_checked with a why naming the source and
// what was not searched; a cut of other kinds alone leaves not_found.
func TestCutDiagnosisIsNotChecked(t *testing.T) {
	t.Parallel()
	srcs := []Source{{ID: "a", Text: "alpha"}, {ID: "b", Text: "beta"}}
	cut := func(kinds ...citecheck.FindingKind) []citecheck.Finding {
		return []citecheck.Finding{{Kind: citecheck.FindingPartial, NotSearched: kinds}}
	}
	partial := []citecheck.Finding{{Kind: citecheck.FindingPartial, Start: 0, End: 2, Length: 2}}
	near := []citecheck.Finding{{Kind: citecheck.FindingNormalized, Start: 0, End: 4, Folds: citecheck.FoldCase, SourceText: "beta"}}
	cases := []struct {
		name     string
		primary  int
		findings [][]citecheck.Finding // per source diagnosed: the marked one, or each
		outcome  Outcome
		source   int
		why      string
	}{
		{"marked, normalized not searched", 0, [][]citecheck.Finding{cut(citecheck.FindingNormalized, citecheck.FindingPartial)}, NotChecked, 0, `source "a" was cut by the work budget (not searched: normalized, partial)`},
		{"marked, elided not searched", 0, [][]citecheck.Finding{cut(citecheck.FindingElided)}, NotChecked, 0, "(not searched: elided)"},
		{"marked, only disambiguate not searched", 0, [][]citecheck.Finding{cut(citecheck.FindingDisambiguate)}, NotFound, 0, ""},
		{"marked, searched to the end", 0, [][]citecheck.Finding{partial}, NotFound, 0, ""},
		{"unmarked, cut in the second", -1, [][]citecheck.Finding{partial, cut(citecheck.FindingNormalized)}, NotChecked, -1, `source "b" was cut`},
		{"unmarked, near in one, cut in another", -1, [][]citecheck.Finding{cut(citecheck.FindingNormalized), near}, Near, 1, ""},
		{"unmarked, searched in both", -1, [][]citecheck.Finding{partial, partial}, NotFound, -1, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := &Result{Quotation: Quotation{Text: "gamma"}, Source: -1}
			p := &plan{r: r, primary: c.primary}
			targets := []int{c.primary}
			if c.primary < 0 {
				targets = []int{0, 1}
			}
			for i, si := range targets {
				p.exact = append(p.exact, &job{r: r, src: si, reason: citecheck.ReasonExactNotFound})
				j := diagnosisJob(r, si, r.Text)
				j.reason, j.findings = citecheck.ReasonExactNotFound, c.findings[i]
				p.explain = append(p.explain, j)
			}
			p.settle(srcs, false)
			if r.Outcome != c.outcome || r.Source != c.source || !strings.Contains(r.Why, c.why) {
				t.Fatalf("outcome %s, source %d, why %q; want %s, %d, %q", r.Outcome, r.Source, r.Why, c.outcome, c.source, c.why)
			}
			if r.Outcome == NotChecked && len(r.Findings) == 0 {
				t.Errorf("the cut diagnosis's findings are not given")
			}
		})
	}
}

// An Anthropic location's numbers are read as a span safely whatever
// they are (spec §5.13): negative, reversed, near ±2^53 or at the ends of
// int, a char_location is a span the engine reads as failing and a
// content_block_location one past the document's end; the outcome is
// then moved when cited_text is in the document, never a crash.
func TestLocationNumbersAreAnySpan(t *testing.T) {
	t.Parallel()
	const big = 1 << 53
	const maxInt = int(^uint(0) >> 1)
	srcs := []Source{{ID: "0", Text: "abcdef", Blocks: []int{0, 3, 6}}}
	for _, typ := range []string{CharLocation, ContentBlockLocation} {
		for _, se := range [][2]int{{-1, 0}, {-1, 1}, {0, -1}, {3, 1}, {big, big + 1}, {-big, big}, {big, -big},
			{big - 1, big - 1}, {0, big - 1}, {maxInt, maxInt}, {-maxInt - 1, 0}, {0, maxInt}, {maxInt - 1, maxInt}, {2, 3}} {
			q := Quotation{Text: "def", Marked: true, Marker: "0", Location: &Location{Type: typ, Start: se[0], End: se[1]}}
			res, err := CheckQuotations(context.Background(), []Quotation{q}, srcs, Options{Explain: true})
			if err != nil {
				t.Fatalf("%s %v: %v", typ, se, err)
			}
			if o := res[0].Outcome; o != Moved {
				t.Errorf("%s %v: %s, want moved", typ, se, o)
			}
		}
	}
}
