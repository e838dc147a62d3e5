package annotation

import (
	"testing"

	"github.com/go-json-experiment/json/jsontext"
)

// Rewrite changes the start and end literals of the repaired targets'
// position selectors, or adds one; every other byte stays.
func TestRewrite(t *testing.T) {
	for _, c := range []struct {
		name, input string
		repairs     []Repair
		want        string
	}{
		{"rewrite/the numbers of a position selector, wherever its members stand",
			`{"target":[{"selector":[ {"end" : 9,"type":"TextPositionSelector","start":  1.0e0 },{"type":"TextQuoteSelector","exact":"x"}],"source":"s"}],"id":"a"}`,
			[]Repair{{Target: 0, Start: 12, End: 13}},
			`{"target":[{"selector":[ {"end" : 13,"type":"TextPositionSelector","start":  12 },{"type":"TextQuoteSelector","exact":"x"}],"source":"s"}],"id":"a"}`},
		{"rewrite/a position added to a selector list",
			`{"id":"a","target":{"source":"s","selector":[{"type":"TextQuoteSelector","exact":"x"} ]}}`,
			[]Repair{{Target: 0, Start: 3, End: 4}},
			`{"id":"a","target":{"source":"s","selector":[{"type":"TextQuoteSelector","exact":"x"},{"type":"TextPositionSelector","start":3,"end":4} ]}}`},
		{"rewrite/a position added to an empty selector list",
			`{"target":{"source":"s","selector":[ ]}}`, []Repair{{Target: 0, Start: 3, End: 4}},
			`{"target":{"source":"s","selector":[ {"type":"TextPositionSelector","start":3,"end":4}]}}`},
		{"rewrite/a single selector becomes a list of two",
			`{"id":"a","target":{"source":"s","selector": {"type":"TextQuoteSelector","exact":"}{\"","prefix":"{"} }}`,
			[]Repair{{Target: 0, Start: 3, End: 6}},
			`{"id":"a","target":{"source":"s","selector": [{"type":"TextQuoteSelector","exact":"}{\"","prefix":"{"},{"type":"TextPositionSelector","start":3,"end":6}] }}`},
		{"rewrite/only the repaired target of several",
			`{"target":[{"source":"s","selector":{"type":"TextPositionSelector","start":1,"end":2}},{"source":"t","selector":{"type":"TextPositionSelector","start":1,"end":2}}]}`,
			[]Repair{{Target: 1, Start: 7, End: 8}},
			`{"target":[{"source":"s","selector":{"type":"TextPositionSelector","start":1,"end":2}},{"source":"t","selector":{"type":"TextPositionSelector","start":7,"end":8}}]}`},
		{"rewrite/a selector given by reference becomes a list with a position",
			`{"target":{"source":"s","selector":"http://example.org/sel1"}}`, []Repair{{Target: 0, Start: 1, End: 2}},
			`{"target":{"source":"s","selector":["http://example.org/sel1",{"type":"TextPositionSelector","start":1,"end":2}]}}`},
		{"rewrite/no repair, no change", annB, nil, annB},
	} {
		t.Run(c.name, func(t *testing.T) {
			items, err := scanAll(t, c.input)
			if err != nil || items[0].Err != nil {
				t.Fatalf("%v %v", err, items[0].Err)
			}
			got := string(items[0].Annotation.Rewrite(c.repairs))
			if got != c.want {
				t.Errorf("got  %s\nwant %s", got, c.want)
			}
			if !jsontext.Value(got).IsValid() {
				t.Errorf("not valid JSON: %s", got)
			}
		})
	}
}
