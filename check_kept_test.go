package citecheck

import (
	"fmt"
	"strings"
	"testing"

	"github.com/citecheck/citecheck/internal/testkit"
)

// checkQuote checks prefix and suffix in place when exact has at most
// keptOccurrences occurrences and rescans otherwise; both ways must give the
// reference's answer, on either side of the boundary and for every stage.
func TestQuoteStagesAgreeWhetherOccurrencesAreKeptOrRescanned(t *testing.T) {
	t.Parallel()
	for _, occ := range []int{1, 2, keptOccurrences - 1, keptOccurrences, keptOccurrences + 1, 3 * keptOccurrences} {
		// "xaby" repeated: exact "ab" occurs occ times (plus one in the
		// odd tail), prefix "x" fits all, "zx" only the tagged one.
		var b strings.Builder
		for i := range occ {
			if i == occ/2 {
				b.WriteString("zxabyw")
				continue
			}
			b.WriteString("xaby")
		}
		b.WriteString("😀ab")
		text := b.String()
		for _, c := range []struct{ prefix, suffix string }{
			{"x", ""}, {"x", "y"}, {"zx", ""}, {"zx", "yw"}, {"", "yw"}, {"q", ""}, {"x", "q"}, {"😀", ""}, {"", "y"},
		} {
			for _, claimed := range []*int{nil, ptr(0), ptr(4*(occ/2) + 2)} {
				name := fmt.Sprintf("%d occurrences/prefix %q suffix %q", occ, c.prefix, c.suffix)
				t.Run(name, func(t *testing.T) {
					exact := "ab"
					cit := testkit.Citation{CitationID: "q", SourceID: "s", Version: "v", ClaimedStart: claimed,
						Selector: testkit.Selector{Type: "TextQuoteSelector", Exact: &exact, Prefix: &c.prefix, Suffix: &c.suffix}}
					runChecked(t, &testkit.Request{Sources: []testkit.Source{testkit.NewSource("s", "v", text)}, Citations: []testkit.Citation{cit}})
				})
			}
		}
	}
}
