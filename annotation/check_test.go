package annotation

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/citecheck/citecheck"
	"github.com/citecheck/citecheck/internal/testkit"
)

const iri = "https://example.org/doc"

// hyp builds a Hypothesis-style annotation on iri with the given selectors.
func hyp(id string, selectors ...string) string {
	return `{"id":"` + id + `","target":[{"source":"` + iri + `","selector":[` + strings.Join(selectors, ",") + `]}]}`
}

func posSel(start, end int) string {
	return fmt.Sprintf(`{"type":"TextPositionSelector","start":%d,"end":%d}`, start, end)
}

func quoteSel(exact, prefix, suffix string) string {
	return fmt.Sprintf(`{"type":"TextQuoteSelector","exact":%q,"prefix":%q,"suffix":%q}`, exact, prefix, suffix)
}

const rangeSel = `{"type":"RangeSelector","startContainer":"/p[1]","startOffset":0,"endContainer":"/p[1]","endOffset":4}`

// check scans input and checks it against one source with text.
func check(t *testing.T, text, input string, locate bool) []Report {
	t.Helper()
	items, err := scanAll(t, input)
	if err != nil {
		t.Fatal(err)
	}
	var anns []*Annotation
	for _, it := range items {
		if it.Err != nil {
			t.Fatalf("refused: %s", it.Err.Message)
		}
		anns = append(anns, it.Annotation)
	}
	c, err := NewChecker([]Source{{IRI: iri, Version: "v1", Text: text}}, citecheck.DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	c.Locate = locate
	return c.Check(anns)
}

// cp and u16 are where exact's nth occurrence starts in text, in code
// points and in UTF-16 code units.
func cp(text, exact string, nth int) int {
	i := -1
	for range nth + 1 {
		i += 1 + strings.Index(text[i+1:], exact)
	}
	return utf8.RuneCountInString(text[:i])
}

func u16(text, exact string, nth int) int {
	return len(utf16.Encode([]rune(string([]rune(text)[:cp(text, exact, nth)]))))
}

// Each outcome, with the rule that gives it, over a text with astral
// characters before the quoted passages so that UTF-16 and code point
// positions differ.
func TestCheckOutcomes(t *testing.T) {
	text := "🌿 notes 🌊 at dawn the tide turns; at noon the tide turns again. The old pier 🐟 stands."
	n := func(s string) int { return utf8.RuneCountInString(s) }
	tide0, tide1 := cp(text, "the tide turns", 0), cp(text, "the tide turns", 1)
	pier := cp(text, "old pier", 0)
	for _, c := range []struct {
		name, input string
		want        Outcome
		reasons     string // the checked selectors' reasons, in selector order
		repair      *Repair
	}{
		{"outcome/anchored: quote and position agree, Range beside them",
			hyp("a", rangeSel, posSel(pier, pier+8), quoteSel("old pier", "The ", " 🐟")), Anchored, "- -", nil},
		{"outcome/anchored: a quote alone that anchors once",
			hyp("a", quoteSel("old pier", "", "")), Anchored, "-", nil},
		{"outcome/moved: positions counted in UTF-16 code units (Hypothesis)",
			hyp("a", posSel(u16(text, "old pier", 0), u16(text, "old pier", 0)+8), quoteSel("old pier", "", "")), Moved,
			"quote_mismatch position_mismatch", &Repair{Start: pier, End: pier + 8}},
		{"outcome/moved: the quote anchors at the stored start but the end disagrees",
			hyp("a", posSel(pier, pier+5), quoteSel("old pier", "", "")), Moved, "quote_mismatch -", &Repair{Start: pier, End: pier + 8}},
		{"outcome/anchored: an ambiguous quote whose stored position says which match",
			hyp("a", posSel(tide1, tide1+n("the tide turns")), quoteSel("the tide turns", "", "")), Anchored, "- ambiguous_anchor", nil},
		{"outcome/moved: an ambiguous quote whose position is right in UTF-16 code units",
			hyp("a", posSel(u16(text, "the tide turns", 1), u16(text, "the tide turns", 1)+14), quoteSel("the tide turns", "", "")), Moved,
			"quote_mismatch ambiguous_anchor", &Repair{Start: tide1, End: tide1 + 14}},
		{"outcome/ambiguous: an ambiguous quote without a position",
			hyp("a", quoteSel("the tide turns", "", "")), Ambiguous, "ambiguous_anchor", nil},
		{"outcome/orphaned: a prefix that stands nowhere, whatever the position says",
			hyp("a", posSel(tide0, tide0+14), quoteSel("the tide turns", "zzz", "")), Orphaned, "- prefix_mismatch", nil},
		{"outcome/ambiguous: a position that matches neither occurrence",
			hyp("a", posSel(3, 17), quoteSel("the tide turns", "", "")), Ambiguous, "quote_mismatch ambiguous_anchor", nil},
		{"outcome/orphaned: the quote is nowhere",
			hyp("a", posSel(pier, pier+8), quoteSel("new pier", "", "")), Orphaned, "quote_mismatch exact_not_found", nil},
		{"outcome/orphaned: the quote is there, its suffix is not",
			hyp("a", quoteSel("old pier", "", " collapsed")), Orphaned, "suffix_mismatch", nil},
		{"outcome/unchecked: only selectors the engine does not check",
			hyp("a", rangeSel, `{"type":"CssSelector","value":"p"}`), Unchecked, "", nil},
		{"outcome/unchecked: a position without a quote",
			hyp("a", posSel(0, 2)), Unchecked, "", nil},
		{"outcome/unchecked: a quote only inside a refinement",
			hyp("a", `{"type":"FragmentSelector","value":"p2","refinedBy":`+quoteSel("old pier", "", "")+`}`), Unchecked, "", nil},
		{"outcome/no_source: its IRI was not supplied",
			`{"id":"a","target":{"source":"https://example.org/other","selector":` + quoteSel("old pier", "", "") + `}}`, NoSource, "", nil},
		{"outcome/several targets: the most severe decides, each is reported",
			`{"id":"a","target":[{"source":"` + iri + `","selector":` + quoteSel("old pier", "", "") + `},{"source":"` + iri + `","selector":` + quoteSel("gone", "", "") + `}]}`,
			Orphaned, "- exact_not_found", nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := check(t, text, c.input, false)[0]
			if r.Outcome != c.want {
				t.Errorf("outcome %s, want %s", r.Outcome, c.want)
			}
			var reasons []string
			for _, tr := range r.Targets {
				for _, sc := range tr.Checked {
					s := sc.Reason.String()
					if s == "" {
						s = "-"
					}
					reasons = append(reasons, s)
				}
			}
			if got := strings.Join(reasons, " "); got != c.reasons {
				t.Errorf("reasons %q, want %q", got, c.reasons)
			}
			got := r.Targets[0].Repair
			if (got == nil) != (c.repair == nil) || got != nil && (got.Start != c.repair.Start || got.End != c.repair.End) {
				t.Errorf("repair %+v, want %+v", got, c.repair)
			}
			// Every reported selector, checked or not, names its pointer.
			for _, tr := range r.Targets {
				for _, s := range tr.Unchecked {
					if s.Pointer == "" || s.Why == "" {
						t.Errorf("an unchecked selector without its place or reason: %+v", s)
					}
				}
			}
		})
	}
}

