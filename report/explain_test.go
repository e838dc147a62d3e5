package report

import (
	"path/filepath"
	"testing"

	"github.com/citecheck/citecheck"
	"github.com/citecheck/citecheck/internal/testkit"
)

const (
	curly  = "She said “the results are final” and left. It’s late—too late."
	pdf    = "The ﬁrst ﬂoor of the\nbuilding was extra\u00adordinary, we were told\r\nby the architect."
	launch = "Launch day 🚀🚀 went well. The rocket reached orbit at 10:42."
)

var explainCases = []struct{ name, body string }{
	{"explain-every-kind", body([]testkit.Source{testkit.NewSource("doc", "v1", curly), testkit.NewSource("pdf", "v1", pdf), testkit.NewSource("launch", "v1", launch), testkit.NewSource("bananas", "v1", "xa1-ana-xa2-ana-ya3")},
		pos("ok", 4, 8, "said"),
		pos("curly", 9, 32, `"the results are final"`),
		anchor("dash", "It's late-too late."),
		testkit.PositionCitation("js-offsets", "launch", "v1", 31, 43, "rocket reach"),
		testkit.QuoteCitation("pdf", "pdf", "v1", "first floor of the building was extraordinary"),
		testkit.QuoteCitation("elided", "pdf", "v1", "we were told … by the architect"),
		testkit.QuoteCitation("elided-retyped", "doc", "v1", "she said … IT'S LATE"),
		testkit.QuoteCitation("ambiguous", "bananas", "v1", "ana"),
		testkit.QuoteCitation("picked", "bananas", "v1", "ana").WithClaimedStart(12),
		anchor("misplaced", "and left").WithClaimedStart(30),
		anchor("fabricated", "the results left and are final"),
		testkit.QuoteCitation("unknown", "book", "v1", "a"))},
	{"explain-valid", body(doc(alphabet), pos("c1", 4, 7, "efg"))},
}

// TestExplainGolden compares every explained report with
// testdata/explain/NAME.golden (NAME.color.golden with colour).
func TestExplainGolden(t *testing.T) {
	for _, c := range explainCases {
		for _, color := range []bool{false, true} {
			name := c.name
			if color {
				name += ".color"
			}
			t.Run(name, func(t *testing.T) {
				req, e := citecheck.Decode([]byte(c.body))
				if e != nil {
					t.Fatal(e)
				}
				golden(t, filepath.Join("testdata", "explain", name+".golden"), AppendExplanation(nil, req, citecheck.Explain(req), Options{Color: color}))
			})
		}
	}
}
