package annotation

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/citecheck/citecheck"
	"github.com/citecheck/citecheck/internal/testkit"
	"github.com/citecheck/citecheck/report"
)

var update = flag.Bool("update", false, "rewrite testdata/html/*.golden from the current output")

// htmlText has an astral character first, so that code points and UTF-16
// code units differ; no "z" in it.
const htmlText = "🌿 the tide turns on the mudflats; the tide turns again. It’s late. The old pier is where nets are mended."

// htmlItems streams input through a checker of sources and returns the
// page's items and the JSON lines, as the command writes them.
func htmlItems(t *testing.T, sources []Source, input string) ([]report.Item, []string) {
	t.Helper()
	c, err := NewChecker(sources, citecheck.DefaultLimits())
	if err != nil {
		t.Fatal(err)
	}
	h := c.HTMLItems()
	var items []report.Item
	var lines []string
	err = c.Stream(context.Background(), NewScanner(strings.NewReader(input)), func(it Item, r *Report) error {
		items = h.Append(items, it, r)
		lines = append(lines, string(AppendJSONLine(nil, it, r)))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return items, lines
}

func passageWords(ps []report.Passage) []string {
	var out []string
	for _, p := range ps {
		s := fmt.Sprintf("%s [%d,%d)", p.Label, p.Start, p.End)
		if p.Compare {
			s += " compared"
		}
		out = append(out, s)
	}
	return out
}

// Each outcome shows the places of the source the report points at: where
// the quote anchors; where a moved one stands and where its positions
// pointed (compared); every match of an ambiguous one; the nearest
// reading of an orphaned one; none for what was not checked.
func TestHTMLItemPassagesFollowTheOutcome(t *testing.T) {
	pier := cp(htmlText, "old pier", 0)
	tide0, tide1 := cp(htmlText, "the tide turns", 0), cp(htmlText, "the tide turns", 1)
	late := cp(htmlText, "It’s late", 0)
	cases := []struct {
		name, input, outcome string
		passages             []string
		fix                  bool
	}{
		{"anchored with a position: the match", hyp("a", quoteSel("old pier", "The ", ""), posSel(pier, pier+8)), "anchored",
			[]string{fmt.Sprintf("match [%d,%d)", pier, pier+8)}, false},
		{"anchored quote: where its anchor stands", hyp("a", quoteSel("the tide turns", "", " again")), "anchored",
			[]string{fmt.Sprintf("match [%d,%d)", tide1, tide1+14)}, false},
		{"moved: the match, and the stored position compared", hyp("a", quoteSel("old pier", "", ""), posSel(pier+1, pier+9)), "moved",
			[]string{fmt.Sprintf("match [%d,%d)", pier, pier+8), fmt.Sprintf("stored position [%d,%d) compared", pier+1, pier+9)}, true},
		{"moved in UTF-16: the match, and the stored position", hyp("a", quoteSel("old pier", "", ""), posSel(u16(htmlText, "old pier", 0), u16(htmlText, "old pier", 0)+8)), "moved",
			[]string{fmt.Sprintf("match [%d,%d)", pier, pier+8), fmt.Sprintf("stored position [%d,%d) compared", pier+1, pier+9)}, true},
		{"ambiguous: every match", hyp("a", quoteSel("the tide turns", "", "")), "ambiguous",
			[]string{fmt.Sprintf("match [%d,%d)", tide0, tide0+14), fmt.Sprintf("match [%d,%d)", tide1, tide1+14)}, false},
		{"orphaned, exact changed: the nearest reading compared", hyp("a", quoteSel("It's late", "", "")), "orphaned",
			[]string{fmt.Sprintf("nearest reading [%d,%d) compared", late, late+9)}, false},
		{"orphaned, exact changed: the reading cut to exact", hyp("a", quoteSel("It's late", "again. ", ".")), "orphaned",
			[]string{fmt.Sprintf("nearest reading [%d,%d) compared", late, late+9)}, false},
		{"orphaned, exact gone: its leading part carried on", hyp("a", quoteSel("old piers gone", "", "")), "orphaned",
			[]string{fmt.Sprintf("nearest reading [%d,%d) compared", pier, pier+14)}, false},
		{"orphaned, not even a character: none", hyp("a", quoteSel("zzz", "", "")), "orphaned", nil, false},
		{"orphaned, prefix changed: the exact where it stands", hyp("a", quoteSel("old pier", "A new ", "")), "orphaned",
			[]string{fmt.Sprintf("match [%d,%d)", pier, pier+8)}, false},
		{"unchecked: none", hyp("a", rangeSel), "unchecked", nil, false},
		{"no_source: none", `{"id":"a","target":{"source":"https://example.org/other","selector":` + quoteSel("pier", "", "") + `}}`, "no_source", nil, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			items, _ := htmlItems(t, []Source{{IRI: iri, Text: htmlText}}, c.input)
			if len(items) != 1 {
				t.Fatalf("%d items", len(items))
			}
			it := items[0]
			if it.Outcome != c.outcome || it.ID != "a0" {
				t.Errorf("%s outcome %q, want %q", it.ID, it.Outcome, c.outcome)
			}
			if got := passageWords(it.Passages); !slices.Equal(got, c.passages) {
				t.Errorf("passages\n%q\nwant\n%q", got, c.passages)
			}
			if (it.Fix != "") != c.fix {
				t.Errorf("fix %q, want one: %v", it.Fix, c.fix)
			}
			if it.Why == "" || !strings.HasPrefix(it.Head, `annotation 0 "a"`) {
				t.Errorf("head %q why %q", it.Head, it.Why)
			}
		})
	}
}

// mixedInput holds one annotation of every outcome and two error items.
const mixedInput = `[` +
	`{"id":"ok","target":{"source":"` + iri + `","selector":{"type":"TextQuoteSelector","exact":"old pier"}}},` +
	`{"id":"amb","target":{"source":"` + iri + `","selector":{"type":"TextQuoteSelector","exact":"the tide turns"}}},` +
	`{"id":"bad","target":9},` +
	`{"id":"gone","target":{"source":"` + iri + `","selector":{"type":"TextQuoteSelector","exact":"It's late"}}},` +
	`{"id":"moved","target":{"source":"` + iri + `","selector":[{"type":"TextQuoteSelector","exact":"old pier"},{"type":"TextPositionSelector","start":3,"end":11}]}},` +
	`{"id":"note","target":"` + iri + `"},` +
	`{"id":"unread","target":{"source":"https://example.org/unread","selector":{"type":"TextQuoteSelector","exact":"x"}}},` +
	`{"id":"elsewhere","target":{"source":"https://example.org/other","selector":{"type":"TextQuoteSelector","exact":"x"}}}` +
	`]`

var mixedSources = []Source{{IRI: iri, Text: htmlText}, {IRI: "https://example.org/unread", Err: &citecheck.Error{Code: "invalid_input", Message: "no such file"}}}

// The items are the JSON lines, in their order, each with the line's
// outcome ("error" for an error item, with its message).
func TestHTMLItemsAreTheJSONLinesInOrder(t *testing.T) {
	items, lines := htmlItems(t, mixedSources, mixedInput)
	if len(items) != len(lines) {
		t.Fatalf("%d items for %d lines", len(items), len(lines))
	}
	for i, l := range lines {
		var line struct {
			Outcome string `json:"outcome"`
			Error   *struct {
				Message string `json:"message"`
			} `json:"error"`
		}
		if err := json.Unmarshal([]byte(l), &line); err != nil {
			t.Fatal(err)
		}
		it := items[i]
		if it.Outcome != line.Outcome || it.ID != fmt.Sprintf("a%d", i) {
			t.Errorf("item %d: %s %q, the line says %q", i, it.ID, it.Outcome, line.Outcome)
		}
		if line.Error != nil && (it.Error != line.Error.Message || it.Outcome != "error") {
			t.Errorf("item %d: error %q, the line says %q", i, it.Error, line.Error.Message)
		}
		if line.Error == nil && it.Error != "" {
			t.Errorf("item %d: error %q on a line without one", i, it.Error)
		}
	}
	want := []string{"anchored", "ambiguous", "error", "orphaned", "moved", "unchecked", "error", "no_source"}
	var got []string
	for _, it := range items {
		got = append(got, it.Outcome)
	}
	if !slices.Equal(got, want) {
		t.Errorf("outcomes %q, want %q", got, want)
	}
}

// The summary counts the closed enum of outcomes, in order, then "error";
// only anchored is a pass.
func TestHTMLOutcomesAreTheEnumAndError(t *testing.T) {
	want := []report.Outcome{{Name: "anchored", Tone: report.TonePass}, {Name: "moved", Tone: report.ToneNear},
		{Name: "ambiguous", Tone: report.ToneNear}, {Name: "orphaned", Tone: report.ToneFail},
		{Name: "unchecked", Tone: report.ToneNotChecked}, {Name: "no_source", Tone: report.ToneNotChecked},
		{Name: "error", Tone: report.ToneNotChecked}}
	if got := HTMLOutcomes(); !slices.Equal(got, want) {
		t.Errorf("%q, want %q", got, want)
	}
}

// What the input brings is escaped in the head and the words as the text
// report escapes it: an id cannot forge a line or reorder the page's text.
func TestHTMLItemHeadEscapesWhatTheInputBrings(t *testing.T) {
	input := `{"id":"\u202eevil\n","target":{"source":"` + iri + `","selector":{"type":"TextQuoteSelector","exact":"gone"}}}`
	items, _ := htmlItems(t, []Source{{IRI: iri, Text: htmlText}}, input)
	if h := items[0].Head; strings.ContainsAny(h, "\u202e\n") || !strings.Contains(h, `\u202eevil\n`) {
		t.Errorf("head %q", h)
	}
}

// The HTML of a small export: every outcome and error items
// (testdata/html/annotations-mixed.html).
func TestHTMLGolden(t *testing.T) {
	items, _ := htmlItems(t, mixedSources, mixedInput)
	// Without the style sheet, script and hash every page shares (report's
	// golden pages hold them).
	got := testkit.WithoutPageOwnParts(report.AppendHTML(nil, &report.Page{Title: "citecheck annotations: mixed.json", Kind: "annotations", Items: items, Outcomes: HTMLOutcomes()}))
	path := filepath.Join("testdata", "html", "annotations-mixed.html")
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs (go test -run TestHTMLGolden -update rewrites it)", path)
	}
}
