package annotation

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/citecheck/citecheck"
)

// Repairs are right for every combination of selectors: each target with
// a repair re-checks as anchored once the rewrite is read back, every
// position selector of it holds the repaired numbers, and the targets
// repaired are exactly those expected.
func TestRepairIsRightForEverySelectorCombination(t *testing.T) {
	text := "🌿 notes 🌊 at dawn the tide turns; at noon the tide turns again. The old pier 🐟 stands."
	pier := cp(text, "old pier", 0)
	pierU := u16(text, "old pier", 0)
	tide1 := cp(text, "the tide turns", 1)
	tide1U := u16(text, "the tide turns", 1)
	pierQ := quoteSel("old pier", "", "")
	target := func(sels ...string) string {
		return `{"source":"` + iri + `","selector":[` + strings.Join(sels, ",") + `]}`
	}
	ann := func(targets ...string) string { return `{"id":"a","target":[` + strings.Join(targets, ",") + `]}` }
	refined := func(sel, by string) string { return strings.TrimSuffix(sel, "}") + `,"refinedBy":` + by + `}` }
	for _, c := range []struct {
		name, input string
		want        map[int]int // target -> repaired start
	}{
		{"repair/two position selectors, both in UTF-16 units",
			ann(target(posSel(pierU, pierU+8), posSel(pierU, pierU+8), pierQ)), map[int]int{0: pier}},
		{"repair/two position selectors that disagree, one right",
			ann(target(posSel(pier, pier+8), posSel(pierU, pierU+8), pierQ)), map[int]int{0: pier}},
		{"repair/two position selectors that disagree, neither right",
			ann(target(posSel(3, 11), posSel(pierU, pierU+8), pierQ)), map[int]int{0: pier}},
		{"repair/the quote first, then the positions",
			ann(target(pierQ, posSel(pierU, pierU+8), posSel(pierU, pierU+8))), map[int]int{0: pier}},
		{"repair/the same start, ends that disagree",
			ann(target(posSel(pier, pier+8), posSel(pier, pier+3), pierQ)), map[int]int{0: pier}},
		{"repair/a position selector refined by a quote selector",
			ann(target(refined(posSel(pierU, pierU+8), quoteSel("pier", "", "")), pierQ)), map[int]int{0: pier}},
		{"repair/a quote selector refined by a position selector",
			ann(target(posSel(pierU, pierU+8), refined(pierQ, posSel(0, 3)))), map[int]int{0: pier}},
		{"repair/a refinedBy chain under the position",
			ann(target(refined(posSel(pierU, pierU+8), refined(quoteSel("pier", "", ""), refined(posSel(0, 1), `{"type":"XPathSelector","value":"/p"}`))), pierQ)), map[int]int{0: pier}},
		{"repair/several targets: only those that moved",
			ann(target(posSel(pier, pier+8), pierQ), target(posSel(pierU, pierU+8), pierQ), target(posSel(tide1U, tide1U+14), quoteSel("the tide turns", "", ""))),
			map[int]int{1: pier, 2: tide1}},
		{"repair/an ambiguous quote, two positions, one names the whole anchor",
			ann(target(posSel(3, 17), posSel(tide1, tide1+14), quoteSel("the tide turns", "", ""))), map[int]int{0: tide1}},
		{"repair/an ambiguous quote, the same UTF-16 position twice",
			ann(target(posSel(tide1U, tide1U+14), posSel(tide1U, tide1U+14), quoteSel("the tide turns", "", ""))), map[int]int{0: tide1}},
		{"repair/an ambiguous quote, positions that name neither match",
			ann(target(posSel(3, 17), posSel(4, 18), quoteSel("the tide turns", "", ""))), nil},
		{"repair/a quote without a position gets one",
			ann(target(pierQ)), map[int]int{0: pier}},
		{"repair/a single selector, not a list",
			`{"id":"a","target":{"source":"` + iri + `","selector":` + pierQ + `}}`, map[int]int{0: pier}},
		{"repair/several quotes: none",
			ann(target(posSel(pierU, pierU+8), pierQ, quoteSel("pier", "", ""))), nil},
		{"repair/anchored already: none",
			ann(target(posSel(pier, pier+8), posSel(pier, pier+8), pierQ)), nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := check(t, text, c.input, true)[0]
			repairs, _ := r.Repairs()
			got := map[int]int{}
			for _, rp := range repairs {
				got[rp.Target] = rp.Start
			}
			if fmt.Sprint(got) != fmt.Sprint(map[int]int(c.want)) && !(len(got) == 0 && len(c.want) == 0) {
				t.Fatalf("repairs %v, want %v", got, c.want)
			}
			if len(repairs) == 0 {
				return
			}
			items, _ := scanAll(t, c.input)
			fixed, err := items[0].Annotation.RewriteChecked(repairs)
			if err != nil {
				t.Fatal(err)
			}
			again := check(t, text, string(fixed), false)[0]
			for _, rp := range repairs {
				if o := again.Targets[rp.Target].Outcome; o != Anchored {
					t.Errorf("target %d re-checks %s after the rewrite:\n%s", rp.Target, o, fixed)
				}
				for _, s := range again.Annotation.Targets[rp.Target].Selectors {
					if s.Type == TextPosition && (s.Start != rp.Start || s.End != rp.End) {
						t.Errorf("a position selector reads %d-%d after the repair to %d-%d", s.Start, s.End, rp.Start, rp.End)
					}
				}
			}
			if again.Outcome != Anchored {
				t.Errorf("the repaired annotation re-checks %s", again.Outcome)
			}
		})
	}
}

// A repair that would not anchor in place is withdrawn, not given (nor
// written): the re-check is fed a wrong repair, and a right one.
func TestRepairThatWouldNotAnchorIsNotGiven(t *testing.T) {
	text := "the old pier stands"
	items, _ := scanAll(t, hyp("a", posSel(0, 3), quoteSel("old pier", "", "")))
	c, _ := NewChecker([]Source{{IRI: iri, Text: text}}, citecheck.DefaultLimits())
	a := items[0].Annotation
	r := &TargetReport{Repair: &Repair{Start: 1, End: 9}} // not where "old pier" is
	p := c.plan(&a.Targets[0], r, false)
	c.recheck(context.Background(), []*plan{p})
	if r.Repair != nil || r.Rejected == nil || r.Rejected.Start != 1 {
		t.Errorf("a wrong repair was kept: repair %+v, rejected %+v", r.Repair, r.Rejected)
	}
	ok := &TargetReport{Repair: &Repair{Start: 4, End: 12}}
	c.recheck(context.Background(), []*plan{c.plan(&a.Targets[0], ok, false)})
	if ok.Repair == nil {
		t.Errorf("a right repair was withdrawn")
	}
}
