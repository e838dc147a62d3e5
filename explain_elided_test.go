package citecheck

import (
	"slices"
	"strings"
	"testing"

	"golang.org/x/text/unicode/norm"
)

// elidedSource is a passage of the French Declaration of 1789, as a
// source has it: typographic apostrophes, guillemets, NFC.
const elidedSource = "Article premier\nLes hommes naissent et demeurent libres et égaux en droits. " +
	"Les distinctions sociales ne peuvent être fondées que sur l’utilité commune.\n\n" +
	"Article 4\nLa liberté consiste à pouvoir faire tout ce qui ne nuit pas à autrui : ainsi, " +
	"l’exercice des droits naturels de chaque homme n’a de bornes que celles qui assurent aux autres\n" +
	"Membres de la société la jouissance de ces mêmes droits.\n\n" +
	"Article 6\nL’article dit « la loi est l’expression de la volonté générale » et le reste."

// TestExplainElidedPassagesAreSearchedUnderFolds: the passages of an
// elided claim that do not all occur exactly are looked for under the
// folds, in order, each from where the one before ended, and found as
// people retype them (case, a lowercased first letter after a leading
// ellipsis, white space, quotation marks, NFD, "..." for "…"), the
// finding naming the minimal folds under which every passage reads as
// its part of the source (spec §5.8). A fabricated elision, its passages
// out of order or one absent under every fold, gets none.
func TestExplainElidedPassagesAreSearchedUnderFolds(t *testing.T) {
	tests := []struct {
		name  string
		claim string
		folds []string // nil: no elided finding
		parts []string // what the source has at each part
	}{
		{"a lowercased first letter", "la liberté consiste … nuit pas à autrui",
			[]string{"case"}, []string{"La liberté consiste", "nuit pas à autrui"}},
		{"a leading ellipsis before a lowercased letter", "…les hommes naissent et demeurent libres",
			[]string{"case"}, []string{"Les hommes naissent et demeurent libres"}},
		{"a middle ASCII ellipsis", "les hommes naissent ... en droits",
			[]string{"case"}, []string{"Les hommes naissent", "en droits"}},
		{"a bracketed ellipsis in capitals", "LES HOMMES NAISSENT [...] EN DROITS",
			[]string{"case"}, []string{"Les hommes naissent", "en droits"}},
		{"a double space", "Les hommes  naissent … en droits",
			[]string{"whitespace"}, []string{"Les hommes naissent", "en droits"}},
		{"a line break read as a space", "La liberté consiste … assurent aux autres Membres",
			[]string{"whitespace"}, []string{"La liberté consiste", "assurent aux autres\nMembres"}},
		{"ASCII apostrophes", "l'utilité commune … La liberté",
			[]string{"typography"}, []string{"l’utilité commune", "La liberté"}},
		{"English quotation marks for guillemets", "dit “ la loi est … volonté générale ”",
			[]string{"typography"}, []string{"dit « la loi est", "volonté générale »"}},
		{"NFD", norm.NFD.String("La liberté consiste … chaque homme n’a"),
			[]string{"nfc"}, []string{"La liberté consiste", "chaque homme n’a"}},
		{"white space and case", "la liberté  consiste … NUIT pas",
			[]string{"whitespace", "case"}, []string{"La liberté consiste", "nuit pas"}},
		{"one passage exact, one under a fold", "Les hommes naissent … l'utilité commune",
			[]string{"typography"}, []string{"Les hommes naissent", "l’utilité commune"}},
		{"passages found exactly need no fold", "La liberté consiste … nuit pas à autrui",
			[]string{}, []string{"La liberté consiste", "nuit pas à autrui"}},
		{"passages out of order", "nuit pas à autrui … la liberté consiste", nil, nil},
		{"a passage absent under every fold", "la liberté consiste … nuit pas à Paris", nil, nil},
		{"a passage that differs by an accent", "la liberte consiste … nuit pas", nil, nil},
		{"the passages of two articles swapped", "la liberté consiste … les hommes naissent", nil, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, ex := explainOne(t, elidedSource, Q(tc.claim).JSON())
			var el *Finding
			for i, f := range ex.Citations[0].Findings {
				if f.Kind == FindingElided {
					el = &ex.Citations[0].Findings[i]
				}
				if f.NotSearched != nil {
					t.Fatalf("not searched: %v", f.NotSearched)
				}
			}
			if tc.folds == nil {
				if el != nil {
					t.Fatalf("a fabricated elision is found: %+v", *el)
				}
				return
			}
			if el == nil {
				t.Fatalf("no elided finding: %s", findingsJSON(ex.Citations[0]))
			}
			if got := el.Folds.Names(); !slices.Equal(got, tc.folds) {
				t.Errorf("folds %v, want %v", got, tc.folds)
			}
			rs := []rune(elidedSource)
			var got []string
			for _, p := range el.Parts {
				got = append(got, string(rs[p.Start:p.End]))
			}
			if !slices.Equal(got, tc.parts) {
				t.Errorf("parts read %q, want %q", got, tc.parts)
			}
			if want := string(rs[el.Parts[0].Start:el.Parts[len(el.Parts)-1].End]); el.SourceText != want || el.Start != el.Parts[0].Start {
				t.Errorf("source_text %q at %d, want %q", el.SourceText, el.Start, want)
			}
			// The JSON names the folds when there are any, as normalized does.
			js := string(el.AppendJSON(nil))
			if want := `"folds":["` + strings.Join(tc.folds, `","`) + `"]`; len(tc.folds) > 0 != strings.Contains(js, want) || strings.Contains(js, `"folds":[]`) {
				t.Errorf("JSON %s, folds %v", js, tc.folds)
			}
			if ex.Citations[0].Fix != nil {
				t.Errorf("an elided claim gets a fix: %s", fixJSON(ex.Citations[0]))
			}
		})
	}
}