// An ambiguous anchor is settled by its position only when the whole
// anchor, prefix and suffix included, stands there.
func TestCheckAmbiguousIsSettledOnlyByTheWholeAnchor(t *testing.T) {
	text := "x: the tide. x: the tide. the tide."
	third := cp(text, "the tide", 2)
	r := check(t, text, hyp("a", posSel(third, third+8), quoteSel("the tide", "x: ", "")), false)[0]
	if r.Outcome != Ambiguous {
		t.Errorf("outcome %s, want ambiguous: the position holds the exact but not the prefix", r.Outcome)
	}
	second := cp(text, "the tide", 1)
	r = check(t, text, hyp("a", posSel(second, second+8), quoteSel("the tide", "x: ", "")), false)[0]
	if r.Outcome != Anchored {
		t.Errorf("outcome %s, want anchored: the whole anchor stands at the position", r.Outcome)
	}
}

// With Locate, a quote without a position gets one: where it anchors.
func TestCheckLocatesAPositionlessQuote(t *testing.T) {
	text := "🌿 the old pier stands"
	for _, exact := range []string{"🌿", "old pier"} {
		r := check(t, text, hyp("a", quoteSel(exact, "", "")), true)[0]
		at := cp(text, exact, 0)
		if rp := r.Targets[0].Repair; r.Outcome != Anchored || rp == nil || rp.Start != at || rp.End != at+utf8.RuneCountInString(exact) {
			t.Errorf("%q: outcome %s, repair %+v; want anchored at %d", exact, r.Outcome, rp, at)
		}
		if r := check(t, text, hyp("a", quoteSel(exact, "", "")), false)[0]; r.Targets[0].Repair != nil {
			t.Errorf("%q: a repair without Locate", exact)
		}
	}
}

