package report

import (
	"path/filepath"
	"testing"

	"github.com/citecheck/citecheck"
)

const (
	curly  = "She said “the results are final” and left. It’s late—too late."
	pdf    = "The ﬁrst ﬂoor of the\nbuilding was extra\u00adordinary, we were told\r\nby the architect."
	launch = "Launch day 🚀🚀 went well. The rocket reached orbit at 10:42."
)

var explainCases = []struct{ name, body string }{
	{"explain-every-kind", body([][3]string{{"doc", "v1", curly}, {"pdf", "v1", pdf}, {"launch", "v1", launch}, {"bananas", "v1", "xa1-ana-xa2-ana-ya3"}},
		pos("ok", 4, 8, "said"),
		pos("curly", 9, 32, `"the results are final"`),
		anchor("dash", "It's late-too late.", "", "", -1),
		`{"citation_id":"js-offsets","source_id":"launch","version":"v1","selector":{"type":"TextPositionSelector","start":31,"end":43},"quote":"rocket reach"}`,
		`{"citation_id":"pdf","source_id":"pdf","version":"v1","selector":{"type":"TextQuoteSelector","exact":"first floor of the building was extraordinary"}}`,
		`{"citation_id":"elided","source_id":"pdf","version":"v1","selector":{"type":"TextQuoteSelector","exact":"we were told … by the architect"}}`,
		`{"citation_id":"ambiguous","source_id":"bananas","version":"v1","selector":{"type":"TextQuoteSelector","exact":"ana"}}`,
		`{"citation_id":"picked","source_id":"bananas","version":"v1","selector":{"type":"TextQuoteSelector","exact":"ana"},"claimed_start":12}`,
		anchor("misplaced", "and left", "", "", 30),
		anchor("fabricated", "the results left and are final", "", "", -1),
		`{"citation_id":"unknown","source_id":"book","version":"v1","selector":{"type":"TextQuoteSelector","exact":"a"}}`)},
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