// TestExplainPositionsOfAnyIntAreCompared: a Request built by hand (Decode
// bounds every integer to ±2^53) may hold selector numbers and a
// claimed_start near the int's ends, or negative; checking reads a
// negative start as out of range, explaining compares the numbers with
// the text rather than adding to them, so nothing overflows, and the
// findings are the quote's occurrences.
func TestExplainPositionsOfAnyIntAreCompared(t *testing.T) {
	const big, small = 1<<63 - 1, -1 << 63
	for _, se := range [][2]int{{big, big}, {big - 5, 3}, {3, big - 1}, {2, small}, {2, small + 2}, {big, small}, {-3, 2}, {small, 7}, {-1, -1}} {
		req := &Request{Sources: []Source{{SourceID: "s", Version: "1", Text: "abc déf abc"}},
			Citations: []Citation{
				{CitationID: "p", SourceID: "s", Version: "1", Quote: "déf", Selector: Selector{Type: PositionSelector, Start: se[0], End: se[1]}},
				{CitationID: "q", SourceID: "s", Version: "1", ClaimedStart: se[0], HasClaimedStart: true, Selector: Selector{Type: QuoteSelector, Exact: "abc"}}}}
		ex := Explain(req)
		if got := findingsJSON(ex.Citations[0]) + " " + fixJSON(ex.Citations[0]); got != `{"kind":"elsewhere","start":4,"end":7,"occurrences":1} `+
			`{"citation_id":"p","source_id":"s","version":"1","selector":{"type":"TextPositionSelector","start":4,"end":7},"quote":"déf"}` {
			t.Errorf("%v: %s", se, got)
		}
		if ex.All.Citations[1].Reason != ReasonAmbiguousAnchor || ex.Citations[1].Fix != nil {
			t.Errorf("%v: claimed_start: %s %s", se, ex.All.Citations[1].Reason, fixJSON(ex.Citations[1]))
		}
	}
}