// Every selector is accounted for: checked, or listed as unchecked with its
// type, refinements included; none is silently dropped.
func TestCheckReportsEverySelector(t *testing.T) {
	input := `{"id":"a","target":[{"source":"` + iri + `","selector":[` + rangeSel + `,` + posSel(0, 3) + `,` +
		`{"type":"TextQuoteSelector","exact":"abc","refinedBy":{"type":"TextPositionSelector","start":0,"end":1,"refinedBy":{"type":"XPathSelector","value":"x"}}}]},` +
		`"` + iri + `",{"source":"` + iri + `","selector":"https://example.org/selectors/1"}]}`
	r := check(t, "abc", input, false)[0]
	var got []string
	for _, tr := range r.Targets {
		for _, s := range tr.Checked {
			got = append(got, "checked "+s.Pointer)
		}
		for _, s := range tr.Unchecked {
			got = append(got, "unchecked "+s.Type+" "+s.Pointer)
		}
	}
	want := []string{
		"checked /target/0/selector/1", "checked /target/0/selector/2",
		"unchecked RangeSelector /target/0/selector/0",
		"unchecked TextPositionSelector /target/0/selector/2/refinedBy",
		"unchecked XPathSelector /target/0/selector/2/refinedBy/refinedBy",
		"unchecked  /target/1",
		"unchecked IRI /target/2/selector",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// Batches are cut within the limits: more citations than max_citations and
// more sources than max_sources in one Check give the same verdicts as
// checking each annotation alone.
func TestCheckBatchesWithinTheLimits(t *testing.T) {
	var sources []Source
	var input strings.Builder
	for i := range 40 {
		text := fmt.Sprintf("document %d: the passage %d is here, and here the passage %d again.", i, i, i)
		sources = append(sources, Source{IRI: fmt.Sprintf("urn:doc:%d", i), Text: text})
	}
	for k := range 700 {
		i := k % 40
		exact := fmt.Sprintf("the passage %d", i)
		start := cp(sources[i].Text, exact, k%2)
		if k%3 == 0 {
			start++ // a wrong position
		}
		fmt.Fprintf(&input, `{"id":"a%d","target":{"source":"urn:doc:%d","selector":[%s,%s]}}`+"\n", k, i,
			posSel(start, start+utf8.RuneCountInString(exact)), quoteSel(exact, "", ""))
	}
	items, _ := scanAll(t, input.String())
	var anns []*Annotation
	for _, it := range items {
		anns = append(anns, it.Annotation)
	}
	lim := citecheck.DefaultLimits()
	c, _ := NewChecker(sources, lim)
	all := c.Check(anns)
	for k, a := range anns {
		one := c.Check([]*Annotation{a})[0]
		if got, want := string(all[k].AppendJSON(nil, k)), string(one.AppendJSON(nil, k)); got != want {
			t.Fatalf("annotation %d in a batch:\n%s\nalone:\n%s", k, got, want)
		}
	}
}

// Each failing selector carries the engine's findings: a position counted
// in UTF-16 code units, as Hypothesis counts, has an offset_units finding
// with units utf16 on both its selectors.
func TestCheckCarriesTheEnginesFindings(t *testing.T) {
	text := "🌿 notes 🌊 The old pier 🐟 stands."
	u, at := u16(text, "old pier", 0), cp(text, "old pier", 0)
	r := check(t, text, hyp("a", posSel(u, u+8), quoteSel("old pier", "", "")), false)[0]
	for _, sc := range r.Targets[0].Checked {
		var units []string
		for _, f := range sc.Findings {
			if f.Kind == citecheck.FindingOffsetUnits {
				units = append(units, fmt.Sprintf("%s@%d", f.Units, f.Start))
			}
		}
		if len(units) != 1 || units[0] != fmt.Sprintf("utf16@%d", at) {
			t.Errorf("%s: offset_units findings %v, want utf16 at %d", sc.Type, units, at)
		}
	}
	if r := check(t, text, hyp("a", posSel(at, at+8), quoteSel("old pier", "", "")), false)[0]; len(r.Targets[0].Checked[0].Findings) != 0 {
		t.Errorf("a selector that holds has findings")
	}
}

// An annotation's report is the same whether it is checked in a batch or
// alone: the verdicts are per citation, and each failing selector is
// diagnosed on a budget of its own. The mix holds every outcome and, the
// case that once broke it, 60 near misses (upper-cased quotes) of one
// 500 KB source, found as a case fold when alone, and of which a shared
// budget left all but one not searched.
func TestVerdictDoesNotDependOnTheOtherAnnotations(t *testing.T) {
	corpus := testkit.NewCorpus(34)
	big := corpus.Prose(500 << 10)
	small := "🌿 the tide turns 🌊 on the shore, and the tide turns again at dusk"
	srcs := []Source{{IRI: "urn:big", Text: big}, {IRI: "urn:small", Text: small}}
	near := 60
	if testing.Short() {
		near = 12
	}
	var anns []string
	for i := range near {
		c := testkit.PickSpan(corpus.Rand, testkit.NewSource("urn:big", "", big), "q", [2]int{20, 60})
		sel := quoteSel(strings.ToUpper(*c.Quote), "", "")
		if i%3 == 0 { // and a stale position beside it
			sel += "," + posSel(*c.Selector.Start+1, *c.Selector.End+1)
		}
		anns = append(anns, fmt.Sprintf(`{"id":"near-%d","target":{"source":"urn:big","selector":[%s]}}`, i, sel))
	}
	for i, sel := range []string{
		quoteSel("the tide turns", "", ""),                           // ambiguous
		quoteSel("the tide turns", "on ", "") + "," + posSel(23, 37), // moved (UTF-16 positions)
		quoteSel("again at dusk", "", ""),                            // anchored
		quoteSel("the tide turned", "", ""),                          // orphaned
		quoteSel("the shore", "on ", " and"),                         // suffix mismatch
	} {
		anns = append(anns, fmt.Sprintf(`{"id":"small-%d","target":{"source":"urn:small","selector":[%s]}}`, i, sel))
	}
	corpus.Rand.Shuffle(len(anns), func(i, j int) { anns[i], anns[j] = anns[j], anns[i] })
	items, err := scanAll(t, strings.Join(anns, "\n"))
	if err != nil {
		t.Fatal(err)
	}
	batch := make([]*Annotation, len(items))
	for i, it := range items {
		batch[i] = it.Annotation
	}
	c, _ := NewChecker(srcs, citecheck.DefaultLimits())
	together := c.Check(batch)
	folds := 0
	for i, a := range batch {
		alone := c.Check([]*Annotation{a})[0]
		got, want := string(together[i].AppendJSON(nil, i)), string(alone.AppendJSON(nil, i))
		if got != want {
			t.Errorf("%s in a batch of %d:\n %s\nalone:\n %s", a.ID, len(batch), got, want)
		}
		if strings.HasPrefix(a.ID, "near-") && strings.Contains(got, `"kind":"normalized"`) {
			folds++
		}
		if strings.Contains(got, "not_searched") {
			t.Errorf("%s: a diagnosis cut, though each is linear: %s", a.ID, got)
		}
	}
	// Each is a case fold of its text, a linear diagnosis, always completed
	// (spec §5.8): every one is found so, in the batch as alone.
	if folds != near {
		t.Errorf("%d of %d upper-cased quotes found as a fold of their text", folds, near)
	}
}
